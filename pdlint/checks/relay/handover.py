"""Relay state that reaches the other entry points of its connector.

vLLM v1 splits a KV connector in two: its scheduler side (``get_num_new_matched_tokens``,
``update_state_after_alloc``, ``build_connector_meta``) stores per-request state, and
its worker side (``start_load_kv``) reads it after the scheduler shipped it in the
metadata ``build_connector_meta`` returns. Each method is an entry point of its own, so
a consumer on the worker side is reached from no entry point that reaches the relay.

The state goes from one side to the other when the object holding it outlives the
relay's call (see :func:`kept`), and a carrier's field handed the state, or the
container of its entries (``ConnectorMetadata(dict(self._reqs_need_recv))``), holds
it under the field's name (see :func:`handed_on`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from pdlint.checks.relay.relays import Relay
from pdlint.facts.indexer import entry_name
from pdlint.facts.types import Expr, FunctionFacts, Span
from pdlint.model.binding import bind_arguments
from pdlint.model.callgraph import CallGraph
from pdlint.model.entries import CONNECTOR_INTERFACE
from pdlint.model.names import Model

# ``self.pending.append(request)``: what keeps an object in a container
_ADDERS = frozenset({"append", "appendleft", "add", "insert", "put", "put_nowait"})
# ``dict(self.pending)``, ``list(...)``: a copy of a container holds its entries
_COPIES = frozenset({"dict", "list", "tuple", "set", "frozenset"})
# a carrier handed on from a carrier at most this many times
_HOPS = 3
# callers climbed to find where a parameter holding the state is kept
_CALLERS = 3

SameClass = Callable[[FunctionFacts, Expr, str | None], bool]


def connector_classes(model: Model, functions: Iterable[str]) -> frozenset[str]:
    """The classes of the connector interface's methods among ``functions`` (what an
    entry point reaches): the connectors the entry point works on."""
    out = set()
    for qual in functions:
        fn = model.functions.get(qual)
        if fn is not None and fn.cls is not None and fn.name in CONNECTOR_INTERFACE:
            out.add(fn.cls)
    return frozenset(out)


def kept(fn: FunctionFacts, holder: Expr) -> bool:
    """Whether the object ``holder`` of ``fn`` outlives the call: ``self`` itself, an
    object ``fn`` stores into an attribute (or an entry of a container attribute) of
    ``self``, adds to a container attribute of ``self``, or returns. A new object
    (``Carrier(...)``) is also held by the local its result is assigned to."""
    if holder == ("name", "self"):
        return True
    held = {holder}
    if holder[0] == "call":
        held.update(
            ("name", call.target)
            for call in fn.calls
            if call.target is not None and ("call", call.func, call.args, call.kwargs) == holder
        )
    if any(ret.value in held for ret in fn.returns):
        return True
    if any(store.value in held and _on_self(store.target) for store in fn.stores):
        return True
    return any(
        call.func[0] == "attr"
        and call.func[2] in _ADDERS
        and _on_self(call.func[1])
        and any(arg in held for arg in call.args)
        for call in fn.calls
    )


def outlives(model: Model, graph: CallGraph, qual: str, holder: Expr, depth: int = 0) -> bool:
    """:func:`kept` in ``qual``, or, for a parameter, in a caller that passes what it
    holds (a helper storing the state on the request its caller keeps), a few calls up."""
    fn = model.functions[qual]
    if kept(fn, holder):
        return True
    if depth >= _CALLERS or holder[0] != "name" or all(p != holder[1] for p, _ in fn.params):
        return False
    for caller in graph.callers(qual):
        for site in graph.sites(caller, qual):
            bound = bind_arguments(fn, site.func, site.args, site.kwargs, bind_receiver=True)
            passed = [arg for param, arg in bound if param == holder[1]]
            if passed and outlives(model, graph, caller, passed[0], depth + 1):
                return True
    return False


def _on_self(expr: Expr) -> bool:
    """``expr`` is an attribute of ``self`` (``self.x``, ``self.x.y``)."""
    while expr[0] == "attr":
        expr = expr[1]
    return expr == ("name", "self")


def handed_on(
    model: Model,
    relays: list[Relay],
    functions: Iterable[str],
    same_class: SameClass,
    fields: Callable[[FunctionFacts], list[tuple[str, Expr, Span, Expr]]],
) -> list[Relay]:
    """The relays that hand a relay's state on in a carrier's field, in ``functions``:
    a field given the state (``Meta(plan=self.plan)``), or the container of its entries
    or a copy of it (``Meta(dict(self.pending))``, ``meta.pending = self.pending``),
    read on an object of the relay's class. The field holds the state under its own
    name (``plan``, or ``pending[...]`` for the entries); carriers handed on again are
    followed a few times. ``fields`` gives a function's arguments to the fields of new
    objects (field, argument, span, object)."""
    out: list[Relay] = []
    seen = {(r.state, r.function, r.store_span) for r in relays}
    sources = [r for r in relays if not r.carried]
    order = sorted(functions)
    for _ in range(_HOPS):
        found = []
        for relay in sources:
            holder_cls = model.type_of(model.functions[relay.function], relay.target[1])
            for qual in order:
                fn = model.functions[qual]
                for field, value, span, obj in _field_values(fn, fields):
                    state = _handed_state(fn, value, relay.state, holder_cls, same_class)
                    if state is None:
                        continue
                    name = entry_name(field) if state.endswith("[...]") else field
                    if (name, qual, span) in seen:
                        continue
                    seen.add((name, qual, span))
                    into = ("attr", obj, name)
                    found.append(Relay(name, relay.builder, qual, span, into, origin=relay))
        out.extend(found)
        sources = found
        if not found:
            break
    return out


def _field_values(
    fn: FunctionFacts, fields: Callable[[FunctionFacts], list[tuple[str, Expr, Span, Expr]]]
) -> Iterator[tuple[str, Expr, Span, Expr]]:
    """(field, value, span, object) for each field of an object ``fn`` gives a value:
    a new object's (see ``fields``) or a store into an attribute of a local."""
    yield from fields(fn)
    for store in fn.stores:
        target = store.target
        if target[0] == "attr" and target[1][0] == "name" and target[1] != ("name", "self"):
            yield target[2], store.value, store.span, target[1]


def _handed_state(
    fn: FunctionFacts,
    value: Expr,
    state: str,
    holder_cls: str | None,
    same_class: SameClass,
) -> str | None:
    """``state`` when ``value`` is the relay state (``x.plan``) or, for the entries of
    a keyed container, that container (``x.pending``) or a copy of it, on an object
    ``x`` of the relay's class; None otherwise."""
    value = _uncopied(value)
    if value[0] != "attr":
        return None
    name = entry_name(value[2]) if state.endswith("[...]") else value[2]
    if name != state or not same_class(fn, value[1], holder_cls):
        return None
    return state


def _uncopied(value: Expr) -> Expr:
    """The container a copy is made of (``dict(x)``, ``x.copy()``, ``copy.copy(x)``)."""
    if value[0] != "call":
        return value
    func, args = value[1], value[2]
    if func[0] == "name" and func[1] in _COPIES and len(args) == 1:
        return args[0]
    if func[0] == "attr" and func[2] == "copy" and not args:
        return func[1]
    if func[0] == "attr" and func[1] == ("name", "copy") and len(args) == 1:
        return args[0]
    return value
