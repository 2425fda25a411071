"""Decide which findings are reported: select/ignore, per-file ignores, ``# noqa``,
and the ``# noqa`` comments that suppress nothing (PDL902)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

from pdlint.checks.catalogue import RULES
from pdlint.findings import Finding, Location
from pdlint.policy.noqa import NOQA_RE, Directive, comment_lines, noqa_codes
from pdlint.settings.config import Settings
from pdlint.source.globs import path_matches, real_path

__all__ = [
    "DEFAULT_SELECT",
    "NOQA_RE",
    "apply_policy",
    "is_enabled",
    "is_suppressed",
    "noqa_codes",
]

DEFAULT_SELECT = "PDL"
UNUSED_NOQA = "PDL902"


def _longest_prefix(code: str, selectors: Iterable[str]) -> str | None:
    best = None
    for sel in selectors:
        if code.startswith(sel) and (best is None or len(sel) > len(best)):
            best = sel
    return best


def is_enabled(code: str, settings: Settings) -> bool:
    """Whether ``code`` is selected, with flake8's ``DecisionEngine`` semantics.

    Explicit selectors (``select``, ``extend-select``) and ``ignore`` compete by
    length, the more specific winning and ignore winning a tie, so
    ``--select PDL1 --ignore PDL101`` keeps PDL102. When ``select`` is not given,
    every code is selected only implicitly, and any matching ``ignore`` wins
    (``--ignore PD`` turns everything off, as in flake8).
    """
    explicit = _longest_prefix(code, (settings.select or ()) + settings.extend_select)
    implicit = settings.select is None and code.startswith(DEFAULT_SELECT)
    ignored = _longest_prefix(code, settings.ignore)
    if ignored is None:
        return explicit is not None or implicit
    return explicit is not None and len(explicit) > len(ignored)


def comment_line(line: int, lines: Sequence[str], moved: dict[int, int] | None = None) -> int:
    """The line whose ``# noqa`` stands for a finding on ``line``: the line itself, or,
    inside a string spanning lines or lines joined by backslashes, the last line of
    the whole (``moved``: :func:`~pdlint.policy.noqa.comment_lines` of ``lines``)."""
    return (comment_lines(lines) if moved is None else moved).get(line, line)


def is_suppressed(finding: Finding, lines: Sequence[str] | None) -> bool:
    """True if the finding's line carries a ``# noqa`` matching the code (prefix)."""
    return _suppressing(finding, lines, None) is not None


def _suppressing(
    finding: Finding, lines: Sequence[str] | None, moved: dict[int, int] | None
) -> tuple[int, tuple[str, ...]] | None:
    """The line of the ``# noqa`` that suppresses ``finding`` and its codes that match
    (() for a bare noqa); None when nothing suppresses it."""
    if not lines or finding.location.line > len(lines):
        return None
    line = comment_line(finding.location.line, lines, moved)
    codes = noqa_codes(lines[line - 1])
    if codes is None:
        return None
    if not codes:
        return line, ()
    matching = tuple(c for c in codes if finding.code.startswith(c))
    return (line, matching) if matching else None


def _ignored_in(code: str, path: str, settings: Settings) -> bool:
    """A per-file ignore covers ``code`` in the file ``path`` (as reported), its glob
    matched against the file's real path (globs are anchored to their folders)."""
    if not settings.per_file_ignores:
        return False
    real = real_path(path)
    return any(
        code.startswith(codes) and path_matches((glob,), real)
        for glob, codes in settings.per_file_ignores
    )


def apply_policy(
    findings: Iterable[Finding],
    settings: Settings,
    sources: Mapping[str, Sequence[str]],
    directives: Mapping[str, Iterable[Directive]] | None = None,
    judged: Collection[str] = (),
) -> list[Finding]:
    """Findings that survive selection, per-file ignores and noqa, sorted. A finding's
    path is relative to the current directory (or absolute), as reported; a per-file
    ignore's glob is anchored to its own folder (see :func:`path_matches`).

    ``directives``: the ``# noqa`` comments naming pdlint codes in every analysed
    file; each of their codes that suppressed nothing becomes a PDL902 finding,
    when the code is in ``judged`` (its check ran) and not ignored in that file.
    """
    kept = []
    used: set[tuple[str, int, str]] = set()  # (file, line, code) of each noqa that served
    moved: dict[str, dict[int, int]] = {}
    findings = list(findings)
    last: dict[str, int] = {}  # the last line reported in each file
    for finding in findings:
        loc = finding.location
        last[loc.path] = max(last.get(loc.path, 0), loc.line)
    for finding in findings:
        if not is_enabled(finding.code, settings):
            continue
        path = finding.location.path
        if _ignored_in(finding.code, path, settings):
            continue
        lines = sources.get(path)
        if lines and path not in moved:
            # a file with no noqa at all suppresses nothing, wherever its lines map
            noqa = any("noqa" in line.lower() for line in lines)
            moved[path] = comment_lines(lines, last[path]) if noqa else {}
        found = _suppressing(finding, lines, moved.get(path))
        if found is not None:
            line, codes = found
            used.update((path, line, code) for code in codes)
            continue
        kept.append(finding)
    if directives is not None and is_enabled(UNUSED_NOQA, settings):
        kept.extend(unused_noqa(directives, used, judged, settings))
    return sorted(set(kept), key=Finding.sort_key)


def unused_noqa(
    directives: Mapping[str, Iterable[Directive]],
    used: set[tuple[str, int, str]],
    judged: Collection[str],
    settings: Settings,
) -> list[Finding]:
    """A PDL902 for each ``# noqa`` naming pdlint codes that suppressed nothing (as
    ruff's RUF100): a code is judged only when every rule it names ran and is not
    ignored in that file; a code that names no rule is unknown. A comment that names
    PDL902 itself is never reported."""
    out = []
    for path, found in directives.items():
        if _ignored_in(UNUSED_NOQA, path, settings):
            continue
        for directive in found:
            if any(UNUSED_NOQA.startswith(code) for code in directive.codes):
                continue  # the comment silences its own PDL902
            unused: list[str] = []
            unknown: list[str] = []
            for code in dict.fromkeys(directive.codes):
                if not code.startswith(DEFAULT_SELECT) or (path, directive.line, code) in used:
                    continue
                named = [c for c in RULES if c.startswith(code)]
                if not named:
                    unknown.append(code)
                elif all(c in judged and not _ignored_in(c, path, settings) for c in named):
                    unused.append(code)
            if unused or unknown:
                out.append(_unused_finding(path, directive, unused, unknown))
    return out


def _unused_finding(
    path: str, directive: Directive, unused: list[str], unknown: list[str]
) -> Finding:
    parts = [
        f"{label}: {', '.join(f'`{c}`' for c in codes)}"
        for label, codes in (("unused", unused), ("unknown", unknown))
        if codes
    ]
    message = f"unused `noqa` directive ({'; '.join(parts)})"
    line = directive.line
    return Finding(
        UNUSED_NOQA,
        message,
        Location(path, line, directive.column, line, directive.end_column),
        key=(UNUSED_NOQA, path, *unused, *unknown),
    )
