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
_IMPORT_KEYWORD_RE = re.compile(rb"import(?=[ \t\\(])")
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


class _Headers:
    """The words of class headers in one text, read in linear time overall: a header
    that is not a simple ``(...)`` is read to its closing bracket (at most
    :data:`_MAX_HEADER` bytes); once those reads have covered as much as the text,
    the next such header gets every word of the text (a superset)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.budget = len(data) + _MAX_HEADER
        self.every_word: frozenset[str] | None = None

    def words(self, start: int) -> frozenset[str]:
        """Identifiers between the ``(`` at ``start`` and its matching ``)``."""
        data = self.data
        simple = _SIMPLE_HEADER_RE.match(data, start)
        if simple is not None:
            return frozenset(_text(w) for w in _WORD_RE.findall(simple.group(1)))
        if self.budget <= 0:
            if self.every_word is None:
                self.every_word = frozenset(_text(w) for w in _WORD_RE.findall(data))
            return self.every_word
        depth, stop = 0, min(len(data), start + _MAX_HEADER)
        i = stop
        for mark in _HEADER_MARK_RE.finditer(data, start, stop):
            ch = data[mark.start()]
            if ch == 0x23:  # a comment: its brackets do not count
                continue
            depth += 1 if ch in b"([{" else -1
            if depth == 0:
                i = mark.start()
                break
        self.budget -= i - start
        return frozenset(_text(w) for w in _WORD_RE.findall(data, start, i))


_HEADER_MARK_RE = re.compile(rb"[()\[\]{}]|#[^\n]*")  # a bracket, or a comment


def _import_spans(data: bytes) -> Iterator[tuple[int, int]]:
    """Where the names of import statements are (:data:`_IMPORT_RE`); spans with no
    ``as`` between them are joined, so that a block of imports is searched at once."""
    start = end = -1
    keyword = _IMPORT_KEYWORD_RE.search(data)
    while keyword is not None:
        at = keyword.start()
        if at and data[at - 1] in _IDENT_DOT_BYTES:  # ``reimport``, ``x.import``
            # skipped before its names are read: reading them (to the end of the
            # text, in an unclosed list) for each such word would be quadratic
            keyword = _IMPORT_KEYWORD_RE.search(data, at + 6)
            continue
        match = _IMPORT_RE.match(data, at)
        assert match is not None  # the keyword's lookahead is the pattern's start
        if start >= 0 and not _has_as(data, end, at):
            end = match.end()
        else:
            if start >= 0:
                yield start, end
            start, end = match.span()
        keyword = _IMPORT_KEYWORD_RE.search(data, match.end())
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
    end, which Python accepts) passes. Linear in the text: conditions that overlap
    are read as one region, each line once (see :class:`_Conditions`).
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
    conditions = _Conditions(lower, last)
    while True:
        region = conditions.next_region(word)
        if region is None:
            return False
        at, end = region
        if at > word:
            for i, find in enumerate(finders):
                if -1 < nexts[i] < at:
                    nexts[i] = find(lower, at, last)
            word = min((n for n in nexts if n >= at), default=-1)
            if word == -1:
                return False
        if word < min(end, last):
            return True


# a branch keyword at a line start (the text's first line: _BRANCH_AT_START), or
# ``assert`` after a semicolon; ``\n`` first, so that the search skips to newlines
_BRANCH_KEYWORDS = rb"(?:if|elif|while|match|case|assert)\b"
_BRANCH_RE = re.compile(rb"\n[ \t\f]*" + _BRANCH_KEYWORDS + rb"|;[ \t\f]*assert\b")
_BRANCH_AT_START = re.compile(rb"[ \t\f]*" + _BRANCH_KEYWORDS)
_PLAIN_LINE = re.compile(rb"[^\n()\[\]{}'\"#\\]*")  # no bracket, quote, comment or backslash
_MAX_MIDLINE = 16  # ``assert`` statements after a semicolon on one line, read one by one
_ONE_LINE_STRING = re.compile(rb"'[^'\\\n]*'|\"[^\"\\\n]*\"")


class _Conditions:
    """The branch conditions of a text, as regions read once from start to end.

    A condition's depth counts brackets from its keyword; it ends at the first line
    end, not after a backslash, where that depth is at most 0. All conditions are
    measured on one running depth, so the ones open at a point end where the
    running depth falls to the lowest depth any of them started at: a region (the
    union of overlapping conditions) is read with one number, and no line twice.
    """

    def __init__(self, text: bytes, last: int) -> None:
        self.text = text
        self.starts: Iterator[re.Match[bytes]] = _BRANCH_RE.finditer(text, 0, last)
        first = _BRANCH_AT_START.match(text)  # on the first line
        if first is not None:
            self.starts = itertools.chain((first,), self.starts)
        self.pending: re.Match[bytes] | None = next(self.starts, None)

    def _take(self) -> re.Match[bytes] | None:
        start, self.pending = self.pending, next(self.starts, None)
        return start

    def next_region(self, word: int) -> tuple[int, int] | None:
        """The next region of open conditions ``(start, end)``; it may end early
        (at the end of the line past ``word``) when ``word`` already stands in it."""
        start = self._take()
        if start is None:
            return None
        text, size = self.text, len(self.text)
        at = start.start()
        plain = _PLAIN_LINE.match(text, start.end())
        assert plain is not None  # the pattern matches the empty string
        if text.startswith(b"\n", plain.end()) or plain.end() == size:
            # a condition of one plain line (the common case): read no further
            while self.pending is not None and self.pending.start() < plain.end():
                self._take()  # (an ``assert`` after a semicolon on that line)
            return at, plain.end()
        # ``low``: the lowest running depth an open condition started at
        depth, low = 0, 0
        line_at = start.end()
        while line_at < size:
            newline = text.find(b"\n", line_at)
            if newline == -1:
                newline = size
            line_depth, backslash, open_string = _line_summary(text[line_at:newline])
            if open_string:
                return at, size  # a string this does not follow: to the end, to be safe
            # conditions starting on this line: at its start, or mid-line (each read
            # from its keyword on: a few per line, else to the end, to stay linear)
            mids: list[re.Match[bytes]] = []
            while self.pending is not None and self.pending.start() < newline:
                begun = self._take()
                assert begun is not None
                if text[begun.start()] == 0x0A:  # at the start of the line
                    low = min(low, depth)
                else:
                    mids.append(begun)
            depth += line_depth
            if len(mids) > _MAX_MIDLINE:
                return at, size
            for mid in mids:
                rest_depth, rest_backslash, rest_open = _line_summary(text[mid.end() : newline])
                if rest_open:
                    return at, size
                if rest_depth > 0 or rest_backslash:
                    low = min(low, depth - rest_depth)
                    # (a backslash it sees may be in a comment for the whole line)
                    backslash = backslash or rest_backslash
            if not backslash and depth <= low:
                return at, newline
            if at <= word < newline:
                return at, newline  # the word stands in the region: enough is known
            line_at = newline + 1
        return at, size


def _line_summary(line: bytes) -> tuple[int, bool, bool]:
    """A line's bracket depth change (one-line strings and a comment left out),
    whether a backslash continues it, and whether it holds a quote this cannot pair."""
    if b"'" in line or b'"' in line:
        line = _ONE_LINE_STRING.sub(b"", line)
        if b"'" in line or b'"' in line:
            return 0, False, True
    comment = line.find(b"#")
    if comment != -1:
        line = line[:comment]
    depth = line.count(b"(") + line.count(b"[") + line.count(b"{")
    depth -= line.count(b")") + line.count(b"]") + line.count(b"}")
    return depth, line.rstrip().endswith(b"\\"), False


@functools.lru_cache(maxsize=64)
def _finder(word: bytes) -> Callable[[bytes, int, int], int]:
    """``find(text, start, end)``: where ``word`` next occurs (-1: nowhere); a ``*``
    stands for a run of identifier characters and dots, as in a word group. One
    search per word: an alternation of words is searched a byte at a time."""
    if b"*" not in word:
        return lambda text, start, end: text.find(word, start, end)
    return _star_word(word).find


_STAR_RUN = re.compile(rb"[\w.]*")  # what a ``*`` of a word stands for


class _StarWord:
    """A word with ``*`` as it is searched: the star stands for a run of identifier
    characters and dots (``disagg*decode`` matches ``disaggregation_mode.decode``).

    Searched in linear time (a regex backtracks over each run once per occurrence
    of the first piece): when every piece is made of such characters, a match lies
    in one run, and the earliest occurrence of each piece in turn finds it; else
    the pieces in order anywhere are taken, a superset."""

    def __init__(self, word: bytes) -> None:
        self.pieces = [p for p in word.split(b"*") if p]
        self.in_run = all(_STAR_RUN.fullmatch(p) for p in self.pieces)

    def find(self, text: bytes, start: int, end: int) -> int:
        """Where the word next occurs in ``text[start:end]`` (-1: nowhere)."""
        pieces = self.pieces
        if not pieces:
            return start if start <= end else -1
        first = pieces[0]
        at = text.find(first, start, end)
        while at != -1:
            run_end = end
            if self.in_run:
                found = _STAR_RUN.match(text, at, end)
                assert found is not None
                run_end = found.end()
            after = at + len(first)
            for piece in pieces[1:]:
                hit = text.find(piece, after, run_end)
                if hit == -1:
                    break
                after = hit + len(piece)
            else:
                return at
            if not self.in_run:
                return -1
            # a later occurrence of the first piece in this run cannot do better
            at = text.find(first, max(run_end, at + 1), end)
        return -1

    def search(self, text: bytes) -> bool:
        """Whether the word occurs in ``text``."""
        return self.find(text, 0, len(text)) != -1


_star_word = functools.lru_cache(maxsize=64)(_StarWord)  # one per word (a key of memos)
Word = bytes | _StarWord  # a word of a group, as it is searched


def scan_source(data: bytes, groups: WordGroups = ()) -> FileScan:
    """Scan one file's bytes; ``groups`` are lower-case words tested together."""
    defs = {_text(m.group(1)) for m in _keyword_hits(_DEF_RE, data)}
    headers: list[tuple[str, frozenset[str]]] = []
    header_words = _Headers(data).words
    for match in _keyword_hits(_CLASS_RE, data):
        name = _text(match.group(1))
        defs.add(name)
        if match.group(2):
            headers.append((name, header_words(match.end(2) - 1)))
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
                word.search(lower) if isinstance(word, _StarWord) else word in lower
            )
            present[word] = hit
        return hit

    found = tuple(all(holds(w) for w in group) for group in matchers)
    return FileScan(frozenset(defs), tuple(headers), tuple(aliases), found)


@functools.lru_cache(maxsize=16)
def _matchers(groups: WordGroups) -> tuple[list[list[Word]], dict[Word, tuple[bytes, ...]]]:
    """Word groups as byte strings, or :class:`_StarWord` for words with ``*`` (longest first);
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
                matcher = _star_word(raw)
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
