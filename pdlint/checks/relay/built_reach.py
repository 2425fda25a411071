"""The calls a request takes with the relay state its builder made still there (PDL105
walks this reach: a placeholder made under a None test does not hide a built state)."""

from __future__ import annotations

from pdlint.checks.relay.none_checks import guards_mention, never_none
from pdlint.facts.types import CallFact, Expr, FunctionFacts, before_return
from pdlint.model.binding import bind_arguments, call_arguments
from pdlint.model.callgraph import EdgeFilter
from pdlint.model.names import Model
from pdlint.model.variants import MAYBE, T, Variant, Variants


def built_state_edges(
    model: Model,
    variants: Variants,
    relays: frozenset[str],
    state: str,
    variant: Variant,
    member: int,
) -> EdgeFilter:
    """Call sites a request of ``member`` takes with the state its builder made still
    there: its tests of the variant may hold, no test of the state's class stands on the
    way, and no store replaces the state before the call. A None test does not stop it
    (the built state is not None), nor does a placeholder stored under one (``if
    batch.state is None: batch.state = X.create_idle_input()`` leaves a built state as
    it was). ``relays``: the functions that store the builder's result."""

    def replaced(fn: FunctionFacts, site: CallFact) -> bool:
        # as the relay's edges read it (``stored_for_call``), but a store under a None
        # test of the state does not run for a member whose state was built
        passed = {*call_arguments(site), *_receiver(site)}
        for store in fn.stores:
            target = store.target
            if target[0] != "attr" or target[2] != state or store.span >= site.span:
                continue
            if fn.qualname in relays and store.value[0] == "call":
                continue  # the relay's store of what a builder made (never None if typed)
            if target[1] in passed and all(g in site.guards for g in store.guards):
                if never_none(model, fn, store.value, (store.span, store.guards)):
                    return True
        for call in fn.calls:  # an earlier call given the object sets it on every path
            if call.span >= site.span or not all(g in site.guards for g in call.guards):
                continue
            for base in passed & {*call_arguments(call), *_receiver(call)}:
                targets = model.call_targets(fn, call.func)
                if targets and all(
                    t not in relays and _sets(model.functions[t], call, base) for t in targets
                ):
                    return True
        return False

    def _sets(callee: FunctionFacts, call: CallFact, base: Expr) -> bool:
        bound = bind_arguments(callee, call.func, call.args, call.kwargs, bind_receiver=True)
        for name in [param for param, arg in bound if arg == base]:
            stores = [
                s
                for s in callee.stores
                if s.target == ("attr", ("name", name), state)
                and not guards_mention(s.guards, state)
            ]
            if stores and all(
                any(
                    before_return(s.span, r) and all(g in r.guards for g in s.guards)
                    for s in stores
                )
                for r in callee.returns
            ):
                return True
        return False

    def allowed(fn: FunctionFacts, site: CallFact) -> bool:
        if any(_class_test(expr, state) for expr, _ in site.guards):
            return False
        if variants.guards_truth(site.guards, fn, variant, member) not in (T, MAYBE):
            return False
        return not replaced(fn, site)

    return allowed


def _class_test(expr: Expr, state: str) -> bool:
    """``expr`` tests the class of ``X.<state>`` (``isinstance``, ``hasattr``)."""
    if expr[0] == "not":
        return _class_test(expr[1], state)
    if expr[0] in ("and", "or"):
        return any(_class_test(e, state) for e in expr[1])
    return (
        expr[0] == "call"
        and expr[1] in (("name", "isinstance"), ("name", "hasattr"), ("name", "type"))
        and bool(expr[2])
        and expr[2][0][0] == "attr"
        and expr[2][0][2] == state
    )


def _receiver(call: CallFact) -> tuple[Expr, ...]:
    return (call.func[1],) if call.func[0] == "attr" else ()
