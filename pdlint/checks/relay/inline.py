"""Inline builders: the relay method itself stores the state under a test of the variant
(``if self.algo.is_eagle(): ... self.draft = EagleDraft(...)``, or a ``match`` with no
case for some members), under no other condition, and the attribute is None until it
is stored (a class or dataclass default, an ``__init__`` store of None). The members
no store runs for have no state: the relay method is their builder (PDL001), and
PDL101 follows them; a member the relay method raises for is handled (it fails at
handoff), and one it returns a value for instead (an error) is its caller's to handle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pdlint.checks.relay.late_failures import is_mode_variant
from pdlint.checks.relay.none_checks import guards_mention, never_none
from pdlint.checks.relay.relays import Builder
from pdlint.facts.types import Expr, FunctionFacts, StoreFact
from pdlint.model.names import Model
from pdlint.model.variants import MAYBE, UNKNOWN, T, Variant, Variants

TestedNodes = Callable[[FunctionFacts, Expr], Iterator[tuple[FunctionFacts, Expr]]]


def state_stores(model: Model, fn: FunctionFacts) -> dict[Expr, list[StoreFact]]:
    """The stores of ``fn`` into attributes, by target, of the targets that ``fn`` sets
    to a new object only under some condition (a candidate inline builder): every
    store makes an object (see :func:`never_none`), none runs under a None test of the
    attribute (that fills a gap, it builds nothing)."""
    out: dict[Expr, list[StoreFact]] = {}
    for store in fn.stores:
        if store.target[0] == "attr":
            out.setdefault(store.target, []).append(store)
    return {
        target: stores
        for target, stores in out.items()
        if any(store.guards for store in stores)
        and all(never_none(model, fn, store.value, (store.span, store.guards)) for store in stores)
        and not any(guards_mention(store.guards, target[2]) for store in stores)
    }


def _role(variant: Variant) -> bool:
    """The disaggregation role (prefill, decode): one value for the whole server, not a
    variant a request carries through the handoff."""
    names = {name.upper() for name in variant.members}
    return {"PREFILL", "DECODE"} <= names


def inline_builder(
    model: Model,
    variants: Variants,
    tested: TestedNodes,
    none_fields: Callable[[str], frozenset[str]],
    fn: FunctionFacts,
    target: Expr,
    stores: list[StoreFact],
) -> Builder | None:
    """The builder ``fn`` is for the state ``target`` names, if its stores of it leave
    some members of a variant they test out (and the attribute is None until stored)."""
    if fn.name == "__init__":
        return None
    cls = model.type_of(fn, target[1])
    if cls is None or target[2] not in none_fields(cls):
        return None
    found: list[Variant] = []
    for store in stores:
        for expr, _ in store.guards:
            for where, node in tested(fn, expr):
                if node[0] != "attr":
                    continue
                variant = variants.attr_variant(where, node)
                if variant is None or is_mode_variant(variant.members) or _role(variant):
                    continue  # a batch mode changes per step, a role per server
                if all(v is not variant for v in found):
                    found.append(variant)
    for variant in found:
        gaps, covered = [], False
        truths = [
            [variants.guards_truth(s.guards, fn, variant, m) for s in stores]
            for m in range(len(variant.members))
        ]
        if any(MAYBE in t for t in truths):
            # a store under another condition too (a setting, the step's data) is the
            # step's own state, not a dispatch on the variant alone
            continue
        for member in range(len(variant.members)):
            if UNKNOWN in truths[member]:
                continue
            if T in truths[member]:
                covered = True
            elif not any(  # a raise at handoff handles the member
                variants.guards_truth(guards, fn, variant, member) is T for _, guards in fn.raises
            ) and not any(  # a value returned instead (an error) is the caller's to act on
                ret.span < stores[-1].span
                and ret.value not in (None, ("const", None))
                and variants.guards_truth(ret.guards, fn, variant, member) is T
                for ret in fn.returns
            ):
                gaps.append(member)
        if gaps and covered:
            spans = tuple(stores[0].span for _ in gaps)
            return Builder(fn.qualname, variant, tuple(gaps), spans, inline=True)
    return None
