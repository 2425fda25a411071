"""Where a function's code is, as findings show it: a location from a span, a short name."""

from __future__ import annotations

from pdlint.facts.types import CallFact, Span
from pdlint.findings import Location, Step
from pdlint.model.names import Model


def location(model: Model, qual: str, span: Span) -> Location:
    """The location of ``span`` in the file that defines function ``qual``."""
    module = model.function_module[qual]
    return Location(model.modules[module].path, *span)


def short_name(qual: str) -> str:
    """The last two parts of a qualified name (``Class.method``), for messages."""
    parts = qual.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 else qual


def call_step(model: Model, caller: str, span: Span, callee: str) -> Step:
    """The step of a finding's path where ``caller`` calls ``callee`` at ``span``."""
    return Step(location(model, caller, span), caller, f"calls `{short_name(callee)}`")


def deref_step(model: Model, consumer: str, span: Span, shown: str) -> Step:
    """The last step of a finding's path: ``consumer`` dereferences ``shown``."""
    return Step(location(model, consumer, span), consumer, f"dereferences `{shown}`")


def entry_steps(
    model: Model, parents: dict[str, tuple[str, CallFact] | None], qual: str
) -> list[Step]:
    """The path of a finding in ``qual``: its entry point, then each call down to it
    (``parents`` as :meth:`pdlint.model.callgraph.CallGraph.reach` gives them)."""
    chain: list[tuple[str, CallFact | None]] = []
    current: str | None = qual
    while current is not None and all(current != c for c, _ in chain):
        link = parents.get(current)
        chain.append((current, link[1] if link else None))
        current = link[0] if link else None
    chain.reverse()
    entry = chain[0][0]
    steps = [
        Step(
            location(model, entry, model.functions[entry].span),
            entry,
            f"entry point `{short_name(entry)}`",
        )
    ]
    for (caller, _), (callee, site) in zip(chain[:-1], chain[1:], strict=True):
        assert site is not None
        steps.append(call_step(model, caller, site.span, callee))
    return steps
