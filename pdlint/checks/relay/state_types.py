"""State types: the classes a builder makes for a member, and what a consumer demands
of the relay state's class (PDL105's search).

A consumer demands a class with ``assert isinstance(state, C)``, with ``if not
isinstance(state, C): raise`` (or a disjunct of the raise's condition), or by calling
a method that only a subclass of the built class defines. The state is read as
``X.<state>`` or through a local bound to it once before the demand. A demand fails
for a member when no class the builder makes for it satisfies it; a class that is
not fully known (a base pdlint cannot resolve, a value of unknown class) never fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import NamedTuple

from pdlint.checks.relay.decode_tests import flatten
from pdlint.facts.exprs import text
from pdlint.facts.types import Expr, FunctionFacts, Guards, Span
from pdlint.model.names import Model

DEPTH = 4  # calls a builder's value is followed through
# bases every class has, or that add no methods a consumer could call
_PLAIN_BASES = frozenset(
    {"object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing_extensions.Protocol"}
)


class TypeDemand(NamedTuple):
    """What a consumer requires of the class of the relay state it reads as ``obj``."""

    obj: Expr  # the state expression (``batch.spec_info``)
    shown: str  # the demand as the message shows it
    span: Span  # the assert, raise or call
    guards: Guards  # the conditions the demand runs under
    classes: tuple[str, ...]  # accepted classes (isinstance); () for a method
    method: str  # the method called, for a method demand ("" otherwise)


# what a callee written in the builder is for one member: the classes and functions
# its table gives the member (``cls = DECODERS.get(fmt)`` then ``cls(fmt)``); None
# when it is not such a lookup
Narrowing = Callable[[FunctionFacts, Expr], tuple[str, ...] | None]


def made_classes(
    model: Model,
    fn: FunctionFacts,
    expr: Expr,
    depth: int = 0,
    narrow: Narrowing | None = None,
) -> frozenset[str]:
    """The classes of the objects ``expr`` in ``fn`` makes: a constructor's class, and
    through a call of a project function what its returns make (not its declared
    return type, which may name a base of what it makes); a local's assigned values;
    other expressions as the model types them. Empty when any part is unknown.
    ``narrow`` gives the callees a call in ``fn`` reaches for one member."""
    kind = expr[0]
    if depth > DEPTH:
        return frozenset()
    if kind == "ifexp":
        left = made_classes(model, fn, expr[2], depth + 1, narrow)
        right = made_classes(model, fn, expr[3], depth + 1, narrow)
        return left | right if left and right else frozenset()
    if kind == "name" and not any(p == expr[1] for p, _ in fn.params):
        values = [v for local, v in fn.assigns if local == expr[1] and v != expr]
        found = [made_classes(model, fn, v, depth + 1, narrow) for v in values]
        if found and all(found):
            return frozenset(c for f in found for c in f)
        return frozenset()
    narrowed = narrow(fn, expr[1]) if narrow is not None and kind == "call" else None
    if narrowed is not None:
        return _made_by(model, narrowed, depth)
    if kind == "call" and expr[1][0] in ("name", "attr"):
        module = model.module_of(fn)
        named = model.resolve_dotted(fn, module, expr[1])
        if named is None or named not in model.classes:
            targets = model.call_targets(fn, expr[1])
            if targets and all(not t.endswith(".__init__") for t in targets):
                return _made_by(model, targets, depth)
    return model.types_of(fn, expr)


def _made_by(model: Model, callees: tuple[str, ...], depth: int) -> frozenset[str]:
    """The classes a call of any of ``callees`` (classes or functions) makes."""
    out: set[str] = set()
    for callee in callees:
        if callee in model.classes:
            out.add(callee)
            continue
        facts = model.functions.get(callee)
        if facts is None:
            return frozenset()
        found = [
            made_classes(model, facts, r.value, depth + 1)
            for r in facts.returns
            if r.value is not None and r.value != ("const", None)
        ]
        if not found or not all(found):
            return frozenset()
        out.update(c for f in found for c in f)
    return frozenset(out)


def fully_known(model: Model, cls: str) -> bool:
    """Every class in the MRO of ``cls`` is analysed, with every base resolved to one."""
    for klass in model.mro(cls):
        if klass in _PLAIN_BASES:
            continue
        facts = model.classes.get(klass)
        if facts is None:
            return False
        bases = [b for b in model.bases(klass) if b not in _PLAIN_BASES]
        if len(model.bases(klass)) != len(facts.bases) or any(
            b not in model.classes for b in bases
        ):
            return False
    return True


def defines(model: Model, cls: str, name: str) -> bool:
    """Whether an object of ``cls`` has ``name``: a method, a class-level assignment or
    annotation, or an attribute its methods store, anywhere in its MRO."""
    if model.lookup_method(cls, name) is not None:
        return True
    for klass in model.mro(cls):
        facts = model.classes.get(klass)
        if facts is not None and (
            any(n == name for n, _, _ in facts.assigns)
            or any(n == name for n, _ in facts.annotations)
        ):
            return True
        if name in model.attribute_types(klass):
            return True
    return False


def fails(
    model: Model,
    demand: TypeDemand,
    made: frozenset[str],
    others: frozenset[str] = frozenset(),
) -> bool:
    """Whether every class the builder makes (all fully known) fails the demand.
    ``others``: the classes the builder makes for the other members."""
    if not made or not all(fully_known(model, c) for c in made):
        return False
    if demand.classes:
        return all(not any(c in model.mro(b) for c in demand.classes) for b in made)
    # a method only a subclass defines: of the built class, or a class the builder
    # makes for another member (``TensorDecoder.split_layers`` called on what is a
    # ``BinaryDecoder`` for this one)
    for built in made:
        if defines(model, built, demand.method) or defines(model, built, "__getattr__"):
            return False
        if not any(
            model.lookup_method(sub, demand.method) for sub in model.descendants(built)
        ) and not any(model.lookup_method(other, demand.method) for other in others - made):
            return False
    return True


class StateReads:
    """Where a function reads the relay state (any of ``names``), directly or through a
    local bound to it once, or as one of ``params`` (parameters its caller passes the
    state to, never bound again in the function)."""

    def __init__(
        self, fn: FunctionFacts, names: frozenset[str], params: frozenset[str] = frozenset()
    ) -> None:
        self.fn = fn
        self.names = names
        self.params = frozenset(p for p in params if not any(p in b.names for b in fn.binds))

    def aliases(self) -> frozenset[str]:
        """The locals bound to the state somewhere in the function."""
        return frozenset(
            b.names[0]
            for b in self.fn.binds
            if len(b.names) == 1 and b.value[0] == "attr" and b.value[2] in self.names
        )

    def state(self, expr: Expr, at: Span, guards: Guards) -> Expr | None:
        """The state expression ``expr`` holds at ``at`` (under ``guards``), if it
        holds the state: read there, or through a local bound once before, on every
        path to ``at``."""
        if expr[0] == "attr" and expr[2] in self.names:
            return expr
        if expr[0] != "name":
            return None
        if expr[1] in self.params:
            return expr
        binds = [
            b
            for b in self.fn.binds
            if expr[1] in b.names and b.span < at and not _exclusive(b.guards, guards)
        ]
        if len(binds) != 1 or binds[0].names != (expr[1],):
            return None
        if not all(g in guards for g in binds[0].guards):
            return None
        if any(p == expr[1] for p, _ in self.fn.params):
            return None
        value = binds[0].value
        return value if value[0] == "attr" and value[2] in self.names else None


def _exclusive(one: Guards, other: Guards) -> bool:
    """Code under ``one`` and code under ``other`` never run on one path (a condition
    holds for one and fails for the other: ``if extend: ...; return`` and what
    follows)."""
    return any((expr, not polarity) in other for expr, polarity in one)


def _isinstance(
    reads: StateReads, expr: Expr, at: Span, guards: Guards
) -> tuple[Expr, Expr] | None:
    """(state expression, class expression) of ``isinstance(<state>, C)``."""
    if expr[0] != "call" or expr[1] != ("name", "isinstance") or len(expr[2]) != 2:
        return None
    state = reads.state(expr[2][0], at, guards)
    return None if state is None else (state, expr[2][1])


def _accepted(model: Model, fn: FunctionFacts, expr: Expr) -> tuple[str, ...]:
    """The classes an isinstance's second argument names; () if any is not a class."""
    parts = expr[1] if expr[0] == "seq" else (expr,)
    module = model.module_of(fn)
    out = []
    for part in parts:
        if part[0] not in ("name", "attr"):
            return ()
        named = model.resolve_dotted(fn, module, part)
        if named is None or named not in model.classes:
            return ()
        out.append(named)
    return tuple(out)


def _demanded(expr: Expr, polarity: bool) -> Iterator[Expr]:
    """The ``isinstance`` calls whose failure makes a guard ``(expr, polarity)`` hold."""
    if expr[0] == "not":
        yield from _demanded(expr[1], not polarity)
    elif expr[0] == "call" and not polarity:
        yield expr
    elif expr[0] == "or" and polarity:
        for part in expr[1]:
            yield from _demanded(part, True)
    elif expr[0] == "and" and not polarity:
        for part in expr[1]:
            yield from _demanded(part, False)


def type_demands(
    model: Model, fn: FunctionFacts, names: frozenset[str], params: frozenset[str] = frozenset()
) -> Iterator[TypeDemand]:
    """The demands ``fn`` makes of the class of the relay state, in source order (of the
    state its caller passes to ``params`` too: their ``obj`` is the parameter)."""
    reads = StateReads(fn, names, params)
    out: list[TypeDemand] = []
    for test, span, guards in fn.asserts:
        for part in test[1] if test[0] == "and" else (test,):
            found = _isinstance(reads, part, span, guards)
            if found is not None:
                classes = _accepted(model, fn, found[1])
                if classes:
                    shown = f"assert {_shown(part)}"
                    out.append(TypeDemand(found[0], shown, span, guards, classes, ""))
    for span, guards in fn.raises:
        flat = flatten(guards)
        for at, (expr, polarity) in enumerate(flat):
            hit = next(
                (
                    (call, found)
                    for call in _demanded(expr, polarity)
                    if (found := _isinstance(reads, call, span, guards)) is not None
                ),
                None,
            )
            if hit is None:
                continue
            classes = _accepted(model, fn, hit[1][1])
            if classes:
                rest = flat[:at] + flat[at + 1 :]
                shown = f"raise unless {_shown(hit[0])}"
                out.append(TypeDemand(hit[1][0], shown, span, rest, classes, ""))
            break
    for call in fn.calls:
        func = call.func
        if func[0] != "attr":
            continue
        state = reads.state(func[1], call.span, call.guards)
        if state is not None:
            shown = f"{_shown(func)}()"
            out.append(TypeDemand(state, shown, call.span, call.guards, (), func[2]))
    yield from sorted(out, key=lambda d: d.span)


def _shown(expr: Expr) -> str:
    # an isinstance with its arguments; a method by its receiver's names
    return text(expr, brief=expr[0] != "call")
