"""One finding per statement: whether two spans of a function lie in one statement.

The facts keep no statement boundaries; the spans that cover a whole simple
statement or most of one stand in for them: a bound value (``a, b = (x.s.a,
x.s.b)``), a return, a raise, an assert, a call with its arguments. Two spans on the
same line count as one statement too (``a = x.s.a; b = x.s.b``): a reader sees one
place to fix.
"""

from __future__ import annotations

from pdlint.facts.types import FunctionFacts, Span


def _covers(outer: Span, inner: Span) -> bool:
    return outer[:2] <= inner[:2] and inner[2:] <= outer[2:]


def statement_spans(fn: FunctionFacts) -> list[Span]:
    """Spans of ``fn`` that stand for (a part of) one statement."""
    out = [b.span for b in fn.binds]
    out.extend(r.span for r in fn.returns if not r.implicit)
    out.extend(span for span, _ in fn.raises)
    out.extend(span for _, span, _ in fn.asserts)
    out.extend(c.span for c in fn.calls)
    return out


def same_statement(fn: FunctionFacts, a: Span, b: Span) -> bool:
    """Whether spans ``a`` and ``b`` of ``fn`` are in one statement (or on one line)."""
    if a[0] == b[0]:
        return True
    return any(_covers(s, a) and _covers(s, b) for s in statement_spans(fn))


class StatementFilter:
    """Keeps the first of the spans a function reports per statement."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, ...], list[Span]] = {}

    def first(self, fn: FunctionFacts, key: tuple[str, ...], span: Span) -> bool:
        """True for the first span of its statement under ``key`` (code, member...)."""
        kept = self._kept.setdefault((fn.qualname, *key), [])
        if any(same_statement(fn, span, other) for other in kept):
            return False
        kept.append(span)
        return True
