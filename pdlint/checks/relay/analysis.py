"""PDL001 dispatch-gap, PDL101 relay-state-missing (case 1 of the brief), and the
relay's PDL104, PDL105 and PDL106.

A builder returns None for some members of a variant; the relay stores its
result in an attribute; a consumer reached from a decode entry point
dereferences that attribute while the variant is such a member. For the members
it builds, a consumer may demand a class the builder does not make (PDL105).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import replace

from pdlint.checks.relay.built_reach import built_state_edges
from pdlint.checks.relay.decode_tests import flatten, is_decode_test
from pdlint.checks.relay.field_findings import carrier_finding
from pdlint.checks.relay.fields import CarrierSearch, FieldDeref
from pdlint.checks.relay.handover import connector_classes, handed_on, outlives
from pdlint.checks.relay.inline import inline_builder, state_stores
from pdlint.checks.relay.late_failures import BYPASS_WORDS, bypass_only, late_failures
from pdlint.checks.relay.loop_settings import SettingLiterals
from pdlint.checks.relay.none_checks import (
    Holds,
    called_on_state,
    guards_mention,
    held_state,
    never_none,
    none_check,
    state_locals,
    stored_before,
    stored_for_call,
)
from pdlint.checks.relay.paths import EntryTrees
from pdlint.checks.relay.placeholders import find_placeholders
from pdlint.checks.relay.relays import Builder, Relay, path_steps, relay_related
from pdlint.checks.relay.state_types import (
    Narrowing,
    StateReads,
    TypeDemand,
    fails,
    made_classes,
    type_demands,
)
from pdlint.checks.relay.statements import StatementFilter
from pdlint.checks.relay.type_findings import type_finding
from pdlint.checks.relay.unwired import UnwiredBuilders
from pdlint.facts.exprs import nodes, text
from pdlint.facts.indexer import held_entry
from pdlint.facts.types import CallFact, DerefFact, Expr, FunctionFacts, Guards, Span, StoreFact
from pdlint.findings import Finding, Related, Step, listed
from pdlint.model.binding import bind_arguments, call_arguments
from pdlint.model.callgraph import CallGraph, EdgeFilter
from pdlint.model.class_factories import ClassFactories
from pdlint.model.locations import deref_step, entry_steps, location, short_name
from pdlint.model.names import Model, assigned_values
from pdlint.model.variants import MAYBE, UNKNOWN, F, T, Variant, Variants


class RelayAnalysis:
    """Finds builders, relays and consumers; yields PDL001, PDL101, PDL104, PDL105, PDL106."""

    def __init__(
        self,
        model: Model,
        variants: Variants,
        graph: CallGraph,
        entries: list[str],
        validators: tuple[str, ...] = (),
        placeholder_factories: tuple[str, ...] = (),
        factories: ClassFactories | None = None,
    ) -> None:
        self.model = model
        self.factories = factories
        # (relay function, id of a call site) -> (the site, the builders of its override
        # per class), see _polymorphic_builders
        self._overrides: dict[tuple[str, int], tuple[CallFact, list[Builder]]] = {}
        self.variants = variants
        self.graph = graph
        self.entries = entries
        self.validator_patterns = validators
        self._builders: dict[str, Builder | None] = {}
        self._typed: dict[str, Builder | None] = {}  # see typed_builder
        self._typed_relays: list[Relay] | None = None  # set with _relays
        self._built_any: dict[Builder, frozenset[str]] = {}  # see _all_built
        self._reach_cache: dict[str, set[str]] = {}
        self._relays: list[Relay] | None = None
        self._member_reach: dict[
            tuple[str, str, Expr, str, int], dict[str, tuple[str, CallFact] | None]
        ] = {}
        self._connector_cache: dict[str, frozenset[str]] = {}  # see _connectors
        self._entries_cache: dict[tuple[str, Expr], list[str]] = {}  # see relay_entries
        self._rejected: dict[str, set[int]] = {}
        self._named: dict[str, bool] = {}  # see _never_named
        self._modes: dict[str, frozenset[int]] | None = None  # see _relayed_modes
        # (id of a call site's guards, state) -> (the guards, guards_mention): the
        # edge filter of every relay and member asks it of the same sites
        self._mentioned: dict[tuple[int, str], tuple[Guards, bool]] = {}
        # (id of a call site, state) -> (the site, whether its caller set the state of an
        # object the call receives just before it)
        # (site, state, the member's Holds or None for every member) -> (site, answer):
        # for every member, None when no store was left out for its conditions alone
        self._stored_calls: dict[tuple[int, str, Holds | None], tuple[CallFact, bool | None]] = {}
        self._holds: dict[tuple[str, int], Holds] = {}  # see holds_for
        self._relays_of: dict[str, frozenset[str]] = {}  # see _relay_functions
        # the raises (and asserts) a member's request fails loudly at (see _late)
        self._loud: set[tuple[str, Span]] = set()
        self._carriers = CarrierSearch(model, variants)
        self._settings = SettingLiterals(model, variants)
        self._trees: dict[tuple[Relay, int], EntryTrees] = {}
        self._filters: dict[tuple[str, str, int], EdgeFilter] = {}  # see edge_filter
        self._demanded: dict[tuple[str, frozenset[str], frozenset[str]], list[TypeDemand]] = {}
        self._bypass_cache: dict[int, tuple[dict[str, tuple[str, CallFact] | None], set[str]]] = {}
        self.placeholder_factories = placeholder_factories
        # (relay, member) -> the placeholders a PDL101 of the member holds as a note: the
        # request crashes before it reaches them (the mode check leaves them out)
        self.noted: dict[tuple[Relay, int], set[tuple[str, Span]]] = {}

    # builders -----------------------------------------------------------------
    def string_builder_attributes(self) -> set[str]:
        """Attributes of a class whose string variant a builder found so far dispatches
        on (``str:Config.method``: a string variant's members are the strings the
        attribute is compared with anywhere)."""
        out = set()
        for builder in self._builders.values():
            if builder is not None and builder.variant.kind == "string":
                owned = builder.variant.qualname.removeprefix("str:")
                if "." in owned:
                    out.add(owned.rsplit(".", 1)[1])
        return out

    def builders_found(self) -> int:
        """Dispatch functions found so far: builders returning None for some members, and
        relay methods storing the state for some members only."""
        inline = {r.builder for r in self._relays or () if r.builder.inline}
        overrides = {b for _, found in self._overrides.values() for b in found}
        return (
            sum(1 for builder in self._builders.values() if builder is not None)
            + len(inline)
            + len(overrides)
        )

    def builder(self, qualname: str) -> Builder | None:
        if qualname not in self._builders:
            self._builders[qualname] = None  # a builder returning its own result is none
            self._builders[qualname] = self._find_builder(self.model.functions[qualname])
        return self._builders[qualname]

    def _candidate_variants(self, fn: FunctionFacts) -> list[tuple[Variant, frozenset[str]]]:
        out: list[tuple[Variant, frozenset[str]]] = []
        if fn.cls is not None and fn.cls in self.variants.by_name:
            out.append((self.variants.by_name[fn.cls], frozenset({"self"})))
        for name, _ann in fn.params:
            # (unannotated: what its callers pass, asked only of what ``fn`` tests)
            variant = self.variants.param_variant(fn, name)
            if variant is not None and all(v is not variant for v, _ in out):
                out.append((variant, frozenset({name})))
        for variant, param in [*self.variants.member_params(fn), *self.variants.string_params(fn)]:
            if all(v is not variant for v, _ in out):
                out.append((variant, frozenset({param})))
        walked: set[int] = set()  # a condition guarding several returns: once
        for ret in fn.returns:
            for expr, _ in ret.guards:
                if id(expr) in walked:
                    continue
                walked.add(id(expr))
                for where, node in self._tested_nodes(fn, expr):
                    if node[0] != "attr":
                        continue
                    variant = self.variants.attr_variant(where, node)
                    if variant is not None and all(v is not variant for v, _ in out):
                        out.append((variant, frozenset()))
        return out

    def _tested_nodes(self, fn: FunctionFacts, expr: Expr) -> Iterator[tuple[FunctionFacts, Expr]]:
        """(function, sub-expression) for the parts of a condition in ``fn`` and of what
        it tests through others: the value of a local assigned once (``cls =
        REGISTRY.get(self.kind)``, then ``if cls is None``) and what a predicate it
        calls returns (``is_tree(cfg)``, a module-level function): the variant may
        only be found there."""
        seen: set[tuple[str, str]] = set()
        stack = [(fn, expr, 0)]
        while stack and len(seen) < 16:
            where, part, depth = stack.pop()
            for node in nodes(part):
                yield where, node
                if node[0] == "name" and (where.qualname, node[1]) not in seen:
                    seen.add((where.qualname, node[1]))
                    values = assigned_values(where, node[1])
                    if len(values) == 1:
                        stack.append((where, values[0], depth))
                elif node[0] == "call" and depth < 3:
                    for callee in self._predicate(where, node):
                        if ("", callee.qualname) not in seen:
                            seen.add(("", callee.qualname))
                            stack.extend((callee, e, depth + 1) for e in _returned(callee))

    def _predicate(self, fn: FunctionFacts, call: Expr) -> list[FunctionFacts]:
        """The one function a call in a condition reaches, if it is one (as
        :meth:`Variants.truth` reads a call)."""
        targets = self.model.call_targets(fn, call[1])
        if len(targets) != 1 or targets[0].endswith(".__init__"):
            return []
        return [self.model.functions[targets[0]]]

    def _tests_variant(
        self, fn: FunctionFacts, expr: Expr, variant: Variant, bound: frozenset[str]
    ) -> bool:
        """Whether a condition of ``fn`` reads the variant, itself or through what it
        tests (see :meth:`_tested_nodes`)."""
        if self.variants.mentions(expr, fn, variant, bound):
            return True
        return any(
            where is not fn and self.variants.mentions(node, where, variant, frozenset())
            for where, node in self._tested_nodes(fn, expr)
            if node[0] == "attr"
        )

    def typed_builder(self, qualname: str) -> Builder | None:
        """A dispatch function that builds a value for every member it returns for, of
        classes that differ by member (``MTPSpecMetadata`` for the MTP family, the base
        class for the rest): no gap, but the class of its result depends on the variant,
        which PDL105 checks against what consumers accept."""
        if qualname not in self._typed:
            self._typed[qualname] = None
            self._typed[qualname] = self._find_typed(self.model.functions[qualname])
        return self._typed[qualname]

    def _find_typed(self, fn: FunctionFacts) -> Builder | None:
        if self.builder(fn.qualname) is not None:
            return None
        for variant, bound in self._candidate_variants(fn):
            if not bound or any(w in m.lower() for m in variant.members for w in BYPASS_WORDS):
                # handed the variant, not testing a batch's mode: a batch mode's objects
                # are what one worker makes for every batch, not a request's state
                continue
            if not self._branches(fn, variant, bound):
                continue
            kinds = [self._outcome(fn, variant, m, bound) for m in range(len(variant.members))]
            if any(kind is None or kind[0] == "none" for kind in kinds):
                continue
            builder = Builder(fn.qualname, variant, (), (), bound)
            # the classes made for each member built a value for (None: one unknown)
            made = [
                self.built(builder, m)
                for m, kind in enumerate(kinds)
                if kind and kind[0] == "value"
            ]
            if None not in made and len({built[0] for built in made if built}) > 1:
                return builder
        return None

    def _branches(self, fn: FunctionFacts, variant: Variant, bound: frozenset[str]) -> bool:
        """Whether a return of ``fn`` is under a test of the variant (or tests it)."""
        return any(
            self._tests_variant(fn, expr, variant, bound)
            for ret in fn.returns
            for expr, _ in [*ret.guards, *([(ret.value, True)] if ret.value else [])]
        )

    def _find_builder(self, fn: FunctionFacts) -> Builder | None:
        for variant, bound in self._candidate_variants(fn):
            if not self._branches(fn, variant, bound):
                continue
            gaps, spans, covered = [], [], False
            for member in range(len(variant.members)):
                outcome = self._outcome(fn, variant, member, bound)
                if outcome is None:
                    continue
                kind, span = outcome
                if kind == "value":
                    covered = True
                elif kind == "none":
                    gaps.append(member)
                    spans.append(span)
            if gaps and covered:
                return Builder(fn.qualname, variant, tuple(gaps), tuple(spans), bound)
        return None

    def _polymorphic_builders(self, fn: FunctionFacts, call: CallFact) -> list[Builder]:
        """A method called on an object whose class a variant picks (``self.proposer.
        build_state(h)``, one proposer class per member), where the override some of the
        classes get returns None and the others' return a value: a builder per method
        returning None, with the members that get it as its gaps (a base method the
        classes of those members inherit)."""
        key = (fn.qualname, id(call))
        kept = self._overrides.get(key)
        if kept is not None and kept[0] is call:
            return kept[1]
        found: list[Builder] = []
        chosen = None
        if self.factories is not None and call.func[0] == "attr":
            chosen = self.factories.receivers(fn, call.func)
        variant = None
        if chosen is not None and self.factories is not None:
            variant = self.factories.variant(chosen[0])
        if chosen is not None and variant is not None:
            nones: dict[str, tuple[list[int], Span]] = {}
            values: dict[int, str] = {}
            for cls, members in chosen[1]:
                method = self.model.lookup_method(cls, call.func[2])
                outcome = self._plain_outcome(method) if method is not None else None
                if outcome is None or method is None:
                    continue
                if outcome[0] == "value":
                    values.update((m, method) for m in members)
                elif outcome[0] == "none":
                    nones.setdefault(method, ([], outcome[1]))[0].extend(members)
            overrides = tuple(sorted(values.items()))
            for method, (gaps, span) in sorted(nones.items()) if values else ():
                ordered = tuple(sorted(set(gaps)))
                found.append(
                    Builder(method, variant, ordered, (span,) * len(ordered), overrides=overrides)
                )
        self._overrides[key] = (call, found)
        return found

    def _plain_outcome(self, qual: str) -> tuple[str, Span] | None:
        """("value"|"none"|"raise", span) of a method that tests no variant: "none" when
        every return gives None (the first one's span), "value" when one may give a
        value; None for an abstract method (its class is never made)."""
        fn = self.model.functions[qual]
        if any(d.rsplit(".", 1)[-1] == "abstractmethod" for d in fn.decorators):
            return None
        values = [r for r in fn.returns if r.value is not None and r.value != ("const", None)]
        if values:
            return "value", values[0].span
        nones = sorted(fn.returns, key=lambda r: r.span)
        if nones:
            return "none", nones[0].span
        if fn.raises:
            return "raise", fn.raises[0][0]
        return None

    def _outcome(
        self, fn: FunctionFacts, variant: Variant, member: int, bound: frozenset[str]
    ) -> tuple[str, Span] | None:
        """("value"|"none"|"raise", span) for the member; None when unknown."""
        kinds: dict[str, Span] = {}
        for ret in fn.returns:
            reach = self.variants.guards_truth(ret.guards, fn, variant, member, bound)
            if reach is F:
                continue
            if reach is UNKNOWN:
                return None
            kind = self._return_kind(ret.value, fn, variant, member, bound)
            if kind is None:
                return None
            kinds.setdefault(kind, ret.span)
        for span, guards in fn.raises:
            reach = self.variants.guards_truth(guards, fn, variant, member, bound)
            if reach is UNKNOWN:
                return None
            if reach is not F:
                kinds.setdefault("raise", span)
        for kind in ("value", "none", "raise"):
            if kind in kinds:
                return kind, kinds[kind]
        return None

    def _return_kind(
        self,
        value: Expr | None,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str],
    ) -> str | None:
        if value is None or value == ("const", None):
            return "none"
        if value[0] == "call":
            found = self.variants.table_lookup(value, fn, variant, bound)
            if found is not None:
                return "value" if member in found else "none"
            inner = self._passed_builder(value, fn, variant, bound)
            if inner is not None:
                return "none" if member in inner.gaps else "value"
            func = value[1]
            if func[0] == "subscript" and self.variants.denotes(func[2], fn, variant, bound):
                # ``TABLE[algo](payload)``: what the member's entry returns
                return self._entry_kind(func[1], fn, variant, member)
            if (
                func[0] == "call"
                and func[1][0] == "attr"
                and func[1][2] == "get"
                and len(func[2]) == 2
                and not func[3]
                and self.variants.denotes(func[2][0], fn, variant, bound)
            ):
                # ``TABLE.get(algo, default)(payload)``: the member's entry, or the
                # default's result for a member with none (``lambda _p: None``)
                keys = self.variants.container_keys(func[1][1], fn, variant)
                if keys is None:
                    return None
                if member in keys:
                    return self._entry_kind(func[1][1], fn, variant, member)
                return self._callable_kind(fn, self.model.module_of(fn), func[2][1])
            if self._returns_none(fn, func):
                return "none"
        if value[0] == "name":
            lookup = self.variants.local_lookup(value, fn, variant, bound)
            if lookup is not None:
                return "value" if member in lookup[1] else "none"
        return "value"

    def _entry_kind(
        self, container: Expr, fn: FunctionFacts, variant: Variant, member: int
    ) -> str | None:
        """What calling the member's entry of a table keyed by members gives (see
        :meth:`_callable_kind`); None when not known."""
        entries = self.variants.entry_for(container, fn, variant, member)
        if entries is None:
            return None
        kinds = {self._callable_kind(*entry) for entry in entries}
        return kinds.pop() if len(kinds) == 1 else None

    def _returns_none(self, fn: FunctionFacts, func: Expr) -> bool:
        """Whether a call of ``func`` in ``fn`` reaches one function, not a class, that
        gives None on every return (an override falling back to ``super().build(h)``
        whose base returns None)."""
        targets = self.model.call_targets(fn, func)
        if len(targets) != 1 or self.model.functions[targets[0]].name == "__init__":
            return False
        outcome = self._plain_outcome(targets[0])
        return outcome is not None and outcome[0] == "none"

    def _callable_kind(self, scope: FunctionFacts | None, module: str, value: Expr) -> str | None:
        """ "none" when every function ``value`` may be returns None (and raises
        nothing), "raise" when each only raises, "value" when each may return a value;
        None when not known."""
        targets = self.model.callables_of(scope, value, 0, module)
        if not targets:
            return None
        kinds = set()
        for target in targets:
            callee = self.model.functions.get(target)
            if callee is None:
                return None
            values = [r.value for r in callee.returns if r.value not in (None, ("const", None))]
            if values or target.endswith(".__init__") or callee.name == "__init__":
                kinds.add("value")
            elif callee.raises and not callee.returns:
                kinds.add("raise")
            elif not callee.raises:
                kinds.add("none")
            else:
                return None
        return kinds.pop() if len(kinds) == 1 else None

    def _passed_builder(
        self, call: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> Builder | None:
        """The builder ``fn`` returns the result of, handing it the variant (a facade:
        ``return _Factory().make(mode, h)``): its gaps are ``fn``'s."""
        targets = self.model.call_targets(fn, call[1])
        if len(targets) != 1 or targets[0].endswith(".__init__"):
            return None
        inner = self.builder(targets[0])
        if inner is None or inner.variant is not variant:
            return None
        callee = self.model.functions[targets[0]]
        passed = {
            param
            for param, arg in bind_arguments(callee, call[1], call[2], call[3], bind_receiver=True)
            if self.variants.denotes(arg, fn, variant, bound)
        }
        return inner if inner.bound and inner.bound <= passed else None

    # relays -------------------------------------------------------------------
    def relays(self, reachable: set[str]) -> tuple[list[Relay], list[Relay]]:
        """Where a builder's result is stored, and, in the same walk, where a typed
        builder's is (see :meth:`typed_builder`; no relay method building inline)."""
        out: list[Relay] = []
        typed: list[Relay] = []
        for qual in sorted(reachable):
            fn = self.model.functions[qual]
            fields: list[tuple[str, Expr, Span, Expr]] | None = None
            arguments = {arg for other in fn.calls for arg in call_arguments(other)}
            reads = {(a[0], a[1]) for a in arguments if a[0] == "attr"}
            for call in fn.calls:
                value = ("call", call.func, call.args, call.kwargs)
                local = ("name", call.target) if call.target is not None else None
                # where the call's result goes: an attribute, or a new object's field
                stored = [
                    store
                    for store in fn.stores
                    if store.target[0] == "attr" and (store.value == value or store.value == local)
                ]
                given = (value, local)
                passed: list[tuple[str, Expr, Span, Expr]] = []
                if value in arguments or local in arguments:
                    # the result is an argument of some call: maybe a new object's field
                    if fields is None:
                        fields = self._field_arguments(fn)
                    passed = [f for f in fields if f[1] in given]
                carried = False
                if not stored and not passed and ("attr", local) in reads:
                    # only a field of a carrier gets what it made (``scores=state.scores``)
                    if fields is None:
                        fields = self._field_arguments(fn)
                    passed = [f for f in fields if f[1][0] == "attr" and f[1][1] == local]
                    carried = True
                if not stored and not passed and local is not None:
                    # or a field of a carrier made here, stored after it is made
                    # (``base.draft = state.tokens`` past ``if state is None: return base``)
                    passed = self._carrier_stores(fn, local)
                    carried = True
                if (
                    stored
                    and local is not None
                    and _refilled(self.model, fn, local, call.span, stored)
                ):
                    # ``if plan is None: plan = Plan(...)`` before the store: the members
                    # the builder gives None get that carrier (PDL104's), never None
                    carried = True
                if not stored and not passed:
                    continue
                targets = self.model.call_targets(fn, call.func)
                builders = [
                    taken
                    for target in targets
                    if (b := self.builder(target)) is not None
                    and (taken := self._taken(qual, b)) is not None
                ]
                into_list = out
                if not builders:
                    builders = self._polymorphic_builders(fn, call)
                if not builders:
                    into_list = typed
                    builders = [
                        taken
                        for target in targets
                        if (b := self.typed_builder(target)) is not None
                        and (taken := self._taken(qual, b)) is not None
                    ]
                for builder in builders:
                    for store in stored:
                        relay = Relay(
                            store.target[2], builder, qual, store.span, store.target, carried
                        )
                        into_list.append(relay)
                    for field, _, span, obj in passed:
                        into = ("attr", obj, field)
                        into_list.append(Relay(field, builder, qual, span, into, carried))
        # the classes (None: unknown) whose state a builder's result goes to, by state
        relayed: dict[str, set[str | None]] = {}
        for relay in out:
            owner = self.model.type_of(self.model.functions[relay.function], relay.target[1])
            relayed.setdefault(relay.state, set()).add(owner)
        for qual in sorted(reachable):
            out.extend(self._inline_relays(self.model.functions[qual], relayed))
        return out, typed

    def _taken(self, caller: str, builder: Builder) -> Builder | None:
        """The builder as ``caller`` reaches it: with the gaps of the members its call can
        take (an override in a class a variant chooses is called by the members choosing
        that class alone); None when it has none for them."""
        when = self.graph.when.get((caller, builder.qualname))
        if when is None or when[0] != builder.variant.qualname:
            return builder
        kept = [
            (m, s) for m, s in zip(builder.gaps, builder.none_spans, strict=True) if m in when[1]
        ]
        if len(kept) == len(builder.gaps):
            return builder
        if not kept:
            return None
        return replace(
            builder, gaps=tuple(m for m, _ in kept), none_spans=tuple(s for _, s in kept)
        )

    def _inline_relays(self, fn: FunctionFacts, relayed: dict[str, set[str | None]]) -> list[Relay]:
        """The relays of ``fn`` that are their own builders: the state stored only under
        a test of the variant. A state a builder's result goes to is relayed by that
        builder; other stores of it (a worker's own per-step state) build nothing."""
        out = []
        candidates = state_stores(self.model, fn)
        for target, stores in sorted(candidates.items(), key=lambda item: item[1][0].span):
            owners = relayed.get(target[2], set())
            owner = self.model.type_of(fn, target[1]) if owners else None
            if owners and (owner is None or None in owners or self._related(owner, owners)):
                continue
            builder = inline_builder(
                self.model,
                self.variants,
                self._tested_nodes,
                self._carriers.fields_of,
                fn,
                target,
                stores,
            )
            if builder is not None:
                out.append(Relay(target[2], builder, fn.qualname, stores[0].span, target))
        return out

    def _related(self, cls: str, others: set[str | None]) -> bool:
        """``cls`` is one of ``others``, or a base or a subclass of one."""
        mro = self.model.mro
        return any(o is not None and (o in mro(cls) or cls in mro(o)) for o in others)

    def _carrier_stores(self, fn: FunctionFacts, local: Expr) -> list[tuple[str, Expr, Span, Expr]]:
        """(field, value, span, object) for each store of an attribute of ``local`` into a
        field of an object ``fn`` makes (a local bound to a constructor call)."""
        copied = [
            s
            for s in fn.stores
            if s.value[0] == "attr" and s.value[1] == local and s.target[1][0] == "name"
        ]
        if not copied:  # (the common case: nothing resolved)
            return []
        module = self.model.module_of(fn)
        made = {
            call.target
            for call in fn.calls
            if call.target is not None
            and call.func[0] in ("name", "attr")
            and self.model.resolve_dotted(fn, module, call.func) in self.model.classes
        }
        return [
            (s.target[2], s.value, s.span, s.target[1]) for s in copied if s.target[1][1] in made
        ]

    def _field_arguments(self, fn: FunctionFacts) -> list[tuple[str, Expr, Span, Expr]]:
        """(field, argument, span, object) for each argument ``fn`` gives to a field of
        a new object: a constructor's (positional ones bound to its parameters) or
        ``dataclasses.replace(obj, field=...)``'s."""
        module = self.model.module_of(fn)
        out: list[tuple[str, Expr, Span, Expr]] = []
        for call in fn.calls:
            func = call.func
            if func[0] not in ("name", "attr") or not (call.args or call.kwargs):
                continue
            called = self.model.resolve_dotted(fn, module, func)
            if called is None:
                continue
            if called == "dataclasses.replace" and call.args:
                obj, fields = call.args[0], call.kwargs
            elif called in self.model.classes:
                obj = ("call", func, call.args, call.kwargs)
                fields = self.model.constructor_arguments(called, call.args, call.kwargs)
            else:
                continue
            out.extend((field, arg, call.span, obj) for field, arg in fields)
        return out

    def rejected(self, variant: Variant) -> set[int]:
        """Members a startup validator rejects under disaggregation decode mode."""
        if variant.qualname not in self._rejected:
            self._rejected[variant.qualname] = self._find_rejected(variant)
        return self._rejected[variant.qualname]

    def _find_rejected(self, variant: Variant) -> set[int]:
        out: set[int] = set()
        named = set()
        from pdlint.model.callgraph import match_entries

        if self.validator_patterns:
            named = set(match_entries(self.model, self.validator_patterns))
        # (a lazy model) the modules whose text names a converted setting: only their
        # functions can test one (see _reads_setting)
        converted = sorted(self.variants.converted.get(variant.qualname, {}))
        source = self.model.source
        naming = set(source.with_text(any_of=converted)) if source and converted else None
        for fn in self.model.functions.values():
            survived: set[frozenset[tuple[Expr, bool]]] | None = None
            reads = naming is None or self.model.function_module[fn.qualname] in naming
            for _span, guards in fn.raises:
                flat = flatten(guards)
                decode = [g for g in flat if g[1] and is_decode_test(g[0])]
                if not (
                    decode
                    or fn.qualname in named
                    or (reads and self._reads_setting(flat, fn, variant))
                ):
                    continue
                # the object the role is read from exists on a decode server (``if kvc
                # is None: return`` before ``kvc.role == "decode"``)
                holders = {n[1] for e, _ in decode for n in nodes(e) if n[0] == "attr"}
                rest = tuple(g for g in flat if g not in decode and not _exists_test(g, holders))
                if not rest or self._never_named(fn):
                    continue
                # past an earlier raise of this function: its condition is false
                if survived is None:
                    survived = {frozenset(flatten(g)) for _s, g in fn.raises}
                needed = tuple(
                    (e, p) for e, p in rest if p or frozenset(flatten(((e, True),))) not in survived
                )
                for member in range(len(variant.members)):
                    truth = self.variants.guards_truth(rest, fn, variant, member)
                    if truth is not F and truth is not T:
                        # what an earlier raise of the validator leaves open
                        # (``if self.chunk_size <= 0: raise`` before it) is no condition
                        truth = self.variants.guards_truth(needed, fn, variant, member)
                        if truth is MAYBE:
                            self._settle(needed, fn, variant, member)
                    if truth is T:
                        out.add(member)
        return out

    def _never_named(self, fn: FunctionFacts) -> bool:
        """Whether no code names the plain function ``fn`` but its own ``def`` (a startup
        validator nothing calls rejects nothing); a decorated one or a dunder is called
        by what decorates or defines it. Any other mention (a call, a reference handed
        on, an import) counts as a call."""
        texts = self.model.texts
        if texts is None or fn.decorators or fn.name.startswith("__"):
            return False
        key = fn.qualname
        if key not in self._named:
            module = self.model.function_module[fn.qualname]
            own = texts.source_text(module) or ""
            word = re.compile(rf"(?<![\w.]){re.escape(fn.name)}\b|\.{re.escape(fn.name)}\b")
            # named again in its module: called (the query of every module is asked
            # only when not)
            self._named[key] = len(word.findall(own)) == 1 and texts.with_text(
                all_of=((fn.name,),)
            ) == [module]
        return self._named[key]

    def _reads_setting(self, guards: Guards, fn: FunctionFacts, variant: Variant) -> bool:
        """Whether a guard tests the setting string the program converts to the variant
        (``args.algo == "eagle"`` where ``Algo.from_string(args.algo)`` is the runtime
        value): configuration code, run once at startup."""
        names = self.variants.converted.get(variant.qualname, {})
        return bool(names) and any(
            node[0] == "attr"
            and node[2] in names
            and self.variants.converted_setting(node, fn, variant)
            for expr, _ in guards
            for node in nodes(expr)
        )

    def _settle(self, guards: Guards, fn: FunctionFacts, variant: Variant, member: int) -> None:
        """A rejection that needs one setting besides the member: the member always
        runs with the other value of that setting (``if FLAG and algo not in (...):
        raise`` makes FLAG false wherever the algorithm runs)."""
        variants = self.variants
        truths = [variants.guards_truth((g,), fn, variant, member) for g in guards]
        open_guards = [g for g, t in zip(guards, truths, strict=True) if t is not T]
        member_guards = [
            g
            for g, t in zip(guards, truths, strict=True)
            if t is T and variants.mentions(g[0], fn, variant, frozenset())
        ]
        if len(open_guards) != 1 or not member_guards:
            return  # not one setting, or the raise does not depend on the member
        expr, polarity = open_guards[0]
        while expr[0] == "not":
            expr, polarity = expr[1], not polarity
        if variants.mentions(expr, fn, variant, frozenset()):
            return
        setting = variants.setting_key(fn, expr)
        if setting is not None:
            variants.settle(variant, member, setting, not polarity)

    # findings -----------------------------------------------------------------
    def found_relays(self) -> list[Relay]:
        """Every relay reachable from the entry points, then the relays handing their
        state on to a connector's other side (computed once)."""
        if self._relays is None:
            reachable = set(self.graph.reach(self.entries, lambda fn, site: True))
            relays, self._typed_relays = self.relays(reachable)
            self._relays = relays + self._handed_on(relays)
        return self._relays

    def typed_relays(self) -> list[Relay]:
        """The relays of the typed builders the entry points reach (computed once, with
        :meth:`found_relays`)."""
        self.found_relays()
        assert self._typed_relays is not None
        return self._typed_relays

    def _handed_on(self, relays: list[Relay]) -> list[Relay]:
        """The relays handing a state on in a carrier's field (the connector's metadata,
        see :mod:`handover`), in what the entry points working on a connector reach."""
        linked = [e for e in self.entries if self._connectors(e)]
        if not linked:
            return []
        functions = set().union(*(self.reach_all(e) for e in linked))
        sources = [r for r in relays if r.function in functions]
        if not sources:
            return []
        return handed_on(self.model, sources, functions, self.same_class, self._field_arguments)

    def _connectors(self, entry: str) -> frozenset[str]:
        """The connector classes whose interface methods ``entry`` reaches (cached)."""
        found = self._connector_cache.get(entry)
        if found is None:
            found = connector_classes(self.model, self.reach_all(entry))
            self._connector_cache[entry] = found
        return found

    def run(self) -> Iterator[Finding]:
        relays = self.found_relays()
        for relay in relays:  # the validators settle settings before any path is walked
            self.rejected(relay.builder.variant)
        reported_builders: set[str] = set()
        carried: set[tuple[str, str, int]] = set()
        statements = StatementFilter()
        unwired = UnwiredBuilders(
            self.model, self.variants, self._outcome, self._calls_reach, self._relay_path
        )
        for relay in relays:
            builder = relay.builder
            variant = builder.variant
            rejected = self.rejected(variant)
            if builder.qualname not in reported_builders:
                reported_builders.add(builder.qualname)
                # a member a startup validator rejects is left out of the inventory too
                if any(member not in rejected for member in builder.gaps):
                    yield self._gap_finding(relay, rejected)
            for member, none_span in zip(builder.gaps, builder.none_spans, strict=True):
                if member in rejected:
                    continue
                yield from self._missing_state(relay, member, none_span, statements)
                if relay.origin is not None:
                    continue  # its carrier is the relay's: PDL104 reads the relay's own
                if (relay.function, builder.qualname, member) not in carried:
                    carried.add((relay.function, builder.qualname, member))
                    yield from self._carried(relay, member, none_span)
            # members the relay never calls the builder for have no state either (PDL106
            # reports the builder left out; the crash is PDL101's)
            skipped = None if relay.carried else unwired.skipped(relay, rejected, relays)
            if skipped is not None:
                members, site, tests = skipped
                for member in members:
                    left_out = replace(
                        builder,
                        gaps=(member,),
                        none_spans=(site.span,),
                        skipped=(relay.function, tests),
                    )
                    yield from self._missing_state(
                        replace(relay, builder=left_out), member, site.span, statements
                    )
            for member in range(len(variant.members)):
                if member not in rejected and member not in builder.gaps and not relay.carried:
                    yield from self._state_types(relay, member)
        for relay in self.typed_relays():  # no gap: only the classes built can be wrong
            rejected = self.rejected(relay.builder.variant)
            for member in range(len(relay.builder.variant.members)):
                if member not in rejected:
                    yield from self._state_types(relay, member)
        wiring: set[tuple[str, str, str]] = set()
        for relay in relays:
            key = (relay.builder.qualname, relay.function, relay.state)
            if key not in wiring and relay.origin is None:  # the calls are the relay's
                wiring.add(key)
                yield from unwired.findings(relay, self.rejected(relay.builder.variant), relays)

    def _missing_state(
        self, relay: Relay, member: int, none_span: Span, statements: StatementFilter
    ) -> Iterator[Finding]:
        """PDL101 for the consumers a member reaches with no state (``none_span``: where
        the builder's gap is), one per statement and state (``a, b = x.s.a, x.s.b``)."""
        found = []
        # a carried field left None is the carrier's (PDL104), not a missing state
        consumers = () if relay.carried else self._consumers(relay, member, none_span)
        for finding in consumers:
            consumer = self.model.functions[finding.path[-1].function]
            key = (finding.code, finding.member or "", relay.state)
            if statements.first(consumer, key, _span(finding)):
                found.append(finding)
        yield from self._with_notes(relay, member, found)

    def _relay_path(self, relay: Relay) -> list[Step]:
        """The steps from a decode entry point that reaches the relay to its function."""
        parents = self.graph.reach(self.relay_entries(relay), lambda fn, site: True)
        return entry_steps(self.model, parents, relay.function)

    def _calls_reach(self, qual: str) -> set[str]:
        """What the calls of ``qual`` reach, whatever the member (``qual`` included)."""
        if qual not in self.graph:
            return {qual}
        return set(self.graph.reach([qual], lambda fn, site: True))

    def built(self, builder: Builder, member: int) -> tuple[frozenset[str], Span] | None:
        """The classes the builder makes for a member it builds a value for, and the
        first return that makes one; None when it builds none or any is unknown (for
        an override the member's object runs, that override's)."""
        fn = self.model.functions[builder.made_by(member)]
        variant, bound = builder.variant, builder.bound
        outcome = self._outcome(fn, variant, member, bound)
        if outcome is None or outcome[0] != "value":
            return None
        made: set[str] = set()
        first: Span | None = None
        for ret in fn.returns:
            if self.variants.guards_truth(ret.guards, fn, variant, member, bound) is F:
                continue
            if self._return_kind(ret.value, fn, variant, member, bound) != "value":
                continue
            assert ret.value is not None
            narrow = self._member_callees(fn, variant, member, bound)
            found = made_classes(self.model, fn, ret.value, narrow=narrow)
            if not found:
                return None
            made.update(found)
            first = first or ret.span
        return (frozenset(made), first) if first is not None else None

    def _member_callees(
        self, fn: FunctionFacts, variant: Variant, member: int, bound: frozenset[str]
    ) -> Narrowing:
        """What a callee the builder takes from a table keyed by the variant is for the
        member (``cls = DECODERS.get(fmt)`` then ``cls(fmt)``; ``TABLE[algo](h)``): the
        classes and functions of the member's entries."""
        model = self.model

        def narrow(where: FunctionFacts, func: Expr) -> tuple[str, ...] | None:
            lookup = func
            if where is not fn:
                return None
            if func[0] == "name":
                values = assigned_values(fn, func[1])
                if len(values) != 1:
                    return None
                lookup = values[0]
            if lookup[0] == "subscript":
                table, key = lookup[1], lookup[2]
            elif lookup[0] == "call" and lookup[1][0] == "attr" and lookup[1][2] == "get":
                if not lookup[2]:
                    return None
                table, key = lookup[1][1], lookup[2][0]
            else:
                return None
            if not self.variants.denotes(key, fn, variant, bound):
                return None
            entries = self.variants.entry_for(table, fn, variant, member)
            if not entries:
                return None
            out: list[str] = []
            for scope, module, value in entries:
                named = (
                    model.resolve_dotted(scope, module, value)
                    if value[0] in ("name", "attr")
                    else None
                )
                if named is not None and named in model.classes:
                    out.append(named)
                    continue
                targets = model.callables_of(scope, value, 0, module)
                if not targets or any(model.functions[t].name == "__init__" for t in targets):
                    return None
                out.extend(targets)
            return tuple(out)

        return narrow

    def _state_types(self, relay: Relay, member: int) -> Iterator[Finding]:
        """PDL105: the member's state is built, of a class a consumer does not accept."""
        built = self.built(relay.builder, member)
        if built is None:
            return
        made, made_span = built
        variant = relay.builder.variant
        others = self._all_built(relay.builder)
        relay_fn = self.model.functions[relay.function]
        relay_cls = self.model.type_of(relay_fn, relay.target[1])
        names = self.model.attribute_aliases(relay_cls, relay.state)
        # the demands the member's classes fail, wherever the entries reach: the member's
        # own reach is walked only when there is one
        failing = {
            qual: found
            for qual in self.reach_relayed(relay)
            if qual != relay.function  # the relay's own check fails at handoff
            if (
                found := [
                    d for d in self._demands(qual, names) if fails(self.model, d, made, others)
                ]
            )
        }
        handed = self._failing_passed(relay, names, made, others)
        if not failing and not handed:
            return
        # the member's state is built: a placeholder under a None test leaves it alone
        relays = (*self.found_relays(), *self.typed_relays())
        stored = frozenset(r.function for r in relays if r.state == relay.state)
        edges = built_state_edges(self.model, self.variants, stored, relay.state, variant, member)
        within = {q: m for q, m in self._relayed_modes().items() if q != variant.qualname}
        parents = self.graph.reach(
            self.relay_entries(relay), edges, (variant.qualname, member), within
        )
        bypassed = self._bypassed(parents)
        for qual in sorted(failing.keys() & parents.keys() - bypassed):
            fn = self.model.functions[qual]
            for demand in failing[qual]:
                deref = DerefFact(
                    demand.obj[2], demand.obj, "attribute", demand.span, demand.guards
                )
                if stored_before(fn, deref, self.model):
                    continue
                if not self.same_class(fn, demand.obj[1], relay_cls):
                    continue
                truth = self.variants.guards_truth(demand.guards, fn, variant, member)
                if truth not in (T, MAYBE):
                    continue
                shown_from = self.trees(relay, member).choose(
                    parents, qual, demand.guards, demand.span
                )
                yield type_finding(
                    self.model, relay, member, made, made_span, qual, demand, shown_from
                )
                break  # the first failing demand of a function stops the request
        # demands on a parameter the state is passed to (``self._seed(req.draft)``)
        for caller, call, target, demands in handed:
            if (
                caller not in parents
                or caller in bypassed
                or not edges(self.model.functions[caller], call)
            ):
                continue
            when = self.graph.when.get((caller, target))
            if when is not None and when[0] == variant.qualname and member not in when[1]:
                continue  # a callee other members' objects have (their drafter's)
            fn = self.model.functions[caller]
            if self.variants.guards_truth(call.guards, fn, variant, member) not in (T, MAYBE):
                continue
            callee = self.model.functions[target]
            for demand in demands:
                truth = self.variants.guards_truth(demand.guards, callee, variant, member)
                if truth not in (T, MAYBE):
                    continue
                extended = {**parents, target: (caller, call)}
                shown_from = self.trees(relay, member).choose(
                    extended, target, demand.guards, demand.span
                )
                yield type_finding(
                    self.model, relay, member, made, made_span, target, demand, shown_from
                )
                break

    def _all_built(self, builder: Builder) -> frozenset[str]:
        """The classes the builder makes for any member (once per builder: each member's
        PDL105 asks)."""
        found = self._built_any.get(builder)
        if found is None:
            out: set[str] = set()
            for member in range(len(builder.variant.members)):
                built = self.built(builder, member)
                if built is not None:
                    out.update(built[0])
            found = self._built_any[builder] = frozenset(out)
        return found

    def _failing_passed(
        self, relay: Relay, names: frozenset[str], made: frozenset[str], others: frozenset[str]
    ) -> list[tuple[str, CallFact, str, list[TypeDemand]]]:
        """(caller, call, callee, demands) for each call passing the relay state to a
        parameter of a callee that demands of it a class ``made`` fails (the demand's
        ``obj`` is the state the caller passes). A method called on the state itself
        (``self.draft.merge(other.draft)``) is only its class's, or a base's."""
        model = self.model
        ancestors = {base for cls in made for base in model.mro(cls)}
        out = []
        for caller in sorted(self.reach_relayed(relay)):
            if caller == relay.function:  # the relay's own check fails at handoff
                continue
            fn = model.functions[caller]
            reads = StateReads(fn, names)
            # the relay's object is what a callee gets where a placeholder only fills
            # a None state
            for call, passed in self._state_arguments(relay, fn, replaced=True):
                on_state = call.func[0] == "attr" and (
                    reads.state(call.func[1], call.span, call.guards) is not None
                )
                for target in model.call_targets(fn, call.func):
                    callee = model.functions[target]
                    if on_state and target.rsplit(".", 1)[0] not in ancestors:
                        continue
                    bound = bind_arguments(callee, call.func, call.args, skip_receiver_always=True)
                    params = {bound[i][0]: state for i, state in passed if i < len(bound)}
                    found = [
                        d._replace(obj=params[d.obj[1]])
                        for d in self._demands(target, names, frozenset(params))
                        if d.obj[0] == "name" and fails(model, d, made, others)
                    ]
                    if found:
                        out.append((caller, call, target, found))
        return out

    def _demands(
        self, qual: str, names: frozenset[str], params: frozenset[str] = frozenset()
    ) -> list[TypeDemand]:
        """The type demands of ``qual`` on the state (passed to ``params`` too) that no
        guard of theirs answers (a test of the state's class or None-ness, or of a local
        holding it, guards a demand under it, as a bypass batch's guard does); the same
        for every member."""
        key = (qual, names, params)
        if key not in self._demanded:
            fn = self.model.functions[qual]
            tested = names | params | StateReads(fn, names).aliases()
            self._demanded[key] = [
                demand
                for demand in type_demands(self.model, fn, names, params)
                if not bypass_only(demand.guards)
                and not any(guards_mention(demand.guards, n) for n in tested)
            ]
        return self._demanded[key]

    def _bypassed(self, parents: dict[str, tuple[str, CallFact] | None]) -> set[str]:
        """The functions of a reach that it reaches only through a call taken by bypass
        batches alone (their state is a placeholder: the mode check's business)."""
        found = self._bypass_cache.get(id(parents))
        if found is not None and found[0] is parents:
            return found[1]
        known: dict[str, bool] = {}
        for start in parents:
            chain: list[str] = []
            node: str | None = start
            flag = False  # a root, or a cycle, ends the walk unbypassed
            while node is not None and node not in chain:
                if node in known:
                    flag = known[node]
                    break
                chain.append(node)
                link = parents[node]
                if link is not None and bypass_only(link[1].guards):
                    flag = True
                    break
                node = link[0] if link is not None else None
            known.update(dict.fromkeys(chain, flag))
        out = {q for q, flag in known.items() if flag}
        self._bypass_cache[id(parents)] = (parents, out)
        return out

    def _carried(self, relay: Relay, member: int, none_span: Span) -> Iterator[Finding]:
        """PDL104: the member runs the relay's fallback, which makes a carrier with a
        field left None, and reaches a per-variant dereference of that field."""
        variant = relay.builder.variant
        parents = self.member_reach(relay, variant, member)
        if relay.function not in parents:
            return
        fn = self.model.functions[relay.function]
        search = self._carriers
        reported: list[FieldDeref] = []
        every = [
            found
            for carrier, held, site in search.carriers(
                fn, variant, member, "" if relay.carried else relay.state
            )
            for found in search.derefs(carrier, fn, held, site, variant, member, parents.get)
        ]
        for found in sorted(every, key=lambda f: (f.function, f.deref.span)):
            # the request already crashed at an earlier one that runs on every path here
            if any(
                earlier.function == found.function
                and earlier.deref.span <= found.deref.span
                and set(earlier.deref.guards) <= set(found.deref.guards)
                for earlier in reported
            ):
                continue
            reported.append(found)
            yield carrier_finding(self.model, relay, member, none_span, found, parents)

    def _gap_finding(self, relay: Relay, rejected: set[int]) -> Finding:
        builder = relay.builder
        fn = self.model.functions[builder.qualname]
        names = [builder.variant.members[m] for m in builder.gaps if m not in rejected]
        message = (
            f"{builder.gap(self.model, relay.state, ', '.join(names))} ({builder.variant.name}); "
            f"the decode relay has no `{relay.state}` for {'them' if len(names) > 1 else 'it'}"
        )
        return Finding(
            "PDL001",
            message,
            location(self.model, builder.qualname, fn.span),
            related=(
                Related(
                    location(self.model, relay.function, relay.store_span),
                    f"relay stores `{relay.state}`",
                ),
                *self._none_returns(builder, rejected),
            ),
            member=",".join(names),
            # the members too: a baseline taken before another member lost its
            # state must not hide the wider gap
            key=("PDL001", builder.qualname, relay.state, ",".join(names)),
            summary=f"`{fn.name}` builds no `{relay.state}` for {listed(names)}",
        )

    def _none_returns(self, builder: Builder, rejected: set[int]) -> list[Related]:
        """Where the builder returns None, each place once with the members it is for
        (none for a relay that builds inline: its gap is a store it lacks)."""
        if builder.inline:
            return []
        at: dict[Span, list[str]] = {}
        for member, span in zip(builder.gaps, builder.none_spans, strict=True):
            if member not in rejected:
                at.setdefault(span, []).append(builder.variant.members[member])
        return [
            Related(
                location(self.model, builder.qualname, span), f"returns None for {listed(names)}"
            )
            for span, names in sorted(at.items())
        ]

    def edge_filter(self, state: str, variant: Variant, member: int) -> EdgeFilter:
        """Call sites the member can take with the state unchecked (no None test); one
        filter per state and member, which keeps its answers: the member's reaches
        (from all the entries, from each) ask it of the same sites."""
        key = (state, variant.qualname, member)
        if key in self._filters:
            return self._filters[key]
        mentioned = self._mentioned
        variants = self.variants
        # (id of a site, caller) -> (the site, the variants' epoch, the answer)
        answers: dict[tuple[int, str], tuple[CallFact, int, bool]] = {}
        holds = self.holds_for(variant, member)

        def decide(fn: FunctionFacts, site: CallFact) -> bool:
            guards = site.guards
            found = mentioned.get((id(guards), state))
            if found is None or found[0] is not guards:
                tested = (state, *state_locals(fn, state))
                found = (guards, any(guards_mention(guards, n) for n in tested))
                mentioned[(id(guards), state)] = found
            if found[1]:
                return False
            if self._stored_for(fn, site, state, holds):
                return False  # the callee sees the state this function just set
            if called_on_state(fn, site, state):
                return False  # a method of the state runs only when it exists
            return variants.guards_truth(guards, fn, variant, member) in (T, MAYBE)

        def allowed(fn: FunctionFacts, site: CallFact) -> bool:
            known = answers.get((id(site), fn.qualname))
            if known is not None and known[0] is site and known[1] == variants.epoch:
                return known[2]
            answer = decide(fn, site)
            answers[(id(site), fn.qualname)] = (site, variants.epoch, answer)
            return answer

        self._filters[key] = allowed
        return allowed

    def _stored_for(self, fn: FunctionFacts, site: CallFact, state: str, holds: Holds) -> bool:
        """:func:`stored_for_call` for the member ``holds`` asks about: asked for every
        member first, then for this one only where a store was left out for its
        conditions alone."""
        key: tuple[int, str, Holds | None] = (id(site), state, None)
        found = self._stored_calls.get(key)
        relays = self._relay_functions(state)
        if found is None or found[0] is not site:
            asked = _Asked()
            stored = stored_for_call(self.model, fn, site, state, relays, asked)
            found = self._stored_calls[key] = (site, stored or not asked.asked and None)
        if found[1] is not False:
            return bool(found[1])
        member_key = (id(site), state, holds)
        mine = self._stored_calls.get(member_key)
        if mine is None or mine[0] is not site:
            stored = stored_for_call(self.model, fn, site, state, relays, holds)
            mine = self._stored_calls[member_key] = (site, stored)
        return bool(mine[1])

    def _relay_functions(self, state: str) -> frozenset[str]:
        """The functions of the relays storing ``state`` (kept: asked per call site)."""
        found = self._relays_of.get(state)
        if found is None:
            found = frozenset(r.function for r in self.found_relays() if r.state == state)
            self._relays_of[state] = found
        return found

    def holds_for(self, variant: Variant, member: int) -> Holds:
        """Whether conditions of a function surely hold for the member (one callable
        per member, which keys the answers kept for it)."""
        key = (variant.qualname, member)
        found = self._holds.get(key)
        if found is None:
            variants = self.variants
            answers: dict[tuple[Guards, str, int], bool] = {}

            def found(guards: Guards, fn: FunctionFacts) -> bool:
                key = (guards, fn.qualname, variants.epoch)
                answer = answers.get(key)
                if answer is None:
                    answer = answers[key] = variants.guards_truth(guards, fn, variant, member) is T
                return answer

            self._holds[key] = found
        return found

    def member_reach(
        self, relay: Relay, variant: Variant, member: int
    ) -> dict[str, tuple[str, CallFact] | None]:
        """What the member reaches from the entries that reach the relay (cached)."""
        key = (relay.state, relay.function, relay.target, variant.qualname, member)
        if key not in self._member_reach:
            self._member_reach[key] = self._reach(relay, variant, member, self.relay_entries(relay))
        return self._member_reach[key]

    def relay_entries(self, relay: Relay) -> list[str]:
        """The entries whose calls reach the relay: they hand requests to its state; and
        the entry points working on the same connector, when the object holding the
        state outlives the relay's call (see :mod:`handover`: the connector's scheduler
        side stores what its worker side reads)."""
        key = (relay.function, relay.target)
        found = self._entries_cache.get(key)
        if found is not None:
            return found
        direct = [e for e in self.entries if relay.function in self.reach_all(e)]
        classes = {c for e in direct for c in self._connectors(e)}
        # the state is the handler's own (``self.window = ...`` in ``on_handoff``): the
        # handler's other entry points (``poll``) run on the same object
        handler = self.model.functions[relay.function].cls
        if relay.target[1] != ("name", "self"):
            handler = None
        found = direct
        mro = self.model.mro
        if handler is not None:
            found = [e for e in self.entries if e in direct or self._method_of(e, handler)]
        if classes and outlives(self.model, self.graph, relay.function, relay.target[1]):
            found = [
                e
                for e in self.entries
                if e in found
                or any(a in mro(b) or b in mro(a) for a in self._connectors(e) for b in classes)
            ]
        self._entries_cache[key] = found
        return found

    def _method_of(self, qual: str, cls: str) -> bool:
        """Whether ``qual`` is a method of ``cls``, of a base of it or of a subclass."""
        own = self.model.functions[qual].cls
        mro = self.model.mro
        return own is not None and (own in mro(cls) or cls in mro(own))

    def _reach(
        self, relay: Relay, variant: Variant, member: int, entries: list[str]
    ) -> dict[str, tuple[str, CallFact] | None]:
        """What the member reaches from ``entries`` with the relay state unchecked."""
        allowed = self.edge_filter(relay.state, variant, member)
        within = {q: m for q, m in self._relayed_modes().items() if q != variant.qualname}
        return self.graph.reach(entries, allowed, (variant.qualname, member), within)

    def trees(self, relay: Relay, member: int) -> EntryTrees:
        """The member's reach from each entry point that reaches the relay (cached)."""
        key = (relay, member)
        if key not in self._trees:
            variant = relay.builder.variant
            self._trees[key] = EntryTrees(
                self.model,
                self._settings,
                lambda: self.relay_entries(relay),
                lambda entry: self._reach(relay, variant, member, [entry]),
            )
        return self._trees[key]

    def _with_notes(self, relay: Relay, member: int, found: list[Finding]) -> list[Finding]:
        """The member's PDL101 findings, each with a note for the idle placeholders the
        request would reach after it (were it guarded): on every path from the entry
        points, that finding's consumer crashes first."""
        crashes = [(f.path[-1].function, _span(f)) for f in found if f.code == "PDL101" and f.path]
        if not crashes:
            return found
        variant = relay.builder.variant
        parents = self.member_reach(relay, variant, member)
        relay_fn = self.model.functions[relay.function]
        relay_cls = self.model.type_of(relay_fn, relay.target[1])
        trees = self.trees(relay, member)
        notes: dict[tuple[str, Span], list[Related]] = {}
        # a consumer the request reaches only after a raise for the missing state, on
        # every path, is never reached: a note of that raise
        loud = [c for c in crashes if c in self._loud]
        later: set[tuple[str, Span]] = set()
        for finding in found if loud else ():
            place = (finding.path[-1].function, _span(finding)) if finding.path else None
            if finding.code != "PDL101" or place is None or place in loud:
                continue
            first = trees.after(place, loud)
            if first is not None:
                later.add(place)
                notes.setdefault(first, []).append(
                    Related(
                        finding.location,
                        f"without this raise the request would fail here next: {finding.headline}",
                    )
                )
        if later:
            found = [f for f in found if not f.path or (f.path[-1].function, _span(f)) not in later]
            crashes = [c for c in crashes if c not in later]
        noted = self.noted.setdefault((relay, member), set())
        for placeholder in find_placeholders(
            self.model, parents, relay.state, self.placeholder_factories
        ):
            fn = self.model.functions[placeholder.function]
            if bypass_only(placeholder.guards) or not self.same_class(
                fn, placeholder.target[1], relay_cls
            ):
                continue
            truth = self.variants.guards_truth(placeholder.guards, fn, variant, member)
            if truth not in (T, MAYBE):
                continue
            crash = trees.after((placeholder.function, placeholder.span), crashes)
            if crash is None:
                continue
            noted.add((placeholder.function, placeholder.span))
            notes.setdefault(crash, []).append(
                Related(
                    location(self.model, placeholder.function, placeholder.span),
                    f"were this guarded, the request would reach the idle placeholder "
                    f"`{placeholder.factory}(...)` here, which hides the missing "
                    f"`{relay.state}`",
                )
            )
        out = []
        for finding in found:
            extra = notes.get((finding.path[-1].function, _span(finding))) if finding.path else None
            if extra and finding.code == "PDL101":
                finding = replace(finding, related=(*finding.related, *extra))
                del notes[(finding.path[-1].function, _span(finding))]
            out.append(finding)
        return out

    def _relayed_modes(self) -> dict[str, frozenset[int]]:
        """For each enum that chooses calls (a table keyed by ``batch.mode``) and has
        bypass members (IDLE, DUMMY), its other members: a batch the relay made holds
        requests handed over, so it takes no call that bypass batches alone take."""
        if self._modes is None:
            self._modes = {}
            for qual in sorted({when[0] for when in self.graph.when.values()}):
                found = self.variants.by_name.get(qual)
                if found is None or found.kind != "enum":
                    continue
                rest = frozenset(
                    m
                    for m, name in enumerate(found.members)
                    if not any(word in name.lower() for word in BYPASS_WORDS)
                )
                if len(rest) < len(found.members):
                    self._modes[qual] = rest
        return self._modes

    def _consumers(self, relay: Relay, member: int, none_span: Span) -> Iterator[Finding]:
        variant = relay.builder.variant
        state = relay.state
        allowed = self.edge_filter(state, variant, member)
        relay_fn = self.model.functions[relay.function]
        relay_cls = self.model.type_of(relay_fn, relay.target[1])
        # the state, and the properties that read it (``batch.draft`` returning
        # ``self._draft``)
        names = self.model.attribute_aliases(relay_cls, state)
        parents = self.member_reach(relay, variant, member)
        for qual in sorted(parents):
            fn = self.model.functions[qual]
            seen: set[Span] = set()
            crashed: list[DerefFact] = []
            derefs = [d for d in fn.derefs if d.attr in names]
            # a None test of a local holding an entry of the state tests the state
            tested = names | state_locals(fn, state) if derefs else names
            # locals given the state somewhere here (``audited = batch.plan``)
            aliases = [
                local
                for local, value in fn.assigns
                if value[0] == "attr" and value[2] in names and fn.asserts
            ]
            for deref in sorted(derefs, key=lambda d: d.span):
                if deref.span in seen:
                    continue
                seen.add(deref.span)
                # the request already crashed at an earlier one that runs on every path here
                if any(
                    earlier.obj == deref.obj and set(earlier.guards) <= set(deref.guards)
                    for earlier in crashed
                ):
                    continue
                if any(guards_mention(deref.guards, n) for n in tested):
                    continue
                # an assert of the state (or of a local given it) on every path here
                # fails first: that late failure is the finding (see _late)
                if any(
                    span < deref.span
                    and set(guards) <= set(deref.guards)
                    and any(none_check(test, n) for n in (*tested, *aliases))
                    for test, span, guards in fn.asserts
                ):
                    continue
                if stored_before(fn, deref, self.model):
                    continue
                if not self.same_class(fn, deref.obj[1], relay_cls):
                    continue
                if deref.via and not self._may_hold_built(fn, deref.via, relay.builder):
                    continue
                if self.variants.guards_truth(deref.guards, fn, variant, member) not in (T, MAYBE):
                    continue
                crashed.append(deref)
                yield self._finding(
                    relay, member, none_span, qual, deref.obj, deref.span, deref.guards, parents
                )
            if qual != relay.function:  # a raise in the relay itself fails at handoff
                yield from self._late(relay, member, none_span, fn, names, relay_cls, parents)
            yield from self._passed_on(relay, member, none_span, fn, parents, allowed)

    def _may_hold_built(self, fn: FunctionFacts, local: str, builder: Builder) -> bool:
        """Whether the local ``local`` of ``fn``, given the state, may hold what the
        builder makes: False when it is annotated with a class that no class the
        builder makes for any member is related to (``verify: VerifyInput =
        batch.spec_info`` where the builder makes a ``DraftInput``): the state it reads
        is one another step stored (all the builder's classes known)."""
        module = self.model.module_of(fn)
        declared = {
            self.model.annotation_class(v[1], module, fn)
            for name, v in fn.assigns
            if name == local and v[0] == "annotated"
        }
        if len(declared) != 1 or None in declared:
            return True
        made: set[str] = set()
        for member in range(len(builder.variant.members)):
            if member in builder.gaps:
                continue
            built = self.built(builder, member)
            if built is None:
                return True
            made.update(built[0])
        if not made:
            return True
        return any(self.model.may_share_instance(c, cls) for c in declared if c for cls in made)

    def _late(
        self,
        relay: Relay,
        member: int,
        none_span: Span,
        fn: FunctionFacts,
        names: frozenset[str],
        relay_cls: str | None,
        parents: dict[str, tuple[str, CallFact] | None],
    ) -> Iterator[Finding]:
        """PDL101 at a consumer's raise (or assert) that fires when the state is None."""
        variant = relay.builder.variant
        if fn.qualname in self._bypassed(parents):
            return  # reached only by bypass batches: the mode check's business
        for failure in late_failures(fn, names):
            if any(guards_mention(failure.guards, n) for n in names):
                continue
            deref = DerefFact(failure.obj[2], failure.obj, "attribute", failure.span, ())
            if stored_before(fn, deref._replace(guards=failure.guards), self.model):
                continue
            if not self.same_class(fn, failure.obj[1], relay_cls):
                continue
            if self.variants.guards_truth(failure.guards, fn, variant, member) not in (T, MAYBE):
                continue
            self._loud.add((fn.qualname, failure.span))
            yield self._finding(
                relay,
                member,
                none_span,
                fn.qualname,
                failure.obj,
                failure.span,
                failure.guards,
                parents,
                True,
            )

    def _passed_on(
        self,
        relay: Relay,
        member: int,
        none_span: Span,
        fn: FunctionFacts,
        parents: dict[str, tuple[str, CallFact] | None],
        allowed: Callable[[FunctionFacts, CallFact], bool],
    ) -> Iterator[Finding]:
        """Relay state passed as an argument to a callee that dereferences it (the
        attribute of an object of the relay's class, as a direct dereference is)."""
        variant = relay.builder.variant
        holds = self.holds_for(variant, member)
        for call, passed in self._state_arguments(relay, fn):
            if not allowed(fn, call):
                continue
            # the state stored on every path the member takes to the call (an idle
            # placeholder made under a test of the variant) is no None the relay left
            indices = [
                i
                for i, state in passed
                if not stored_before(
                    fn,
                    DerefFact(state[2], state, "call", call.span, call.guards),
                    self.model,
                    holds,
                )
            ]
            if not indices:
                continue
            for target in self.model.call_targets(fn, call.func):
                when = self.graph.when.get((fn.qualname, target))
                if when is not None and when[0] == variant.qualname and member not in when[1]:
                    continue  # a callee other members' objects have (their proposer's)
                callee = self.model.functions[target]
                bound = bind_arguments(callee, call.func, call.args, skip_receiver_always=True)
                for index in indices:
                    if index >= len(bound):
                        continue
                    param = bound[index][0]
                    for deref in sorted(callee.derefs, key=lambda d: d.span):
                        if deref.attr or deref.obj != ("name", param):
                            continue
                        if guards_mention(deref.guards, param):
                            continue
                        truth = self.variants.guards_truth(deref.guards, callee, variant, member)
                        if truth not in (T, MAYBE):
                            continue
                        extended = dict(parents)
                        extended.setdefault(target, (fn.qualname, call))
                        if extended[target] != (fn.qualname, call):
                            extended[target] = (fn.qualname, call)
                        yield self._finding(
                            relay,
                            member,
                            none_span,
                            target,
                            deref.obj,
                            deref.span,
                            deref.guards,
                            extended,
                        )
                        break

    def _state_arguments(
        self, relay: Relay, fn: FunctionFacts, *, replaced: bool = False
    ) -> list[tuple[CallFact, list[tuple[int, Expr]]]]:
        """The calls of ``fn`` passing the relay state positionally, with (the index of
        each such argument, the state it holds), where the state is not stored just
        before on the object passed (with ``replaced``, a placeholder stored where it
        is None does not count: see :func:`stored_before`)."""
        relay_cls = self.model.type_of(self.model.functions[relay.function], relay.target[1])
        # an entry of the state (``self.pending[rid]``), or a local holding one (``for rid,
        # meta in self.pending.items()``) or the state itself (``md = batch.spec_md``)
        held = {
            ("name", local): entry
            for local in state_locals(fn, relay.state, self.model)
            for name, value in fn.assigns
            if name == local
            and (entry := held_state(fn, value, relay.state, self.model)) is not None
            # (a local annotated with a class unrelated to the builder's reads a state
            # another step stored, as a dereference through it does)
            and self._may_hold_built(fn, local, relay.builder)
        }
        out = []
        for call in fn.calls:
            passed = [
                (i, state)
                for i, arg in enumerate(call.args)
                if (state := held.get(arg) or held_entry(arg) or arg)[0] == "attr"
                and state[2] == relay.state
                and self.same_class(fn, state[1], relay_cls)
                and not stored_before(
                    fn,
                    DerefFact(state[2], state, "call", call.span, call.guards),
                    self.model,
                    replaced=replaced,
                )
            ]
            if passed:
                out.append((call, passed))
        return out

    def reach_relayed(self, relay: Relay) -> set[str]:
        """What the entries that reach the relay reach, whatever the member."""
        return set().union(*(self.reach_all(e) for e in self.relay_entries(relay)))

    def reach_all(self, entry: str) -> set[str]:
        if entry not in self._reach_cache:
            self._reach_cache[entry] = set(self.graph.reach([entry], lambda fn, site: True))
        return self._reach_cache[entry]

    def same_class(self, fn: FunctionFacts, base: Expr, relay_cls: str | None) -> bool:
        """False only when the dereferenced object is known to be another class."""
        if relay_cls is None:
            return True
        found = self.model.type_of(fn, base)
        if found is None:
            return True
        return self.model.may_share_instance(relay_cls, found)

    def _finding(
        self,
        relay: Relay,
        member: int,
        none_span: Span,
        consumer: str,
        obj: Expr,
        span: Span,
        guards: Guards,
        parents: dict[str, tuple[str, CallFact] | None],
        late: bool = False,
    ) -> Finding:
        builder = relay.builder
        name = builder.variant.members[member]
        shown = text(obj, brief=True)
        parents = self.trees(relay, member).choose(parents, consumer, guards, span)
        entry, steps = path_steps(self.model, parents, consumer)
        missing = (
            f"{builder.gap(self.model, relay.state, name)}, "
            f"so `{relay.state}` is never built on the decode relay from `{short_name(entry)}`"
        )
        if late:
            steps.append(
                Step(location(self.model, consumer, span), consumer, f"raises: `{shown}` is None")
            )
            message = (
                f"{name} fails loudly at the consumer: `{short_name(consumer)}` raises when "
                f"`{shown}` is None, and {missing}; every {name} request fails at its first "
                f"decode step, after the handoff moved its KV cache; reject {name} in decode "
                f"mode in a startup validator (or build it, or raise in the builder)"
            )
            summary = f"{name} fails loudly at the consumer: `{shown}` is never built"
        else:
            steps.append(deref_step(self.model, consumer, span, shown))
            message = (
                f"{name} reaches `{shown}` but {missing}; "
                f"build it for {name} or raise for {name} (in the builder or a startup validator)"
            )
            summary = f"{name} reaches `{shown}`, never built on the decode relay"
        related = relay_related(self.model, relay, member, none_span, entry)
        return Finding(
            "PDL101",
            message,
            location(self.model, consumer, span),
            related=related,
            path=tuple(steps),
            member=name,
            key=("PDL101", entry, name, consumer, shown, *(("raise",) if late else ())),
            summary=summary,
        )


class _Asked:
    """A :data:`Holds` for no member (never holds) that records whether it was asked:
    whether a store was left out for its conditions alone."""

    def __init__(self) -> None:
        self.asked = False

    def __call__(self, guards: Guards, fn: FunctionFacts) -> bool:
        self.asked = True
        return False


def _exists_test(guard: tuple[Expr, bool], objects: set[Expr]) -> bool:
    """Whether the guard holds when one of ``objects`` is not None: ``x is not None``,
    ``not (x is None)``, ``x``."""
    expr, polarity = guard
    if expr in objects:
        return polarity
    if expr[0] != "cmp" or len(expr[2]) != 1 or expr[2][0] not in ("is", "is not", "==", "!="):
        return False
    left, right = expr[1], expr[3][0]
    if not (
        (left in objects and right == ("const", None))
        or (right in objects and left == ("const", None))
    ):
        return False
    return polarity == (expr[2][0] in ("is not", "!="))


def _returned(fn: FunctionFacts) -> Iterator[Expr]:
    """What ``fn`` returns and the conditions its returns are under."""
    for ret in fn.returns:
        if ret.value is not None:
            yield ret.value
        for expr, _ in ret.guards:
            yield expr


def _span(finding: Finding) -> Span:
    """The span of a finding's location."""
    loc = finding.location
    return (loc.line, loc.column, loc.end_line, loc.end_column)


def _refilled(
    model: Model, fn: FunctionFacts, local: Expr, after: Span, stores: list[StoreFact]
) -> bool:
    """``local`` is given an object (never None) under a None test of itself between
    ``after`` and each of ``stores`` of it (``if plan is None: plan = Plan(ids)``), at
    the level of the store: what is stored is never the None the call returned."""
    test = ("cmp", local, ("is",), (("const", None),))
    refills = [
        b
        for b in fn.binds
        if b.names == (local[1],)
        and after < b.span
        and b.guards[-1:] == ((test, True),)
        and never_none(model, fn, b.value)
    ]
    return bool(refills) and all(
        any(r.span < store.span and r.guards[:-1] == store.guards for r in refills)
        and store.value == local
        for store in stores
    )
