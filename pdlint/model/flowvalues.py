"""The value-flow layer's data: abstract values, the points-to store, the C3 MRO.

Abstract values are small tuples, the first field their kind:
``("mod", name)``, ``("cls", qualname)``, ``("inst", qualname)``, ``("fn", qualname)``,
``("bound", function, receiver)``, ``("builtin", name)``, ``("ext", dotted)`` (a
name outside the analysed code), ``("extres", dotted)`` (what calling it gave),
``("extattr", dotted)`` (an attribute of that: callable, its own attributes unknown),
``("const", type, value)``, ``("obj", kind, site)`` (a list, tuple, set, dict or
iterator made at ``site``), ``("gen", function)``, ``("coro", function)``,
``("super", class, receiver)``, ``("static", f)``, ``("classm", f)``,
``("prop", getter)``, ``("propset", getter)``, ``("partial", site)``,
``("bmeth", kind, name, receiver)`` (a method of a builtin container or str),
``("member", class, name)`` (an enum member), ``("unknown",)`` and ``("opaque",)``
(the data and outside names of a widened node, see :class:`PointsTo`).
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Hashable, Iterable
from typing import Any

Value = tuple[Any, ...]
Node = Hashable

UNKNOWN: Value = ("unknown",)
# any data or outside value: a node holding it is widened (it holds none of them)
OPAQUE: Value = ("opaque",)
OUTSIDE_KINDS = frozenset({"ext", "extres", "extattr"})
# the kinds a widened node gives up: data (constants, containers and their
# methods) and outside names; never the analysed code's functions, classes and
# instances, nor a container's keys (its layout), nor strings: they are the names
# getattr(obj, name), keys and imports read (a helper walking fields by name
# would find nothing)
_WIDENED_KINDS = OUTSIDE_KINDS | {"const", "obj", "bmeth"}
_NOT_WIDENED_CONSTS = frozenset({"key", "NoneType", "str"})
ANY_KEY = "*"


def const(value: object) -> Value:
    """The abstract value of a literal (``...`` stands for one too long to keep)."""
    if value is ...:
        return ("const", "str", None)
    return ("const", type(value).__name__, value)


def is_key(value: Value) -> bool:
    """Whether ``value`` can select one entry of a container."""
    return value[0] == "const" and value[2] is not None


class PointsTo:
    """What each node may hold, grown to a fixpoint: copy edges between nodes, and
    operations re-run when a node they read grows (their results only grow).

    Data and outside names (constants but strings, containers, methods of builtin values,
    ``ext``, ``extres``, ``extattr`` values) are bounded per node: a node that would
    hold more than ``limit`` of them, or that receives :data:`OPAQUE`, is widened:
    it holds :data:`OPAQUE` in place of each of them, from then on. Widening is the
    top of a lattice (a widened node stands for any such values, and what flows
    from it is widened too), so a node is widened when the program sends it more
    than ``limit`` of them by some path, whatever arrives first. Names in ``kept``
    (outside functions the solver models) are never widened.

    The few operations whose result is not monotone (a lookup on the first class
    of an MRO defining a name, while a class's names still grow) still see their
    inputs in one order: every collection here keeps insertion order, so the
    work follows the program, never the hash seed."""

    def __init__(self, limit: int = 0, kept: frozenset[str] = frozenset()) -> None:
        # Insertion-ordered dicts, not sets: the work is done in an order that
        # follows the program only (not the hash seed), and an operation's new
        # values are the end of its input's list (no copy of what it has seen).
        self.sets: dict[Node, dict[Value, None]] = defaultdict(dict)
        self.succ: dict[Node, dict[Node, None]] = defaultdict(dict)
        self.deps: dict[Node, dict[int, None]] = defaultdict(dict)
        self.queue: deque[int] = deque()
        self.queued: set[int] = set()
        self.current: int | None = None  # the operation being evaluated
        self.watch: dict[Node, Callable[[Node], None]] = {}
        # an operation's main input: on its growth only the new values are handled
        self.primary: dict[int, Node] = {}
        self.seen: dict[int, int] = {}  # how many values of its main input it handled
        self.full: set[int] = set()
        self.limit = limit  # 0: no bound
        self.kept = kept
        self.outside: dict[Node, int] = {}  # data and outside names held per node
        self.widened: set[Node] = set()

    def get(self, node: Node) -> list[Value]:
        """The values of ``node`` now; the running operation re-runs when it grows."""
        if self.current is not None:
            self.deps[node][self.current] = None
        found = self.sets.get(node)
        return list(found) if found else []

    def fresh(self, node: Node) -> list[Value]:
        """The values of the running operation's main input it has not handled yet
        (all of them when another input grew since, or the input was widened)."""
        op = self.current
        values = self.get(node)
        if op is None:
            return values
        self.primary[op] = node
        seen = self.seen.get(op)
        self.seen[op] = len(values)
        if seen is None or op in self.full:
            self.full.discard(op)
            return values
        return values[seen:]

    def add(self, node: Node, values: Iterable[Value]) -> None:
        """Add ``values`` to ``node`` and push them along its copy edges (only what
        is new to a node goes on: each batch pushed is shared, never changed)."""
        sets, deps, primary, full = self.sets, self.deps, self.primary, self.full
        todo: list[tuple[Node, Iterable[Value]]] = [(node, values)]
        while todo:
            at, pushed = todo.pop()
            have = sets[at]
            new = {v: None for v in pushed if v not in have}
            if not new:
                continue
            if self.limit:
                new = self._bound(at, have, new)
                if not new:
                    continue
            have.update(new)
            ops = deps.get(at)
            if ops:
                for op in ops:
                    if primary.get(op, at) != at:
                        full.add(op)
                    self.schedule(op)
            hook = self.watch.get(at)
            if hook is not None:
                hook(at)
            nexts = self.succ.get(at)
            if nexts:
                todo.extend((nxt, new) for nxt in reversed(nexts))

    def widenable(self, value: Value) -> bool:
        kind = value[0]
        if kind not in _WIDENED_KINDS:
            return False
        if kind == "const":
            return value[1] not in _NOT_WIDENED_CONSTS
        return kind in ("obj", "bmeth") or value[1] not in self.kept

    def _bound(
        self, at: Node, have: dict[Value, None], new: dict[Value, None]
    ) -> dict[Value, None]:
        """``new`` (values ``at`` lacks) bounded: data and outside names dropped at
        a widened node; ``at`` widened when they would pass the limit or
        :data:`OPAQUE` comes."""
        widenable = self.widenable
        if at in self.widened:
            return {v: None for v in new if not widenable(v)}
        count = self.outside.get(at, 0)
        for value in new:
            if widenable(value):
                count += 1
        if count <= self.limit and OPAQUE not in new:
            if count:
                self.outside[at] = count
            return new
        self.widened.add(at)
        self.outside.pop(at, None)
        for value in [v for v in have if widenable(v)]:
            del have[value]
        # what its readers handled is gone: they see its values anew
        self.full.update(self.deps.get(at, ()))
        kept = {v: None for v in new if not widenable(v)}
        kept[OPAQUE] = None
        return kept

    def flow(self, src: Node, dst: Node) -> None:
        """A copy edge: ``dst`` holds at least what ``src`` holds, from now on."""
        if src == dst or dst in self.succ[src]:
            return
        self.succ[src][dst] = None
        found = self.sets.get(src)
        if found:
            self.add(dst, list(found))

    def schedule(self, op: int) -> None:
        if op not in self.queued:
            self.queued.add(op)
            self.queue.append(op)


def c3(head: Value, bases: list[list[Value]]) -> list[Value]:
    """The C3 linearization of a class from its bases' linearizations (left to
    right depth-first with duplicates dropped when C3 has no answer)."""
    seqs = [list(b) for b in bases if b] + [[b[0] for b in bases if b]]
    out = [head]
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return out
        for seq in seqs:
            candidate = seq[0]
            if not any(candidate in s[1:] for s in seqs):
                break
        else:  # inconsistent hierarchy: fall back to depth-first order
            for base in bases:
                for value in base:
                    if value not in out:
                        out.append(value)
            return out
        out.append(candidate)
        for seq in seqs:
            if seq and seq[0] == candidate:
                del seq[0]
