"""The cheap text scan: what a file may define, read from its bytes without parsing.

A :class:`FileScan` over-approximates: a name it lists may be a false hit (in a
comment or a string), but a definition, class header or import alias that the
indexer would find is never missing from it. That is what lets the model load
only the files a query can concern (see :mod:`pdlint.program`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

_IDENT = rb"[A-Za-z_\x80-\xff][\w\x80-\xff]*"
_GAP = rb"(?:[ \t]|\\\r?\n)"  # blanks, or a backslash continuation
# Keywords are matched with a lookahead, so that a false hit ("dataclass",
# "alias") cannot consume the real keyword that follows it; hits preceded by
# an identifier character are then dropped (see ``_keyword_hits``).
_DEF_RE = re.compile(rb"def(?=" + _GAP + rb"+(" + _IDENT + rb"))")
_CLASS_RE = re.compile(rb"class(?=" + _GAP + rb"+(" + _IDENT + rb")(" + _GAP + rb"*\()?)")
# The ``import`` keyword; only an import statement gives a name an alias that the
# model follows (``except E as e`` and ``with x as y`` bind values, not names).
_IMPORT_RE = re.compile(rb"(?<![\w.])import(?=[ \t\\(])")
# ``as`` after a blank or a line break (three literal prefixes keep the search fast)
_AS_RES = tuple(
    re.compile(re.escape(lead) + rb"as(?=(?:[ \t\r\n]|\\\r?\n)+(" + _IDENT + rb"))")
    for lead in (b" ", b"\t", b"\n")
)
_WORD_RE = re.compile(_IDENT)
_IDENT_BYTES = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
) | frozenset(range(0x80, 0x100))
_SIMPLE_HEADER_RE = re.compile(rb"\(([^()#'\"]*)\)")
_MAX_HEADER = 20_000  # bytes; a longer class header is cut (and kept whole as words)

WordGroups = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class FileScan:
    """Names a file may define or bind, found by a text scan."""

    defs: frozenset[str]  # names after ``def`` and ``class``
    headers: tuple[tuple[str, frozenset[str]], ...]  # class name -> words in its bases
    aliases: tuple[tuple[str, str], ...]  # (name, alias) of each ``name as alias``
    groups: tuple[bool, ...]  # for each word group: does the text hold every word?


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _header_words(data: bytes, start: int) -> frozenset[str]:
    """Identifiers between the ``(`` at ``start`` and its matching ``)``."""
    simple = _SIMPLE_HEADER_RE.match(data, start)
    if simple is not None:
        return frozenset(_text(w) for w in _WORD_RE.findall(simple.group(1)))
    depth, i, end = 0, start, min(len(data), start + _MAX_HEADER)
    while i < end:
        ch = data[i]
        if ch in b"([{":
            depth += 1
        elif ch in b")]}":
            depth -= 1
            if depth == 0:
                break
        elif ch == 0x23:  # '#': a comment runs to the end of the line
            newline = data.find(b"\n", i)
            i = end if newline == -1 else newline
            continue
        i += 1
    return frozenset(_text(w) for w in _WORD_RE.findall(data, start, i))


def _import_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Where the names of each import statement are: from its ``import`` keyword to
    the ``)`` that closes a parenthesized list, else to the end of the line (lines
    joined by a backslash count as one)."""
    for match in _IMPORT_RE.finditer(data):
        start = match.end()
        at = start
        while at < len(data) and data[at] in b" \t\\\r\n":
            if data[at] in b"\r\n" and data[at - 1] != 0x5C:  # a break not escaped
                break
            at += 1
        if at < len(data) and data[at] == 0x28:  # '('
            yield start, _closing(data, at)
            continue
        end = start
        while True:
            end = data.find(b"\n", end)
            if end == -1:
                end = len(data)
                break
            if data[end - 1 : end] == b"\\" or data[end - 2 : end] == b"\\\r":
                end += 1
                continue
            break
        yield start, end


def _closing(data: bytes, at: int) -> int:
    """The offset of the ``)`` that closes the ``(`` at ``at`` in an import (none
    nests), past comments; the end of the data when there is none."""
    while True:
        close = data.find(b")", at)
        comment = data.find(b"#", at, len(data) if close == -1 else close)
        if comment == -1:
            return len(data) if close == -1 else close
        newline = data.find(b"\n", comment)
        if newline == -1:
            return len(data)
        at = newline


def _keyword_hits(pattern: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    for match in pattern.finditer(data):
        start = match.start()
        if start == 0 or data[start - 1] not in _IDENT_BYTES:
            yield match


def scan_source(data: bytes, groups: WordGroups = ()) -> FileScan:
    """Scan one file's bytes; ``groups`` are lower-case words tested together."""
    defs = {_text(m.group(1)) for m in _keyword_hits(_DEF_RE, data)}
    headers: list[tuple[str, frozenset[str]]] = []
    for match in _keyword_hits(_CLASS_RE, data):
        name = _text(match.group(1))
        defs.add(name)
        if match.group(2):
            headers.append((name, _header_words(data, match.end(2) - 1)))
    aliases: list[tuple[str, str]] = []
    matches = (
        m
        for start, end in _import_spans(data)
        for pattern in _AS_RES
        for m in pattern.finditer(data, start, end)
    )
    for match in matches:
        start = match.start()
        before = data[max(0, start - 200) : start].rstrip(b" \t\r\n\\")
        cut = len(before)
        while cut > 0 and before[cut - 1] in _IDENT_BYTES:
            cut -= 1
        if cut < len(before):
            aliases.append((_text(before[cut:]), _text(match.group(1))))
    lower = data.lower() if groups else b""
    present: dict[bytes | re.Pattern[bytes], bool] = {}  # a word of several groups: once

    def holds(word: bytes | re.Pattern[bytes]) -> bool:
        hit = present.get(word)
        if hit is None:
            hit = word.search(lower) is not None if isinstance(word, re.Pattern) else word in lower
            present[word] = hit
        return hit

    found = tuple(all(holds(w) for w in group) for group in _matchers(groups))
    return FileScan(frozenset(defs), tuple(headers), tuple(aliases), found)


@functools.lru_cache(maxsize=16)
def _matchers(groups: WordGroups) -> list[list[bytes | re.Pattern[bytes]]]:
    """Word groups as byte strings, or regexes for words with ``*`` (longest first)."""
    out: list[list[bytes | re.Pattern[bytes]]] = []
    for group in groups:
        words: list[bytes | re.Pattern[bytes]] = []
        for word in sorted(group, key=len, reverse=True):
            raw = word.lower().encode()
            if b"*" in raw:
                words.append(re.compile(rb"[\w.]*".join(re.escape(p) for p in raw.split(b"*"))))
            else:
                words.append(raw)
        out.append(words)
    return out


def literal_pieces(pattern: str) -> list[str]:
    """The literal, dot-free pieces of a qualified-name glob (``a.b*.c`` -> a, b, c)."""
    without_sets = re.sub(r"\[[^\]]*\]", "*", pattern)
    return [p for p in re.split(r"[*?.\[\]]+", without_sets) if p]


def may_define(
    scan: FileScan, module: str, pieces: Iterable[str], *, ignore_case: bool = False
) -> bool:
    """Whether a qualified name in this module can contain every piece.

    A qualified name is the module name followed by class and function names,
    so each piece must be in the module name or in one of the defined names.
    """
    names = [module, *scan.defs]
    if ignore_case:
        names = [n.lower() for n in names]
    for piece in pieces:
        piece = piece.lower() if ignore_case else piece
        if not any(piece in name for name in names):
            return False
    return True
