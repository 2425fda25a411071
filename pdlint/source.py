"""Read and parse one untrusted file; every failure becomes a PDL900 finding."""

from __future__ import annotations

import ast
import io
import sys
import tokenize
import warnings
from dataclasses import dataclass

from pdlint.findings import Finding, Location


@dataclass
class ParsedFile:
    """A file's text and its syntax tree (None when it could not be parsed)."""

    display: str
    text: str
    tree: ast.Module | None
    error: Finding | None


def decode_source(data: bytes) -> str:
    """Decode bytes as Python does (BOM, PEP 263 coding cookie, else UTF-8)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    if encoding == "utf-8-sig":
        data = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
        encoding = "utf-8"
    return data.decode(encoding)


def parse_error(display: str, message: str, line: int = 1, column: int = 1) -> Finding:
    """A PDL900 finding at ``line``/``column`` (1-based)."""
    line, column = max(line, 1), max(column, 1)
    loc = Location(display, line, column, line, column)
    return Finding("PDL900", message, loc, key=("PDL900", display))


def _newer_syntax(text: str) -> bool:
    """True if libcst parses ``text`` as a Python newer than the running one."""
    try:
        import libcst

        libcst.parse_module(text, libcst.PartialParserConfig(python_version="3.12"))
    except Exception:
        return False
    return True


def parse_source(display: str, data: bytes) -> ParsedFile:
    """Decode and parse ``data``; failures give a ParsedFile with ``error`` set."""
    try:
        text = decode_source(data)
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        return ParsedFile(display, "", None, parse_error(display, f"cannot decode: {reason}"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=display)
    except SyntaxError as exc:
        msg = f"syntax error: {exc.msg}"
        if _newer_syntax(text):
            running = f"{sys.version_info.major}.{sys.version_info.minor}"
            msg += f" (valid in a newer Python than {running}; run pdlint on it there)"
        col = exc.offset or 1
        return ParsedFile(display, text, None, parse_error(display, msg, exc.lineno or 1, col))
    except (ValueError, RecursionError, MemoryError) as exc:
        reason = "too deeply nested" if isinstance(exc, RecursionError) else str(exc)
        return ParsedFile(display, text, None, parse_error(display, f"cannot parse: {reason}"))
    return ParsedFile(display, text, tree, None)


def read_file(path: str, display: str) -> ParsedFile:
    """Read and parse the file at ``path``; unreadable files give PDL900."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        return ParsedFile(display, "", None, parse_error(display, f"cannot read: {reason}"))
    return parse_source(display, data)
