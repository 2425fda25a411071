"""``# noqa`` comments: what one names, which line's comment stands for a finding
(ruff's mapping), and the comments naming pdlint codes in a file (for PDL902)."""

from __future__ import annotations

import re
import tokenize
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from pdlint.source.read import decode_source, source_lines

# flake8's inline suppression comment, bare or with a colon and a list of codes.
NOQA_RE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.I)
_SPLIT_RE = re.compile(r"[,\s]+")
_MAYBE_NOQA = re.compile(rb"noqa", re.I)
_NO_CODE = frozenset((tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT))
_LINE_ENDS = frozenset((tokenize.NL, tokenize.NEWLINE))
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)  # Python 3.12 and later
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)


def noqa_codes(line: str) -> tuple[str, ...] | None:
    """Codes named by a ``# noqa`` comment on ``line``: () means all, None no noqa."""
    match = NOQA_RE.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return ()
    # Codes are case-sensitive, as in flake8: a lower-case "pdl101" after the
    # colon names no rule, so it suppresses nothing (nor is it a blanket noqa).
    return tuple(c for c in _SPLIT_RE.split(codes.strip()) if c)


def _tokens(lines: Iterable[str]) -> Iterator[tokenize.TokenInfo]:
    """The tokens of ``lines`` up to the first error (a file that does not parse).
    Each line is handed to the tokenizer as it reads it: a large file's text is not
    copied whole (a :class:`~pdlint.source.read.Lines` makes a line at a time)."""
    readline = (line + "\n" for line in lines).__next__  # StopIteration: the end
    try:
        yield from tokenize.generate_tokens(readline)
    except (tokenize.TokenError, SyntaxError):
        return


def comment_lines(lines: Sequence[str], upto: int | None = None) -> dict[int, int]:
    """Line -> the line whose ``# noqa`` stands for it, for the lines that cannot carry
    a comment of their own (ruff's noqa mapping): each line of a string spanning
    lines, and of lines joined by backslashes, maps to the last line of the whole.
    ``upto``: only lines up to this one are asked about (the file is read no further
    than the end of the line that holds it)."""
    spans: list[tuple[int, int]] = []
    opened: list[int] = []  # the first lines of the f-strings open
    previous: tokenize.TokenInfo | None = None
    for token in _tokens(lines):
        kind, (first, _), (last, _) = token.type, token.start, token.end
        if kind == tokenize.STRING and first != last:
            spans.append((first, last))
        elif kind == _FSTRING_START:
            opened.append(first)
        elif kind == _FSTRING_END and opened:
            start = opened.pop()
            if start != last:
                spans.append((start, last))
        if (
            previous is not None
            and kind not in _NO_CODE
            and kind != tokenize.ENDMARKER
            and previous.type not in _NO_CODE
            and first > previous.end[0]
        ):  # a line break with no NL or NEWLINE token: a backslash continuation
            spans.append((previous.end[0], first))
        previous = token
        if upto is not None and kind in _LINE_ENDS and first > upto:
            break  # every span holding a line up to ``upto`` has ended
    out: dict[int, int] = {}
    merged: list[list[int]] = []
    for first, last in sorted(spans):
        if merged and first <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    for first, last in merged:
        for line in range(first, last):
            out[line] = last
    return out


@dataclass(frozen=True)
class Directive:
    """A ``# noqa`` comment naming codes: where it is (1-based line and columns, in
    characters) and the codes it names."""

    line: int
    column: int
    end_column: int
    codes: tuple[str, ...]


def directives(data: bytes) -> tuple[Directive, ...]:
    """The ``# noqa: CODES`` comments of a file that name a pdlint code (comments only,
    not text in strings; none in a file that cannot be decoded)."""
    if _MAYBE_NOQA.search(data) is None or b"PDL" not in data:
        return ()
    try:
        text = decode_source(data)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return ()
    out: list[Directive] = []
    # lines as the parser numbers them (a lone carriage return ends one too)
    for token in _tokens(source_lines(text)):
        if token.type != tokenize.COMMENT:
            continue
        match = NOQA_RE.search(token.string)
        codes = noqa_codes(token.string)
        if match is None or not codes or not any(c.startswith("PDL") for c in codes):
            continue
        line, column = token.start
        out.append(Directive(line, column + match.start() + 1, column + match.end() + 1, codes))
    return tuple(out)
