"""Value-flow resolution: the operations of every module solved to a fixpoint.

What each node may hold grows until nothing changes (Andersen-style, one
context per function); calls bind arguments through the project's one binding
helper and add the call graph's edges as their callees become known. A callee
that stays unknown is dropped and counted, never guessed.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from pdlint.facts.flow import ClassDef, FunctionDef, ModuleFlow, Op
from pdlint.model.binding import bind_signature
from pdlint.model.flowvalues import (
    ANY_KEY,
    OPAQUE,
    UNKNOWN,
    Node,
    PointsTo,
    Value,
    c3,
    const,
    is_key,
)

BUILTIN = "<builtin>"
_ENUM_BASES = frozenset(
    f"enum.{n}" for n in ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag", "ReprEnum")
)
_WRAPPERS = {"staticmethod": "static", "classmethod": "classm", "property": "prop"}
_NEW_CONTAINER = {
    "list": "list",
    "tuple": "tuple",
    "set": "set",
    "frozenset": "set",
    "sorted": "list",
    "reversed": "iter",
    "iter": "iter",
}
_KEY_FUNCTIONS = frozenset({"sorted", "min", "max"})
_STATIC = frozenset({"copy", "const", "unknown", "fn", "cls", "builtin", "self", "module", "star"})
_LATER = frozenset({"annot"})  # evaluated once the flow has settled
_NONE: Value = ("const", "NoneType", None)
_MAX_JOINED = 16  # names a concatenation of strings is followed for
_MAX_DOTS = 7  # an outside name is kept to this many attributes
# Outside names a node holds before it is widened (see PointsTo): a receiver of
# many outside results (a helper called with the attributes of every tensor of a
# release) holds "some outside value" instead, and calls on it are dropped.
_WIDEN_LIMIT = 32
# what an outside value may be, read or called: nothing of the analysed code
_UNRESOLVED = frozenset({"unknown", "extres", "ext", "extattr", "opaque"})
_ADDERS = frozenset({"append", "add", "insert", "appendleft"})
_EXTENDERS = frozenset({"extend", "extendleft"})
_GETTERS = frozenset({"get", "pop", "setdefault", "popleft", "__getitem__"})
# The attributes of builtin values (a name not among them reads nothing).
_BUILTIN_ATTRS = {
    t.__name__: frozenset(dir(t))
    for t in (list, dict, set, tuple, str, int, float, complex, bool, bytes, type(None))
}
_BUILTIN_ATTRS["iter"] = frozenset({"__next__", "__iter__", "send", "close", "throw"})
# How PyCG's format names a builtin type whose method is called (see solve).
_TYPE_NAMES = {
    "str": "<**PyStr**>",
    "dict": "<**PyDict**>",
    "list": "<**PyList**>",
    "set": "<**PySet**>",
    "tuple": "<**PyTuple**>",
    "int": "<**PyNum**>",
    "float": "<**PyNum**>",
    "complex": "<**PyNum**>",
    "bool": "<**PyBool**>",
}
_STR_TO_STR = frozenset(
    "capitalize casefold center expandtabs format format_map join ljust lower lstrip "
    "removeprefix removesuffix replace rjust rstrip strip swapcase title translate upper "
    "zfill".split()
)
_STR_TO_LIST = frozenset({"split", "rsplit", "splitlines"})
_CONTAINER_BASES = {
    "dict": "dict",
    "list": "list",
    "set": "set",
    "tuple": "tuple",
    "frozenset": "set",
    "collections.OrderedDict": "dict",
    "collections.defaultdict": "dict",
    "collections.UserDict": "dict",
    "collections.UserList": "list",
    "collections.deque": "list",
}


# outside names the solver models (never widened away)
_MODELLED = frozenset(
    {
        "functools.partial",
        "dataclasses.replace",
        "copy.copy",
        "copy.deepcopy",
        "importlib.import_module",
        *_ENUM_BASES,
        *(name for name in _CONTAINER_BASES if "." in name),
    }
)


class DroppedCall(NamedTuple):
    """A call site whose callee resolved to nothing, and why."""

    module: str
    line: int
    caller: str
    reason: str


class FlowGraph(NamedTuple):
    """The solved call graph: callers to callees, every function, what was dropped."""

    edges: dict[str, set[str]]
    functions: tuple[str, ...]
    modules: tuple[str, ...]
    calls: int
    dropped: int
    dropped_calls: tuple[DroppedCall, ...] = ()


WIDENED = "the callee is one of too many data or outside values (widened)"
# what a callee holding no function or class holds, in words
_HELD = {
    "inst": "an instance without __call__",
    "const": "a constant",
    "obj": "a container",
    "member": "an enum member",
    "mod": "a module",
    "gen": "a generator",
    "coro": "a coroutine",
}


class _Call(NamedTuple):
    args: tuple[tuple[Node, bool], ...]
    kwargs: tuple[tuple[str | None, Node], ...]


class Solver:
    """The passes over the IR: operations evaluated until the points-to sets settle."""

    def __init__(
        self,
        modules: Sequence[ModuleFlow],
        roots: Sequence[str] | None = None,
        load: Callable[[str], ModuleFlow | None] | None = None,
        known: Iterable[str] = (),
    ) -> None:
        """Every operation of ``modules`` runs, unless ``roots`` are given: then a
        function's body runs once something calls it (a root is called), and a module
        of ``known`` is read with ``load`` once something imports it."""
        self.pts = PointsTo(_WIDEN_LIMIT, _MODELLED)
        self.modules: dict[str, ModuleFlow] = {}
        self.known = set(known)
        self.load = load
        names = [*self.known, *(m.module for m in modules)]
        self.packages = {p for name in names for p in _parents(name)}
        self.functions: dict[str, FunctionDef] = {}
        self.classes: dict[str, ClassDef] = {}
        self.class_names: dict[str, set[str]] = {}
        self.ops: list[Op] = []
        # where each module's operations start (a call site's module, see dropped)
        self.op_starts: list[int] = []
        self.op_modules: list[str] = []
        # the edges each operation found (those of an operation that read a node
        # widened since are found again from the final sets, see settle)
        self.op_edges: dict[int, set[tuple[str, str]]] = defaultdict(set)
        self.resolved: set[int] = set()
        self.calls = 0
        self.derived: dict[tuple[Any, ...], int] = {}  # operations made while solving
        self.partials: dict[str, tuple[Node, tuple[Any, ...], tuple[Any, ...]]] = {}
        self.calling_partials: set[str] = set()  # the partials being expanded (see call)
        self.base_nodes: set[Node] = set()
        self.mros: dict[str, tuple[list[Value], list[Node]]] = {}
        # calls of builtin types' methods per operation: (caller, callee, receiver),
        # see holds_code
        self.type_calls: dict[int, set[tuple[str, str, Value]]] = defaultdict(set)
        self.roots = list(roots) if roots is not None else None
        # on demand: the bodies not run yet, by function (a name may be defined twice)
        self.waiting: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self.call_ops: list[int] = []  # the call sites run (see solve)
        self.annots: list[int] = []  # the annotations run, used once the flow settles
        self.solving = False
        self.tops: list[tuple[int, int]] = []  # the top levels to run as the solve starts
        for module in modules:
            self.add_module(module)

    def add_module(self, module: ModuleFlow) -> None:
        """Take in a module's functions, classes and operations: its top level runs
        (now if the solve is running), and its functions' bodies unless the solve is
        on demand."""
        self.modules[module.module] = module
        for function in module.functions:
            self.functions[function.qualname] = function
        for klass in module.classes:
            self.classes[klass.qualname] = klass
            self.class_names[klass.qualname] = set(klass.names)
            for node in klass.bases:
                if node not in self.base_nodes:
                    self.base_nodes.add(node)
                    self.pts.watch[node] = self._bases_grew
        start = len(self.ops)
        self.op_starts.append(start)
        self.op_modules.append(module.module)
        self.ops.extend(module.ops)
        tops = [(start, len(self.ops))]
        if self.roots is not None:
            tops = []
            top = start
            for qualname, first, end in module.bodies:
                self.waiting[qualname].append((start + first, start + end))
                tops.append((top, start + first))
                top = start + end
            tops.append((top, len(self.ops)))
        if self.solving:
            for first, end in tops:
                self.run_ops(first, end)
        else:
            self.tops += tops

    def run_ops(self, start: int, end: int) -> None:
        """Run the operations ``start`` to ``end``: inputs that never change at
        once (before the solve: no queue), annotations once the flow settles."""
        pts = self.pts
        for index in range(start, end):
            kind = self.ops[index][0]
            if kind == "call":
                self.call_ops.append(index)
            if kind in _LATER:
                self.annots.append(index)
            elif kind in _STATIC and not self.solving:
                self.op = index
                self.evaluate(self.ops[index])
            else:
                pts.schedule(index)

    def called(self, qualname: str) -> None:
        """A function is called: on demand, its body runs from now on (a method's
        class's constructors too: an object's methods run once it is made)."""
        ranges = self.waiting.pop(qualname, None)
        if not ranges:
            return
        for start, end in ranges:
            self.run_ops(start, end)
        info = self.functions.get(qualname)
        if info is not None and info.cls is not None:
            self.derive("made", info.cls)

    def module_known(self, name: str) -> bool:
        """Whether ``name`` is an analysed module, read now if it is one not read yet
        (with its packages: importing it runs theirs first)."""
        if name in self.modules:
            return True
        if name not in self.known or self.load is None:
            return False
        self.known.discard(name)
        for parent in _parents(name):
            self.module_known(parent)
        module = self.load(name)
        if module is None:
            return False
        self.add_module(module)
        return True

    # the fixpoint ----------------------------------------------------------
    def solve(self) -> FlowGraph:
        """Run every operation until no set grows; the call graph."""
        for start, end in self.tops:  # every table is complete: imports resolve
            self.run_ops(start, end)
        self.solving = True
        for root in self.roots or ():
            self.called(root)
        self.run_queue()
        # annotations, where no value flows: each seeds its target once, in rounds
        # (what one seeds may reach the targets of others, or run more of the program)
        done = 0
        pending: list[Op] = []
        while True:
            pending += [self.ops[i] for i in self.annots[done:]]
            done = len(self.annots)
            seeded: list[Op] = []
            waiting: list[Op] = []
            for op in pending:
                (seeded if self.no_value(op[1]) else waiting).append(op)
            if not seeded:
                break
            for op in seeded:
                self.annotate(op[1], op[2])
            pending = waiting
            self.run_queue()
        self.settle()
        edges: dict[str, set[str]] = defaultdict(set)
        for found in self.op_edges.values():
            for caller, callee in found:
                edges[caller].add(callee)
        for calls in self.type_calls.values():
            for caller, callee, receiver in calls:
                if not self.holds_code(receiver):
                    edges[caller].add(callee)
        dropped = [self.dropped(i) for i in self.call_ops if i not in self.resolved]
        return FlowGraph(
            dict(edges),
            tuple(sorted(self.functions)),
            tuple(sorted(self.modules)),
            len(self.call_ops),
            len(dropped),
            tuple(sorted(dropped)),
        )

    def dropped(self, index: int) -> DroppedCall:
        """A call site that reached nothing, with why (from what its callee holds)."""
        op = self.ops[index]
        module = self.op_modules[bisect.bisect_right(self.op_starts, index) - 1]
        values = self.pts.sets.get(op[2], ())
        if not values:
            reason = "nothing reaches the callee"
        elif OPAQUE in values:
            reason = WIDENED
        elif all(v[0] in ("unknown", "extres") for v in values):
            reason = "the callee is unknown (what an outside call returns, or is not followed)"
        else:
            held = sorted({str(_HELD.get(v[0], v[0])) for v in values if v[0] not in _UNRESOLVED})
            reason = f"the callee holds no function or class ({', '.join(held)})"
        return DroppedCall(module, op[7], op[5], reason)

    def settle(self) -> None:
        """The edges of the operations that read a node since widened, found again
        from the sets reached: the outside names such an operation called are no
        longer there, and which of them it saw before the widening depended on the
        order of the work. (An operation that read no widened node saw only values
        that are still there: its edges stand.)"""
        pts = self.pts
        done: set[Node] = set()
        while pts.widened - done:
            widened = pts.widened - done
            done |= widened
            stale = sorted({op for node in widened for op in pts.deps.get(node, ())})
            for index in stale:
                self.op_edges.pop(index, None)
                self.type_calls.pop(index, None)
                self.resolved.discard(index)
                pts.seen.pop(index, None)  # every value of its inputs, as it starts
                pts.current = index
                self.op = index
                self.evaluate(self.ops[index])
                pts.current = None
            self.run_queue()

    def holds_code(self, value: Value, depth: int = 0) -> bool:
        """Whether a container holds functions, classes or objects of the analysed
        code (to some depth). A call of a method of a builtin type is an edge to that
        type's method (``<**PyDict**>.items``) when its receiver holds data only: a
        container of code is the call graph's own data, its methods the value flow."""
        if value[0] != "obj":
            return False
        if depth > 3:
            return True
        for key in self.pts.sets.get(("keys", value), ()):
            for held in self.pts.sets.get(self.content(value, key[2]), ()):
                if held[0] == "obj":
                    if self.holds_code(held, depth + 1):
                        return True
                elif held[0] not in _UNRESOLVED and held[0] not in ("const", "member"):
                    return True
        return False

    def run_queue(self) -> None:
        pts = self.pts
        while pts.queue:
            index = pts.queue.popleft()
            pts.queued.discard(index)
            pts.current = index
            self.op = index
            self.evaluate(self.ops[index])
            pts.current = None

    def no_value(self, node: Node) -> bool:
        """Whether nothing but None or unknown flows into ``node``."""
        return all(v == UNKNOWN or v == _NONE for v in self.pts.sets.get(node, ()))

    def annotate(self, node: Node, types: tuple[Any, ...]) -> None:
        """Seed ``node`` with what its annotation says it holds."""
        self.pts.add(node, self.typed(node, types))

    def typed(self, site: Node, types: tuple[Any, ...]) -> list[Value]:
        out: list[Value] = []
        for index, kind in enumerate(types):
            if kind[0] in ("cls", "type"):
                classes = self.pts.get(kind[1]) if kind[0] == "cls" else self.typed(site, kind[1])
                for value in classes:
                    if value == OPAQUE:
                        out.append(OPAQUE)
                    elif kind[0] == "type" and value[0] in ("inst", "extres"):
                        out.append(("cls", value[1]) if value[0] == "inst" else ("ext", value[1]))
                    elif kind[0] == "cls" and value[0] == "cls":
                        members = self.members(value[1]) if self.is_enum(value[1]) else []
                        out.extend(members or [("inst", value[1])])
                    elif kind[0] == "cls" and value[0] in ("ext", "extattr"):
                        out.append(("extres", value[1]))
            elif kind[0] == "seq":
                obj: Value = ("obj", kind[1], f"{site}|annot{index}")
                self.put_values(obj, ANY_KEY, self.typed(("annot", site, index), kind[2]))
                out.append(obj)
            elif kind[0] == "map":
                obj = ("obj", "dict", f"{site}|annot{index}")
                self.put_values(obj, ANY_KEY, self.typed(("annot", site, index), kind[2]))
                out.append(obj)
        return out

    def later(self, *op: Any) -> None:
        """An operation found while solving, evaluated once the flow has settled
        (as annotations are)."""
        if op in self.derived:
            return
        self.derived[op] = len(self.ops)
        self.annots.append(len(self.ops))
        self.ops.append(op)

    def derive(self, *op: Any) -> None:
        """An operation found while solving (evaluated now and when its inputs grow)."""
        if op in self.derived:
            return
        index = len(self.ops)
        self.ops.append(op)
        self.derived[op] = index
        self.pts.schedule(index)

    def unresolved(self, value: Value, dst: Node) -> None:
        """What reading into an outside value gives: unknown (and any data, for the
        token of a widened node: what its data would give)."""
        self.pts.add(dst, [UNKNOWN, OPAQUE] if value == OPAQUE else [UNKNOWN])

    def _bases_grew(self, _node: Node) -> None:
        self.mros.clear()

    def edge(self, caller: str, callee: str) -> None:
        if not caller:  # an implicit call of a derived operation: no site
            return
        self.op_edges[self.op].add((caller, callee))
        self.resolved.add(self.op)

    # operations ------------------------------------------------------------
    def evaluate(self, op: Op) -> None:  # noqa: C901
        kind = op[0]
        pts = self.pts
        if kind == "copy":
            if op[2]:
                pts.flow(op[2], op[1])
        elif kind == "const":
            pts.add(op[1], [const(op[2])])
        elif kind == "unknown":
            pts.add(op[1], [UNKNOWN])
        elif kind == "fn":
            pts.add(op[1], [("fn", op[2])])
        elif kind == "cls":
            pts.add(op[1], [("cls", op[2])])
        elif kind == "builtin":
            pts.add(op[1], [("builtin", op[2])])
        elif kind == "self":  # in a method of a class, self is (also) an instance of it
            value = ("inst", op[2]) if op[3] == "self" else ("cls", op[2])
            pts.add(op[1], [value])
        elif kind == "module":
            self.import_module(op[1], op[2], op[3])
        elif kind == "from":
            self.import_from(op[1], op[2], op[3])
        elif kind == "star":
            self.import_star(op[1], op[2])
        elif kind == "getattr":
            for value in pts.fresh(op[2]):
                self.getattr(value, op[3], op[1], op[4])
        elif kind == "setattr":
            for value in pts.fresh(op[1]):
                self.setattr(value, op[2], op[3], op[4])
        elif kind == "getitem":
            keys = self.keys(op[3])
            for value in pts.fresh(op[2]):
                self.getitem(value, keys, op[1], op[4], op[3])
        elif kind == "setitem":
            keys = self.keys(op[2])
            for value in pts.get(op[1]):
                self.setitem(value, keys, op[3], op[4], op[2])
        elif kind == "slice":
            for value in pts.fresh(op[2]):
                self.slice(value, op[1], op[3:])
        elif kind == "update":
            self.update(op)
        elif kind == "merge":
            self.merge(op)
        elif kind == "seq":
            self.sequence(op[1], op[2], op[3], op[4])
        elif kind == "dict":
            self.dictionary(op[1], op[2], op[3])
        elif kind == "elem":
            for value in pts.fresh(op[2]):
                self.element(value, op[3], op[1])
        elif kind == "rest":
            self.rest(op)
        elif kind == "iter":
            for value in pts.fresh(op[2]):
                self.iterate(value, op[1], op[3], op[4])
        elif kind == "next":
            for value in pts.fresh(op[2]):
                self.next_of(value, op[1], op[3], op[4])
        elif kind == "call":
            call = _Call(op[3], op[4])
            for value in pts.fresh(op[2]):
                self.call(value, call, op[1], op[5], deco=op[6])
        elif kind == "await":
            for value in pts.get(op[2]):
                if value[0] == "coro":
                    pts.flow(self.functions[value[1]].returns, op[1])
                elif value[0] in _UNRESOLVED:
                    self.unresolved(value, op[1])
        elif kind == "enter":
            for value in pts.fresh(op[2]):
                self.enter(value, op[1], op[3], op[4])
        elif kind == "raise":
            for value in pts.fresh(op[1]):
                if value[0] == "cls":
                    self.instantiate(value, _Call((), ()), None, op[2])
        elif kind == "subclass":
            for value in pts.fresh(op[1]):
                if value[0] != "cls":
                    continue
                for found in self.class_lookup(value[1], "__init_subclass__", after=value[1]):
                    if found[0] in ("fn", "classm"):
                        hook = found[1] if found[0] == "classm" else found[:-1]
                        self.call(("bound", hook, value), _Call((), op[3]), None, op[2], False)
        elif kind == "instof":
            for value in pts.fresh(op[2]):
                self.instance_of(value, op[1])
        elif kind == "binop":
            for node in (op[2], op[3]):
                for value in pts.get(node):
                    if value[0] == "obj" or value == OPAQUE:
                        pts.add(op[1], [value])
            if op[4]:
                self.concatenate(op[1], op[2], op[3])
        elif kind == "made":  # a derived: a class's objects exist, its constructors ran
            for found in self.class_lookup(op[1], "__init__"):
                if found[0] == "fn":
                    self.called(found[1])
        elif kind == "flowret":  # a derived: a callee's results into a call's target
            self.deco_result(op)
        elif kind == "mapcall":
            self.map_call(op)
        elif kind == "mapcopy":  # dict(x): x's entries, or the values of x's pairs
            _, obj, src, caller = op
            for value in pts.fresh(src):
                if value[0] == "obj" and value[1] == "dict":
                    for key in pts.get(("keys", value)):
                        self.put(obj, key[2], self.content(value, key[2]))
                elif value[0] == "obj":
                    pairs = ("pairs", obj)
                    self.derive("iter", pairs, src, caller, False)
                    self.derive("elem", self.content(obj, ANY_KEY), pairs, 1)
                    pts.add(("keys", obj), [("const", "key", ANY_KEY)])
        elif kind == "values":  # the values of a **mapping argument
            for value in pts.get(op[2]):
                if value[0] == "obj":
                    self.all_content(value, op[1])

    def concatenate(self, dst: Node, left: Node, right: Node) -> None:
        """``a + b`` of strings: each pair of the names they may be (a name built
        for ``getattr(obj, "do_" + command)``), when there are few."""
        lefts = [v for v in self.pts.get(left) if v[0] == "const" and v[1] == "str"]
        rights = [v for v in self.pts.get(right) if v[0] == "const" and v[1] == "str"]
        if not lefts or not rights:
            return
        if len(lefts) * len(rights) > _MAX_JOINED or not all(map(is_key, lefts + rights)):
            self.pts.add(dst, [("const", "str", None)])
            return
        self.pts.add(dst, [const(a[2] + b[2]) for a in lefts for b in rights])

    # imports ---------------------------------------------------------------
    def module_value(self, name: str) -> Value | None:
        if self.module_known(name) or name in self.packages:
            return ("mod", name)
        return None

    def import_module(self, dst: Node, dotted: str, top: bool) -> None:
        name = dotted.split(".")[0] if top else dotted
        self.pts.add(dst, [self.module_value(name) or ("ext", name)])

    def import_from(self, dst: Node, module: str, name: str) -> None:
        value = self.module_value(module)
        if value is None:
            self.pts.add(dst, [("ext", f"{module}.{name}" if module else name)])
            return
        self.module_attr(module, name, dst)

    def module_attr(self, module: str, name: str, dst: Node) -> None:
        flow = self.modules.get(module)
        if flow is not None:
            self.pts.flow(f"{module}|{name}", dst)
        sub = self.module_value(f"{module}.{name}")
        if sub is not None:
            self.pts.add(dst, [sub])

    def import_star(self, module: str, source: str) -> None:
        flow = self.modules.get(source) if self.module_known(source) else None
        if flow is None:
            return
        if flow.public is not None:  # __all__ may list submodules too
            for name in flow.public:
                self.module_attr(source, name, f"{module}|{name}")
            return
        for name in flow.names:
            if not name.startswith("_"):
                self.pts.flow(f"{source}|{name}", f"{module}|{name}")

    # classes ---------------------------------------------------------------
    def mro(self, qualname: str) -> list[Value]:
        """The classes ``qualname`` looks attributes up in, itself first."""
        cached = self.mros.get(qualname)
        if cached is None:
            cached = self._mro(qualname, set())
            self.mros[qualname] = cached
        for node in cached[1]:
            self.pts.get(node)  # the running operation depends on the bases
        return cached[0]

    def _mro(self, qualname: str, seen: set[str]) -> tuple[list[Value], list[Node]]:
        info = self.classes.get(qualname)
        head: Value = ("cls", qualname)
        if info is None or qualname in seen:
            return [head], []
        seen = seen | {qualname}
        bases: list[list[Value]] = []
        nodes: list[Node] = list(info.bases)
        for node in info.bases:
            for value in sorted(self.pts.sets.get(node, ()), key=repr):
                if value[0] == "cls":
                    sub, more = self._mro(value[1], seen)
                    bases.append(sub)
                    nodes += more
                elif value[0] in ("ext", "builtin"):
                    bases.append([value])
        return c3(head, bases), nodes

    def is_enum(self, qualname: str) -> bool:
        return any(v[0] == "ext" and v[1] in _ENUM_BASES for v in self.mro(qualname))

    def members(self, qualname: str) -> list[Value]:
        """The members of an enum class (its body's names that are not methods)."""
        self.pts.get(("names", qualname))
        out = []
        for name in sorted(self.class_names.get(qualname, ())):
            if name.startswith("_"):
                continue
            found = self.class_lookup(qualname, name)
            if found and all(f[0] not in ("fn", "cls", "prop", "static", "classm") for f in found):
                out.append(("member", qualname, name))
        return out

    def container_of(self, qualname: str) -> Value | None:
        """The container an instance of a class extending a builtin container is
        (one per class: its items, as ``self[key] = v`` and ``obj[key]`` use them)."""
        for klass in self.mro(qualname):
            kind = _CONTAINER_BASES.get(klass[1]) if klass[0] in ("builtin", "ext") else None
            if kind is not None:
                return ("obj", kind, f"{qualname}|items")
        return None

    def class_lookup(self, qualname: str, attr: str, after: str | None = None) -> list[Value]:
        """Values of ``attr`` found on the first class of the MRO that defines it
        (``("ext", ...)`` past an outside base); nothing when none does."""
        order = self.mro(qualname)
        if after is not None:
            names = [v[1] for v in order]
            order = order[names.index(after) + 1 :] if after in names else []
        for klass in order:
            if klass[0] == "cls":
                self.pts.get(("names", klass[1]))
                if attr in self.class_names.get(klass[1], ()):
                    return [(*v, klass[1]) for v in self.pts.get(f"{klass[1]}|{attr}")]
            elif klass[0] == "ext":
                if self.stored_attr(order, attr):  # data of the instance, not the base's
                    return []
                return [("ext", f"{klass[1]}.{attr}", None)]
        return []

    def stored_attr(self, order: list[Value], attr: str) -> bool:
        """Whether a method of a class of ``order`` stores ``attr`` on its receiver."""
        return any(
            attr in self.classes[k[1]].attrs
            for k in order
            if k[0] == "cls" and k[1] in self.classes
        )

    def add_class_name(self, qualname: str, attr: str) -> None:
        names = self.class_names.setdefault(qualname, set())
        if attr not in names:
            names.add(attr)
            self.pts.add(("names", qualname), [("const", "str", attr)])

    # attributes --------------------------------------------------------------
    def getattr(self, value: Value, attr: str, dst: Node, caller: str) -> None:  # noqa: C901
        pts = self.pts
        kind = value[0]
        if kind == "mod":
            self.module_attr(value[1], attr, dst)
        elif kind == "cls":
            for found in self.class_lookup(value[1], attr):
                pts.add(dst, self.on_class(found[:-1], value, attr, found[-1]))
        elif kind in ("inst", "member"):
            qualname = value[1]
            if kind == "member" and attr in ("name", "value"):
                if attr == "name":
                    pts.add(dst, [const(value[2])])
                else:
                    pts.flow(f"{qualname}|{value[2]}", dst)
                return
            if attr == "__class__":
                pts.add(dst, [("cls", qualname)])
                return
            pts.flow(("iattr", qualname, attr), dst)
            found_any = False
            for found in self.class_lookup(qualname, attr):
                found_any = True
                self.on_instance(found[:-1], value, dst, caller)
            container = self.container_of(qualname) if not found_any else None
            if container is not None:  # a method of the builtin container it extends
                pts.add(dst, [("bmeth", container[1], attr, container)])
        elif kind == "fn":
            pts.flow(("fattr", value[1], attr), dst)
        elif kind in ("gen", "coro"):
            pts.add(dst, [("bmeth", "generator", attr, value)])
        elif kind == "super":
            klass = value[2]
            owner = klass[1] if klass[0] in ("inst", "cls") else None
            if owner is None:
                return
            for found in self.class_lookup(owner, attr, after=value[1]):
                if klass[0] == "inst":
                    self.on_instance(found[:-1], klass, dst, caller)
                else:
                    pts.add(dst, self.on_class(found[:-1], klass, attr, owner))
        elif kind in ("ext", "extres"):
            # a name from outside, as PyCG names it (``ext.Cls.fun``), kept short:
            # attributes of an attribute of a result are unknown
            # (a loop walking an outside object, ``node = node.parent``, would grow
            # the name without end: an attribute met again on the way is unknown)
            dotted = f"{value[1]}.{attr}"
            if attr in value[1].split(".")[1:]:
                pts.add(dst, [UNKNOWN])
            elif kind == "extres" and dotted.count(".") < _MAX_DOTS:
                pts.add(dst, [("extattr", dotted)])
            elif kind == "ext" and dotted.count(".") < _MAX_DOTS:
                pts.add(dst, [("ext", dotted)])
            else:
                pts.add(dst, [UNKNOWN])
        elif kind == "extattr":
            pts.add(dst, [UNKNOWN])
        elif kind == "opaque":  # what an attribute of any data or outside name may be
            pts.add(dst, [OPAQUE, UNKNOWN])
        elif kind in ("obj", "const"):
            if attr not in _BUILTIN_ATTRS.get(value[1], ()):
                return  # no such attribute: an error at run time, or a value of another kind
            receiver = value if kind == "obj" else (kind, value[1], None)  # the type's method
            pts.add(dst, [("bmeth", value[1], attr, receiver)])
        elif kind == "prop" and attr == "setter":
            pts.add(dst, [("propset", value[1])])
        elif kind == "unknown":
            pts.add(dst, [UNKNOWN])

    def on_class(self, found: Value, klass: Value, attr: str, owner: str | None) -> list[Value]:
        """What reading a class attribute gives (a method stays a plain function)."""
        if found[0] == "static":
            return [found[1]]
        if found[0] == "classm":
            return [("bound", found[1], klass)]
        if owner is None:
            return [found]
        if found[0] != "fn" and self.is_enum(owner) and found[0] not in ("cls", "prop"):
            return [("member", owner, attr)]
        return [found]

    def on_instance(self, found: Value, instance: Value, dst: Node, caller: str) -> None:
        """What reading an attribute of an instance gives when its class holds it."""
        kind = found[0]
        if kind == "fn":
            self.pts.add(dst, [("bound", found, instance)])
        elif kind == "static":
            self.pts.add(dst, [found[1]])
        elif kind == "classm":
            self.pts.add(dst, [("bound", found[1], ("cls", instance[1]))])
        elif kind == "prop":
            self.call(("bound", found[1], instance), _Call((), ()), dst, caller, False)
        else:
            self.pts.add(dst, [found])

    def setattr(self, value: Value, attr: str, src: Node, caller: str = "") -> None:
        kind = value[0]
        if kind in ("inst", "member"):
            self.pts.flow(src, ("iattr", value[1], attr))
            for found in self.class_lookup(value[1], attr):
                if found[0] == "prop" and len(found) > 3:  # a property's setter
                    call = _Call(((src, False),), ())
                    self.call(("bound", found[2], value), call, None, caller, False)
        elif kind == "fn":
            self.pts.flow(src, ("fattr", value[1], attr))
        elif kind == "cls":
            self.add_class_name(value[1], attr)
            self.pts.flow(src, f"{value[1]}|{attr}")
        elif kind == "mod" and value[1] in self.modules:
            self.pts.flow(src, f"{value[1]}|{attr}")

    # containers --------------------------------------------------------------
    def keys(self, node: Node | None) -> list[Value] | None:
        """The keys a subscript may use; None when any entry may be meant."""
        if node is None:
            return None
        found = self.pts.get(node)
        if not found or not all(is_key(k) for k in found):
            return None if found else []
        return found

    def content(self, obj: Value, key: object) -> Node:
        return ("elt", obj, key)

    def all_content(self, obj: Value, dst: Node) -> None:
        for key in self.pts.get(("keys", obj)):
            self.pts.flow(self.content(obj, key[2]), dst)

    def put(self, obj: Value, key: object, src: Node) -> None:
        self.pts.add(("keys", obj), [("const", "key", key)])
        self.pts.flow(src, self.content(obj, key))

    def put_values(self, obj: Value, key: object, values: Iterable[Value]) -> None:
        self.pts.add(("keys", obj), [("const", "key", key)])
        self.pts.add(self.content(obj, key), values)

    def getitem(
        self,
        value: Value,
        keys: list[Value] | None,
        dst: Node,
        caller: str = "",
        key_node: Node | None = None,
    ) -> None:
        if value[0] == "inst":
            args = (key_node,) if key_node is not None else ()
            if self.call_method(value, "__getitem__", dst, caller, args):
                return
            container = self.container_of(value[1])
            if container is None:
                return
            value = container
        if value[0] == "cls" and keys is not None and keys and self.is_enum(value[1]):
            named = {k[2] for k in keys}  # Color["RED"]
            self.pts.add(dst, [m for m in self.members(value[1]) if m[2] in named])
            return
        if value[0] == "cls" and keys is None and self.is_enum(value[1]):
            self.pts.add(dst, self.members(value[1]))  # Color[name.upper()]: any member
            return
        if value[0] == "cls" and keys == [] and self.is_enum(value[1]):
            # a key nothing flows into comes from outside (an entry's argument):
            # any member, unless a key is found by the time the flow settles
            enum = ("enum", value[1])
            self.pts.add(enum, [value])
            self.later("annot", dst, (("cls", enum),))
            return
        if value[0] == "mod" and keys:  # globals()[name]
            for key in keys:
                if isinstance(key[2], str):
                    self.module_attr(value[1], key[2], dst)
            return
        if value[0] == "obj":
            if keys is None or value[1] in ("set", "iter"):
                self.all_content(value, dst)
                return
            for key in keys:
                index = key[2]
                if isinstance(index, int) and index < 0 and value[1] != "dict":
                    held = {k[2] for k in self.pts.get(("keys", value))}
                    ints = [k for k in held if isinstance(k, int)]
                    if ANY_KEY in held or not ints or max(ints) + 1 + index < 0:
                        self.all_content(value, dst)
                        continue
                    index = max(ints) + 1 + index  # from the end of a list of known length
                self.pts.flow(self.content(value, _key(index)), dst)
            self.pts.flow(self.content(value, ANY_KEY), dst)
        elif value[0] in _UNRESOLVED:
            self.unresolved(value, dst)
        elif value[0] == "const" and value[1] == "str":
            self.pts.add(dst, [("const", "str", None)])

    def setitem(
        self,
        value: Value,
        keys: list[Value] | None,
        src: Node,
        caller: str = "",
        key_node: Node | None = None,
    ) -> None:
        if value[0] == "inst":
            args = (key_node if key_node is not None else ("nokey", src), src)
            if self.call_method(value, "__setitem__", None, caller, args):
                return
            container = self.container_of(value[1])
            if container is None:
                return
            value = container
        if value[0] == "obj":
            for k in _or_any(keys):
                self.put(value, ANY_KEY if k is None else _key(k[2]), src)
        elif value[0] == "mod" and keys and value[1] in self.modules:
            for key in keys:
                if isinstance(key[2], str):
                    self.pts.flow(src, f"{value[1]}|{key[2]}")

    def slice(self, value: Value, dst: Node, bounds: tuple[Any, ...]) -> None:
        """``value[lower:upper:step]``: a new list or tuple holding the elements
        the literal bounds select (each may be any element when they are not known)."""
        kind = value[0]
        if kind == "inst":
            container = self.container_of(value[1])
            if container is None or self.class_lookup(value[1], "__getitem__"):
                self.call_method(value, "__getitem__", dst, "")
                return
            value = container
        if kind == "const" and value[1] in ("str", "bytes"):
            self.pts.add(dst, [(value[0], value[1], None)])
            return
        if value[0] != "obj" or value[1] not in ("list", "tuple"):
            if value[0] in _UNRESOLVED:
                self.unresolved(value, dst)
            return
        new: Value = ("obj", value[1], f"{dst}")
        self.pts.add(dst, [new])
        keys = {k[2] for k in self.pts.get(("keys", value))}
        ints = [k for k in keys if isinstance(k, int)]
        if ANY_KEY in keys or ... in bounds or not all(isinstance(k, int) for k in keys):
            self.put(new, ANY_KEY, ("sliced", dst))
            self.all_content(value, ("sliced", dst))
            return
        length = max(ints) + 1 if ints else 0
        for position, index in enumerate(range(length)[slice(*bounds)]):
            self.put(new, position, self.content(value, index))

    def update(self, op: Op) -> None:
        """``old[key] = src`` on a local: a new container where ``key`` holds ``src``."""
        _, dst, old, key_node, src, caller = op
        keys = self.keys(key_node)
        strong = keys is not None and len(keys) == 1
        for value in self.pts.get(old):
            if value[0] != "obj":
                self.setitem(value, keys, src, caller, key_node)
                self.pts.add(dst, [value])
                continue
            self.setitem(value, keys, src)  # aliases see the store too
            new = ("obj", value[1], f"{dst}")
            self.pts.add(dst, [new])
            replaced = _key(keys[0][2]) if strong and keys else None
            for key in self.pts.get(("keys", value)):
                if key[2] != replaced:
                    self.pts.add(("keys", new), [key])
                    self.pts.flow(self.content(value, key[2]), self.content(new, key[2]))
            for k in _or_any(keys):
                self.put(new, ANY_KEY if k is None else _key(k[2]), src)

    def merge(self, op: Op) -> None:
        """``old.update(src)`` on a local: a new dict where ``src``'s keys win."""
        _, dst, old, src = op
        sources = [v for v in self.pts.get(src) if v[0] == "obj"]
        # a **kwargs dict stands for what every call passes: its keys replace nothing
        replaced = {
            k[2]
            for s in sources
            if not s[2].endswith("|**")
            for k in self.pts.get(("keys", s))
            if k[2] != ANY_KEY
        }
        for value in self.pts.get(old):
            if value[0] != "obj" or value[1] != "dict":
                self.pts.add(dst, [value])
                continue
            new = ("obj", "dict", f"{dst}")
            self.pts.add(dst, [new])
            for key in self.pts.get(("keys", value)):
                if key[2] not in replaced:
                    self.pts.add(("keys", new), [key])
                    self.pts.flow(self.content(value, key[2]), self.content(new, key[2]))
            for source in sources:
                for key in self.pts.get(("keys", source)):
                    self.put(value, key[2], self.content(source, key[2]))
                    self.put(new, key[2], self.content(source, key[2]))

    def sequence(self, dst: Node, kind: str, site: str, elements: Sequence[Any]) -> None:
        obj: Value = ("obj", kind, site)
        self.pts.add(dst, [obj])
        starred = False
        for index, (node, star) in enumerate(elements):
            if star:
                starred = True
                elements_of = ("elements", site, index)
                self.derive("iter", elements_of, node, "", False)
                self.put(obj, ANY_KEY, elements_of)
            elif starred or kind in ("set", "iter"):
                self.put(obj, ANY_KEY, node)
            else:
                self.put(obj, index, node)

    def dictionary(self, dst: Node, site: str, items: Sequence[Any]) -> None:
        obj: Value = ("obj", "dict", site)
        self.pts.add(dst, [obj])
        for key_node, value_node in items:
            if key_node is None:  # **other
                for other in self.pts.get(value_node):
                    if other[0] == "obj":
                        for key in self.pts.get(("keys", other)):
                            self.put(obj, key[2], self.content(other, key[2]))
                continue
            keys = self.keys(key_node)
            for k in _or_any(keys):
                self.put(obj, ANY_KEY if k is None else _key(k[2]), value_node)

    def element(self, value: Value, index: int, dst: Node) -> None:
        if value[0] == "obj" and value[1] in ("tuple", "list"):
            keys = {k[2] for k in self.pts.get(("keys", value))}
            if index < 0:
                ints = [k for k in keys if isinstance(k, int)]
                if ANY_KEY in keys or not ints:
                    self.all_content(value, dst)
                    return
                index = max(ints) + 1 + index
            self.pts.flow(self.content(value, index), dst)
            self.pts.flow(self.content(value, ANY_KEY), dst)
        else:
            self.iterate(value, dst, "")

    def rest(self, op: Op) -> None:
        _, dst, src, start, from_end, site = op
        new: Value = ("obj", "list", site)
        self.pts.add(dst, [new])
        for value in self.pts.get(src):
            if value[0] == "obj" and value[1] in ("tuple", "list"):
                keys = {k[2] for k in self.pts.get(("keys", value))}
                ints = sorted(k for k in keys if isinstance(k, int))
                if ANY_KEY in keys:
                    self.all_content(value, ("elt", new, ANY_KEY))
                    self.pts.add(("keys", new), [("const", "key", ANY_KEY)])
                    continue
                stop = (max(ints) + 1 if ints else 0) - from_end
                for position, index in enumerate(range(start, stop)):
                    self.put(new, position, self.content(value, index))
            else:
                self.put(new, ANY_KEY, ("elements", site, 0))
                self.derive("iter", ("elements", site, 0), src, "", False)

    # iteration -------------------------------------------------------------
    def iterate(self, value: Value, dst: Node, caller: str, is_async: bool = False) -> None:
        kind = value[0]
        if kind == "inst" and self.container_of(value[1]) is not None:
            found = self.class_lookup(value[1], "__aiter__" if is_async else "__iter__")
            if not any(f[0] == "fn" for f in found):
                value = self.container_of(value[1])  # type: ignore[assignment]
                kind = "obj"
        if kind == "obj":
            if value[1] == "dict":
                for key in self.pts.get(("keys", value)):
                    if key[2] != ANY_KEY:
                        self.pts.add(dst, [const(key[2])])
            else:
                self.all_content(value, dst)
        elif kind == "gen":
            self.pts.flow(self.functions[value[1]].yields, dst)
        elif kind == "cls" and self.is_enum(value[1]):
            self.pts.add(dst, self.members(value[1]))
        elif kind == "inst":
            iterator = ("iterator", dst, value)
            self.call_method(value, "__aiter__" if is_async else "__iter__", iterator, caller)
            self.derive("next", dst, iterator, caller, is_async)
        elif kind in _UNRESOLVED:
            self.unresolved(value, dst)

    def next_of(self, value: Value, dst: Node, caller: str, is_async: bool) -> None:
        if value[0] == "inst" and is_async:  # what awaiting __anext__() gives
            step = ("anext", dst)
            self.call_method(value, "__anext__", step, caller)
            self.derive("await", dst, step)
        elif value[0] == "inst":
            self.call_method(value, "__next__", dst, caller)
        else:
            self.iterate(value, dst, caller, is_async)

    def instance_of(self, value: Value, dst: Node) -> None:
        """An instance of ``value`` (a class, or a tuple of classes), as ``except``
        binds it."""
        kind = value[0]
        if kind == "cls":
            self.pts.add(dst, [("inst", value[1])])
        elif kind == "obj":
            self.all_content(value, ("caught", dst))
            self.derive("instof", dst, ("caught", dst))
        elif kind in ("ext", "extattr"):
            self.pts.add(dst, [("extres", value[1])])
        elif kind == "opaque":
            self.pts.add(dst, [OPAQUE, UNKNOWN])
        else:
            self.pts.add(dst, [UNKNOWN])

    def enter(self, value: Value, dst: Node, caller: str, is_async: bool) -> None:
        if value[0] == "inst" and is_async:  # what awaiting __aenter__'s coroutine gives
            self.call_method(value, "__aenter__", ("entered", dst), caller)
            self.call_method(value, "__aexit__", ("exit", dst), caller)
            self.derive("await", dst, ("entered", dst))
        elif value[0] == "inst":
            self.call_method(value, "__enter__", dst, caller)
            self.call_method(value, "__exit__", ("exit", dst), caller)
        elif value[0] == "gen":  # a contextlib.contextmanager generator
            self.pts.flow(self.functions[value[1]].yields, dst)
        elif value[0] in _UNRESOLVED:
            self.unresolved(value, dst)

    # calls -----------------------------------------------------------------
    def call_method(
        self, instance: Value, name: str, dst: Node | None, caller: str, args: tuple[Node, ...] = ()
    ) -> bool:
        """Call method ``name`` of ``instance`` (a protocol's implicit call); whether
        the classes of the analysed code define it."""
        call = _Call(tuple((a, False) for a in args), ())
        defined = False
        for found in self.class_lookup(instance[1], name):
            if found[0] == "fn":
                defined = True
                self.call(("bound", found[:-1], instance), call, dst, caller, False)
            elif found[0] == "ext" and caller:
                self.edge(caller, found[1])
        return defined

    def call(  # noqa: C901
        self, value: Value, call: _Call, dst: Node | None, caller: str, deco: bool
    ) -> None:
        """Call ``value``: the edge, the arguments bound, the result into ``dst``."""
        kind = value[0]
        if kind == "fn":
            self.call_function(value[1], call, dst, caller, None, deco)
        elif kind == "bound":
            function = value[1]
            if function[0] == "fn":
                self.call_function(function[1], call, dst, caller, value[2], deco)
            else:
                self.call(function, call, dst, caller, deco)
        elif kind == "cls":
            self.instantiate(value, call, dst, caller)
        elif kind == "inst":
            for found in self.class_lookup(value[1], "__call__"):
                if found[0] == "fn":
                    self.call_function(found[1], call, dst, caller, value, deco)
        elif kind == "builtin":
            self.call_builtin(value[1], call, dst, caller, deco)
        elif kind in ("ext", "extattr"):
            self.edge(caller, value[1])
            self.call_external(value[1], call, dst, caller, deco)
        elif kind in ("static", "classm"):
            self.call(value[1], call, dst, caller, deco)
        elif kind == "propset":
            if dst is not None:
                setters = [v for v in self.pts.get(call.args[0][0])] if call.args else []
                self.pts.add(dst, [("prop", value[1], s) for s in setters] or [("prop", value[1])])
            self.resolved.add(self.op)
        elif kind == "partial":
            if value[1] in self.calling_partials:
                # a partial of itself (``f = partial(f, x)`` in a loop): its other
                # callables are called by the outer expansion, once
                return
            fn_node, args, kwargs = self.partials[value[1]]
            merged = _Call(args + call.args, kwargs + call.kwargs)
            self.calling_partials.add(value[1])
            try:
                for target in self.pts.get(fn_node):
                    self.call(target, merged, dst, caller, deco)
            finally:
                self.calling_partials.discard(value[1])
        elif kind == "bmeth":
            self.resolved.add(self.op)
            type_name = _TYPE_NAMES.get(value[1])
            if type_name is not None and caller:  # kept if it holds data (see solve)
                self.type_calls[self.op].add((caller, f"{type_name}.{value[2]}", value[3]))
            self.call_container_method(value, call, dst, caller)
        elif deco and dst is not None:  # an unknown decorator: identity
            self.identity(call, dst)
        elif dst is not None and kind == "opaque":  # dropped: what any call may give
            self.pts.add(dst, [OPAQUE, UNKNOWN])
        elif dst is not None and kind in ("unknown", "extres", "extattr"):
            self.pts.add(dst, [UNKNOWN])

    def identity(self, call: _Call, dst: Node) -> None:
        if call.args:
            self.pts.flow(call.args[0][0], dst)

    def call_function(
        self,
        qualname: str,
        call: _Call,
        dst: Node | None,
        caller: str,
        receiver: Value | None,
        deco: bool,
    ) -> None:
        info = self.functions.get(qualname)
        if info is None:
            return
        self.edge(caller, qualname)
        self.called(qualname)
        params = info.params
        if receiver is not None and params:
            self.pts.add(params[0][2], [receiver])
            params = params[1:]
        self.bind(info, params, call)
        if dst is None:
            return
        if info.generator:
            self.pts.add(dst, [("gen", qualname)])
        elif info.coroutine:
            self.pts.add(dst, [("coro", qualname)])
        elif deco:
            self.derive("flowret", dst, info.returns, call.args[0][0] if call.args else "")
        else:
            self.pts.flow(info.returns, dst)

    def deco_result(self, op: Op) -> None:
        """A decorator's result: what it returns, the decorated itself when unknown."""
        _, dst, returns, decorated = op
        for value in self.pts.get(returns):
            if value[0] in ("unknown", "extres", "extattr", "opaque"):
                if decorated:
                    self.pts.flow(decorated, dst)
                if value == OPAQUE:  # as any outside name returned
                    self.pts.add(dst, [OPAQUE])
            else:
                self.pts.add(dst, [value])

    def bind(self, info: FunctionDef, params: Sequence[tuple[str, str, str]], call: _Call) -> None:
        nodes = {name: node for name, _, node in params}
        signature = [(name, kind) for name, kind, _ in params]
        for bound in bind_signature(signature, call.args, call.kwargs):
            target = nodes[bound.param]
            if bound.how == "value":
                self.pts.flow(bound.arg, target)
            elif bound.how in ("element", "mapping"):
                self.derive(
                    "iter" if bound.how == "element" else "values", target, bound.arg, "", False
                )
            elif bound.how in ("packed", "spread"):
                packed: Value = ("obj", "tuple", f"{info.qualname}|*")
                self.pts.add(target, [packed])
                if bound.how == "packed":
                    self.put(packed, ANY_KEY, bound.arg)
                else:
                    self.derive("iter", self.content(packed, ANY_KEY), bound.arg, "", False)
                    self.pts.add(("keys", packed), [("const", "key", ANY_KEY)])
            elif bound.how == "keyword":
                packed = ("obj", "dict", f"{info.qualname}|**")
                self.pts.add(target, [packed])
                self.put(packed, bound.key, bound.arg)

    def instantiate(self, value: Value, call: _Call, dst: Node | None, caller: str) -> None:
        qualname = value[1]
        instance: Value = ("inst", qualname)
        if dst is not None:
            self.pts.add(dst, [instance])
        self.resolved.add(self.op)
        for found in self.class_lookup(qualname, "__init__"):
            if found[0] == "fn":
                self.call_function(found[1], call, None, caller, instance, False)
            elif found[0] == "ext":
                self.edge(caller, found[1])

    def call_external(
        self, name: str, call: _Call, dst: Node | None, caller: str, deco: bool
    ) -> None:
        if dst is None:
            return
        if name == "functools.partial" and call.args:
            site = f"{dst}"
            self.partials[site] = (call.args[0][0], call.args[1:], call.kwargs)
            self.pts.add(dst, [("partial", site)])
        elif name in ("dataclasses.replace", "copy.copy", "copy.deepcopy") and call.args:
            self.pts.flow(call.args[0][0], dst)
        elif name == "importlib.import_module" and len(call.args) == 1:
            for module in self.pts.get(call.args[0][0]):
                if is_key(module) and isinstance(module[2], str):
                    self.import_module(dst, module[2], False)
                else:
                    self.pts.add(dst, [("extres", name)])
        elif deco:
            self.identity(call, dst)
        else:
            self.pts.add(dst, [("extres", name)])

    def call_builtin(  # noqa: C901
        self, name: str, call: _Call, dst: Node | None, caller: str, deco: bool
    ) -> None:
        if name in _WRAPPERS and call.args:
            if dst is not None:
                for value in self.pts.get(call.args[0][0]):
                    self.pts.add(dst, [(_WRAPPERS[name], value)])
            self.resolved.add(self.op)
            if deco:
                return
        self.edge(caller, f"{BUILTIN}.{name}")
        args = [node for node, _ in call.args]
        if name in ("map", "filter"):
            result: Value = ("obj", "iter", f"{dst}")
            for index, node in enumerate(args):
                others = tuple(n for i, n in enumerate(args) if i != index)
                self.derive("mapcall", result, node, others, caller, name)
            if dst is not None:
                self.pts.add(dst, [result])
            return
        if name in _KEY_FUNCTIONS:
            for key, node in call.kwargs:
                if key == "key":
                    for element in args[:1]:
                        self.derive("mapcall", None, node, (element,), caller, "key")
        if dst is None:
            return
        if name in _NEW_CONTAINER:
            obj: Value = ("obj", _NEW_CONTAINER[name], f"{dst}")
            self.pts.add(dst, [obj])
            if args:
                self.derive("iter", ("elt", obj, ANY_KEY), args[0], caller, False)
                self.pts.add(("keys", obj), [("const", "key", ANY_KEY)])
        elif name == "dict":
            obj = ("obj", "dict", f"{dst}")
            self.pts.add(dst, [obj])
            for key, node in call.kwargs:
                if key is not None:
                    self.put(obj, key, node)
            if args:  # a mapping, or pairs: any key may hold a pair's value
                self.derive("mapcopy", obj, args[0], caller)
        elif name == "type" and len(args) == 1:
            for value in self.pts.get(args[0]):
                if value[0] in ("inst", "member"):
                    self.pts.add(dst, [("cls", value[1])])
                elif value[0] == "const":
                    self.pts.add(dst, [("builtin", value[1])])
                elif value[0] == "obj" and value[1] != "iter":
                    self.pts.add(dst, [("builtin", value[1])])
                else:
                    self.pts.add(dst, [UNKNOWN])
        elif name == "setattr" and len(args) >= 3:
            # an operation per attribute name, which handles each new object once (a
            # loop over both sets, run again whenever either grows, is cubic)
            for attr in self.pts.get(args[1]):
                if is_key(attr) and isinstance(attr[2], str):
                    self.derive("setattr", args[0], attr[2], args[2], caller)
            self.pts.add(dst, [UNKNOWN])
        elif name == "property" and args:
            setters = self.pts.get(args[1]) if len(args) > 1 else []
            for getter in self.pts.get(args[0]):
                props: list[Value] = [("prop", getter, s) for s in setters]
                self.pts.add(dst, props or [("prop", getter)])
        elif name == "__import__" and args:
            for module in self.pts.get(args[0]):
                if is_key(module) and isinstance(module[2], str):
                    self.import_module(dst, module[2], True)
        elif name == "next" and args:
            self.derive("iter", dst, args[0], caller, False)
        elif name in ("min", "max") and args:
            self.derive("iter", dst, args[0], caller, False)
        elif name in ("enumerate", "zip"):
            pair: Value = ("obj", "tuple", f"{dst}|pair")
            outer: Value = ("obj", "iter", f"{dst}")
            self.pts.add(dst, [outer])
            self.put_values(outer, ANY_KEY, [pair])
            for index, node in enumerate(args):
                position = index + 1 if name == "enumerate" else index
                self.derive("iter", self.content(pair, position), node, caller, False)
                self.pts.add(("keys", pair), [("const", "key", position)])
            if name == "enumerate":
                self.put_values(pair, 0, [UNKNOWN])
        elif name == "getattr" and len(args) >= 2:
            for attr in self.pts.get(args[1]):  # as setattr
                if is_key(attr) and isinstance(attr[2], str):
                    self.derive("getattr", dst, args[0], attr[2], caller)
            if len(args) > 2:
                self.pts.flow(args[2], dst)
        elif name == "super" and len(args) == 2:
            for klass in self.pts.get(args[0]):
                for receiver in self.pts.get(args[1]):
                    if klass[0] == "cls" and receiver[0] in ("inst", "cls"):
                        self.pts.add(dst, [("super", klass[1], receiver)])
        else:
            self.pts.add(dst, [UNKNOWN])

    def map_call(self, op: Op) -> None:
        """A builtin calling its argument (``map``, ``filter``, a ``key=``)."""
        _, result, fn_node, others, caller, name = op
        for value in self.pts.get(fn_node):
            if value[0] in ("fn", "bound", "cls", "partial", "static"):
                ret = ("mapped", result, value)
                site = (result, fn_node)
                elements = tuple((("elements", site, i), False) for i in range(len(others)))
                for i, other in enumerate(others):
                    self.derive("iter", elements[i][0], other, caller, False)
                self.call(value, _Call(elements, ()), ret, caller, False)
                if result is not None and name == "map":
                    self.put(result, ANY_KEY, ret)
            elif result is not None and name == "filter":
                self.derive("iter", ("elt", result, ANY_KEY), fn_node, caller, False)
                self.pts.add(("keys", result), [("const", "key", ANY_KEY)])

    def call_container_method(
        self, value: Value, call: _Call, dst: Node | None, caller: str
    ) -> None:
        _, container, name, receiver = value
        args = [node for node, _ in call.args]
        if receiver[0] in ("gen", "coro"):
            if name == "send" and args:
                self.pts.flow(args[0], f"{receiver[1]}|<sent>")
            if name in ("send", "__next__", "asend") and dst is not None:
                self.pts.flow(self.functions[receiver[1]].yields, dst)
            return
        if receiver[0] != "obj":
            if dst is None:
                return
            if receiver[0] == "const" and receiver[1] == "str" and name in _STR_TO_STR:
                self.pts.add(dst, [("const", "str", None)])
            elif receiver[0] == "const" and receiver[1] == "str" and name in _STR_TO_LIST:
                words: Value = ("obj", "list", f"{dst}")
                self.pts.add(dst, [words])
                self.put_values(words, ANY_KEY, [("const", "str", None)])
            else:
                self.pts.add(dst, [UNKNOWN])
            return
        if name in _ADDERS and args:
            self.put(receiver, ANY_KEY, args[-1])
        elif name == "sort":
            for keyword, key_fn in call.kwargs:
                if keyword == "key":
                    self.pts.add(("sorting", key_fn), [receiver])
                    self.derive("mapcall", None, key_fn, (("sorting", key_fn),), caller, "key")
        elif name in _EXTENDERS and args:
            self.derive("iter", ("elt", receiver, ANY_KEY), args[0], caller, False)
            self.pts.add(("keys", receiver), [("const", "key", ANY_KEY)])
        elif name == "update" and (args or call.kwargs):
            for other in self.pts.get(args[0]) if args else ():
                if other[0] == "obj":
                    for key in self.pts.get(("keys", other)):
                        self.put(receiver, key[2], self.content(other, key[2]))
            for key_name, node in call.kwargs:
                if key_name is not None:
                    self.put(receiver, key_name, node)
        elif name in _GETTERS and dst is not None:
            keys = self.keys(args[0]) if args else None
            self.getitem(receiver, keys, dst)
            if name in ("get", "setdefault", "pop") and len(args) > 1:
                self.pts.flow(args[1], dst)
            if name == "setdefault" and len(args) > 1:
                self.setitem(receiver, keys, args[1])
        elif name in ("values", "copy") and dst is not None:
            if name == "copy":
                self.pts.add(dst, [receiver])
            else:
                obj: Value = ("obj", "iter", f"{dst}")
                self.pts.add(dst, [obj])
                self.all_content(receiver, ("elt", obj, ANY_KEY))
                self.pts.add(("keys", obj), [("const", "key", ANY_KEY)])
        elif name == "items" and dst is not None:
            pair: Value = ("obj", "tuple", f"{dst}|pair")
            obj = ("obj", "iter", f"{dst}")
            self.pts.add(dst, [obj])
            self.put_values(obj, ANY_KEY, [pair])
            self.pts.add(("keys", pair), [("const", "key", 0), ("const", "key", 1)])
            self.iterate(receiver, self.content(pair, 0), caller)
            self.all_content(receiver, self.content(pair, 1))
        elif name == "keys" and dst is not None:
            obj = ("obj", "iter", f"{dst}")
            self.pts.add(dst, [obj])
            self.pts.add(("keys", obj), [("const", "key", ANY_KEY)])
            self.iterate(receiver, ("elt", obj, ANY_KEY), caller)
        elif dst is not None:
            self.pts.add(dst, [UNKNOWN])


def _or_any(keys: list[Value] | None) -> list[Value | None]:
    """The keys of a store, or None (any entry) when they are not known."""
    return list(keys) if keys else [None]


def _key(value: object) -> object:
    """A container key (booleans are the integers they equal)."""
    if isinstance(value, bool):
        return int(value)
    return value


def _parents(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def solve(
    modules: Sequence[ModuleFlow],
    roots: Sequence[str] | None = None,
    load: Callable[[str], ModuleFlow | None] | None = None,
    known: Iterable[str] = (),
) -> FlowGraph:
    """The call graph of ``modules`` (their IR), solved to a fixpoint: of the whole
    program, or on demand from ``roots`` (see Solver)."""
    return Solver(modules, roots, load, known).solve()
