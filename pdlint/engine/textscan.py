"""The cheap text scan: what a file may define, read from its bytes without parsing.

A :class:`FileScan` over-approximates: a name it lists may be a false hit (in a
comment or a string), but a definition, class header or import alias that the
indexer would find is never missing from it. That is what lets the model load
only the files a query can concern (see :mod:`pdlint.engine.program`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from pdlint.facts.globs import literal_pieces  # noqa: F401 (its callers import it from here)

_IDENT = rb"[A-Za-z_\x80-\xff][\w\x80-\xff]*"
_GAP = rb"(?:[ \t]|\\\r?\n)"  # blanks, or a backslash continuation
# Keywords are matched with a lookahead, so that a false hit ("dataclass",
# "alias") cannot consume the real keyword that follows it; hits preceded by
# an identifier character are then dropped (see ``_keyword_hits``).
_DEF_RE = re.compile(rb"def(?=" + _GAP + rb"+(" + _IDENT + rb"))")
_CLASS_RE = re.compile(rb"class(?=" + _GAP + rb"+(" + _IDENT + rb")(" + _GAP + rb"*\()?)")
# The ``import`` keyword; only an import statement gives a name an alias that the
# model follows (``except E as e`` and ``with x as y`` bind values, not names).
_IMPORT_RE = re.compile(
    rb"import(?=[ \t\\(])(?:[ \t]|\\\r?\n)*"
    # to the ``)`` of a parenthesized list, past comments; else to the end of the
    # line, past continuations (each loop unrolled: a run of plain bytes at a time)
    rb"(?:\([^)#]*(?:#[^\n]*[^)#]*)*\)?"
    rb"|[^\n\\]*(?:\\(?:\r?\n)?[^\n\\]*)*)"
)
# ``as`` after a blank or a line break (three literal prefixes keep the search fast)
_AS_RES = tuple(
    re.compile(re.escape(lead) + rb"as(?=(?:[ \t\r\n]|\\\r?\n)+(" + _IDENT + rb"))")
    for lead in (b" ", b"\t", b"\n")
)
_WORD_RE = re.compile(_IDENT)
_IDENT_BYTES = frozenset(
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
) | frozenset(range(0x80, 0x100))
_IDENT_DOT_BYTES = _IDENT_BYTES | {0x2E}
_SIMPLE_HEADER_RE = re.compile(rb"\(([^()#'\"]*)\)")
_MAX_HEADER = 20_000  # bytes; a longer class header is cut (and kept whole as words)

WordGroups = tuple[tuple[str, ...], ...]
# (words, later) of a text query: a word in a branch condition, a later word after it
Branches = tuple[Iterable[str], Iterable[str]]
Word = bytes | re.Pattern[bytes]  # a word of a group, as it is searched
_RUN_RE = re.compile(rb"[\w\x80-\xff]+")  # a run of identifier characters


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
    """Where the names of import statements are (:data:`_IMPORT_RE`); spans with no
    ``as`` between them are joined, so that a block of imports is searched at once."""
    start = end = -1
    match = _IMPORT_RE.search(data)
    while match is not None:
        at = match.start()
        if at and data[at - 1] in _IDENT_DOT_BYTES:  # ``reimport``, ``x.import``:
            match = _IMPORT_RE.search(data, at + 6)  # what it swallowed is searched
            continue
        if start >= 0 and not _has_as(data, end, at):
            end = match.end()
        else:
            if start >= 0:
                yield start, end
            start, end = match.span()
        match = _IMPORT_RE.search(data, match.end())
    if start >= 0:
        yield start, end


def _has_as(data: bytes, start: int, end: int) -> bool:
    return any(data.find(lead + b"as", start, end) != -1 for lead in (b" ", b"\t", b"\n"))


def _keyword_hits(pattern: re.Pattern[bytes], data: bytes) -> Iterator[re.Match[bytes]]:
    for match in pattern.finditer(data):
        start = match.start()
        if start == 0 or data[start - 1] not in _IDENT_BYTES:
            yield match


def starts_identifier(data: bytes, word: bytes) -> bool:
    """Whether ``word`` occurs in ``data`` where an identifier starts: at the start,
    or after a byte that no identifier holds (not a letter, digit, ``_`` or a
    byte of a non-ASCII character)."""
    at = data.find(word)
    while at != -1:
        if at == 0 or data[at - 1] not in _IDENT_BYTES:
            return True
        at = data.find(word, at + 1)
    return False


def in_condition(lower: bytes, words: Iterable[bytes], later: Iterable[bytes]) -> bool:
    """Whether one of ``words`` may stand in the condition of a branch, with one of
    ``later`` after it, in the lower-cased text of a file (a ``*`` in a word of
    ``words`` stands for a run of identifier characters and dots).

    A branch is an ``if``, ``elif``, ``while``, ``match``, ``case`` or ``assert``
    statement: what the indexer takes the guards of the statements that follow
    from. The condition runs from the keyword to the end of its logical line
    (brackets and backslashes continue it). Over-approximates: a keyword at the
    start of a line in a string or a comment counts too, and a line holding a
    quote this cannot pair (a string over several lines) extends the condition
    to the end of the text. A text with a lone carriage return (an old Mac line
    end, which Python accepts) passes.
    """
    later = [w for w in later if w]
    last = max((lower.rfind(w) for w in later), default=-1)
    if last == -1:
        return False
    if b"\r" in lower and lower.count(b"\r") != lower.count(b"\r\n"):
        return True
    finders = [_finder(w) for w in set(words)]
    nexts = [find(lower, 0, last) for find in finders]  # each word's next occurrence
    word = min((n for n in nexts if n != -1), default=-1)  # the next of any
    if word == -1:
        return False
    starts: Iterator[re.Match[bytes]] = _BRANCH_RE.finditer(lower, 0, last)
    first = _BRANCH_AT_START.match(lower)  # on the first line
    if first is not None:
        starts = itertools.chain((first,), starts)
    for start in starts:
        at = start.start()
        if at > word:
            for i, find in enumerate(finders):
                if -1 < nexts[i] < at:
                    nexts[i] = find(lower, at, last)
            word = min((n for n in nexts if n >= at), default=-1)
            if word == -1:
                return False
        plain = _PLAIN_LINE.match(lower, start.end())
        assert plain is not None  # the pattern matches the empty string
        if lower.startswith(b"\n", plain.end()) or plain.end() == len(lower):
            end = plain.end()  # a condition of one plain line: read no further
        else:
            end = _condition_end(lower, start.end())
        if word < min(end, last):
            return True
    return False


# a branch keyword at a line start (the text's first line: _BRANCH_AT_START), or
# ``assert`` after a semicolon; ``\n`` first, so that the search skips to newlines
_BRANCH_KEYWORDS = rb"(?:if|elif|while|match|case|assert)\b"
_BRANCH_RE = re.compile(rb"\n[ \t\f]*" + _BRANCH_KEYWORDS + rb"|;[ \t\f]*assert\b")
_BRANCH_AT_START = re.compile(rb"[ \t\f]*" + _BRANCH_KEYWORDS)
_PLAIN_LINE = re.compile(rb"[^\n()\[\]{}'\"#\\]*")  # no bracket, quote, comment or backslash
_ONE_LINE_STRING = re.compile(rb"'[^'\\\n]*'|\"[^\"\\\n]*\"")


@functools.lru_cache(maxsize=64)
def _finder(word: bytes) -> Callable[[bytes, int, int], int]:
    """``find(text, start, end)``: where ``word`` next occurs (-1: nowhere); a ``*``
    stands for a run of identifier characters and dots, as in a word group. One
    search per word: an alternation of words is searched a byte at a time."""
    if b"*" not in word:
        return lambda text, start, end: text.find(word, start, end)
    search = _star_pattern(word).search

    def find(text: bytes, start: int, end: int) -> int:
        found = search(text, start, end)
        return -1 if found is None else found.start()

    return find


def _star_pattern(word: bytes) -> re.Pattern[bytes]:
    """A word with ``*`` as it is searched: the star stands for a run of identifier
    characters and dots (``disagg*decode`` matches ``disaggregation_mode.decode``)."""
    return re.compile(rb"[\w.]*".join(re.escape(p) for p in word.split(b"*")))


def _condition_end(text: bytes, at: int) -> int:
    """Where the logical line that goes on at ``at`` ends (its newline, or the end)."""
    depth, end = 0, len(text)
    while at < end:
        newline = text.find(b"\n", at)
        if newline == -1:
            newline = end
        line = text[at:newline]
        if b"'" in line or b'"' in line:
            line = _ONE_LINE_STRING.sub(b"", line)
            if b"'" in line or b'"' in line:
                return end  # a string this does not follow: to the end, to be safe
        comment = line.find(b"#")
        if comment != -1:
            line = line[:comment]
        depth += line.count(b"(") + line.count(b"[") + line.count(b"{")
        depth -= line.count(b")") + line.count(b"]") + line.count(b"}")
        if depth <= 0 and not line.rstrip().endswith(b"\\"):
            return newline
        at = newline + 1
    return end


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
    present: dict[Word, bool] = {}  # a word of several groups: once
    matchers, needs = _matchers(groups)

    def holds(word: Word) -> bool:
        hit = present.get(word)
        if hit is None:
            # a piece the word holds is searched first (once for all the words
            # holding it): most files lack most words, and each absent word
            # costs a search of the whole text
            hit = all(holds(piece) for piece in needs.get(word, ())) and (
                word.search(lower) is not None if isinstance(word, re.Pattern) else word in lower
            )
            present[word] = hit
        return hit

    found = tuple(all(holds(w) for w in group) for group in matchers)
    return FileScan(frozenset(defs), tuple(headers), tuple(aliases), found)


@functools.lru_cache(maxsize=16)
def _matchers(groups: WordGroups) -> tuple[list[list[Word]], dict[Word, tuple[bytes, ...]]]:
    """Word groups as byte strings, or regexes for words with ``*`` (longest first);
    and for each word, shorter byte strings it holds, so that a text without one of
    them cannot hold the word: the other words it holds, its longest run of
    identifier characters (``decode`` of ``'decode'``), and the literal pieces of
    a word with ``*``."""
    out: list[list[Word]] = []
    pieces: dict[Word, set[bytes]] = {}
    plain: set[bytes] = set()
    for group in groups:
        words: list[Word] = []
        for word in sorted(group, key=len, reverse=True):
            raw = word.lower().encode()
            matcher: Word = raw
            if b"*" in raw:
                matcher = _star_pattern(raw)
                pieces[matcher] = {p for p in raw.split(b"*") if p}
            else:
                plain.add(raw)
                runs = sorted(_RUN_RE.findall(raw), key=len)
                pieces[raw] = {runs[-1]} if runs and runs[-1] != raw else set()
            words.append(matcher)
        out.append(words)
    for searched, held in pieces.items():
        if isinstance(searched, bytes):
            held.update(w for w in plain if w != searched and w in searched)
    # the shortest first: which is likeliest to be absent is not known, the cheapest is
    return out, {w: tuple(sorted(held, key=len)) for w, held in pieces.items() if held}


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
