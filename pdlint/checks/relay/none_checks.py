"""Whether the relay state is tested for None, or set, before code dereferences it."""

from __future__ import annotations

from collections.abc import Callable

from pdlint.checks.relay.decode_tests import flatten
from pdlint.checks.relay.late_failures import bypass_only
from pdlint.facts.exprs import substituted
from pdlint.facts.indexer import held_entry, keyed_name
from pdlint.facts.types import (
    CallFact,
    DerefFact,
    Expr,
    FunctionFacts,
    Guards,
    Span,
    before_return,
)
from pdlint.model.binding import bind_arguments
from pdlint.model.names import Model, assigned_values

# Whether conditions of a function surely hold for the member a check asks about
# (``if batch.kind is Kind.NGRAM:`` for NGRAM): a store under them runs for it.
Holds = Callable[[Guards, FunctionFacts], bool]


def _is_state(expr: Expr, name: str) -> bool:
    return (
        (expr[0] == "name" and expr[1] == name)
        or (expr[0] == "attr" and expr[2] == name)
        or (  # ``req["draft"]``, the state ``['draft']`` (see facts.indexer.keyed_state)
            expr[0] == "subscript"
            and expr[2][0] == "const"
            and isinstance(expr[2][1], str)
            and keyed_name(expr[2][1]) == name
        )
        or _is_entry(expr, name)
    )


def _is_entry(expr: Expr, name: str) -> bool:
    """``expr`` reads an entry of a keyed container whose entries are the state ``name``
    (``self.pending[rid]``, ``self.pending.get(rid)``: see facts.indexer.held_entry)."""
    if not name.endswith("]") or expr[0] not in ("subscript", "call"):
        return False
    entry = held_entry(expr)
    return entry is not None and entry[2] == name


def state_locals(fn: FunctionFacts, state: str, model: Model | None = None) -> frozenset[str]:
    """The locals of ``fn`` that hold the state ``state`` (``ctx = batch.draft_ctx``) or,
    for a keyed container's entries, an entry (``for rid, meta in
    self.pending.items()``, ``meta = self.pending.get(rid)``), every value the local is
    given: a None test of one tests the state, and passing one on passes the state.
    With ``model``, also a local given what a call returns, when that is the state of
    an object the call passes (see :func:`held_state`)."""
    held: dict[str, bool] = {}
    for local, value in fn.assigns:
        if value[0] != "annotated" and value != ("const", None):
            # a None besides (``md = None``, then ``if ...: md = batch.md``) holds none
            found = held_state(fn, value, state, model) is not None
            held[local] = held.get(local, True) and found
    return frozenset(local for local, only in held.items() if only)


def held_state(
    fn: FunctionFacts, value: Expr, state: str, model: Model | None = None
) -> Expr | None:
    """The state (``obj.state``) a local of ``fn`` given ``value`` holds: the state
    itself (``ctx = batch.draft_ctx``), an entry of a keyed state, or, with ``model``,
    the state a called function returns of an object the call passes (``md =
    self._prepare(batch)``, which ends ``return batch.md``); None for any other."""
    entry = held_entry(value) if state.endswith("[...]") else value
    if entry is not None and entry[0] == "call" and model is not None:
        entry = _returned_state(model, fn, entry, state)
    if entry is None or entry[0] != "attr" or entry[2] != state:
        return None
    return entry


def _returned_state(model: Model, fn: FunctionFacts, call: Expr, state: str) -> Expr | None:
    """``arg.state`` for a call of the one function whose every return is
    ``param.state``, ``arg`` what the call binds to ``param``."""
    targets = model.call_targets(fn, call[1])
    if len(targets) != 1:
        return None
    callee = model.functions[targets[0]]
    returned = {r.value for r in callee.returns}
    if len(returned) != 1:
        return None
    value = returned.pop()
    if value is None or value[0] != "attr" or value[2] != state or value[1][0] != "name":
        return None
    bound = dict(bind_arguments(callee, call[1], call[2], call[3], bind_receiver=True))
    arg = bound.get(value[1][1])
    return None if arg is None else ("attr", arg, state)


def none_check(expr: Expr, name: str) -> bool:
    """Whether ``expr`` tests ``name`` for None or truthiness (``x is None``, ``x``...)."""
    kind = expr[0]
    if _is_state(expr, name):
        return True
    if kind == "not":
        return none_check(expr[1], name)
    if kind in ("and", "or"):
        return any(none_check(v, name) for v in expr[1])
    if kind == "cmp" and len(expr[2]) == 1 and expr[2][0] in ("is", "is not", "==", "!="):
        left, right = expr[1], expr[3][0]
        return (right == ("const", None) and _is_state(left, name)) or (
            left == ("const", None) and _is_state(right, name)
        )
    if kind == "call" and expr[1] in (("name", "isinstance"), ("name", "hasattr")) and expr[2]:
        return _is_state(expr[2][0], name)
    return False


def _tests_attribute(expr: Expr, name: str) -> bool:
    """:func:`none_check` of an attribute ``name`` (``x.state``), not of a local."""
    return none_check(expr, name) and not any(
        node == ("name", name) for node in _tested_subjects(expr)
    )


def _tested_subjects(expr: Expr) -> list[Expr]:
    """What a None or truth test reads: its subject, through ``not``, ``and``, ``or``."""
    kind = expr[0]
    if kind == "not":
        return _tested_subjects(expr[1])
    if kind in ("and", "or"):
        return [s for v in expr[1] for s in _tested_subjects(v)]
    if kind == "cmp" and len(expr[2]) == 1:
        return [expr[1], expr[3][0]]
    if kind == "call" and expr[2]:
        return [expr[2][0]]
    return [expr]


def guards_mention(guards: Guards, name: str) -> bool:
    """Whether a guard checks ``name`` for None or truthiness."""
    return any(none_check(expr, name) for expr, _ in guards)


def stored_before(
    fn: FunctionFacts,
    deref: DerefFact,
    model: Model | None = None,
    holds: Holds | None = None,
    *,
    replaced: bool = False,
) -> bool:
    """The state was set earlier on every path to the deref.

    Set by the function itself (a store under ``if x.state is None:`` counts:
    after that block the state is set on both branches), or, with ``model``, by
    an earlier call that receives the object and sets its state on every path
    (with ``holds``, on every path the member takes). With ``replaced``, a store
    under a test of the state does not count: a placeholder for a None state keeps
    the value the state had (its class), as the question is then what replaced it.
    """
    for store in fn.stores:
        if store.target != deref.obj or store.span >= deref.span:
            continue
        if _dominates(store.guards, deref.guards, deref.attr, holds, fn, replaced=replaced):
            return True
    if model is None or deref.obj[0] != "attr":
        return False
    base = deref.obj[1]
    for call in fn.calls:
        if call.span >= deref.span:
            continue
        if not _dominates(call.guards, deref.guards, deref.attr, holds, fn):
            continue
        targets = model.call_targets(fn, call.func)
        if targets and all(
            _sets_state(model.functions[t], call, base, deref.attr, holds, replaced=replaced)
            for t in targets
        ):
            return True
    return False


def _dominates(
    store_guards: Guards,
    guards: Guards,
    state: str,
    holds: Holds | None = None,
    fn: FunctionFacts | None = None,
    *,
    replaced: bool = False,
) -> bool:
    """Code under ``store_guards`` runs on every path to code under ``guards``: a store
    under a test of the state itself (``if x.state is None: x.state = ...``) sets it on
    both branches; one under a test of a local (``if state is not None: x.state =
    state``, the local named as the state or not) may not run; with ``holds``, one
    under conditions that hold for the member asked about runs for it."""
    while not replaced and store_guards and _tests_attribute(store_guards[-1][0], state):
        store_guards = store_guards[:-1]
    # Every condition the store runs under also holds at the later code (the
    # same test may be written twice: ``if v: set()`` ... ``if v: use()``), each
    # ``and`` and negated ``or`` read as its parts on both sides.
    rest = tuple(g for g in store_guards if g not in guards)
    if rest:
        later = set(flatten(guards))
        rest = tuple(g for g in flatten(rest) if g not in later)
    return not rest or (holds is not None and fn is not None and holds(rest, fn))


def _sets_state(
    callee: FunctionFacts,
    call: CallFact,
    base: Expr,
    state: str,
    holds: Holds | None = None,
    *,
    replaced: bool = False,
) -> bool:
    """``callee`` sets ``<param>.state`` before each of its returns, for the param
    that receives ``base`` at ``call`` (but a return for bypass batches alone, idle or
    dummy, whose state the mode check follows)."""
    bound = bind_arguments(callee, call.func, call.args, call.kwargs, bind_receiver=True)
    names = [param for param, arg in bound if arg == base]
    for name in names:
        stores = [s for s in callee.stores if s.target == ("attr", ("name", name), state)]
        if stores and all(
            any(
                before_return(s.span, r)
                and _dominates(s.guards, r.guards, state, holds, callee, replaced=replaced)
                for s in stores
            )
            for r in callee.returns
            if not _ruled_out(r.guards, call, dict(bound))
        ):
            return True
    return False


def _ruled_out(guards: Guards, call: CallFact, bound: dict[str, Expr]) -> bool:
    """Code of the callee under ``guards`` does not run from ``call`` but for a bypass
    batch: a condition of it whose every alternative (``a or b``) holds only for
    bypass batches (idle, dummy) or is false where the call is (the caller tested it
    false, with the callee's parameters standing for the arguments)."""

    def false_at_call(part: Expr) -> bool:
        shown = substituted(part, bound)
        return any(
            not polarity and (expr == shown or (expr[0] == "or" and shown in expr[1]))
            for expr, polarity in call.guards
        )

    for expr, polarity in guards:
        if not polarity:
            continue
        parts = expr[1] if expr[0] == "or" else (expr,)
        if all(bypass_only(((p, True),)) or false_at_call(p) for p in parts):
            return True
    return False


# library calls that return a new object, never None
_NEW_OBJECTS = frozenset({"dataclasses.replace", "copy.replace"})


def never_none(
    model: Model,
    fn: FunctionFacts,
    value: Expr,
    at: tuple[Span, Guards] | None = None,
    depth: int = 0,
) -> bool:
    """``value`` is an object, never None (at ``at``, a place and its conditions, when
    given): a constructor of an analysed class, a call every target of which returns
    such a value on each of its returns, a local every assignment of which is one, or a
    local a method was called on earlier on every path to ``at`` (it would have failed
    there). A builder's result, which may be None, is not."""
    if depth > 4:
        return False
    if value[0] == "name":
        if at is not None and _called_on_before(fn, value, *at):
            return True
        values = assigned_values(fn, value[1])
        if at is not None:
            # the assignments before ``at``, when one alone (those after cannot reach it)
            before = [b.value for b in fn.binds if b.names == (value[1],) and b.span < at[0]]
            values = before if len(before) == 1 else values
        return bool(values) and all(
            never_none(model, fn, v, None, depth + 1) for v in values if v != value
        )
    if value[0] != "call" or value[1][0] not in ("name", "attr"):
        return False
    if value[1] == ("name", "cls") and "classmethod" in fn.decorators:
        return True
    resolved = model.resolve_dotted(fn, model.module_of(fn), value[1])
    if resolved in model.classes or resolved in _NEW_OBJECTS:
        return True
    targets = model.call_targets(fn, value[1])
    return bool(targets) and all(
        not target.endswith(".__init__")
        and model.functions[target].returns
        and all(
            not ret.implicit
            and ret.value is not None
            and never_none(model, model.functions[target], ret.value, None, depth + 1)
            for ret in model.functions[target].returns
        )
        for target in targets
    )


def _called_on_before(fn: FunctionFacts, local: Expr, at: Span, guards: Guards) -> bool:
    """A method of the local ``local`` is called before ``at``, on every path to it
    (under no condition but those of ``at``: ``assert x.is_ready()`` in the branch of
    a later store), and the local is not rebound in between."""
    calls = [
        c.span
        for c in fn.calls
        if c.func[0] == "attr"
        and c.func[1] == local
        and c.span < at
        and all(g in guards for g in c.guards)
    ]
    if not calls:
        return False
    first = min(calls)
    return not any(local[1] in b.names and first < b.span < at for b in fn.binds)


def stored_for_call(
    model: Model,
    fn: FunctionFacts,
    site: CallFact,
    state: str,
    relays: frozenset[str],
    holds: Holds | None = None,
) -> bool:
    """``fn`` sets ``<obj>.state`` to a new object on every path before ``site``, for an
    ``obj`` the call receives (an argument, or the receiver of a method call): the
    callee sees the state just set, not what the relay left (``batch.draft =
    Draft.fresh(batch); self.verify(batch)``)."""
    passed = {*site.args, *(v for _, v in site.kwargs)}
    if site.func[0] == "attr":
        passed.add(site.func[1])
    for store in fn.stores:
        target = store.target
        if target[0] != "attr" or target[2] != state or store.span >= site.span:
            continue
        if target[1] not in passed:
            continue
        # every condition of the store holds at the call, or it is a None test of the
        # state itself (an idle placeholder: set on both branches); a store under a
        # None test of its value, as the relay's own, may not run
        if _dominates(store.guards, site.guards, state, holds, fn) and never_none(
            model, fn, store.value, (store.span, store.guards)
        ):
            return True
    # or an earlier call it passes the object to sets its state on every path, as
    # :func:`stored_before` reads one before a dereference (``self.verify(batch)``,
    # which ends ``batch.draft = result.next_draft``, then ``self.extend(batch)``); a
    # relay (``relays``) sets it to what its builder gave, maybe None
    for call in fn.calls:
        if call.span >= site.span:
            continue
        bases = passed & {*call.args, *(v for _, v in call.kwargs), *_receiver(call)}
        if not bases or not _dominates(call.guards, site.guards, state, holds, fn):
            continue
        for base in bases:
            targets = model.call_targets(fn, call.func)
            if targets and all(
                t not in relays and _sets_state(model.functions[t], call, base, state, holds)
                for t in targets
            ):
                return True
    return False


def _receiver(call: CallFact) -> tuple[Expr, ...]:
    return (call.func[1],) if call.func[0] == "attr" else ()


def called_on_state(fn: FunctionFacts, site: CallFact, state: str) -> bool:
    """The call is a method of the state itself (``x.state.verify(...)``, or of a local
    bound to it): it runs only when the state exists, so a member without it never
    gets into the callee (the call itself is the dereference that fails)."""
    func = site.func
    if func[0] != "attr":
        return False
    receiver = func[1]
    if receiver[0] == "attr":
        return bool(receiver[2] == state)
    if receiver[0] == "name":
        values = [v for local, v in fn.assigns if local == receiver[1] and v[0] != "annotated"]
        return len(values) == 1 and values[0][0] == "attr" and values[0][2] == state
    return False
