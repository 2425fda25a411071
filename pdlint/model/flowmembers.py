"""``pdlint graph --member M``: the edges of the value-flow graph that member M of a
variant can take, as the check's call graph tells them (the call sites' variant
guards, and the classes a variant picks, see :mod:`pdlint.model.callgraph`)."""

from __future__ import annotations

from collections.abc import Sequence

from pdlint.facts.types import CallFact, FunctionFacts
from pdlint.model.callgraph import CallGraph
from pdlint.model.class_factories import ClassFactories
from pdlint.model.names import Model
from pdlint.model.variants import MAYBE, T, Variant, Variants


class MemberError(Exception):
    """``--member`` names no member of a variant, or members of several."""


def find_member(model: Model, variants: Variants, spec: str) -> tuple[Variant, int]:
    """The variant and member index ``spec`` names: ``MEMBER``, ``Enum.MEMBER`` or a
    qualified ``pkg.mod.Enum.MEMBER``."""
    owner, _, member = spec.rpartition(".")
    found: dict[str, tuple[Variant, int]] = {}
    for qual in sorted(model.classes):
        if owner and qual != owner and not qual.endswith("." + owner):
            continue
        if qual in variants.by_name:
            variant = variants.by_name[qual]
            if member in variant.positions:
                found[qual] = (variant, variant.positions[member][0])
    if not found:
        raise MemberError(f"--member {spec}: no variant of the analysed code has it")
    if len(found) > 1:
        named = ", ".join(f"{q}.{member}" for q in sorted(found))
        raise MemberError(f"--member {spec}: several variants have it ({named}); name one")
    return next(iter(found.values()))


def member_edges(
    model: Model, roots: Sequence[str], edges: dict[str, set[str]], spec: str
) -> dict[str, set[str]]:
    """The edges of ``edges`` that member ``spec`` takes from ``roots``: an edge the
    check's call graph (on ``model``) also has is kept when one of its call sites can
    run for the member (its guards) and the member takes it (a class the variant
    picks); an edge only the value flow finds is kept (nothing tells it apart). A lazy
    ``model`` loads the modules whose text names the member, where its variant is."""
    if model.source is not None:
        model.load_modules(model.source.with_text(any_of=[spec.rpartition(".")[2]]))
    variants = Variants(model)
    variant, member = find_member(model, variants, spec)
    factories = ClassFactories(model, variants)
    starts = [r for r in roots if r in model.functions]
    graph = CallGraph(model, starts, factories.targets)

    def allowed(fn: FunctionFacts, site: CallFact) -> bool:
        return variants.guards_truth(site.guards, fn, variant, member) in (T, MAYBE)

    def takes(caller: str, callee: str) -> bool:
        sites = graph.sites(caller, callee)
        if not sites:
            return True
        when = graph.when.get((caller, callee))
        if when is not None and when[0] == variant.qualname and member not in when[1]:
            return False
        fn = model.functions.get(caller)
        return fn is None or any(allowed(fn, site) for site in sites)

    out: dict[str, set[str]] = {}
    todo = list(roots)
    while todo:
        node = todo.pop()
        if node in out:
            continue
        out[node] = {c for c in edges.get(node, ()) if takes(node, c)}
        todo.extend(out[node])
    return out
