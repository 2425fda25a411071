"""PDL106 unwired-builder: a per-variant builder of the relay state that the relay does
not call for a member it covers.

Two shapes. The relay calls the builder only under a test of the variant that never
holds for some members the builder makes a state for (``if algo.is_tree():
info = algo.build_draft(...)`` while ``build_draft`` also builds CHAIN's). Or the
builder dispatches to per-member builders named for their member
(``build_tree_draft`` for TREE), and one named the same way for a member it returns
None for exists (``build_lookup_draft``) but nothing on the relay calls it. Either
way requests of those members arrive on decode with no state, though the code to
build it is there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pdlint.checks.relay.relays import Relay
from pdlint.checks.relay.state_types import made_classes
from pdlint.facts.exprs import text
from pdlint.facts.types import CallFact, FunctionFacts
from pdlint.findings import Finding, Related, Step, listed
from pdlint.model.locations import location
from pdlint.model.names import Model
from pdlint.model.variants import F, Variant, Variants

Outcome = Callable[[FunctionFacts, Variant, int, frozenset[str]], "tuple[str, object] | None"]


def _tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in name.lower().split("_") if t)


def renamed(name: str, old: tuple[str, ...], new: tuple[str, ...]) -> str | None:
    """``name`` (snake case) with the tokens ``old``, found once in a row, replaced by
    ``new``; None when they are not there once."""
    if name != name.lower():
        return None
    parts = name.split("_")
    found = [i for i in range(len(parts) - len(old) + 1) if tuple(parts[i : i + len(old)]) == old]
    if len(found) != 1:
        return None
    at = found[0]
    return "_".join([*parts[:at], *new, *parts[at + len(old) :]])


def _bases(model: Model, classes: frozenset[str]) -> set[str]:
    """The analysed classes every one of ``classes`` is or derives from."""
    common: set[str] | None = None
    for cls in classes:
        mro = {c for c in model.mro(cls) if c in model.classes}
        common = mro if common is None else common & mro
    return common or set()


def _declared_family(model: Model, fn: FunctionFacts, classes: frozenset[str]) -> bool:
    """Whether ``fn`` declares the type it returns (``-> Optional[DraftState]``) and each
    of ``classes`` is of it: derives from it, or, for a ``typing.Protocol``, defines every
    method the protocol declares (the classes share no base then)."""
    module = model.module_of(fn)
    for declared in model.annotation_classes(fn.returns_annotation, module, fn):
        wanted = {m.name for m in model.methods_of.get(declared, ()) if not m.name.startswith("__")}
        protocol = any(b.rsplit(".", 1)[-1] == "Protocol" for b in model.bases(declared))
        if all(
            declared in model.mro(cls)
            or (
                protocol
                and wanted
                and all(model.lookup_method(cls, name) is not None for name in wanted)
            )
            for cls in classes
        ):
            return True
    return False


class UnwiredBuilders:
    """PDL106 for the relays of one analysis."""

    def __init__(
        self,
        model: Model,
        variants: Variants,
        outcome: Outcome,
        reach: Callable[[str], set[str]],
        path: Callable[[Relay], list[Step]],
    ) -> None:
        self.model = model
        self.variants = variants
        self.outcome = outcome  # RelayAnalysis._outcome
        self.reach = reach  # what a function's calls reach (every edge)
        self.path = path  # the steps from a decode entry point to the relay's function

    def findings(self, relay: Relay, rejected: set[int], relays: list[Relay]) -> Iterator[Finding]:
        builder = relay.builder
        if builder.inline:
            return
        yield from self._guarded(relay, rejected, relays)
        yield from self._siblings(relay, rejected)

    def _covered(self, relay: Relay) -> list[int]:
        builder = relay.builder
        fn = self.model.functions[builder.qualname]
        return [
            m
            for m in range(len(builder.variant.members))
            if (found := self.outcome(fn, builder.variant, m, builder.bound)) is not None
            and found[0] == "value"
        ]

    def _sites(self, relay: Relay) -> list[CallFact]:
        fn = self.model.functions[relay.function]
        return [
            c for c in fn.calls if relay.builder.qualname in self.model.call_targets(fn, c.func)
        ]

    def skipped(
        self, relay: Relay, rejected: set[int], relays: list[Relay]
    ) -> tuple[list[int], CallFact, str] | None:
        """The members the builder covers that the relay never calls it for (its calls
        are under tests that never hold for them), the first call and its tests as
        text; None when there are none."""
        if relay.builder.inline or relay.origin is not None:
            return None
        model, variants = self.model, self.variants
        builder, variant = relay.builder, relay.builder.variant
        relay_fn = model.functions[relay.function]
        sites = self._sites(relay)
        if not sites:
            return None
        others = [
            r
            for r in relays
            if r.function == relay.function and r.state == relay.state and r.builder != builder
        ]
        left = []
        for member in self._covered(relay):
            if member in rejected:
                continue
            if all(variants.guards_truth(s.guards, relay_fn, variant, member) is F for s in sites):
                if not any(self._wired(other, member) for other in others):
                    left.append(member)
        if not left:
            return None
        site = sites[0]
        tests = [
            text(expr) if polarity else f"not ({text(expr)})" for expr, polarity in site.guards
        ]
        return left, site, " and ".join(f"`{t}`" for t in tests)

    def _guarded(self, relay: Relay, rejected: set[int], relays: list[Relay]) -> Iterator[Finding]:
        """The relay calls the builder under tests that never hold for members it covers."""
        found = self.skipped(relay, rejected, relays)
        if found is None:
            return
        model = self.model
        builder, variant = relay.builder, relay.builder.variant
        relay_fn = model.functions[relay.function]
        left, site, shown = found
        names = [variant.members[m] for m in left]
        fn = model.functions[builder.qualname]
        them = "them" if len(names) > 1 else "it"
        listed_names = ", ".join(names)
        message = (
            f"`{fn.name}` builds `{relay.state}` for {listed_names}, but the relay "
            f"`{relay_fn.name}` calls it only under {shown}, which never holds for {them}: "
            f"requests of {listed_names} arrive on decode with no `{relay.state}`; call it "
            f"for {listed_names} too, or reject {listed_names} in decode mode in a startup "
            f"validator"
        )
        steps = [
            *self.path(relay),
            Step(
                location(model, relay.function, site.span),
                relay.function,
                f"calls `{fn.name}` only under {shown}",
            ),
            Step(
                location(model, builder.qualname, fn.span),
                builder.qualname,
                f"builds `{relay.state}` for {listed_names}, not called for {them}",
            ),
        ]
        yield Finding(
            "PDL106",
            message,
            location(model, builder.qualname, fn.span),
            path=tuple(steps),
            related=(
                Related(
                    location(model, relay.function, site.span),
                    f"the relay calls `{fn.name}` only here",
                ),
                Related(
                    location(model, relay.function, relay.store_span),
                    f"relay stores `{relay.state}`",
                ),
            ),
            member=",".join(names),
            key=("PDL106", builder.qualname, relay.function, relay.state, ",".join(names)),
            summary=f"the relay never calls `{fn.name}` for {listed(names)}",
        )

    def _wired(self, relay: Relay, member: int) -> bool:
        """The relay calls its builder for the member, and the builder covers it."""
        relay_fn = self.model.functions[relay.function]
        variant = relay.builder.variant
        return member in self._covered(relay) and any(
            self.variants.guards_truth(s.guards, relay_fn, variant, member) is not F
            for s in self._sites(relay)
        )

    def _table_templates(self, relay: Relay) -> list[tuple[str, tuple[str, ...], frozenset[str]]]:
        """(per-member builder, the member's tokens in its name, the classes it makes) for
        the entries of a table keyed by members that the builder calls the member's entry
        of (``TABLE[algo](h)``, ``TABLE.get(algo, default)(h)``, a registry filled by a
        decorator), each named for the member it is registered under."""
        model, variants = self.model, self.variants
        builder, variant = relay.builder, relay.builder.variant
        fn = model.functions[builder.qualname]
        out: list[tuple[str, tuple[str, ...], frozenset[str]]] = []
        for ret in fn.returns:
            func = ret.value[1] if ret.value is not None and ret.value[0] == "call" else None
            if func is not None and func[0] == "call" and func[1][0] == "attr" and func[2]:
                key, container = func[2][0], func[1][1]
            elif func is not None and func[0] == "subscript":
                key, container = func[2], func[1]
            else:
                continue
            if not variants.denotes(key, fn, variant, builder.bound):
                continue
            for member, name in enumerate(variant.members):
                if member in builder.gaps:
                    continue
                tokens = _tokens(name)
                for scope, where, value in variants.entry_for(container, fn, variant, member) or ():
                    for target in model.callables_of(scope, value, 0, where):
                        callee = model.functions.get(target)
                        if callee is None or renamed(callee.name, tokens, tokens) is None:
                            continue
                        made = frozenset(
                            c
                            for r in callee.returns
                            if r.value
                            for c in made_classes(model, callee, r.value)
                        )
                        if made:
                            out.append((target, tokens, made))
        return out

    def _siblings(self, relay: Relay, rejected: set[int]) -> Iterator[Finding]:
        """Builders named for a member the builder returns None for, as those it calls
        for its other members are, that nothing on the relay calls."""
        model, variants = self.model, self.variants
        builder, variant = relay.builder, relay.builder.variant
        fn = model.functions[builder.qualname]
        # (per-member builder the dispatcher calls, the member's tokens in its name,
        # the classes it makes)
        templates: list[tuple[str, tuple[str, ...], frozenset[str]]] = []
        for call in fn.calls:
            for target in model.call_targets(fn, call.func):
                callee = model.functions[target]
                made = frozenset(
                    c
                    for r in callee.returns
                    if r.value
                    for c in made_classes(model, callee, r.value)
                )
                if not made:
                    continue
                for member, name in enumerate(variant.members):
                    tokens = _tokens(name)
                    if renamed(callee.name, tokens, tokens) is None:
                        continue
                    truth = variants.guards_truth(call.guards, fn, variant, member, builder.bound)
                    if truth is not F:
                        templates.append((target, tokens, made))
        templates.extend(self._table_templates(relay))
        if not templates:
            return
        wanted: dict[str, list[tuple[int, str, frozenset[str]]]] = {}
        for member in builder.gaps:
            if member in rejected:
                continue
            for target, tokens, made in templates:
                new = _tokens(variant.members[member])
                sibling = renamed(model.functions[target].name, tokens, new)
                if sibling is not None:
                    wanted.setdefault(sibling, []).append((member, target, made))
        if not wanted:
            return
        model.load_text(any_of=sorted(wanted))
        reached = self.reach(relay.function) | self.reach(builder.qualname)
        found: dict[str, list[int]] = {}
        for qual, candidate in sorted(model.functions.items()):
            for member, template, made in wanted.get(candidate.name, ()):
                if qual in reached or qual == template:
                    continue
                makes = frozenset(
                    c
                    for r in candidate.returns
                    if r.value
                    for c in made_classes(model, candidate, r.value)
                )
                if makes and (
                    _bases(model, made) & _bases(model, makes)
                    or _declared_family(model, fn, made | makes)
                ):
                    if member not in found.setdefault(qual, []):
                        found[qual].append(member)
        for qual, members in found.items():
            candidate = model.functions[qual]
            names = [variant.members[m] for m in sorted(members)]
            none_span = builder.none_spans[builder.gaps.index(sorted(members)[0])]
            message = (
                f"`{candidate.name}` builds `{relay.state}` for {', '.join(names)}, but nothing "
                f"on the relay calls it: `{fn.name}` returns None for {', '.join(names)}, so "
                f"requests of {', '.join(names)} arrive on decode with no `{relay.state}`; call "
                f"`{candidate.name}` from `{fn.name}` for {', '.join(names)}"
            )
            steps = [
                *self.path(relay),
                *(
                    Step(
                        location(model, relay.function, site.span),
                        relay.function,
                        f"calls `{fn.name}`",
                    )
                    for site in self._sites(relay)[:1]
                ),
                Step(
                    location(model, builder.qualname, none_span),
                    builder.qualname,
                    f"returns None for {', '.join(names)}",
                ),
                Step(
                    location(model, qual, candidate.span),
                    qual,
                    f"`{candidate.name}` would build it: nothing on the relay calls it",
                ),
            ]
            yield Finding(
                "PDL106",
                message,
                location(model, qual, candidate.span),
                path=tuple(steps),
                related=(
                    Related(
                        location(model, builder.qualname, none_span),
                        f"`{fn.name}` returns None for {', '.join(names)}",
                    ),
                    Related(
                        location(model, relay.function, relay.store_span),
                        f"relay stores `{relay.state}`",
                    ),
                ),
                member=",".join(names),
                key=("PDL106", qual, relay.function, relay.state, ",".join(names)),
                summary=f"nothing on the relay calls `{candidate.name}` for {listed(names)}",
            )
