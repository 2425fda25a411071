"""A large text's lines are kept as the text and where each line starts
(``pdlint.source.read.Lines``): they read as the list ``split_lines`` gives."""

from __future__ import annotations

import pytest

from pdlint.source.read import Lines, source_lines, split_lines

TEXTS = [
    "",
    "a",
    "a\n",
    "a\n\n",
    "\n",
    "a\r\nb\rc\nd",
    "a\r\n\r\n",
    "x\x0cy\u2028z\n\x85w\r",
    "line\n" * 5 + "last",
]


@pytest.mark.parametrize("text", TEXTS)
def test_lines_read_as_split_lines(text: str):
    lines = Lines(text)
    expected = split_lines(text)
    assert list(lines) == expected
    assert len(lines) == len(expected)
    assert [lines[i] for i in range(-len(expected), len(expected))] == expected + expected
    assert lines[1:3] == expected[1:3]
    with pytest.raises(IndexError):
        lines[len(expected)]


def test_a_large_text_gets_lines_a_small_one_a_list():
    assert isinstance(source_lines("x = 1\n" * 10), list)
    large = source_lines("x = 1\n" * 100_000)
    assert isinstance(large, Lines) and large[99_999] == "x = 1" and len(large) == 100_000


def test_every_line_of_a_long_text_by_its_number():
    text = "".join(f"line {i}" + ("\n", "\r\n", "\r", "\n\n")[i % 4] for i in range(1000))
    lines, expected = Lines(text), split_lines(text)
    assert len(lines) == len(expected)
    assert [lines[i] for i in reversed(range(len(expected)))] == expected[::-1]
