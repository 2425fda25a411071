"""PDL105 relay-state-type: the finding for a consumer that demands a class of the
relay state that the builder does not make for the member."""

from __future__ import annotations

from pdlint.checks.relay.relays import Relay, path_steps
from pdlint.checks.relay.state_types import TypeDemand
from pdlint.facts.exprs import text
from pdlint.facts.types import CallFact, Span
from pdlint.findings import Finding, Related, Step, listed
from pdlint.model.locations import location, short_name
from pdlint.model.names import Model


def _class_names(classes: tuple[str, ...] | frozenset[str]) -> list[str]:
    return sorted(f"`{c.rsplit('.', 1)[-1]}`" for c in classes)


def type_finding(
    model: Model,
    relay: Relay,
    member: int,
    made: frozenset[str],
    made_span: Span,
    consumer: str,
    demand: TypeDemand,
    parents: dict[str, tuple[str, CallFact] | None],
) -> Finding:
    """The PDL105 finding: path entry -> ... -> the demand; related: where the builder
    makes the member's value, the relay's store, the entry point."""
    builder = relay.builder
    name = builder.variant.members[member]
    builder_fn = model.functions[builder.made_by(member)]
    entry, steps = path_steps(model, parents, consumer)
    built = " or ".join(_class_names(made))
    state = text(demand.obj, brief=True)
    if demand.classes:
        wanted = " or ".join(_class_names(demand.classes))
        what = f"demands {wanted} (`{demand.shown}`)"
        fix = f"make {wanted.split(' or ')[0]} for {name} in the builder"
    else:
        what = f"calls `{demand.method}`, which only a subclass of {built} defines"
        fix = f"make the subclass {name} needs in the builder"
    steps.append(Step(location(model, consumer, demand.span), consumer, f"{what}"))
    message = (
        f"{name} reaches `{short_name(consumer)}`, which {what}, but `{builder_fn.name}` "
        f"makes {built} for {name}, so `{state}` is of the wrong class after the handoff; "
        f"{fix}, or reject {name} in decode mode in a startup validator"
    )
    related = (
        Related(
            location(model, builder_fn.qualname, made_span),
            f"`{builder_fn.name}` makes {built} for {name}",
        ),
        Related(
            location(model, relay.function, relay.store_span),
            f"relay stores `{relay.state}`",
        ),
        Related(
            location(model, entry, model.functions[entry].span),
            f"decode entry point `{short_name(entry)}`",
        ),
    )
    wanted_classes = [f"`{c.rsplit('.', 1)[-1]}`" for c in demand.classes]
    lacking = (
        f"not {listed(wanted_classes)}" if wanted_classes else f"which has no `{demand.method}`"
    )
    wanted_names = listed([c.rsplit(".", 1)[-1] for c in demand.classes]) or demand.method
    return Finding(
        "PDL105",
        message,
        location(model, consumer, demand.span),
        related=related,
        path=tuple(steps),
        member=name,
        key=("PDL105", entry, name, consumer, state, wanted_names),
        summary=f"{name} gets {built} from `{builder_fn.name}`, {lacking}",
    )
