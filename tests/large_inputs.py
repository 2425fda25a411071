"""Generators of large files, written at test time (nothing large is committed).

Real density comes from our own fixtures' code, repeated; the densest facts per
byte from files of nothing but tiny definitions or statements.
"""

from __future__ import annotations

from pdlint_helpers import FIXTURES

from pdlint.source.read import _parse


def fixture_sources() -> str:
    """The fixtures' Python files, one after the other (real shapes, our own code)."""
    texts = []
    for path in sorted(FIXTURES.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        try:
            _parse(text)
        except (SyntaxError, ValueError):
            continue  # the fixtures of unparseable files
        texts.append(text if text.endswith("\n") else text + "\n")
    return "".join(texts)


def source_over(size: int) -> str:
    """Our fixtures' code, repeated past ``size`` characters (real density)."""
    text = fixture_sources()
    return text * (size // len(text) + 1)


def small_functions(size: int) -> str:
    """About ``size`` characters of nothing but tiny functions: the densest facts."""
    one = "def f{}(a, b):\n    x = a.b(b)\n    return x.c\n\n\n"
    return "".join(one.format(i) for i in range(size // 45))


def short_lines(count: int) -> str:
    """``count`` short statements, one a line."""
    return "x = 1\n" * count
