"""``pdlint check --add-noqa``: a ``# noqa: CODE`` comment on each finding's line, as
ruff writes it, edited with libcst so that every other byte of the file stays as it was.

The comment goes on the line :func:`~pdlint.policy.selection.comment_line` names (the
finding's own line, or the last line of a string spanning lines or of lines joined
by backslashes, where a comment can go); codes merge into a ``# noqa: CODES`` there,
sorted, and a bare ``# noqa`` (which already suppresses everything) is left alone.
libcst is needed only here (the ``check`` command imports this module for the flag).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

import libcst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from pdlint.findings import Finding
from pdlint.policy.noqa import NOQA_RE, comment_lines, noqa_codes
from pdlint.policy.selection import UNUSED_NOQA
from pdlint.source.read import decode_source, split_lines

# codes that a noqa comment is not written for: the unused-noqa rule itself (the
# comment is what it reports), as ruff never adds RUF100
NOT_ADDED = frozenset({UNUSED_NOQA})


def merged_comment(comment: str | None, codes: Iterable[str]) -> str | None:
    """The trailing comment of a line once ``codes`` are in its noqa; None when it
    needs no change (a bare ``# noqa``, or every code already named)."""
    wanted = set(codes)
    if comment is None:
        return f"# noqa: {', '.join(sorted(wanted))}"
    match = NOQA_RE.search(comment)
    if match is None:
        return f"{comment.rstrip()}  # noqa: {', '.join(sorted(wanted))}"
    named = noqa_codes(comment)
    if not named or wanted <= set(named):
        return None
    listed = match.group("codes") or ""
    # the separators after the last code belong to the text that follows
    end = match.start("codes") + len(listed.rstrip(", \t\f\v"))
    merged = ", ".join(sorted(set(named) | wanted))
    return f"{comment[: match.start()]}# noqa: {merged}{comment[end:]}"


def add_noqa(findings: Iterable[Finding]) -> tuple[int, list[str]]:
    """Write a noqa comment for each finding into its file; the number of lines
    changed and warnings (files or lines that cannot take one)."""
    wanted: defaultdict[str, defaultdict[int, set[str]]] = defaultdict(lambda: defaultdict(set))
    for finding in findings:
        if finding.code not in NOT_ADDED and finding.location.path != "-":
            wanted[finding.location.path][finding.location.line].add(finding.code)
    added = 0
    warnings: list[str] = []
    for path, by_line in sorted(wanted.items()):
        count, problems = _add_to_file(Path(path), by_line)
        added += count
        warnings.extend(f"{path}: {problem}" for problem in problems)
    return added, warnings


def _add_to_file(path: Path, by_line: dict[int, set[str]]) -> tuple[int, list[str]]:
    """Add the noqa comments of one file (codes by the line they are reported on)."""
    try:
        data = path.read_bytes()
        lines = split_lines(decode_source(data))
        module = libcst.parse_module(data)
    except (OSError, SyntaxError, LookupError, UnicodeDecodeError) as exc:
        return 0, [f"no noqa comment added: cannot read the file ({exc})"]
    except libcst.ParserSyntaxError:
        return 0, ["no noqa comment added: libcst cannot parse the file"]
    if module.bytes != data:  # would not write back the same bytes: leave it
        return 0, ["no noqa comment added: libcst does not reproduce the file exactly"]
    moved = comment_lines(lines, max(by_line))
    codes: defaultdict[int, set[str]] = defaultdict(set)
    for line, found in by_line.items():
        codes[moved.get(line, line)] |= found
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    editor = _Editor(codes, wrapper.resolve(PositionProvider))
    edited = wrapper.module.visit(editor)
    problems = [
        f"{line}: no noqa comment added: the line cannot carry a comment"
        for line in sorted(codes.keys() - editor.seen)
    ]
    if editor.changed:
        path.write_bytes(edited.bytes)
    return editor.changed, problems


class _Editor(libcst.CSTTransformer):
    """Rewrites the trailing comment of the lines in ``codes`` (line -> codes to add)."""

    def __init__(
        self, codes: dict[int, set[str]], positions: Mapping[libcst.CSTNode, CodeRange]
    ) -> None:
        super().__init__()
        self.codes = codes
        self.positions = positions
        self.seen: set[int] = set()  # the lines whose trailing comment was met
        self.changed = 0

    def leave_TrailingWhitespace(  # noqa: N802 (libcst's name)
        self, original_node: libcst.TrailingWhitespace, updated_node: libcst.TrailingWhitespace
    ) -> libcst.TrailingWhitespace:
        line = self.positions[original_node].start.line
        if line not in self.codes or line in self.seen:
            return updated_node
        self.seen.add(line)
        before = updated_node.comment.value if updated_node.comment is not None else None
        comment = merged_comment(before, self.codes[line])
        if comment is None:
            return updated_node
        self.changed += 1
        whitespace = updated_node.whitespace
        if before is None:  # ruff's two spaces before a new comment
            whitespace = libcst.SimpleWhitespace("  ")
        return updated_node.with_changes(whitespace=whitespace, comment=libcst.Comment(comment))
