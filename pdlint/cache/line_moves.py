"""Edits that only move code: the previous findings, with their lines moved along.

Inserting or deleting lines that give no facts (comments, blank lines, ``pass``,
a docstring line) changes a file's facts only in their spans. The analysis
reads facts and nothing else, so its findings are the previous ones with every
span of that file replaced by the span the same fact has now. :func:`moves`
pairs the old and new facts of a file fact by fact; :func:`move_findings`
applies the pairing. Anything else (a fact added, removed or changed, a span
that does not pair one to one, a location that is not a fact's span) answers
None, and the caller runs the analysis again.
"""

from __future__ import annotations

import dataclasses

from pdlint.facts.types import ModuleFacts, Span
from pdlint.findings import Finding, Location

_SPAN = "<span>"


def _shape(node: object, spans: list[Span]) -> object:
    """``node`` with every span replaced by a marker; the spans, in order, go to ``spans``."""
    if isinstance(node, tuple):
        if len(node) == 4 and all(type(x) is int for x in node):
            spans.append(node)
            return _SPAN
        values = tuple(_shape(x, spans) for x in node)
        return values if type(node) is tuple else (type(node).__name__, values)  # a fact
    return node


def moves(old: ModuleFacts, new: ModuleFacts) -> dict[Span, Span] | None:
    """Old span -> new span, when the two differ in spans only (None otherwise)."""
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    try:
        if _shape(old, old_spans) != _shape(new, new_spans):
            return None
    except RecursionError:
        return None
    pairs: dict[Span, Span] = {}
    for before, after in zip(old_spans, new_spans, strict=True):
        if pairs.setdefault(before, after) != after:
            return None  # one old span now stands for two places
    return pairs


def move_findings(
    findings: list[Finding], path: str, pairs: dict[Span, Span]
) -> list[Finding] | None:
    """``findings`` with every location in ``path`` moved (None if one does not pair)."""

    def move(loc: Location) -> Location:
        if loc.path != path:
            return loc
        after = pairs.get((loc.line, loc.column, loc.end_line, loc.end_column))
        if after is None:
            raise LookupError(loc)
        return Location(path, *after)

    out: list[Finding] = []
    try:
        for finding in findings:
            out.append(
                dataclasses.replace(
                    finding,
                    location=move(finding.location),
                    related=tuple(
                        dataclasses.replace(r, location=move(r.location)) for r in finding.related
                    ),
                    path=tuple(
                        dataclasses.replace(s, location=move(s.location)) for s in finding.path
                    ),
                )
            )
    except LookupError:
        return None
    return out
