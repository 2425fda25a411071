"""The lists that cross the handoff, and the entries a role adds to them on its own."""

from __future__ import annotations

from dataclasses import dataclass, field

from pdlint.facts.types import Expr, Span


@dataclass(frozen=True)
class Growth:
    """Entries added to a handoff list under a role-local condition."""

    function: str
    span: Span
    condition: str  # as it holds where the entries are added
    added: Expr


@dataclass
class HandoffList:
    """A list that crosses the handoff, under all the names it is stored as."""

    name: str
    names: set[str] = field(default_factory=set)
    growths: list[Growth] = field(default_factory=list)
    derived_from: str | None = None
