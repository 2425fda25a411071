"""Text helpers of the loading plan: the word groups of a query, and where words stand."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator

# a text query's gate and word groups (see ``Model.load_text``)
TextQuery = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # as Python numbers lines


def shortest(words: Iterable[str]) -> set[str]:
    """Words a text is tested for (one of them), without those holding another:
    a text that holds ``kv_ptrs`` holds ``ptrs``; the test is the same."""
    unique = set(words)
    return {w for w in unique if not any(o != w and o in w for o in unique)}


def minimal_groups(groups: Iterable[tuple[str, ...]]) -> tuple[tuple[str, ...], ...]:
    """Word groups a text is tested for (one group, every word), without the groups
    that another implies: a text holding every word of ``g`` holds every word of
    ``h`` when each word of ``h`` is part of one of ``g``; the test is the same."""
    unique = list(dict.fromkeys(tuple(sorted(set(g))) for g in groups))

    def implies(g: tuple[str, ...], h: tuple[str, ...]) -> bool:
        return all(any(w in x for x in g) for w in h)

    return tuple(
        g
        for i, g in enumerate(unique)
        if not any(
            implies(g, h) and (j < i or not implies(h, g)) for j, h in enumerate(unique) if j != i
        )
    )


def occurrences(text: str, word: str) -> Iterator[int]:
    """Where ``word`` occurs in ``text``."""
    at = text.find(word)
    while at != -1:
        yield at
        at = text.find(word, at + 1)


def line_numbers(text: str, positions: list[int]) -> list[int]:
    """The line (as Python numbers them) of each of these positions, in order."""
    if "\r" in text:  # a line break that is not "\n" alone: each break, found
        starts = [m.end() for m in _LINE_BREAK.finditer(text)]
        return [bisect.bisect_right(starts, at) + 1 for at in positions]
    out = []
    line, previous = 1, 0
    for at in positions:
        line += text.count("\n", previous, at)
        previous = at
        out.append(line)
    return out
