"""Qualified-name globs (``pkg.*.Class.run``): the literal pieces a matching name holds."""

from __future__ import annotations

import re


def literal_pieces(pattern: str) -> list[str]:
    """The literal, dot-free pieces of a qualified-name glob (``a.b*.c`` -> a, b, c)."""
    # A "[" after the last "]" closes no set: leaving it out of the search keeps it
    # linear (each such "[" would make the search scan to the end).
    closed = pattern.rfind("]") + 1
    without_sets = re.sub(r"\[[^\]]*\]", "*", pattern[:closed]) + pattern[closed:]
    return [p for p in re.split(r"[*?.\[\]]+", without_sets) if p]
