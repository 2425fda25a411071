"""Read and parse one untrusted file; every failure becomes a PDL900 finding."""

from __future__ import annotations

import ast
import codecs
import io
import os
import re
import sys
import tokenize
import warnings
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

from pdlint.findings import Finding, Location
from pdlint.source.depth import parse_module
from pdlint.source.pieces import PIECEWISE_BYTES, PIECEWISE_LINES, parse_pieces
from pdlint.source.regular import SOURCE_LIMIT, read_limited

# The newer-Python hint parses one statement with libcst, whose parser is
# recursive native code (deep nesting crashes the process) and superlinear on
# long operator chains: it only ever sees a short statement of a file of
# bounded size.
HINT_MAX_BYTES = 1_000_000
HINT_MAX_TOKENS = 500  # in the statement
HINT_MAX_SCAN = 100_000  # tokens read to reach it: bounds the hint's work on a long file

# The file name given to CPython's parser. On a syntax error CPython opens the
# named file again to quote the line: a FIFO would block the run, and a file
# that changed would be quoted wrong. Nothing can be opened below os.devnull.
_NOT_A_PATH = os.path.join(os.devnull, "pdlint")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
_OPENERS = {"except", "elif", "else", "finally"}


@dataclass
class ParsedFile:
    """A file's text and its syntax tree (None when it could not be parsed).

    A large file has no tree but ``pieces``: the trees of its statements a piece at
    a time (see :mod:`pdlint.source.pieces`); ``error`` is known once they end.
    """

    display: str
    text: str
    tree: ast.Module | None
    error: Finding | None
    pieces: Iterator[tuple[int, ast.Module]] | None = field(default=None, repr=False)

    def trees(self) -> Iterator[tuple[int, ast.Module]]:
        """The tree, or the pieces' trees in turn, each with the count of the lines
        before it (:func:`~pdlint.source.pieces.parse_pieces`)."""
        if self.tree is not None:
            yield 0, self.tree
        elif self.pieces is not None:
            yield from self.pieces


def split_lines(text: str) -> list[str]:
    """Lines as Python numbers them: breaks are ``\\r\\n``, ``\\r`` and ``\\n`` only.

    ``str.splitlines`` also breaks at form feeds, ``\\x1c``-``\\x1e``, ``\\x85`` and
    U+2028/U+2029, which would shift every later line against the parser's.
    """
    lines = _LINE_BREAK.split(text) if "\r" in text else text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines


class Lines(Sequence[str]):
    """A text's lines as :func:`split_lines` gives them, kept as the text and where
    every 64th line starts (found when a line is first asked for by its number): a
    list of a million short lines would take ten times the text.
    """

    _STRIDE = 64

    def __init__(self, text: str) -> None:
        self.text = text
        breaks = text.count("\n") + text.count("\r") - text.count("\r\n")
        # no line after a last break (nor in an empty text)
        self._count = breaks if not text or text[-1] in "\r\n" else breaks + 1
        self._starts: array[int] | None = None

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[str]:
        text, start = self.text, 0
        for found in _LINE_BREAK.finditer(text):
            yield text[start : found.start()]
            start = found.end()
        if start < len(text):
            yield text[start:]

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError("line index out of range")
        if self._starts is None:
            self._starts = self._every_stride()
        text = self.text
        start = self._starts[index // self._STRIDE]
        for _ in range(index % self._STRIDE):
            found = _LINE_BREAK.search(text, start)
            assert found is not None  # the line exists
            start = found.end()
        found = _LINE_BREAK.search(text, start)
        return text[start : found.start() if found is not None else len(text)]

    def _every_stride(self) -> array[int]:
        starts = array("q", [0])
        for number, found in enumerate(_LINE_BREAK.finditer(self.text), start=1):
            if number % self._STRIDE == 0:
                starts.append(found.end())
        return starts


def source_lines(text: str) -> list[str] | Lines:
    """The lines of ``text`` (:func:`split_lines`), as :class:`Lines` for a large text."""
    if len(text) > PIECEWISE_BYTES or text.count("\n") > PIECEWISE_LINES:
        return Lines(text)
    return split_lines(text)


def decode_source(data: bytes) -> str:
    """Decode bytes as Python does (BOM, PEP 263 coding cookie, else UTF-8)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig":
        data = data[3:] if data.startswith(codecs.BOM_UTF8) else data
        encoding = "utf-8"
    return data.decode(encoding)


def parse_error(display: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A PDL900 finding at ``line``/``column`` (1-based)."""
    line, column = max(line, 1), max(column, 1)
    loc = Location(display, line, column, line, column)
    return Finding("PDL900", message, loc, key=("PDL900", display))


def _cookie(data: bytes) -> tuple[str, int] | None:
    """The PEP 263 coding cookie's encoding name and line, if there is one."""
    for number, line in enumerate(data.splitlines()[:2], start=1):
        match = _COOKIE.match(line.removeprefix(codecs.BOM_UTF8))
        if match:
            return match.group(1).decode("ascii", "replace"), number
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return None


def _position(data: bytes, offset: int, encoding: str) -> tuple[int, int]:
    """1-based line and character column of byte ``offset`` of ``data``."""
    if "\n".encode(encoding, "replace") != b"\n":  # UTF-16, UTF-32: count bytes
        encoding = "latin-1"
    before = split_lines(data[:offset].decode(encoding, "replace") + "x")
    return len(before), len(before[-1])


def _decode_failure(data: bytes, exc: Exception) -> tuple[str, int, int]:
    """Message, line and column for a file Python cannot decode."""
    cookie = _cookie(data)
    if isinstance(exc, LookupError):
        line = cookie[1] if cookie else 1
        return f"cannot decode: {exc}", line, 1
    if data.startswith(codecs.BOM_UTF8) and cookie and cookie[0].lower() not in ("utf-8", "utf8"):
        message = f"cannot decode: a UTF-8 byte-order mark and a coding cookie for '{cookie[0]}'"
        return message, cookie[1], 1
    if isinstance(exc, UnicodeDecodeError):
        body = data[3:] if data.startswith(codecs.BOM_UTF8) else data
        encoding = exc.encoding
    else:  # detect_encoding read a first line that is not UTF-8 and no cookie
        body, encoding = data, "utf-8"
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as inner:
            exc = inner
    if not isinstance(exc, UnicodeDecodeError):  # e.g. the cookie's unknown encoding
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return f"cannot decode: {reason}", cookie[1] if cookie else 1, 1
    line, column = _position(body, exc.start, encoding)
    bad = body[exc.start : exc.start + 1].hex()
    if cookie:
        declared = f"the coding cookie declares {cookie[0]}"
    else:
        declared = "no coding cookie declares another encoding (PEP 263)"
    message = f"cannot decode: byte 0x{bad} is not valid {encoding} ({exc.reason}); {declared}"
    return message, line, column


def _statement_at(text: str, line: int) -> str | None:
    """The statement holding ``line``, alone and parseable, or None.

    A block header gets a ``pass`` body; an ``except``/``else`` clause a ``try``.
    None when the file is too large, the statement too long or too far in, or
    the tokenizer fails before reaching it.
    """
    if len(text) > HINT_MAX_BYTES:
        return None
    # Lines as the parser numbers them; the tokenize module would not break at
    # a lone \r.
    lines = split_lines(text)
    start = count = 0
    last = ""
    first = ""
    try:
        tokens = tokenize.generate_tokens(io.StringIO("\n".join(lines) + "\n").readline)
        for scanned, tok in enumerate(tokens):
            if scanned > HINT_MAX_SCAN:
                return None
            if tok.type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                continue
            if tok.type == tokenize.ENDMARKER:
                return None
            if tok.type == tokenize.NEWLINE:
                if start <= line <= tok.start[0] and count <= HINT_MAX_TOKENS:
                    return _standalone(lines[start - 1 : tok.start[0]], first, last)
                if start > line:
                    return None
                start = count = 0
                continue
            if not start:
                start, first = tok.start[0], tok.string
            count += 1
            if count > HINT_MAX_TOKENS and tok.start[0] >= line:
                return None  # the statement holding ``line`` is too long
            last = tok.string
    except (SyntaxError, tokenize.TokenError, ValueError):
        return None
    return None


def _standalone(lines: list[str], first: str, last: str) -> str | None:
    if not lines:
        return None
    indent = len(lines[0]) - len(lines[0].lstrip(" \t"))
    body = [ln[indent:] if ln[:indent].isspace() else ln for ln in lines]
    text = "\n".join(body) + "\n"
    if last == ":":
        text += "    pass\n"
    if first in _OPENERS:
        text = "if x:\n    pass\n" + text if first in ("elif", "else") else text
        text = "try:\n    pass\n" + text if first in ("except", "finally") else text
    return text


def _newer_syntax(text: str, line: int) -> bool:
    """True if the statement at ``line`` is syntax of a Python newer than this one."""
    statement = _statement_at(text, line)
    if statement is None:
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like
        try:
            compile(statement, _NOT_A_PATH, "exec", ast.PyCF_ONLY_AST)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            pass
        else:
            return False  # the statement alone parses here: the error is elsewhere
        try:
            import libcst
        except ImportError:  # a dependency, but an install may lack it: then no hint
            return False
        try:
            libcst.parse_module(statement, libcst.PartialParserConfig(python_version="3.12"))
        except Exception:
            return False
    return True


def parse_source(display: str, data: bytes) -> ParsedFile:
    """Decode and parse ``data``; failures give a ParsedFile with ``error`` set."""
    try:
        text = decode_source(data)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        message, line, column = _decode_failure(data, exc)
        return ParsedFile(display, "", None, parse_error(display, message, line, column))
    large = len(data) > PIECEWISE_BYTES or data.count(b"\n") > PIECEWISE_LINES
    if large and "\0" not in text:  # a NUL fails the file at once
        parsed = ParsedFile(display, text, None, None)
        parsed.pieces = _pieces(parsed)
        return parsed
    try:
        tree = _parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        return ParsedFile(display, text, None, _failure(display, text, exc))
    return ParsedFile(display, text, tree, None)


def _parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like
        return parse_module(text, _NOT_A_PATH)


def _pieces(parsed: ParsedFile) -> Iterator[tuple[int, ast.Module]]:
    """``parsed``'s trees a piece at a time; a failure sets its ``error`` and ends them."""
    try:
        yield from parse_pieces(parsed.text, _parse)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        parsed.error = _failure(parsed.display, parsed.text, exc)


def _failure(display: str, text: str, exc: Exception) -> Finding:
    """The PDL900 for a parse of ``text`` that raised ``exc``."""
    if isinstance(exc, SyntaxError):
        msg = f"syntax error: {exc.msg}"
        if _newer_syntax(text, exc.lineno or 1):
            running = f"{sys.version_info.major}.{sys.version_info.minor}"
            msg += f" (valid in a newer Python than {running}; run pdlint on it there)"
        return parse_error(display, msg, exc.lineno or 1, exc.offset or 1)
    if isinstance(exc, RecursionError):
        return parse_error(display, "cannot parse: too deeply nested")
    if isinstance(exc, MemoryError):
        # CPython's parser reports a nesting deeper than its stack as MemoryError.
        reason = "cannot parse: the parser ran out of memory (nesting too deep or file too large)"
        return parse_error(display, reason)
    return parse_error(display, f"cannot parse: {exc}")


def read_bytes(path: str, size: int = 0) -> bytes:
    """The bytes of the source file at ``path`` (``size``: what ``stat`` said it holds).
    Raises OSError, also for a file that is not regular, would block or is larger than
    :data:`~pdlint.source.regular.SOURCE_LIMIT` (a pipe named on the command line is
    read). Read with ``os.read``: no file object and no buffer copy per file, which
    ``open(path, "rb").read()`` would add to each of thousands."""
    return read_limited(path, SOURCE_LIMIT, size, pipes=True)


def read_file(path: str, display: str) -> ParsedFile:
    """Read and parse the file at ``path``; unreadable files give PDL900."""
    try:
        data = read_bytes(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ParsedFile(display, "", None, parse_error(display, f"cannot read: {reason}"))
    return parse_source(display, data)
