"""PDL107 guard-narrower-than-effect: a flag limits a resource for the members of a
predicate, while more members set that resource to a nonzero value.

The shape: a value chosen between zero and a resource (``0 if limit else
self.num_lookahead``, or the same with an ``if`` statement), where the guard is a
flag computed from a test of the variant (``limit = load_async and
self.use_tree_head``; ``self.use_tree_head`` set under ``cfg.uses_tree_head()``).
The resource's stores tell which members have it (``self.num_lookahead = n``
under ``cfg.uses_draft_model()``); the members with it for which the guard can
never hold get the unlimited resource.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from pdlint.checks.guards.settings import Setting, Settings
from pdlint.facts.exprs import nodes, text
from pdlint.facts.types import BindFact, Expr, FunctionFacts, Guards, Span, StoreFact
from pdlint.findings import Finding, Related, Step
from pdlint.model.locations import location
from pdlint.model.names import Model, assigned_values, is_property
from pdlint.model.variants import MAYBE, UNKNOWN, F, T, Truth, Variants

_ZERO = (("const", 0), ("const", None), ("const", False), ("const", 0.0))


@dataclass(frozen=True)
class Limit:
    """``target = 0 if guard else resource``: where the guard is written and where the
    resource is chosen."""

    function: FunctionFacts
    guard: Expr
    guard_span: Span
    resource: Expr  # ``self.attr`` or ``obj.attr``
    span: Span  # of the choice


@dataclass(frozen=True)
class Site:
    """A store of the resource or the flag, in its function."""

    function: FunctionFacts
    store: StoreFact


class NarrowGuards:
    """Finds the limits whose guard misses members that set the resource."""

    def __init__(self, model: Model, variants: Variants, settings: Settings) -> None:
        self.model = model
        self.variants = variants
        self.settings = settings
        self._stores: dict[tuple[str, str], list[Site]] = {}
        self.classes_read: set[str] = set()  # whose stores or predicates were read

    def findings(self, fn: FunctionFacts, steps: Callable[[], list[Step]]) -> Iterator[Finding]:
        """The findings of the limits in ``fn``, reached by the path ``steps()``."""
        for limit in limits(fn):
            found = self._check(limit, steps)
            if found is not None:
                yield found

    # the per-member sets ------------------------------------------------------------
    def _check(self, limit: Limit, steps: Callable[[], list[Step]]) -> Finding | None:
        fn = limit.function
        owner = self.model.type_of(fn, limit.resource[1])
        if owner is None:
            return None
        resource = self._stores_of(owner, limit.resource[2]) or self._returns_of(fn, limit.resource)
        nonzero = [s for s in resource if s.store.value not in _ZERO]
        if not nonzero:
            return None
        for setting in self._settings_of(fn, limit.guard):
            live = self.settings.live(setting)
            guard = {m: self._truth(limit.guard, fn, setting, m, 0) for m in live}
            if UNKNOWN in guard.values() or F not in guard.values():
                continue
            sets: dict[int, list[Site]] = {}
            independent = False
            for site in nonzero:
                reach = {m: self._sets(site, setting, m) for m in live}
                if UNKNOWN in reach.values():
                    sets = {}
                    break
                if F not in reach.values():
                    independent = True  # set for every member: which need it is unknown
                    break
                for m, truth in reach.items():
                    if truth is not F:
                        sets.setdefault(m, []).append(site)
            if independent or not sets:
                continue
            if not any(guard[m] is not F for m in sets):
                continue  # the guard limits none of the members that set the resource
            missed = [m for m in live if guard[m] is F and m in sets]
            if missed:
                return self._finding(limit, setting, missed, sets, steps)
        return None

    def _sets(self, site: Site, setting: Setting, m: int) -> Truth:
        """Whether the store ``site`` may set the resource nonzero for member ``m``: its
        guards, and when it stores a property of another object
        (``self.num_lookahead = config.num_lookahead``), the property's returns of a
        nonzero value."""
        fn, store, variant = site.function, site.store, setting.variant
        reach = self.variants.guards_truth(store.guards, fn, variant, m)
        prop = self._property(fn, store.value)
        if reach is F or prop is None:
            return reach
        returned = [
            self._guards_truth(r.guards, prop, setting, m)
            for r in prop.returns
            if r.value is not None and r.value not in _ZERO
        ]
        return _combine([reach, _combine(returned, False)], True)

    def _returned_for(self, site: Site, setting: Setting, m: int) -> list[Related]:
        """Where the property a resource store reads returns a nonzero value for ``m``."""
        prop = self._property(site.function, site.store.value)
        if prop is None:
            return []
        shown = text(site.store.value)
        return [
            Related(
                location(self.model, prop.qualname, ret.span),
                f"`{shown}` is `{text(ret.value)}` for {setting.variant.members[m]} here",
            )
            for ret in prop.returns
            if ret.value is not None
            and ret.value not in _ZERO
            and self._guards_truth(ret.guards, prop, setting, m) is not F
        ]

    def _guards_truth(self, guards: Guards, fn: FunctionFacts, setting: Setting, m: int) -> Truth:
        """Whether code under ``guards`` in ``fn`` may run for member ``m``, each test
        read as :meth:`_truth` reads it (its local flags followed)."""
        values = []
        for cond, polarity in guards:
            value = self._truth(cond, fn, setting, m, 0)
            if not polarity:
                value = F if value is T else T if value is F else value
            values.append(value)
        return _combine(values, True)

    def _property(self, fn: FunctionFacts, value: Expr) -> FunctionFacts | None:
        """The property ``value`` (``obj.attr``) reads in ``fn``, if its class is known."""
        if value[0] != "attr":
            return None
        owner = self.model.type_of(fn, value[1])
        qual = self.model.lookup_method(owner, value[2]) if owner is not None else None
        found = self.model.functions.get(qual) if qual is not None else None
        if found is None or not is_property(found):
            return None
        self.classes_read.add(owner or "")
        return found

    def _truth(self, expr: Expr, fn: FunctionFacts, setting: Setting, m: int, depth: int) -> Truth:
        """Whether ``expr`` in ``fn`` may hold for member ``m``, with each flag of the
        class (``self.use_tree_head``, set elsewhere) read from its stores."""
        kind = expr[0]
        if kind in ("and", "or"):
            values = [self._truth(e, fn, setting, m, depth) for e in expr[1]]
            return _combine(values, kind == "and")
        if kind == "not":
            value = self._truth(expr[1], fn, setting, m, depth)
            return F if value is T else T if value is F else value
        if kind == "name" and depth < 3:
            assigned = assigned_values(fn, expr[1])
            if len(assigned) == 1:
                return self._truth(assigned[0], fn, setting, m, depth + 1)
        if kind == "attr" and depth < 3:
            flag = self._flag(fn, expr, setting, m, depth)
            if flag is not None:
                return flag
        return self.variants.truth(expr, fn, setting.variant, m)

    def _flag(
        self, fn: FunctionFacts, expr: Expr, setting: Setting, m: int, depth: int
    ) -> Truth | None:
        """The truth of a flag attribute from what its stores may leave in it; None when
        it is not a flag stored by the class's methods."""
        owner = self.model.type_of(fn, expr[1])
        if owner is None:
            return None
        sites = self._stores_of(owner, expr[2])
        if not sites:
            return None
        values: list[Truth] = []
        for site in sites:
            reach = self.variants.guards_truth(site.store.guards, site.function, setting.variant, m)
            if reach is F:
                continue
            if reach is UNKNOWN:
                return UNKNOWN
            values.append(self._truth(site.store.value, site.function, setting, m, depth + 1))
        if not values:
            return F  # never stored for the member: never set
        if UNKNOWN in values:
            return UNKNOWN
        if all(v is T for v in values):
            return T
        return F if all(v is F for v in values) else MAYBE

    def _returns_of(self, fn: FunctionFacts, resource: Expr) -> list[Site]:
        """A resource no method stores, read from a property (``spec.num_lookahead_slots``
        returning ``0`` for n-gram, ``self.num_speculative_tokens`` for the others): each
        of its returns, as the store of that value under the return's conditions."""
        prop = self._property(fn, resource)
        if prop is None:
            return []
        target = ("attr", ("name", "self"), resource[2])
        return [
            Site(prop, StoreFact(target, r.value, None, r.span, r.guards))
            for r in prop.returns
            if r.value is not None
        ]

    def _stores_of(self, owner: str, attr: str) -> list[Site]:
        """The stores of ``self.attr`` in the methods of ``owner`` and its relatives."""
        key = (owner, attr)
        self.classes_read.add(owner)
        if key not in self._stores:
            model = self.model
            target = ("attr", ("name", "self"), attr)
            self._stores[key] = [
                Site(method, store)
                for klass in (*model.mro(owner), *model.descendants(owner)[:50])
                for method in model.methods_of.get(klass, ())
                for store in method.stores
                if store.target == target
            ]
        return self._stores[key]

    def _settings_of(self, fn: FunctionFacts, guard: Expr) -> list[Setting]:
        """The variant settings a guard tests: read in it, in the flags it reads, and in
        the predicates those call (a pack's predicates first)."""
        found: dict[str, Setting] = {}
        preferred: dict[str, Setting] = {}
        stack = [(fn, guard, 0)]
        seen: set[tuple[str, Expr]] = set()
        while stack:
            where, expr, depth = stack.pop()
            if (where.qualname, expr) in seen or depth > 3:
                continue
            seen.add((where.qualname, expr))
            for node in nodes(expr):
                if node[0] == "name":
                    values = assigned_values(where, node[1])
                    if len(values) == 1:
                        stack.append((where, values[0], depth + 1))
                elif node[0] == "attr":
                    setting = self.settings.of_attr(where, node)
                    if setting is not None:
                        found.setdefault(setting.variant.qualname, setting)
                    owner = self.model.type_of(where, node[1])
                    for site in self._stores_of(owner, node[2]) if owner else ():
                        parts = [site.store.value, *(g for g, _ in site.store.guards)]
                        stack.extend((site.function, p, depth + 1) for p in parts)
                elif node[0] == "call":
                    targets = self.model.call_targets(where, node[1])
                    if len(targets) != 1:
                        continue
                    callee = self.model.functions[targets[0]]
                    if callee.cls is not None:
                        self.classes_read.add(callee.cls)
                    named = self.settings.is_predicate(callee.qualname)
                    for ret in callee.returns:
                        for part in (ret.value, *(g for g, _ in ret.guards)):
                            for inner in nodes(part) if part is not None else ():
                                setting = self.settings.of_attr(callee, inner)
                                if setting is not None and named:
                                    preferred.setdefault(setting.variant.qualname, setting)
                            if part is not None:
                                stack.append((callee, part, depth + 1))
        return [*preferred.values(), *(s for k, s in found.items() if k not in preferred)]

    # the finding --------------------------------------------------------------------
    def _finding(
        self,
        limit: Limit,
        setting: Setting,
        missed: list[int],
        sets: dict[int, list[Site]],
        steps: Callable[[], list[Step]],
    ) -> Finding:
        model, fn = self.model, limit.function
        members = setting.variant.members
        names = ", ".join(members[m] for m in missed)
        covered = [members[m] for m in sorted(sets) if m not in missed]
        resource = text(limit.resource, brief=True)
        guard = text(limit.guard)
        limited = location(model, fn.qualname, limit.span)
        related = [Related(limited, f"`{resource}` is limited here")]
        shown: set[tuple[str, Span]] = set()
        for m in missed:
            for site in sets[m]:
                key = (site.function.qualname, site.store.span)
                if key in shown:
                    continue
                shown.add(key)
                related.append(
                    Related(
                        location(model, site.function.qualname, site.store.span),
                        f"`{resource}` is set for {members[m]} here (`{text(site.store.value)}`)",
                    )
                )
                related += self._returned_for(site, setting, m)
        message = (
            f"`{guard}` limits `{resource}` for {', '.join(covered)} only, but {names} "
            f"also {'sets' if len(missed) == 1 else 'set'} a nonzero `{resource}` and "
            f"{'gets' if len(missed) == 1 else 'get'} it unlimited; test the resource itself "
            f"(`{resource} > 0`) or widen the guard to every member that sets it"
        )
        verb = "sets" if len(missed) == 1 else "set"
        summary = f"limit of `{limit.resource[2]}` misses {names}, which {verb} it too"
        here = location(model, fn.qualname, limit.guard_span)
        path = (*steps(), Step(here, fn.qualname, f"limits `{resource}` under `{guard}`"))
        return Finding(
            code="PDL107",
            message=message,
            location=here,
            related=tuple(related),
            path=path,
            member=",".join(members[m] for m in missed),
            key=("PDL107", fn.qualname, resource, setting.variant.qualname),
            summary=summary,
        )


def limits(fn: FunctionFacts) -> Iterator[Limit]:
    """The choices between zero and a resource in ``fn`` (``0 if guard else self.r``,
    ``self.r if not guard else 0``, or an ``if guard:`` giving a local zero)."""
    by_name: dict[str, list[BindFact]] = {}
    for bind in fn.binds:
        if len(bind.names) == 1:
            by_name.setdefault(bind.names[0], []).append(bind)
        found = _chosen(fn, bind.value, bind.span)
        if found is not None:
            yield found
    # a choice written inline, as an argument (``allocate(n, lookahead=0 if skip else r)``)
    for call in fn.calls:
        for arg in (*call.args, *(v for _, v in call.kwargs)):
            for node in nodes(arg):
                found = _chosen(fn, node, call.span) if node[0] == "ifexp" else None
                if found is not None:
                    yield found
    # the same chosen by a branch, into a local or returned (``return 0 if skip else
    # self.slots`` is two returns under the test)
    returned = [(r.value, r.guards, r.span) for r in fn.returns if r.value is not None]
    bound = [[(b.value, b.guards, b.span) for b in binds] for binds in by_name.values()]
    for choices in (*bound, returned):
        for value, guards, _ in choices:
            if value not in _ZERO or not guards or not guards[-1][1]:
                continue
            test = guards[-1][0]
            for other, other_guards, span in choices:
                resource = _resource(other)
                if resource is not None and other_guards[-1:] == ((test, False),):
                    limit = _limit(fn, test, resource, span)
                    tests = [at for cond, at, _ in fn.branches if cond == test]
                    if limit.guard is test and tests:
                        # written in the ``if`` itself: reported there, as a flag is
                        limit = replace(limit, guard_span=min(tests))
                    yield limit


def _chosen(fn: FunctionFacts, value: Expr, span: Span) -> Limit | None:
    """The limit ``value`` is, if it chooses between zero and a resource."""
    if value[0] != "ifexp":
        return None
    test, body, orelse = value[1], value[2], value[3]
    if body in _ZERO and orelse[0] == "attr":
        return _limit(fn, test, orelse, span)
    if orelse in _ZERO and body[0] == "attr" and test[0] == "not":
        return _limit(fn, test[1], body, span)
    return None


def _resource(value: Expr) -> Expr | None:
    """The resource ``value`` reads: ``obj.attr``, or that when ``obj`` is there
    (``spec.slots if spec else 0``, ``spec and spec.slots``)."""
    if value[0] == "attr":
        return value
    if value[0] == "ifexp" and value[3] in _ZERO and value[2][0] == "attr":
        return value[2]
    if value[0] == "and" and len(value[1]) == 2 and value[1][1][0] == "attr":
        return value[1][1]
    return None


def _limit(fn: FunctionFacts, test: Expr, resource: Expr, span: Span) -> Limit:
    """The limit of ``resource`` under ``test``; a test that is a local flag assigned
    once is reported where the flag is computed."""
    guard, guard_span = test, span
    if test[0] == "name":
        flags = [f for f in fn.flags if f[0] == test[1]]
        if len(flags) == 1 and len(assigned_values(fn, test[1])) == 1:
            guard, guard_span = flags[0][1], flags[0][2]
    return Limit(fn, guard, guard_span, resource, span)


def _combine(values: list[Truth], conjunction: bool) -> Truth:
    if conjunction:
        if F in values:
            return F
        if UNKNOWN in values:
            return UNKNOWN
        return T if all(v is T for v in values) else MAYBE
    if T in values:
        return T
    if UNKNOWN in values:
        return UNKNOWN
    return F if all(v is F for v in values) else MAYBE
