"""Carriers: objects the relay creates with some fields left None, followed to the
per-variant code that dereferences one of those fields (PDL104's search).

A field is left None by a constructor call that does not give it, when the class
defaults it to None (a dataclass or class-level ``= None``) or ``__init__`` stores
None into it (or a parameter defaulting to None). The carrier is followed through
the arguments that receive it and the locals it is chosen into, a few calls deep; a
dereference of a field left None counts when a test of the variant on
its way (at the dereference or at a call that leads there) holds for the member (``if
algo.need_topk(): payload.topk_p[0]``) and no test of that field's None-ness guards it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from pdlint.checks.relay.decode_tests import flatten
from pdlint.checks.relay.none_checks import none_check
from pdlint.facts.types import CallFact, DerefFact, Expr, FunctionFacts, Guards, Span
from pdlint.model.binding import bind_arguments
from pdlint.model.names import Model
from pdlint.model.variants import MAYBE, T, Variant, Variants

DEPTH = 4  # calls a carrier is followed through


class _Walk(NamedTuple):
    """The member a carrier is followed for, and where each function is called from."""

    variant: Variant
    member: int
    caller: Callable[[str], tuple[str, CallFact] | None]


class Carrier(NamedTuple):
    """A constructor call in ``function`` that leaves ``none_fields`` None."""

    function: str
    cls: str
    span: Span
    none_fields: frozenset[str]


class FieldDeref(NamedTuple):
    """A dereference of a carrier's field left None, and the calls that led there."""

    carrier: Carrier
    function: str
    deref: DerefFact
    calls: tuple[tuple[str, CallFact, str], ...]  # (caller, site, callee) in order


def none_fields(model: Model, cls: str) -> frozenset[str]:
    """Fields an object of ``cls`` holds None until they are given: defaulted to None in
    the class body (a dataclass field) or stored None by ``__init__``."""
    out: set[str] = set()
    for klass in reversed(model.mro(cls)):
        facts = model.classes.get(klass)
        if facts is None:
            continue
        annotated = {name for name, _ in facts.annotations}
        for name, value, _span in facts.assigns:
            if name in annotated and _is_none_default(value):
                out.add(name)
            elif name in out:
                out.discard(name)
    init = model.lookup_method(cls, "__init__")
    if init is not None:
        init_facts = model.functions[init]
        # a parameter defaulting to None holds None when a call leaves it out
        none_params = {name for name, default in init_facts.defaults if default == ("const", None)}
        for store in init_facts.stores:
            target = store.target
            if target[0] == "attr" and target[1] == ("name", "self") and not store.guards:
                if store.value == ("const", None) or (
                    store.value[0] == "name" and store.value[1] in none_params
                ):
                    out.add(target[2])
                else:
                    out.discard(target[2])
    return frozenset(out)


def _is_none_default(value: Expr) -> bool:
    if value == ("const", None):
        return True
    # ``field(default=None)``
    return (
        value[0] == "call"
        and value[1] in (("name", "field"), ("attr", ("name", "dataclasses"), "field"))
        and ("default", ("const", None)) in value[3]
    )


class CarrierSearch:
    """Carriers made where a member runs, and the dereferences of their None fields."""

    def __init__(self, model: Model, variants: Variants) -> None:
        self.model = model
        self.variants = variants
        self._none_fields: dict[str, frozenset[str]] = {}

    def carriers(
        self, fn: FunctionFacts, variant: Variant, member: int, state: str
    ) -> Iterator[tuple[Carrier, Expr, CallFact | None]]:
        """(carrier, how ``fn`` holds it, the call it is given to) for each constructor
        call of ``fn`` the member runs that leaves a field None: given straight to a
        call, or bound to a local name (the call is None then). The relay state itself
        is not among the fields (a missing state is PDL101's)."""
        module = self.model.module_of(fn)
        for call in fn.calls:
            if not (call.args or call.kwargs) or call.func[0] not in ("name", "attr"):
                continue
            cls = self.model.resolve_dotted(fn, module, call.func)
            if cls is None or cls not in self.model.classes:
                continue
            if self.variants.guards_truth(call.guards, fn, variant, member) not in (T, MAYBE):
                continue
            given = {f for f, _ in self.model.constructor_arguments(cls, call.args, call.kwargs)}
            given.update(k for k, _ in call.kwargs)
            left = self.fields_of(cls) - given - {state}
            if not left:
                continue
            carrier = Carrier(fn.qualname, cls, call.span, left)
            made = ("call", call.func, call.args, call.kwargs)
            if call.target is not None:
                yield carrier, ("name", call.target, call.span), None
            for other in fn.calls:
                if made in other.args or made in (v for _, v in other.kwargs):
                    yield carrier, made, other

    def fields_of(self, cls: str) -> frozenset[str]:
        if cls not in self._none_fields:
            self._none_fields[cls] = none_fields(self.model, cls)
        return self._none_fields[cls]

    def derefs(
        self,
        carrier: Carrier,
        fn: FunctionFacts,
        held: Expr,
        site: CallFact | None,
        variant: Variant,
        member: int,
        caller: Callable[[str], tuple[str, CallFact] | None] = lambda _: None,
    ) -> Iterator[FieldDeref]:
        """The dereferences of the carrier's None fields the member reaches from ``fn``;
        ``caller``: the call site ``fn`` is reached from (where it returns the carrier to)."""
        walk = _Walk(variant, member, caller)
        if site is not None:
            yield from self._into(carrier, fn, site, held, walk, (), 0, False)
        else:
            yield from self._follow(carrier, fn, held, walk, (), 0, False)

    def _into(
        self,
        carrier: Carrier,
        fn: FunctionFacts,
        site: CallFact,
        held: Expr,
        walk: _Walk,
        calls: tuple[tuple[str, CallFact, str], ...],
        depth: int,
        selected: bool,
    ) -> Iterator[FieldDeref]:
        if depth >= DEPTH or not self._runs(site.guards, fn, walk, site.span, False):
            return
        # the variant test may stand at a call on the way (``if algo.is_x(): init(p)``)
        selected = selected or self._runs(site.guards, fn, walk, site.span, True)
        for target in self.model.call_targets(fn, site.func):
            callee = self.model.functions[target]
            for param, arg in bind_arguments(callee, site.func, site.args, site.kwargs):
                if arg == held:
                    step = (*calls, (fn.qualname, site, target))
                    yield from self._follow(
                        carrier, callee, ("name", param), walk, step, depth + 1, selected
                    )

    def _follow(
        self,
        carrier: Carrier,
        fn: FunctionFacts,
        held: Expr,
        walk: _Walk,
        calls: tuple[tuple[str, CallFact, str], ...],
        depth: int,
        selected: bool,
    ) -> Iterator[FieldDeref]:
        since = held[2] if held[0] == "name" and len(held) > 2 else (0, 0, 0, 0)
        held = held[:2] if held[0] == "name" else held
        for deref in fn.derefs:
            if deref.obj[0] != "attr" or deref.obj[1] != held:
                continue
            if not self._still_held(fn, held, since, deref.span):
                continue
            field = deref.attr
            if field not in carrier.none_fields:
                continue
            if any(s.target == deref.obj and s.span < deref.span for s in fn.stores):
                continue
            if self._runs(deref.guards, fn, walk, deref.span, not selected, field):
                yield FieldDeref(carrier, fn.qualname, deref, calls)
        for site in fn.calls:
            if held in site.args or held in (v for _, v in site.kwargs):
                if self._still_held(fn, held, since, site.span):
                    yield from self._into(carrier, fn, site, held, walk, calls, depth, selected)
        if not calls and depth < DEPTH:  # still where it was made: returned to the caller
            yield from self._returned(carrier, fn, held, since, walk, depth, selected)
        # a local the member binds to it (``if state is None: payload = base``), handed
        # on after the branch
        for bind in fn.binds:
            if bind.value != held or len(bind.names) != 1 or bind.names[0] == held[1]:
                continue
            if not self._still_held(fn, held, since, bind.span):
                continue
            if self._runs(bind.guards, fn, walk, bind.span, False):
                alias = ("name", bind.names[0], bind.span)
                yield from self._follow(carrier, fn, alias, walk, calls, depth, selected)

    def _returned(
        self,
        carrier: Carrier,
        fn: FunctionFacts,
        held: Expr,
        since: Span,
        walk: _Walk,
        depth: int,
        selected: bool,
    ) -> Iterator[FieldDeref]:
        """The carrier returned by ``fn`` where the member returns it, followed in the
        local the caller binds the result to, or into the call it gives the result to
        (``check(self.unpack(h))``), without the fields ``fn`` gave it on the way (``if
        state is None: return base`` then ``base.draft = state.tokens``)."""
        link = walk.caller(fn.qualname)
        if link is None:
            return
        caller, site = self.model.functions[link[0]], link[1]
        for ret in fn.returns:
            if ret.value != held or not self._still_held(fn, held, since, ret.span):
                continue
            if not self._runs(ret.guards, fn, walk, ret.span, False):
                continue
            given = {
                s.target[2]
                for s in fn.stores
                if s.target[0] == "attr"
                and s.target[1] == held
                and s.span < ret.span
                and set(s.guards) <= set(ret.guards)
            }
            left = carrier.none_fields - given
            if not left:
                continue
            kept = carrier._replace(none_fields=left)
            if site.target is not None:
                bound = ("name", site.target, site.span)
                yield from self._follow(kept, caller, bound, walk, (), depth + 1, selected)
                continue
            made = ("call", site.func, site.args, site.kwargs)
            for other in caller.calls:
                if made in other.args or made in (v for _, v in other.kwargs):
                    yield from self._into(kept, caller, other, made, walk, (), depth + 1, selected)

    @staticmethod
    def _still_held(fn: FunctionFacts, held: Expr, since: Span, span: Span) -> bool:
        """A local name still holds the carrier at ``span``: bound at ``since``, not
        bound again in between."""
        if held[0] != "name":
            return True
        if span < since:
            return False
        # a binding in the other branch of the test it was bound under does not count
        bound = next((b.guards for b in fn.binds if b.span == since), ())
        return not any(
            held[1] in b.names
            and since < b.span < span
            and not any((e, not p) in bound for e, p in b.guards)
            for b in fn.binds
        )

    def _runs(
        self,
        guards: Guards,
        fn: FunctionFacts,
        walk: _Walk,
        span: Span,
        per_variant: bool,
        field: str | None = None,
    ) -> bool:
        """Whether code under ``guards`` runs for the member (with ``per_variant``, under a
        test of the variant that holds for it), unguarded by a None test of ``field``."""
        guards = tuple((substituted(fn, e, span), p) for e, p in guards)
        if field is not None and any(none_check(e, field) for e, _ in guards):
            return False
        if self.variants.guards_truth(guards, fn, walk.variant, walk.member) not in (T, MAYBE):
            return False
        if not per_variant:
            return True
        # a test written to select the variants that read the field (``if
        # algo.needs_tree():``), not an early exit that drops another one
        return any(
            polarity
            and self.variants.mentions(e, fn, walk.variant, frozenset())
            and self.variants.guards_truth(((e, True),), fn, walk.variant, walk.member) is T
            for e, polarity in flatten(guards)
        )


def substituted(fn: FunctionFacts, expr: Expr, span: Span, depth: int = 0) -> Expr:
    """``expr`` with each flag ``fn`` set before ``span`` (``self.need_topk = ...``, a local
    ``ok = ...``) replaced by the value it was set to: the last such store, unguarded."""
    kind = expr[0]
    if depth > 3:
        return expr
    if kind in ("and", "or"):
        return (kind, tuple(substituted(fn, e, span, depth + 1) for e in expr[1]))
    if kind == "not":
        return ("not", substituted(fn, expr[1], span, depth + 1))
    value: Expr | None = None
    if kind == "attr" and expr[1] == ("name", "self"):
        stores = [s for s in fn.stores if s.target == expr and s.span < span]
        if stores and not stores[-1].guards:
            value = stores[-1].value
    elif kind == "name":
        binds = [b for b in fn.binds if b.names == (expr[1],) and b.span < span]
        if binds and not binds[-1].guards:
            value = binds[-1].value
    return expr if value is None else substituted(fn, value, span, depth + 1)
