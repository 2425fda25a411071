"""File names as text: a name may hold any byte but NUL and ``/``.

A name that is not UTF-8 reaches pdlint with surrogate escapes (``\\udcff`` for
the byte 0xff), which no UTF-8 stream can write; a name with a newline or
another control character could forge lines of output. These helpers show
such names escaped, so every line of text output is one finding's.
"""

from __future__ import annotations

import re
import unicodedata

_SURROGATE = re.compile("[\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Control, format (bidirectional overrides), surrogate, line and paragraph separators.
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown(text: str) -> str:
    """``text`` with control characters and undecodable bytes backslash-escaped."""
    if text.isprintable():
        return text
    return "".join(_escape(c) if unicodedata.category(c) in _HIDDEN else c for c in text)


def without_surrogates(text: str) -> str:
    """``text`` with only its undecodable bytes (surrogates) backslash-escaped."""
    return _SURROGATE.sub(lambda m: _escape(m.group()), text)
