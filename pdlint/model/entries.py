"""Decode entry points found with no pack: by name and by interface.

By name: a qualified name with both ``disagg`` and ``decode`` (or the word ``gen`` or
``generation``, the decode role's name in some engines). By interface: the
receiving side's methods of a KV-transfer connector, the public methods of a class
named for the decode role's process (``DecodeWorker``, ``DecodePodServer``), a scheduler that moves
requests out of a waiting-for-remote-KV state, a handler that branches on a decode
disaggregation mode or reads the prefill result from the request, and the idle or
dummy runs. Test code is never an entry point.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pdlint.facts.exprs import identifiers, nodes, text
from pdlint.facts.types import Expr, FunctionFacts, Guards
from pdlint.model.names import Model, is_property

# The methods a KV connector's receiving (decode) side implements; a class with two
# of them (or one and a worker-side method below), itself or by inheritance, is a
# connector, and each is an entry point.
CONNECTOR_METHODS = (
    "start_load_kv",
    "get_num_new_matched_tokens",
    "update_state_after_alloc",
    "register_kv_caches",
)
# ``execute_dummy_batch``, ``_dummy_run``, ``run_idle_batch``, ``dummy_run_async``...
_IDLE_RUN = re.compile(r"_*(?:(?:execute|run)_)?(?:dummy|idle)_(?:run|batch)(?:_async)?")
# The other worker-side methods of vLLM v1's ``KVConnectorBase_V1`` (waiting for a
# layer's load, saving): evidence that a class is a connector, never entry points
# themselves (saving is the sending side's work)
_WORKER_SIDE_METHODS = ("wait_for_layer_load", "save_kv_layer", "wait_for_save")
# The scheduler side's method shipping per-request state to the worker side in the
# connector's metadata: an entry point of a connector (no evidence that a class is one)
SHIPPING_METHODS = ("build_connector_meta",)
# Every method of a connector's interface: the scheduler side's and the worker side's
# methods of one connector are called on one request in turn (the scheduler side's
# state reaches the worker side in the metadata it builds)
CONNECTOR_INTERFACE = frozenset(
    (*CONNECTOR_METHODS, *SHIPPING_METHODS, *_WORKER_SIDE_METHODS, "bind_connector_metadata")
)
# A state a request waits in for its KV from the prefill side (``WAITING_FOR_REMOTE_KVS``).
_WAITING_REMOTE = re.compile(r"waiting_?for_?remote", re.IGNORECASE)
# Text of a file that may hold a branch on the decode disaggregation mode, or that
# waits for remote KV, for a lazy model to load (see ``Model.load_text``).
_MODE_WORDS = (("disagg", "decode"), ("prefill_result",))
_WAITING_WORDS = (("waiting", "remote"),)
# ``gen`` or ``generation`` as a word of a name (``disagg_gen_init``, ``DisaggGeneration``),
# not inside another word (``agent``, ``generate``)
_GENERATION = re.compile(
    r"(?:(?:^|(?<=[._]))(?:gen|Gen|GEN)(?:eration|ERATION)?|(?<=[a-z0-9])Gen(?:eration)?)"
    r"(?=$|[._A-Z0-9])"
)


# A class named for the process of the decode role: ``Decode`` then a word naming a
# process or its request handler (``DecodeWorker``, ``DecodeWorkerHandler``,
# ``DecodePodServer``, ``PDDecodeActor``), never a decode step's data
# (``DecodeMetadata``, ``DecoderLayer``, ``DecodeConfig``).
_ROLE_WORDS = (
    "Worker",
    "Server",
    "Actor",
    "Handler",
    "Pod",
    "Engine",
    "Instance",
    "Node",
    "Replica",
    "Service",
    "Endpoint",
)
_DECODE_ROLE = re.compile("Decode(?:" + "|".join(_ROLE_WORDS) + ")(?=$|[A-Z_0-9])")


def is_test_code(module: str, qualname: str) -> bool:
    """Whether a function belongs to a test suite (a ``tests`` package, a ``test_``
    module, a ``Test`` class or a ``test_`` function)."""
    parts = module.split(".")
    if any(p in ("test", "tests", "testing", "conftest") for p in parts):
        return True
    leaf = parts[-1]
    if leaf.startswith("test_") or leaf.endswith("_test"):
        return True
    inside = qualname[len(module) + 1 :].split(".") if qualname.startswith(module) else []
    return any(p.startswith("test_") or p.startswith("Test") for p in inside)


def _with_words(
    model: Model, gate: tuple[tuple[str, ...], ...] = (), any_of: tuple[str, ...] = ()
) -> list[str]:
    """The modules whose text holds every word of a ``gate`` group, or one of
    ``any_of`` (case-sensitive), loaded (every module of an eager model)."""
    if model.source is None:
        return list(model.modules)
    found = model.source.with_text(gate=gate, any_of=any_of)
    model.load_modules(found)
    return [m for m in found if m in model.modules]


def _functions(model: Model, modules: Iterable[str]) -> Iterator[tuple[str, FunctionFacts]]:
    for module in modules:
        facts = model.modules.get(module)
        if facts is None:
            continue
        for fn in facts.functions:
            if not is_test_code(module, fn.qualname):
                yield module, fn


def by_name(model: Model) -> list[str]:
    """Functions whose qualified name has both ``disagg`` and ``decode``, or ``disagg``
    and the word ``gen`` or ``generation`` (the decode side's name where the prefill
    side is the *context* one: ``_executor_loop_disagg_gen``)."""
    modules = sorted(
        {
            *model.load_defining(("disagg", "decode"), ignore_case=True),
            *model.load_defining(("disagg", "gen"), ignore_case=True),
        }
    )
    return sorted(
        fn.qualname
        for module, fn in _functions(model, modules)
        if "disagg" in fn.qualname.lower()
        and (
            "decode" in fn.qualname.lower()
            # in the class or function name only: a package may be named ``gen``
            or _GENERATION.search(fn.qualname.removeprefix(module))
        )
    )


def inherited_constructors(model: Model, named: list[str]) -> list[str]:
    """The ``__init__`` a class named for the decode side inherits (``class
    DisaggDecodeRunner(GPUModelRunner)`` with no ``__init__`` of its own): it runs in
    the decode process when the class is made, as that class's own would (an entry
    by its name)."""
    out: set[str] = set()
    for qualname in named:
        cls = model.functions[qualname].cls
        short = cls.rsplit(".", 1)[-1].lower() if cls is not None else ""
        if cls is None or "disagg" not in short or "decode" not in short:
            continue
        found = model.lookup_method(cls, "__init__")
        if found is not None and found != f"{cls}.__init__":
            out.add(found)
    return sorted(out)


def named_loops(model: Model, named: list[str]) -> list[str]:
    """The functions that call an entry found by name on ``self`` (and on up, as
    :func:`connector_drivers` climbs), up to the outermost: a step named for the decode
    side (``_prepare_disagg_gen_init``, the handoff of generation-only requests) is
    called by a loop whose name says nothing (``_executor_loop``), and the steps after
    it in that loop consume what it handed over."""
    out: set[str] = set()
    for qualname in named:
        module = model.function_module.get(qualname)
        if module is not None and model.functions[qualname].cls is not None:
            out.update(_outermost(model, module, qualname))
    return sorted(q for q in out if not is_test_code(q.rsplit(".", 1)[0], q))


def connector_methods(model: Model) -> list[str]:
    """The receiving-side methods of the classes that implement two or more of
    :data:`CONNECTOR_METHODS` and vLLM's other worker-side connector methods (their own
    or inherited): ``start_load_kv`` with ``wait_for_layer_load`` is a connector; and
    such a class's :data:`SHIPPING_METHODS`."""
    candidates: list[FunctionFacts] = []
    for name in (*CONNECTOR_METHODS, *SHIPPING_METHODS):
        modules = model.load_defining((name,))
        candidates += [
            fn for _, fn in _functions(model, modules) if fn.cls is not None and fn.name == name
        ]

    def implemented(fn: FunctionFacts) -> int:
        assert fn.cls is not None
        return sum(
            1
            for name in (*CONNECTOR_METHODS, *_WORKER_SIDE_METHODS)
            if model.lookup_method(fn.cls, name) is not None
        )

    counts = model.batched(candidates, implemented)
    return sorted(
        {
            fn.qualname
            for fn, n in zip(candidates, counts, strict=True)
            # one is enough in a class named as a connector (``KVConnectorV1Decode``)
            if (n >= 2 or (n == 1 and _named_connector(fn.cls))) and not _is_stub(fn)
        }
    )


def _named_connector(cls: str | None) -> bool:
    """Whether a class's own name says it is a connector."""
    return cls is not None and "connector" in cls.rsplit(".", 1)[-1].lower()


def connector_drivers(model: Model, methods: list[str]) -> list[str]:
    """The functions that drive a connector's receiving side: for each call of a
    receiving method (``self.connector.start_load_kv(ctx)``) outside the connector
    classes, its function and the functions of its module that call that one on
    ``self`` in turn, up to the outermost (a model runner's ``execute_model``, whose
    other calls consume what the connector loaded). A connector method alone as the
    entry point reaches the handoff but not the code that reads it."""
    names = sorted({q.rsplit(".", 1)[1] for q in methods} - set(SHIPPING_METHODS))
    connectors = {model.functions[q].cls for q in methods}
    if not names:
        return []
    out: set[str] = set()
    for module in _with_words(model, any_of=tuple(f".{name}(" for name in names)):
        calls = model.module_calls_named(module)
        callers = {
            fn.qualname
            for name in names
            for fn, call in calls.get(name, ())
            if call.func[0] == "attr" and fn.cls not in connectors
        }
        for start in callers:
            out.update(_outermost(model, module, start))
    return sorted(q for q in out if not is_test_code(q.rsplit(".", 1)[0], q))


def role_methods(model: Model) -> list[str]:
    """The public methods of a class named for the decode role's process
    (:data:`_DECODE_ROLE`): a decode worker's or a decode pod's requests come in
    through them (an actor's methods called remotely, a server's handlers). The
    outermost are kept by the caller (those no other entry point reaches)."""
    modules = sorted({m for word in _ROLE_WORDS for m in model.load_defining((f"Decode{word}",))})
    out = []
    for _, fn in _functions(model, modules):
        if fn.cls is None or fn.name.startswith("_") or is_property(fn) or _is_stub(fn):
            continue
        if fn.qualname != f"{fn.cls}.{fn.name}":
            continue  # a function nested in a method
        if _DECODE_ROLE.search(fn.cls.rsplit(".", 1)[-1]):
            out.append(fn.qualname)
    return sorted(out)


def _outermost(model: Model, module: str, start: str, depth: int = 4) -> set[str]:
    """The functions of ``module`` that call ``start`` through ``self`` (and on up, at
    most ``depth`` calls), that nothing in the module calls so; ``start`` when none.
    A call in the decode branch of a dispatch on the mode is not climbed: that branch
    is the entry (:func:`decode_handlers`), not the dispatch."""
    calls = model.module_calls_named(module)
    cls = model.functions[start].cls
    above = {
        fn.qualname
        for fn, call in calls.get(start.rsplit(".", 1)[1], ())
        if fn.cls == cls
        and call.func[0] == "attr"
        and call.func[1] == ("name", "self")
        and fn.qualname != start
        # a dispatch on the disaggregation mode: its other branches run on other roles
        and not _in_decode_mode(call.guards)
    }
    if not above or depth == 0:
        return {start}
    return {top for caller in sorted(above) for top in _outermost(model, module, caller, depth - 1)}


def _is_stub(fn: FunctionFacts) -> bool:
    """A method that does nothing a check could follow (an abstract base's
    ``raise NotImplementedError``, a ``pass``)."""
    raised = all(c.func == ("name", "NotImplementedError") for c in fn.calls)
    return raised and not fn.stores and not fn.derefs


def idle_runs(model: Model) -> list[str]:
    """Idle and dummy runs (``execute_dummy_batch``, ``_dummy_run``): batches that no
    handoff produced."""
    out = set()
    # the pieces every name :data:`_IDLE_RUN` matches holds: a file defining only
    # ``get_dummy_inputs`` is not parsed for it
    for piece in ("dummy_run", "dummy_batch", "idle_run", "idle_batch"):
        for _, fn in _functions(model, model.load_defining((piece,), ignore_case=True)):
            if _IDLE_RUN.fullmatch(fn.name.lower()):
                out.add(fn.qualname)
    return sorted(out)


def is_decode_mode(expr: Expr, polarity: bool = True) -> bool:
    """Whether a guard holds only in decode mode: ``mode == Mode.DECODE`` (a name with
    ``disagg`` on one side), ``... == "decode"`` against such a name, or ``!=`` false."""
    if expr[0] != "cmp" or len(expr[2]) != 1:
        return False
    if expr[2][0] not in (("==", "is", "in") if polarity else ("!=", "is not", "not in")):
        return False
    sides = (expr[1], expr[3][0])
    shown = " ".join(text(s, brief=True).lower() for s in sides)
    if "disagg" not in shown:
        return False
    for node in (n for side in sides for n in nodes(side)):
        if node[0] == "attr" and node[2].upper() == "DECODE":
            return True
        if node[0] == "const" and isinstance(node[1], str) and node[1].lower() == "decode":
            return True
    return False


def _in_decode_mode(guards: Guards) -> bool:
    return any(
        is_decode_mode(e, polarity)
        for cond, polarity in guards
        for e in (_conjuncts(cond) if polarity else (cond,))
    )


def _reads_prefill_result(fn: FunctionFacts) -> bool:
    """``request.get("prefill_result")`` or ``request["prefill_result"]``."""
    for call in fn.calls:
        if call.func[0] == "attr" and call.func[2] == "get" and call.args:
            if call.args[0] == ("const", "prefill_result"):
                return True
    for index in fn.indexes:
        if index.index == ("const", "prefill_result"):
            return True
    return any(
        n[0] == "subscript" and n[2] == ("const", "prefill_result")
        for _, value in fn.assigns
        for n in nodes(value)
    )


def decode_handlers(model: Model) -> list[str]:
    """Handlers of the decode side: functions that read the prefill result from the
    request, and what a function calls where its disaggregation mode is decode (the
    decode branch of a dispatch on the mode, not the function: its other branches
    run on the other roles)."""
    out: set[str] = set()
    decode_calls = []
    for _, fn in _functions(model, _with_words(model, _MODE_WORDS)):
        if _reads_prefill_result(fn):
            out.add(fn.qualname)
        decode_calls += [(fn, call) for call in fn.calls if _in_decode_mode(call.guards)]
    targets = model.batched(decode_calls, lambda item: model.call_targets(item[0], item[1].func))
    for (fn, _), found in zip(decode_calls, targets, strict=True):
        module = fn.qualname.rsplit(".", 1)[0]
        out.update(t for t in found if t in model.functions and not is_test_code(module, t))
    return sorted(out)


def _conjuncts(expr: Expr) -> Iterator[Expr]:
    if expr[0] in ("and", "or"):
        for value in expr[1]:
            yield from _conjuncts(value)
    elif expr[0] == "not":
        yield from _conjuncts(expr[1])
    else:
        yield expr


def waiting_schedulers(model: Model) -> list[str]:
    """Functions that act on a request in a waiting-for-remote-KV state: a branch
    comparing with such a state, with a call or a store under it."""
    out = []
    for _, fn in _functions(model, _with_words(model, _WAITING_WORDS)):
        guards = [*(c.guards for c in fn.calls), *(s.guards for s in fn.stores)]
        for event_guards in guards:
            if any(
                polarity and _waits_remote(e)
                for cond, polarity in event_guards
                for e in _conjuncts(cond)
            ):
                out.append(fn.qualname)
                break
    return sorted(out)


def _waits_remote(expr: Expr) -> bool:
    if expr[0] != "cmp" or len(expr[2]) != 1 or expr[2][0] not in ("==", "is", "in"):
        return False
    return any(_WAITING_REMOTE.search(i) for i in identifiers(expr))


def heuristic_entries(model: Model) -> list[str]:
    """Every entry point the generic engine finds (by name and by interface)."""
    connectors = connector_methods(model)
    named = by_name(model)
    found = {
        *named,
        *named_loops(model, named),
        *inherited_constructors(model, named),
        *connectors,
        *role_methods(model),
        *connector_drivers(model, connectors),
        *waiting_schedulers(model),
        *decode_handlers(model),
        *idle_runs(model),
    }
    return sorted(found)
