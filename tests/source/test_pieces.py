"""A file parsed in pieces gives the facts and the error of the file parsed whole.

Large files are parsed a piece of top-level statements at a time (see
``pdlint.source.pieces``); cuts that land inside a string, a bracket, a continued
line or between a decorator and its definition must not change what is indexed.
Each source below is cut with pieces of a few characters (a cut tried at every
line) up to a few hundred, and compared with the whole file's facts and errors.
"""

from __future__ import annotations

import pytest
from pdlint_helpers import FIXTURES

from pdlint.facts.indexer import index_module
from pdlint.source.pieces import PIECEWISE_BYTES, PIECEWISE_LINES, parse_pieces
from pdlint.source.read import _parse, parse_source

# Every construct a cut can part: strings and brackets over lines whose text starts
# at column 0, continued lines, decorators, clauses, nested and wide definitions.
TRICKY = '''\
"""Module docstring
def not_a_function():
    pass
"""
import os
from . import sibling
x = (1,
2)
y = [
a for a in range(3)
]
s = """
class NotAClass:
    pass
"""
f = f"""
{x}
def g():
"""
t = 'a' \\
'b'
z = 1 + \\
2
@decorator
def decorated(a, b=lambda q: q.attr):
    return a.b(b)
@decorator(arg)

class Decorated(Base):
    field: int = 0
    def method(self):
        if self.x:
            return None
        return self.y.z
if cond:
    def f():
        return 1
elif other:
    def f():
        return 3
else:
    def f():
        return 2
try:
    import fast
except ImportError:
    fast = None
finally:
    pass
for i in range(2):
    pass
else:
    pass
\x0c
while False:
    pass
else:
    pass
async def coroutine(x):
    await x.y()
# a comment at column 0
def after_comment():
    return "\u00e9 non-ASCII"
lam = lambda: helper()
match command:
    case "go":
        go()
    case _:
        pass
caf\u00e9 = 1
def wide(\u03b1, \u03b2):
    return \u03b1.\u03b3(\u03b2)
class Later(Decorated):
    def run(self, batch):
        batch.spec_info.prepare(batch)
'''

SIZES = (1, 7, 40, 150, 600)


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


def facts_whole(text: str):
    return index_module("m.py", "m.py", _parse(text), text, "m")


def facts_in_pieces(text: str, size: int):
    return index_module("m.py", "m.py", parse_pieces(text, _parse, size), text, "m")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("size", SIZES)
def test_tricky_cuts_keep_the_facts(size: int, newline: str):
    text = TRICKY.replace("\n", newline)
    whole = facts_whole(text)
    assert len(whole.functions) >= 10 and whole.classes  # the source indexes as meant
    assert facts_in_pieces(text, size) == whole


def test_the_fixtures_in_pieces_keep_their_facts():
    text = fixture_sources()
    assert len(text) > 50_000
    whole = facts_whole(text)
    for size in (100, 2_000):
        assert facts_in_pieces(text, size) == whole


def error_of(text: str, size: int | None = None) -> tuple[str, int | None, int | None]:
    """The syntax error of ``text`` parsed whole, or in pieces of ``size``."""
    with pytest.raises(SyntaxError) as raised:
        if size is None:
            _parse(text)
        else:
            list(parse_pieces(text, _parse, size))
    return raised.value.msg, raised.value.lineno, raised.value.offset


@pytest.mark.parametrize(
    "bad",
    [
        "def broken(:",
        "x = (1,",
        "s = '''never closed",
        "  indented = 1",
        "else:",
        "@decorator",
        "x = = 1",
        "def f()",
    ],
)
@pytest.mark.parametrize("before", ["import os\n", "try:\n", "lam = lambda: helper()\n", None])
def test_an_error_anywhere_is_the_whole_files(bad: str, before: str | None):
    lines = TRICKY.splitlines(keepends=True)
    at = len(lines) if before is None else lines.index(before)
    text = "".join(lines[:at]) + bad + "\n" + "".join(lines[at:])
    expected = error_of(text)
    for size in SIZES:
        assert error_of(text, size) == expected, size


def test_large_files_are_parsed_in_pieces_with_the_same_error():
    many_lines = "x = 1\n" * (PIECEWISE_LINES + 1) + "def broken(:\n"
    large = ("def f(a):\n    return a.b\n\n" * (PIECEWISE_BYTES // 25)) + "y = (\n"
    for text in (many_lines, large):
        parsed = parse_source("m.py", text.encode())
        assert parsed.tree is None and parsed.pieces is not None
        for _ in parsed.trees():
            pass
        expected = error_of(text)
        assert parsed.error is not None
        location = parsed.error.location
        assert (location.line, location.column) == expected[1:]
        assert parsed.error.message == f"syntax error: {expected[0]}"
