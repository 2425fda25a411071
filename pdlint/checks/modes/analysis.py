"""PDL102 mode-bypass and PDL103 masked-state (case 2 of the brief).

Decode loops also run batches no handoff produced (IDLE, dummy, warm-up). A
batch is made in such a mode where the mode attribute of the batch class is set
to a bypass member (an *origin*); whatever runs after the origin, in the
function that made it and, on return, in its callers, may see that batch. A
consumer of the relay state reached that way, with no guard for the mode and
none for None, is PDL102. A None check that installs an idle placeholder and is
reached by a non-idle batch whose builder skipped member M is PDL103.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from pdlint.checks.relay.analysis import RelayAnalysis
from pdlint.checks.relay.none_checks import guards_mention, state_locals, stored_before
from pdlint.checks.relay.placeholders import Placeholder, find_placeholders
from pdlint.checks.relay.relays import Relay, relay_related
from pdlint.checks.relay.statements import StatementFilter
from pdlint.facts.exprs import nodes, text
from pdlint.facts.types import (
    CallFact,
    DerefFact,
    Expr,
    FunctionFacts,
    Guards,
    Span,
    StoreFact,
    guards_at,
)
from pdlint.findings import Finding, Related, Step
from pdlint.model.callgraph import call_chain
from pdlint.model.locations import call_step, deref_step, location, short_name
from pdlint.model.variants import MAYBE, F, T, Variant

BYPASS_WORDS = ("IDLE", "DUMMY", "WARMUP", "WARM_UP")


@dataclass(frozen=True)
class HandoffStore:
    """A state the decode path rebuilds for every handed-off batch, whatever the variant
    (``batch.sampling_info = SamplingInfo.from_handoff(reqs)``): set by no builder, yet
    missing from a batch made in a bypass mode as much as a builder's gap is."""

    state: str
    function: str
    store_span: Span
    target: Expr
    carried: bool = False


@dataclass(frozen=True)
class Origin:
    """Where a batch gets a bypass mode: ``batch.<attr> = Mode.IDLE`` (or a kwarg)."""

    function: str
    span: Span
    variant: Variant
    member: int
    attr: str


class ModeAnalysis:
    """Batch modes that bypass the relay, and placeholders that mask gaps."""

    def __init__(
        self,
        relay: RelayAnalysis,
        bypass_modes: tuple[str, ...] = (),
        placeholder_factories: tuple[str, ...] = (),
    ) -> None:
        self.relay = relay
        self.model = relay.model
        self.variants = relay.variants
        self.graph = relay.graph
        self.bypass_modes = bypass_modes
        self.placeholder_factories = placeholder_factories
        self._relayed_variants: list[Variant] = []  # the relays' builders', see run
        self._mode_attrs: dict[str, list[Variant]] | None = None
        self._below: dict[tuple[str, str, str, int], dict[str, tuple[str, CallFact] | None]] = {}
        # (function, id of a call) -> (the call, the class it makes, its arguments)
        self._made_arguments: dict[
            tuple[str, int], tuple[CallFact, str | None, tuple[tuple[str, Expr], ...]]
        ] = {}

    # discovery ----------------------------------------------------------------
    def is_bypass(self, variant: Variant, member: int) -> bool:
        name = variant.members[member]
        if self.bypass_modes:
            return name in self.bypass_modes or f"{variant.name}.{name}" in self.bypass_modes
        return any(word in name.upper() for word in BYPASS_WORDS)

    def _bypass_name(self, name: str) -> bool:
        """Whether a member called ``name`` may be a bypass mode (of some enum)."""
        if self.bypass_modes:
            return any(m == name or m.endswith(f".{name}") for m in self.bypass_modes)
        return any(word in name.upper() for word in BYPASS_WORDS)

    def mode_attrs(self) -> dict[str, list[Variant]]:
        """Attribute names holding an enum with a bypass member (``forward_mode``)."""
        if self._mode_attrs is None:
            out: dict[str, list[Variant]] = {}
            for attr, quals in sorted(self.variants.carrier_names.items()):
                for qual in sorted(quals):
                    variant = self.variants.by_name.get(qual)
                    if variant is None or variant.kind != "enum":
                        continue
                    if any(self.is_bypass(variant, m) for m in range(len(variant.members))):
                        out.setdefault(attr, []).append(variant)
            self._mode_attrs = out
        return self._mode_attrs

    def _mode_variant(
        self, fn: FunctionFacts, attr: str, base: Expr | None, batch_cls: str | None
    ) -> Variant | None:
        """The mode variant ``<base>.<attr>`` holds (by the batch class when known)."""
        candidates = self.mode_attrs().get(attr, [])
        cls = self.model.type_of(fn, base) if base is not None else None
        cls = cls or batch_cls
        if cls is not None:
            found = self.variants.class_attr_variant(cls, attr)
            if found is not None:
                return found if found in candidates else None
        return candidates[0] if len(candidates) == 1 else None

    def _bypass_constant(self, fn: FunctionFacts, value: Expr) -> Variant | None:
        """The enum of a bypass member ``value`` names (``ForwardMode.IDLE``)."""
        if value[0] != "attr" or not self._bypass_name(value[2]):
            return None
        held = self.model.types_of(fn, value)
        if len(held) != 1:
            return None
        variant = self.variants.by_name.get(next(iter(held)))
        if variant is None or variant.kind != "enum":
            return None
        members = variant.positions.get(value[2], ())
        return variant if any(self.is_bypass(variant, m) for m in members) else None

    def origins(self, reachable: set[str], batch_cls: str | None) -> list[Origin]:
        """Stores (or constructor keywords) that give a batch a bypass mode."""
        attrs = self.mode_attrs()
        out: list[Origin] = []
        for qual in sorted(reachable):
            fn = self.model.functions[qual]
            found: list[tuple[Span, str, Expr, Expr | None]] = [
                (s.span, s.target[2], s.value, s.target[1])
                for s in fn.stores
                if s.target[0] == "attr"
                and (s.target[2] in attrs or self._bypass_constant(fn, s.value))
            ]
            found.extend(
                (c.span, key, value, None)
                for c in fn.calls
                for key, value in self._constructor_arguments(fn, c, batch_cls)
                if key in attrs or self._bypass_constant(fn, value)
            )
            for span, attr, value, base in found:
                if base is not None and not self.relay.same_class(fn, base, batch_cls):
                    continue
                # a mode attribute nothing annotates holds the enum of its bypass member
                variant = self._mode_variant(fn, attr, base, batch_cls) or self._bypass_constant(
                    fn, value
                )
                if variant is None:
                    continue
                for member in self.variants.member_of(value, fn, variant) or ():
                    if self.is_bypass(variant, member):
                        out.append(Origin(qual, span, variant, member, attr))
        return out

    def _constructor_arguments(
        self, fn: FunctionFacts, call: CallFact, batch_cls: str | None
    ) -> tuple[tuple[str, Expr], ...]:
        """(parameter, argument) of a call that constructs an object of the batch class
        (positional arguments bound to the constructor's parameters), or of a factory
        that returns one (its keywords); () for any other call."""
        key = (fn.qualname, id(call))
        found = self._made_arguments.get(key)
        if found is None or found[0] is not call:  # the same for every batch class
            found = self._made_arguments[key] = (call, *self._made_with(fn, call))
        _, made, arguments = found
        if made is None:
            return ()
        if batch_cls is not None and not (
            batch_cls in self.model.mro(made) or made in self.model.mro(batch_cls)
        ):
            return ()
        return arguments

    def _made_with(
        self, fn: FunctionFacts, call: CallFact
    ) -> tuple[str | None, tuple[tuple[str, Expr], ...]]:
        """(the class of what ``call`` makes, its (parameter, argument) pairs) when it
        may give a batch its mode: (None, ()) for any other call."""
        attrs = self.mode_attrs()
        keyed = any(key in attrs for key, _ in call.kwargs) or any(
            self._bypass_constant(fn, value) for _, value in call.kwargs
        )
        called = self.model.constructed_class(fn, call.func)
        if not keyed and (not call.args or called is None):
            return None, ()  # positional arguments bind a mode only in a constructor
        made = self.model.type_of(fn, ("call", call.func, call.args, call.kwargs))
        if made is None:
            return None, ()
        if called == made:
            return made, self.model.constructor_arguments(made, call.args, call.kwargs)
        return made, call.kwargs

    def placeholders(self, reachable: set[str], state: str) -> list[Placeholder]:
        """Assignments of an idle placeholder to the state under a None check of it."""
        return find_placeholders(self.model, reachable, state, self.placeholder_factories)

    # findings -----------------------------------------------------------------
    def handoff_stores(self, reachable: set[str], relays: list[Relay]) -> list[HandoffStore]:
        """The states the decode path stores unconditionally, from what a function is
        handed (a call reading its parameters), in an attribute of a class whose every
        instance starts with it None (a class-level or dataclass default, or its
        ``__init__``): a batch its constructor makes in a bypass mode has none."""
        relayed = {r.state for r in relays}
        # relays that store on their own object (a batch's ``prepare_for_prebuilt``):
        # what they store beside the relayed state is rebuilt on the handoff too
        on_self = {r.function for r in relays if r.target[1] == SELF}
        modes = self.mode_attrs()
        out: list[HandoffStore] = []
        for qual in sorted(reachable):
            fn = self.model.functions[qual]
            params = {p for p, _ in fn.params} - {"self", "cls"}
            for store in fn.stores:
                target, value = store.target, store.value
                if target[0] != "attr" or value[0] != "call":
                    continue
                if store.guards and not _every_return_after(fn, target[1], store):
                    continue
                if target[2] in relayed or target[2] in modes:
                    continue
                if target[1] == SELF:
                    if qual not in on_self or store.guards:
                        continue
                elif not any(n[0] == "name" and n[1] in params for n in nodes(value)):
                    continue  # rebuilt from nothing the function was handed
                cls = self.model.type_of(fn, target[1])
                if cls is not None and self._starts_none(cls, target[2]):
                    out.append(HandoffStore(target[2], qual, store.span, target))
        return out

    def _starts_none(self, cls: str, attr: str) -> bool:
        """Whether every instance of ``cls`` starts with ``attr`` None: a class-level
        (or dataclass field's) default None, or an unconditional ``self.attr = None`` in
        the ``__init__`` it runs."""
        for klass in self.model.mro(cls):
            facts = self.model.classes.get(klass)
            if facts is None:
                continue
            for name, value, _span in facts.assigns:
                if name == attr:
                    return value == NONE or _default_none(value)
        init = self.model.lookup_method(cls, "__init__")
        if init is None:
            # a mixin of the batch (its relay method stores on ``self``): the classes
            # made of it, each with its own ``__init__``
            below = [
                d
                for d in self.model.descendants(cls)[:50]
                if self.model.lookup_method(d, "__init__") is not None
            ]
            return bool(below) and all(self._starts_none(d, attr) for d in below)
        stores = [s for s in self.model.functions[init].stores if s.target == ("attr", SELF, attr)]
        return len(stores) == 1 and stores[0].value == NONE and not stores[0].guards

    def run(self, relays: list[Relay], entries: list[str]) -> Iterator[Finding]:
        reachable = set(self.graph.reach(entries, lambda fn, site: True))
        seen: set[tuple[str, str | None, str, int, int]] = set()
        statements = StatementFilter()
        stored: list[Relay | HandoffStore] = [*relays, *self.handoff_stores(reachable, relays)]
        self._relayed_variants = list(
            {r.builder.variant.qualname: r.builder.variant for r in relays}.values()
        )
        origins: dict[str | None, list[Origin]] = {}
        for relay in stored:
            if relay.carried:  # a carrier's field, not a batch's state
                continue
            relay_fn = self.model.functions[relay.function]
            batch_cls = self.model.type_of(relay_fn, relay.target[1])
            relay_entries = [e for e in entries if relay.function in self.relay.reach_all(e)]
            findings: list[Finding] = []
            if batch_cls not in origins:  # the same for each state of one class
                origins[batch_cls] = self.origins(reachable, batch_cls)
            for origin in origins[batch_cls]:
                # every entry: an idle or dummy run need not reach the relay to
                # run the relay's consumers on a batch of the relay's class
                findings.extend(self._bypass(relay, origin, entries, batch_cls))
            if isinstance(relay, Relay):  # a placeholder hides a builder's gaps
                for placeholder in self.placeholders(reachable, relay.state):
                    findings.extend(self._masked(relay, placeholder, relay_entries, batch_cls))
            for finding in findings:
                loc = finding.location
                mark = (finding.code, finding.member, loc.path, loc.line, loc.column)
                if mark in seen:
                    continue
                seen.add(mark)
                # one finding per statement and state
                consumer = self.model.functions[finding.path[-1].function]
                span = (loc.line, loc.column, loc.end_line, loc.end_column)
                key = (finding.code, finding.member or "", relay.state)
                if statements.first(consumer, key, span):
                    yield finding

    def _bypass(
        self,
        relay: Relay | HandoffStore,
        origin: Origin,
        entries: list[str],
        batch_cls: str | None,
    ) -> Iterator[Finding]:
        """Consumers that run after the origin, on its function and on return."""
        variant, member, state = origin.variant, origin.member, relay.state
        allowed = self.relay.edge_filter(state, variant, member)
        down = self.graph.reach(entries, lambda fn, site: True)
        if origin.function not in down:
            return
        queue: deque[tuple[str, Span, Span]] = deque([(origin.function, origin.span, origin.span)])
        visited: set[str] = set()
        while queue:
            qual, after, made_at = queue.popleft()
            if qual in visited:
                continue
            visited.add(qual)
            fn = self.model.functions[qual]
            # the batch given the state after it is made (a warm-up factory's
            # ``b.sampling = Sampling.dummy(n)``): what runs from there on sees it
            given = self._given(fn, after, state, batch_cls)
            relayed = given is not None
            made_under = guards_at(fn, after)
            for deref in sorted(fn.derefs, key=lambda d: d.span):
                later = deref.span > after or (
                    deref.span[0] == after[0] and qual != origin.function  # as calls below
                )
                if given is not None and deref.span > given:
                    continue
                if _excluded(fn, made_under, after, deref.guards, deref.span):
                    continue
                if later and self._unguarded(fn, deref.attr, deref, state, batch_cls):
                    if self.variants.guards_truth(deref.guards, fn, variant, member) in (
                        T,
                        MAYBE,
                    ) and not self._rejected_only(fn, deref.guards):
                        yield self._bypass_finding(
                            relay,
                            origin,
                            call_chain(down, qual),
                            (qual, made_at),
                            [],
                            qual,
                            deref.obj,
                            deref.span,
                        )
            for call in sorted(fn.calls, key=lambda c: c.span):
                if given is not None and call.span > given:
                    break
                beside = False  # on the line of the call that handed the batch back
                if call.span <= after and not _encloses(call.span, after):
                    if call.span[0] != after[0] or call.span == after or qual == origin.function:
                        continue  # (a call the batch is made in runs after it is made)
                    # maybe a comprehension's element, which runs after its iterable;
                    # maybe the other branch of ``a if c else b``, which does not run
                    beside = True
                if _excluded(fn, made_under, after, call.guards, call.span):
                    continue
                targets = self.model.call_targets(fn, call.func)
                if any(relay.function in self.relay.reach_all(t) for t in targets):
                    if beside:
                        continue
                    relayed = True  # the relay may build the state for this batch
                    break
                if not allowed(fn, call):
                    continue
                for target in targets:
                    when = self.graph.when.get((qual, target))
                    if when is not None and when[0] == variant.qualname and member not in when[1]:
                        continue  # a call that only batches of other modes take
                    key = (target, state, variant.qualname, member)
                    if key not in self._below:
                        self._below[key] = self.graph.reach(
                            [target], allowed, (variant.qualname, member)
                        )
                    below = self._below[key]
                    for sub in sorted(below):
                        callee = self.model.functions[sub]
                        for deref in sorted(callee.derefs, key=lambda d: d.span):
                            if not self._unguarded(callee, deref.attr, deref, state, batch_cls):
                                continue
                            truth = self.variants.guards_truth(
                                deref.guards, callee, variant, member
                            )
                            if truth not in (T, MAYBE) or self._rejected_only(callee, deref.guards):
                                continue
                            tail = [(qual, call), *_chain_sites(below, sub)]
                            yield self._bypass_finding(
                                relay,
                                origin,
                                call_chain(down, qual),
                                (qual, made_at),
                                tail,
                                sub,
                                deref.obj,
                                deref.span,
                            )
            if relayed or qual in entries:
                continue
            if (qual == origin.function and _on_self(origin, fn)) or _returns_value(fn):
                for caller in sorted(self.graph.callers(qual)):
                    if caller not in down:
                        continue
                    # from its first call of ``qual`` (a caller is walked once)
                    sites = sorted(site.span for site in self.graph.sites(caller, qual))
                    if sites:
                        queue.append((caller, sites[0], sites[0]))

    def _given(
        self, fn: FunctionFacts, after: Span, state: str, batch_cls: str | None
    ) -> Span | None:
        """Where ``fn`` stores the state, unconditionally and not None, on an object of
        the batch's class after ``after``; None when it does not."""
        spans = [
            store.span
            for store in fn.stores
            if store.span > after
            and not store.guards
            and store.target[0] == "attr"
            and store.target[2] == state
            and store.value != NONE
            and self.relay.same_class(fn, store.target[1], batch_cls)
        ]
        return min(spans, default=None)

    def _rejected_only(self, fn: FunctionFacts, guards: Guards) -> bool:
        """Whether code under ``guards`` runs only for members of a relay's variant that a
        startup validator rejects (``elif algo.is_ngram():`` with NGRAM rejected on a
        decode server): no batch of any mode runs it."""
        for variant in self._relayed_variants:
            rejected = self.relay.rejected(variant)
            if rejected and all(
                self.variants.guards_truth(guards, fn, variant, member) is F
                for member in range(len(variant.members))
                if member not in rejected
            ):
                return True
        return False

    def _unguarded(
        self,
        fn: FunctionFacts,
        attr: str,
        deref: DerefFact,
        state: str,
        batch_cls: str | None,
    ) -> bool:
        """A dereference of the state with no None check before it."""
        if (
            attr != state
            or any(guards_mention(deref.guards, n) for n in (state, *state_locals(fn, state)))
            or stored_before(fn, deref, self.model)
        ):
            return False
        return self.relay.same_class(fn, deref.obj[1], batch_cls)

    def _steps(self, chain: list[tuple[str, CallFact | None]]) -> list[Step]:
        """Steps entry -> ... -> last function of ``chain`` (from :func:`call_chain`)."""
        entry = chain[0][0]
        steps = [
            Step(
                location(self.model, entry, self.model.functions[entry].span),
                entry,
                f"entry point `{short_name(entry)}`",
            )
        ]
        for (caller, _), (callee, site) in zip(chain, chain[1:], strict=False):
            assert site is not None
            steps.append(call_step(self.model, caller, site.span, callee))
        return steps

    def _bypass_finding(
        self,
        relay: Relay | HandoffStore,
        origin: Origin,
        down: list[tuple[str, CallFact | None]],
        made: tuple[str, Span],
        tail: list[tuple[str, CallFact]],
        consumer: str,
        obj: Expr,
        span: Span,
    ) -> Finding:
        mode = f"{origin.variant.name}.{origin.variant.members[origin.member]}"
        shown = text(obj, brief=True)
        steps = self._steps(down)
        made_fn, made_span = made
        steps.append(
            Step(
                location(self.model, made_fn, made_span), made_fn, f"a batch of mode {mode} is made"
            )
        )
        callees = [caller for caller, _ in tail[1:]] + [consumer]
        for (caller, site), callee in zip(tail, callees, strict=False):
            steps.append(call_step(self.model, caller, site.span, callee))
        steps.append(deref_step(self.model, consumer, span, shown))
        entry = down[0][0]
        message = (
            f"a batch of mode {mode} reaches `{shown}` without passing the relay, so "
            f"`{relay.state}` was never set for it (made in `{short_name(origin.function)}`, "
            f"consumed in `{short_name(consumer)}`); guard the consumer with a mode check, or with "
            f"a None check that builds a placeholder or raises"
        )
        related = (
            Related(
                location(self.model, origin.function, origin.span),
                f"the batch gets mode {mode} here",
            ),
            Related(
                location(self.model, relay.function, relay.store_span),
                f"`{relay.state}` is set only on the relay",
            ),
            Related(
                location(self.model, entry, self.model.functions[entry].span),
                f"decode entry point `{short_name(entry)}`",
            ),
        )
        return Finding(
            "PDL102",
            message,
            location(self.model, consumer, span),
            related=related,
            path=tuple(steps),
            member=origin.variant.members[origin.member],
            key=("PDL102", entry, mode, origin.function, consumer, shown),
            summary=f"mode {mode} skips the relay and reaches `{shown}`",
        )

    # PDL103 -------------------------------------------------------------------
    def _masked(
        self, relay: Relay, placeholder: Placeholder, entries: list[str], batch_cls: str | None
    ) -> Iterator[Finding]:
        """Members the builder skips whose non-idle batches reach the placeholder."""
        builder = relay.builder
        variant = builder.variant
        fn = self.model.functions[placeholder.function]
        if not self.relay.same_class(fn, placeholder.target[1], batch_cls):
            return
        if not self._non_idle_reaches(fn, placeholder.guards, batch_cls):
            return
        rejected = self.relay.rejected(variant)
        for member, none_span in zip(builder.gaps, builder.none_spans, strict=True):
            if member in rejected:
                continue
            truth = self.variants.guards_truth(placeholder.guards, fn, variant, member)
            if truth not in (T, MAYBE):
                continue
            parents = self.relay.member_reach(relay, variant, member)
            if placeholder.function not in parents:
                continue
            if (placeholder.function, placeholder.span) in self.relay.noted.get(
                (relay, member), ()
            ):
                continue  # a PDL101 crashes first on every path: a note of that finding
            parents = self.relay.trees(relay, member).choose(
                parents, placeholder.function, placeholder.guards, placeholder.span
            )
            yield self._masked_finding(relay, placeholder, member, none_span, parents)

    def _non_idle_reaches(self, fn: FunctionFacts, guards: Guards, batch_cls: str | None) -> bool:
        """Some non-bypass mode can run code under ``guards`` (no mode known: yes)."""
        modes = [
            v
            for attr in self.mode_attrs()
            if (v := self._mode_variant(fn, attr, None, batch_cls)) is not None
        ]
        for variant in modes:
            for member in range(len(variant.members)):
                if self.is_bypass(variant, member):
                    continue
                if self.variants.guards_truth(guards, fn, variant, member) in (T, MAYBE):
                    return True
            return False
        return True

    def _masked_finding(
        self,
        relay: Relay,
        placeholder: Placeholder,
        member: int,
        none_span: Span,
        parents: dict[str, tuple[str, CallFact] | None],
    ) -> Finding:
        builder = relay.builder
        name = builder.variant.members[member]
        shown = text(placeholder.target, brief=True)
        chain = call_chain(parents, placeholder.function)
        steps = self._steps(chain)
        steps.append(
            Step(
                location(self.model, placeholder.function, placeholder.span),
                placeholder.function,
                f"installs `{placeholder.factory}(...)` when `{relay.state}` is None",
            )
        )
        entry = chain[0][0]
        message = (
            f"`{placeholder.factory}(...)` fills `{shown}` with an idle "
            f"placeholder, but a batch of real requests with {name} also reaches this None "
            f"check: {builder.gap(self.model, relay.state, name)}, so the placeholder hides the "
            f"missing state; build `{relay.state}` for {name} or raise for {name}"
        )
        related = relay_related(self.model, relay, member, none_span, entry)
        return Finding(
            "PDL103",
            message,
            location(self.model, placeholder.function, placeholder.span),
            related=related,
            path=tuple(steps),
            member=name,
            key=("PDL103", entry, name, placeholder.function, relay.state),
            summary=f"idle placeholder hides `{shown}` missing for {name}",
        )


def _chain_sites(
    parents: dict[str, tuple[str, CallFact] | None], node: str
) -> list[tuple[str, CallFact]]:
    """(caller, call site) pairs from the root of ``parents`` down to ``node``."""
    chain = call_chain(parents, node)
    out = []
    for (caller, _), (_, site) in zip(chain, chain[1:], strict=False):
        assert site is not None
        out.append((caller, site))
    return out


NONE: Expr = ("const", None)
SELF: Expr = ("name", "self")


def _every_return_after(fn: FunctionFacts, local: Expr, store: StoreFact) -> bool:
    """``fn`` hands out the object ``local`` only after ``store`` ran: it returns it, and
    each such return comes after the store under its conditions (``if not reqs:
    return None`` before ``batch.sampling = ...; return batch``)."""
    returns = [r for r in fn.returns if r.value == local]
    return (
        local[0] == "name"
        and bool(returns)
        and all(store.span < r.span and all(g in r.guards for g in store.guards) for r in returns)
    )


def _excluded(fn: FunctionFacts, before: Guards, after: Span, guards: Guards, at: Span) -> bool:
    """Code under ``guards`` at ``at`` does not run after code under ``before`` at
    ``after`` in one pass: a test taken one way there and the other way here (``if
    is_prefill: ...; return`` and the code after it), none of its names rebound in
    between."""
    for test, polarity in before:
        if (test, not polarity) not in guards:
            continue
        names = {n[1] for n in nodes(test) if n[0] == "name"}
        if not any(names.intersection(b.names) and after < b.span < at for b in fn.binds):
            return True
    return False


def _default_none(value: Expr) -> bool:
    """``field(default=None)``."""
    return (
        value[0] == "call"
        and value[1] in (("name", "field"), ("attr", ("name", "dataclasses"), "field"))
        and ("default", NONE) in value[3]
    )


def _on_self(origin: Origin, fn: FunctionFacts) -> bool:
    """The origin sets the mode of the method's own object (``self.mode = IDLE``)."""
    return fn.cls is not None and any(
        s.span == origin.span and s.target[1] == ("name", "self") for s in fn.stores
    )


def _returns_value(fn: FunctionFacts) -> bool:
    """``fn`` hands a value back to its caller (the batch it made, maybe), or yields one
    to the loop iterating it."""
    return bool(fn.yields) or any(r.value is not None and r.value[0] != "const" for r in fn.returns)


def _encloses(outer: Span, inner: Span) -> bool:
    """Whether the code at ``outer`` holds the code at ``inner`` (another span):
    ``run(Batch(mode=Mode.IDLE))`` holds the batch's construction."""
    return outer != inner and outer[:2] <= inner[:2] and outer[2:] >= inner[2:]
