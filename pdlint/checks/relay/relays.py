"""Builders (a dispatch function that returns None for some members) and relays (where
a builder's result is stored into an attribute, the relay state)."""

from __future__ import annotations

from dataclasses import dataclass

from pdlint.facts.types import Expr, Span
from pdlint.model.variants import Variant


@dataclass(frozen=True)
class Builder:
    """A dispatch function and, per member, whether it builds a value."""

    qualname: str
    variant: Variant
    gaps: tuple[int, ...]  # members it returns None for
    none_spans: tuple[Span, ...]  # where, for each gap (same order)


@dataclass(frozen=True)
class Relay:
    """Where a builder's result is stored into an attribute (the relay state)."""

    state: str
    builder: Builder
    function: str
    store_span: Span
    target: Expr  # the attribute stored into (``batch.spec_info``)
