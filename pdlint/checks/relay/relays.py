"""Builders (a dispatch function that returns None for some members) and relays (where
a builder's result is stored into an attribute, the relay state)."""

from __future__ import annotations

from dataclasses import dataclass

from pdlint.facts.types import CallFact, Expr, Span
from pdlint.findings import Related, Step
from pdlint.model.callgraph import call_chain
from pdlint.model.locations import call_step, location, short_name
from pdlint.model.names import Model
from pdlint.model.variants import Variant


@dataclass(frozen=True)
class Builder:
    """A dispatch function and, per member, whether it builds a value."""

    qualname: str
    variant: Variant
    gaps: tuple[int, ...]  # members it returns None for
    none_spans: tuple[Span, ...]  # where, for each gap (same order)
    bound: frozenset[str] = frozenset()  # the parameters holding the variant value
    # the relay method itself, storing the state only under a test of the variant
    inline: bool = False
    # (the relay, its tests) when the gaps are members the relay never calls the builder
    # for, the builder building their state (see unwired.py); the spans are its call's
    skipped: tuple[str, str] | None = None
    # (member, method) where the member's object runs an override of the builder (a
    # method called on an object whose class a variant picks) that builds its state
    overrides: tuple[tuple[int, str], ...] = ()

    def gap(self, model: Model, state: str, names: str) -> str:
        """Why the members ``names`` have no state: the builder's None, the relay
        method's stores that leave them out, or the relay's tests that do."""
        name = model.functions[self.qualname].name
        if self.skipped is not None:
            relay, tests = self.skipped
            return (
                f"the relay `{model.functions[relay].name}` calls `{name}` only under "
                f"{tests}, never for {names}"
            )
        if self.inline:
            return f"`{name}` never sets `{state}` for {names}"
        return f"`{name}` returns None for {names}"

    def made_by(self, member: int) -> str:
        """The function that builds the member's state (an override its object runs)."""
        return dict(self.overrides).get(member, self.qualname)

    @property
    def gap_function(self) -> str:
        """The function the spans of the gaps are in."""
        return self.qualname if self.skipped is None else self.skipped[0]

    def __hash__(self) -> int:  # its gaps grow with the members: keys must not
        return hash((self.qualname, self.variant))


@dataclass(frozen=True)
class Relay:
    """Where a builder's result is stored into an attribute (the relay state)."""

    state: str
    builder: Builder
    function: str
    store_span: Span
    target: Expr  # the attribute stored into (``batch.spec_info``)
    # the state reaches no attribute: only a field of a carrier the relay hands on gets
    # what the builder made (``Payload(tokens=t, scores=state.scores)``); the fallback's
    # carrier leaving that field None is PDL104's, not a missing relay state
    carried: bool = False
    # the relay whose state this one hands on in a carrier's field (the connector's
    # metadata: ``ConnectorMetadata(dict(self._reqs_need_recv))``), see handover.py
    origin: Relay | None = None

    def __hash__(self) -> int:
        return hash((self.state, self.function, self.store_span, self.builder))

    def first(self) -> Relay:
        """The relay storing the builder's result (the start of a hand-on chain)."""
        return self if self.origin is None else self.origin.first()


def relay_related(
    model: Model, relay: Relay, member: int, none_span: Span, entry: str
) -> tuple[Related, ...]:
    """The related locations of a finding on ``relay`` for ``member``: the builder's
    None, the relay's store and the decode entry point."""
    builder = relay.builder
    name = builder.variant.members[member]
    first = relay.first()
    handed = (
        ()
        if relay.origin is None
        else (
            Related(
                location(model, relay.function, relay.store_span),
                f"hands `{relay.origin.state}` on as `{relay.state}`",
            ),
        )
    )
    return (
        Related(
            location(model, builder.gap_function, none_span),
            builder.gap(model, first.state, name),
        ),
        Related(
            location(model, first.function, first.store_span),
            f"relay stores `{first.state}` only when built",
        ),
        *handed,
        Related(
            location(model, entry, model.functions[entry].span),
            f"decode entry point `{short_name(entry)}`",
        ),
    )


def path_steps(
    model: Model, parents: dict[str, tuple[str, CallFact] | None], node: str
) -> tuple[str, list[Step]]:
    """The entry point of a :meth:`CallGraph.reach` result that reaches ``node``, and
    the steps of the path from it: the entry, then each call down to ``node``."""
    chain = call_chain(parents, node)
    entry = chain[0][0]
    steps = [
        Step(
            location(model, entry, model.functions[entry].span),
            entry,
            f"entry point `{short_name(entry)}`",
        )
    ]
    for (caller, _), (callee, site) in zip(chain, chain[1:], strict=False):
        assert site is not None
        steps.append(call_step(model, caller, site.span, callee))
    return entry, steps
