"""PDL104 relay-field-missing: the finding for a dereference of a carrier's field the
relay's fallback left None."""

from __future__ import annotations

from pdlint.checks.relay.fields import FieldDeref
from pdlint.checks.relay.relays import Relay, path_steps
from pdlint.facts.exprs import text
from pdlint.facts.types import CallFact, Span
from pdlint.findings import Finding, Related, Step
from pdlint.model.locations import call_step, deref_step, location, short_name
from pdlint.model.names import Model


def carrier_finding(
    model: Model,
    relay: Relay,
    member: int,
    none_span: Span,
    found: FieldDeref,
    parents: dict[str, tuple[str, CallFact] | None],
) -> Finding:
    """The PDL104 finding: path entry -> relay -> the calls the carrier is given
    through -> the dereference; related: the construction site, the builder's None."""
    builder = relay.builder
    name = builder.variant.members[member]
    carrier, deref = found.carrier, found.deref
    field = deref.attr
    shown = text(deref.obj, brief=True)
    cls = short_name(carrier.cls).rsplit(".", 1)[-1]
    entry, steps = path_steps(model, parents, relay.function)
    steps.append(
        Step(
            location(model, relay.function, carrier.span),
            relay.function,
            f"makes `{cls}` without `{field}`",
        )
    )
    for caller, site, callee in found.calls:
        steps.append(call_step(model, caller, site.span, callee))
    steps.append(deref_step(model, found.function, deref.span, shown))
    message = (
        f"{name} reaches `{shown}` but the relay's `{cls}(...)` leaves `{field}` None: "
        f"{builder.gap(model, relay.state, name)}, so the relay takes its fallback, "
        f"and a test of the variant that holds for {name} dereferences the field; "
        f"give `{field}` in the fallback for {name}, build the state for {name}, or reject "
        f"{name} in decode mode in a startup validator"
    )
    related = (
        Related(
            location(model, relay.function, carrier.span),
            f"`{cls}` is made here without `{field}` (None by default)",
        ),
        Related(
            location(model, builder.gap_function, none_span),
            builder.gap(model, relay.state, name),
        ),
        Related(
            location(model, entry, model.functions[entry].span),
            f"decode entry point `{short_name(entry)}`",
        ),
    )
    return Finding(
        "PDL104",
        message,
        location(model, found.function, deref.span),
        related=related,
        path=tuple(steps),
        member=name,
        key=("PDL104", entry, name, found.function, shown),
        summary=f"{name} reaches `{shown}`, left None by the relay's `{cls}(...)`",
    )
