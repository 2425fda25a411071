"""Where an offset into the peer's copy is evaluated: a function bound by its call
sites, and the two scenarios (both roles' lists alike, the peer's grown)."""

from __future__ import annotations

from dataclasses import dataclass

from pdlint.facts.types import CallFact, Expr, FunctionFacts, Span

BASE = 840  # entries of a list when both roles agree (divisible by 1..8)
EXTRA = 12  # entries one role adds under its own setting (moves ``// k`` for k <= 12)
MAX_DEPTH = 12
MAX_CONTEXTS = 8  # call sites per function that bind its parameters to a copy

Scenario = tuple[int, int]  # (length of the peer's copy, length of the local list)
AGREE: Scenario = (BASE, BASE)
PEER_GROWS: Scenario = (BASE + EXTRA, BASE)


@dataclass(frozen=True, eq=False)
class Context:
    """A call site that binds parameters of the callee (to a copy of a list, or values)."""

    caller: Frame
    call: CallFact
    args: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True, eq=False)
class Frame:
    """A function, and the call that bound its parameters (None: unbound)."""

    fn: FunctionFacts
    ctx: Context | None = None

    def arg(self, name: str) -> Expr | None:
        """The expression the call passed for parameter ``name`` (None: unbound)."""
        if self.ctx is None:
            return None
        for param, expr in self.ctx.args:
            if param == name:
                return expr
        return None


@dataclass(frozen=True)
class Move:
    """An offset into the peer's copy that moves when one role's list grows."""

    bound: Expr
    # where the peer's length enters the offset: (function, span, source text)
    origins: tuple[tuple[str, Span, str], ...]
