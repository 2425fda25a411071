"""The call graph from the decode entry points, and entry discovery.

The graph is kept as plain dictionaries (callee -> call sites, by caller): the
checks walk it many times, and importing networkx costs more than building and
walking it on a whole serving engine, a large part of an edit's time budget
(networkx is a test dependency only). :meth:`CallGraph.to_networkx` gives the
same graph as a networkx ``DiGraph``, which the tests use as the oracle of the
graph's edges, call sites, callers, reach and ancestors.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pdlint.facts.exprs import nodes
from pdlint.facts.globs import literal_pieces
from pdlint.facts.types import CallFact, Expr, FunctionFacts, Guards, Span
from pdlint.model.binding import bind_arguments
from pdlint.model.names import Model, is_property
from pdlint.source.globs import name_matches

if TYPE_CHECKING:
    import networkx as nx

EdgeFilter = Callable[[FunctionFacts, CallFact], bool]
# Targets of a call on an attribute whose class a variant picks: (callee, variant, members).
ChosenTargets = Callable[[FunctionFacts, Expr], list[tuple[str, str, frozenset[int]]]]
# The classes the receiver of a method call may be when a variant chooses them:
# (variant, ((class, members), ...)), or None.
ChosenReceivers = Callable[
    [FunctionFacts, Expr], tuple[str, tuple[tuple[str, frozenset[int]], ...]] | None
]
# A callee, the call sites that reach it, and the members that take it (if a variant picks it)
Edge = tuple[str, list[CallFact], tuple[str, frozenset[int]] | None]
# (id of a call site, callee) -> (the call site, what it passes for each parameter)
PassedMemo = dict[tuple[int, str], tuple[CallFact, list[tuple[str, list[str]]]]]


@dataclass
class GraphMemo:
    """What the call graphs of one model share: answers that depend on the model alone
    (the model keeps what it loads, so a later graph asks nothing again)."""

    passed: PassedMemo = field(default_factory=dict)  # see CallGraph._passed
    prefetched: set[str] = field(default_factory=set)  # functions :meth:`_prefetch` did
    # id of a call site with no callee -> (the site, the functions it hands off)
    handed: dict[int, tuple[CallFact, set[str]]] = field(default_factory=dict)
    # function -> its reads of attributes a property computes, as calls of the getter
    reads: dict[str, tuple[CallFact, ...]] = field(default_factory=dict)
    # the names a property of the program may have (see CallGraph._may_be_property)
    property_names: list[frozenset[str] | None] = field(default_factory=lambda: [None])


# a function a ``property`` decorator (``@property``, ``@functools.cached_property``)
# stands over, with other decorators, comments or blank lines between
_DECORATED_DEF = re.compile(r"property\b[^\n]*\n(?:[ \t]*(?:[@#][^\n]*)?\n)*[ \t]*def[ \t]+(\w+)")

# calls that keep a callable, make one or look at it rather than run it
_KEEPERS = frozenset(
    {
        "getattr",
        "hasattr",
        "isinstance",
        "issubclass",
        "callable",
        "id",
        "repr",
        "str",
        "print",
        "signature",
        "iscoroutinefunction",
        "ref",
        "WeakMethod",
        "append",
        "appendleft",
        "add",
        "insert",
        "extend",
        "update",
        "setdefault",
        "register",
        "partial",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "setattr",
        "property",
        "staticmethod",
        "classmethod",
        "wraps",
    }
)


def _functions_in(model: Model, modules: Iterable[str]) -> list[str]:
    """The functions of the modules that can be named as entry points (no lambda:
    one runs when what it is passed to calls it, under that caller's guards)."""
    return [
        fn.qualname
        for m in modules
        for fn in model.modules[m].functions
        if not fn.name.startswith("<lambda:")
    ]


def match_entries(model: Model, patterns: Iterable[str]) -> list[str]:
    """Functions whose qualified name matches a pattern (exact, glob or suffix)."""
    out = set()
    for pattern in patterns:
        for qual in _functions_in(model, model.load_defining(literal_pieces(pattern))):
            if name_matches(pattern, qual):
                out.add(qual)
    return sorted(out)


def _called_params(fn: FunctionFacts) -> frozenset[str]:
    """The parameters ``fn`` calls by name."""
    params = {p for p, _ in fn.params}
    return frozenset(c.func[1] for c in fn.calls if c.func[0] == "name" and c.func[1] in params)


class CallGraph:
    """Edges from callers to callees with the call sites, grown from roots."""

    def __init__(
        self,
        model: Model,
        roots: Iterable[str],
        chosen: ChosenTargets | None = None,
        memo: GraphMemo | None = None,
        receivers: ChosenReceivers | None = None,
    ) -> None:
        self.model = model
        memo = GraphMemo() if memo is None else memo
        self._passed_memo = memo.passed
        self._prefetched = memo.prefetched
        self._handed_memo = memo.handed
        self._reads_memo = memo.reads
        self._names_memo = memo.property_names
        self._property_names = memo.property_names[0]
        self._chosen = chosen
        # (caller, callee) -> (variant, members) when only those members take the edge
        self.when: dict[tuple[str, str], tuple[str, frozenset[int]]] = {}
        # caller -> callee -> the call sites of that edge, in the order they were found
        self._edges: dict[str, dict[str, list[CallFact]]] = {}
        self._callers: dict[str, dict[str, None]] = {}  # callee -> its callers, in order
        self._out: dict[str, tuple[FunctionFacts, list[Edge]]] | None = None
        self.dropped = 0
        self.dropped_sites: list[tuple[str, CallFact]] = []  # (caller, call) with no callee
        self.resolved = 0  # call sites with a callee
        # A parameter called inside its function (``get_batch()``) resolves to
        # the functions callers pass for it (``get_batch=self.make_batch``).
        self._bound: dict[tuple[str, str], set[str]] = {}
        self._param_calls: dict[tuple[str, str], list[CallFact]] = {}
        # (caller, callee) -> (variant, class -> members) for a method called on an
        # object a variant chooses (see _tag_self_calls)
        self._receiver_classes: dict[tuple[str, str], tuple[str, dict[str, frozenset[int]]]] = {}
        self._queue = deque(sorted(set(roots)))
        for root in self._queue:
            self._edges[root] = {}
        self._seen = set(self._queue)
        level_end = 0
        while self._queue:
            if level_end == 0:
                # breadth first, so a level is a prefix of the queue: resolve its
                # calls first, loading the modules they need in batches
                level_end = len(self._queue)
                self._prefetch(list(self._queue))
            level_end -= 1
            caller = self._queue.popleft()
            fn = model.functions[caller]
            params = {p for p, _ in fn.params}
            for call in (*fn.calls, *self._property_reads(fn)):
                # a class a variant chooses (a factory's table) gives edges that carry
                # the members taking them: they come before the value sets, which
                # hold every class the receiver may be, for any member
                targets: tuple[str, ...] | set[str] = set()
                if self._chosen is not None:
                    for target, variant, members in self._chosen(fn, call.func):
                        self._edge(caller, target, call)
                        before = self.when.get((caller, target))
                        if before is not None and before[0] == variant:
                            members = before[1] | members  # another site, other members
                        self.when[(caller, target)] = (variant, members)
                        self._bind(fn, call, target)
                        targets = {*targets, target}
                    if targets and receivers is not None:
                        self._note_receivers(caller, call, targets, receivers(fn, call.func))
                if not targets:
                    targets = model.call_targets(fn, call.func)
                if not targets and call.func[0] == "name" and call.func[1] in params:
                    key = (caller, call.func[1])
                    self._param_calls.setdefault(key, []).append(call)
                    targets = self._bound.get(key, set())
                handed: set[str] = set()
                if not targets:
                    self.dropped += 1
                    self.dropped_sites.append((caller, call))
                    known = self._handed_memo.get(id(call))
                    if known is None or known[0] is not call:
                        known = self._handed_memo[id(call)] = (call, self._handed_off(fn, call))
                    targets = handed = known[1]
                else:
                    self.resolved += 1
                for target in sorted(targets):
                    if (caller, target) in self.when and target in self._edges[caller]:
                        continue
                    self._edge(caller, target, call)
                    if target not in handed:  # the call's arguments are not its own
                        self._bind(fn, call, target)
        if self._receiver_classes:
            self._tag_self_calls(set(roots))

    def _property_reads(self, fn: FunctionFacts) -> tuple[CallFact, ...]:
        """The reads in ``fn`` of an attribute a property computes (``n += req.draft_len``,
        ``self.width`` with ``@property def width``, an inherited one), each as a call of
        the getter with no argument, where the read is, under its guards: the getter runs
        there. Only attributes named as a property of the program are resolved (in a
        lazy model, a function of that name in a module whose text holds ``property``),
        and only to a ``@property`` or ``functools.cached_property``."""
        found = self._reads_memo.get(fn.qualname)
        if found is not None:
            return found
        seen: set[tuple[Expr, int]] = set()
        out: list[CallFact] = []
        for expr, span, guards in _read_events(fn):
            funcs: set[int] = set()  # a method called is no read of an attribute
            for node in nodes(expr):
                if node[0] == "call":
                    funcs.add(id(node[1]))
                if node[0] != "attr" or id(node) in funcs or node[1][0] not in ("name", "attr"):
                    continue
                key = (node, span[0])
                if key in seen or not self._may_be_property(node[2]):
                    continue
                seen.add(key)
                targets = self.model.call_targets(fn, node)
                if any(is_property(self.model.functions[t]) for t in targets):
                    out.append(CallFact(node, (), (), span, guards, None))
        found = self._reads_memo[fn.qualname] = tuple(out)
        return found

    def _may_be_property(self, name: str) -> bool:
        """Whether a property of the program may be named ``name`` (else no read of that
        attribute is a property's): a decorated function of the loaded modules, or, in a
        lazy model, the functions a ``property`` decorator stands over in the text of
        any module (a superset: the modules need not be loaded)."""
        names = self._property_names
        if names is None:
            model, source = self.model, self.model.source
            found: set[str] = set()
            if source is not None:
                for module in source.with_text(any_of=("property",)):
                    text = source.source_text(module)
                    found.update(_DECORATED_DEF.findall(text) if text is not None else ())
            else:
                found = {fn.name for fn in model.functions.values() if is_property(fn)}
            names = self._property_names = self._names_memo[0] = frozenset(found)
        return name in names

    def _note_receivers(
        self,
        caller: str,
        call: CallFact,
        targets: Iterable[str],
        found: tuple[str, tuple[tuple[str, frozenset[int]], ...]] | None,
    ) -> None:
        """Record, for each method a chosen call reaches, the classes it is reached on."""
        if found is None or call.func[0] != "attr":
            return
        variant, options = found
        for target in targets:
            on = {
                cls: members
                for cls, members in options
                if target in self.model.methods_named(cls, call.func[2])
            }
            before = self._receiver_classes.get((caller, target))
            if before is not None:
                if before[0] != variant:
                    continue
                on = {
                    c: on.get(c, frozenset()) | before[1].get(c, frozenset())
                    for c in {*on, *before[1]}
                }
            self._receiver_classes[(caller, target)] = (variant, on)

    def _tag_self_calls(self, roots: set[str]) -> None:
        """``self.hook()`` in a method reached only on objects a variant chooses (a
        worker class per algorithm): the override of each class is reached only by
        the members that give that class, also through the base class's template
        method (``decode_step`` calling ``self._prepare``) and the methods it calls
        on ``self`` in turn."""
        known: dict[str, tuple[str, dict[str, frozenset[int]]]] = {}
        for _ in range(20):  # a chain of self calls settles in as many rounds as it is long
            changed = False
            for callee, callers in self._callers.items():
                if callee in roots:
                    continue
                found = self._self_classes(callee, callers, known)
                if found is not None and known.get(callee) != found:
                    known[callee] = found
                    changed = True
            if not changed:
                break
        lookup = self.model.lookup_method
        for caller, (variant, classes) in known.items():
            for callee, sites in self._edges[caller].items():
                if (caller, callee) in self.when or not all(_on_self(s.func) for s in sites):
                    continue
                members: frozenset[int] = frozenset()
                for cls, taking in classes.items():
                    if any(lookup(cls, s.func[2]) == callee for s in sites):
                        members |= taking
                self.when[(caller, callee)] = (variant, members)

    def _self_classes(
        self,
        callee: str,
        callers: Iterable[str],
        known: dict[str, tuple[str, dict[str, frozenset[int]]]],
    ) -> tuple[str, dict[str, frozenset[int]]] | None:
        """The classes ``self`` may be in ``callee``, each with its members, when every
        call reaching it is on an object a variant chooses (or on ``self`` in a method
        where that is known); None when some call may be on another object."""
        variant: str | None = None
        out: dict[str, frozenset[int]] = {}
        for caller in callers:
            found = self._receiver_classes.get((caller, callee))
            if found is None:
                sites = self._edges[caller][callee]
                above = known.get(caller)
                if above is None or not all(_on_self(s.func) for s in sites):
                    return None
                found = (
                    above[0],
                    {
                        cls: members
                        for cls, members in above[1].items()
                        if any(self.model.lookup_method(cls, s.func[2]) == callee for s in sites)
                    },
                )
            if variant is not None and found[0] != variant:
                return None
            variant = found[0]
            for cls, members in found[1].items():
                out[cls] = out.get(cls, frozenset()) | members
        return (variant, out) if variant is not None else None

    def _handed_off(self, fn: FunctionFacts, call: CallFact) -> set[str]:
        """The functions a call outside the analysed code is handed to run
        (``loop.run_in_executor(None, partial(self.step, s))``, ``Thread(target=
        self.loop)``, ``executor.submit(self.step, batch)``): it may call them. Not
        what a container keeps (``hooks.append(self.step)``, ``dict(a=f)``) nor a
        ``functools.partial`` being made: those run later, where they are called."""
        func = call.func
        name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else ""
        if name in _KEEPERS:
            return set()
        out: set[str] = set()
        for arg in (*call.args, *(v for _, v in call.kwargs)):
            if arg[0] in ("name", "attr", "lambda") or (arg[0] == "call" and arg[2]):
                found = self.model.callables_of(fn, arg)
                out.update(t for t in found if not t.endswith(".__init__"))
        return out

    def _edge(self, caller: str, target: str, call: CallFact) -> None:
        callees = self._edges[caller]
        sites = callees.get(target)
        if sites is not None:
            sites.append(call)
        else:
            callees[target] = [call]
            self._edges.setdefault(target, {})
            self._callers.setdefault(target, {})[caller] = None
        if target not in self._seen:
            self._seen.add(target)
            self._queue.append(target)

    def _bind(self, fn: FunctionFacts, call: CallFact, target: str) -> None:
        """Record functions passed as arguments (not called) for ``target``'s parameters."""
        for param, refs in self._passed(fn, call, target):
            key = (target, param)
            for ref in refs:
                if ref in self._bound.setdefault(key, set()):
                    continue
                self._bound[key].add(ref)
                for site in self._param_calls.get(key, ()):
                    self._edge(target, ref, site)

    def _passed(
        self, fn: FunctionFacts, call: CallFact, target: str
    ) -> list[tuple[str, list[str]]]:
        """(parameter of ``target``, functions ``call`` passes for it by name)."""
        key = (id(call), target)
        found = self._passed_memo.get(key)
        if found is None or found[0] is not call:
            found = self._passed_memo[key] = (call, self._passed_now(fn, call, target))
        return found[1]

    def _passed_now(
        self, fn: FunctionFacts, call: CallFact, target: str
    ) -> list[tuple[str, list[str]]]:
        callee = self.model.functions[target]
        # only a parameter the callee calls (``get_batch()``) takes edges from what is
        # passed for it: resolving the other arguments as callables would be wasted
        called = _called_params(callee)
        if not called:
            return []
        out = []
        for param, arg in bind_arguments(callee, call.func, call.args, call.kwargs):
            if param in called and arg[0] in ("name", "attr", "lambda"):
                refs = [r for r in self.model.call_targets(fn, arg) if r in self.model.functions]
                out.append((param, refs))
        return out

    def _prefetch(self, callers: list[str]) -> None:
        """Resolve every call of ``callers`` and the functions they pass
        (:meth:`_bind`), loading missing modules in batches.

        Only warms the model's caches: the same lookups, run one by one, would
        load the same modules, one at a time.
        """
        model = self.model
        callers = [c for c in callers if c not in self._prefetched]
        self._prefetched.update(callers)
        calls = [
            (fn, call) for fn in map(model.functions.__getitem__, callers) for call in fn.calls
        ]
        model.batched(
            calls,
            lambda item: [
                self._passed(item[0], item[1], t) for t in model.call_targets(item[0], item[1].func)
            ],
        )

    def __len__(self) -> int:
        """The number of functions in the graph."""
        return len(self._edges)

    def __contains__(self, qual: object) -> bool:
        return qual in self._edges

    def callers(self, qual: str) -> list[str]:
        """The functions with a call site that reaches ``qual``, in the order found."""
        return list(self._callers.get(qual, ()))

    def sites(self, caller: str, callee: str) -> list[CallFact]:
        """The call sites in ``caller`` that reach ``callee`` (empty: no edge)."""
        return self._edges.get(caller, {}).get(callee, [])

    def to_networkx(self) -> nx.DiGraph:
        """The graph as a networkx ``DiGraph``: a node per function, an edge per
        caller and callee, with its call sites as the edge's ``sites``."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self._edges)
        for caller, callees in self._edges.items():
            for callee, sites in callees.items():
                graph.add_edge(caller, callee, sites=list(sites))
        return graph

    def roots_only(self, entries: list[str]) -> list[str]:
        """Entries no other entry reaches (the outermost loops); all of them when
        each is reached by another."""
        entry_set = set(entries)
        keep = [e for e in entries if not self.ancestors(e) & entry_set]
        return keep or entries

    def ancestors(self, qual: str) -> set[str]:
        """The functions with a path of calls to ``qual``, but ``qual`` itself (as
        networkx's ``ancestors``, even on a cycle)."""
        seen: set[str] = set()
        queue = deque([qual])
        while queue:
            for caller in self._callers.get(queue.popleft(), ()):
                if caller not in seen and caller != qual:
                    seen.add(caller)
                    queue.append(caller)
        return seen

    def reach(
        self,
        entries: list[str],
        allowed: EdgeFilter,
        member: tuple[str, int] | None = None,
        within: Mapping[str, frozenset[int]] | None = None,
    ) -> dict[str, tuple[str, CallFact] | None]:
        """Breadth-first reach over allowed call sites: node -> (caller, site).

        With ``member`` (variant, member), edges that only other members of that
        variant take (a class the variant picks) are not walked; with ``within``
        (variant -> the members the walk may have), nor are edges that only other
        members of one of those variants take.
        """
        parent: dict[str, tuple[str, CallFact] | None] = {
            e: None for e in entries if e in self._edges
        }
        out = self._successors()
        queue = deque(parent)
        while queue:
            caller = queue.popleft()
            fn, edges = out[caller]
            for callee, sites, when in edges:
                if callee in parent:
                    continue
                if when is not None:
                    if member is not None and when[0] == member[0] and member[1] not in when[1]:
                        continue
                    if within is not None and when[0] in within:
                        if not within[when[0]] & when[1]:
                            continue
                for site in sites:
                    if allowed(fn, site):
                        parent[callee] = (caller, site)
                        queue.append(callee)
                        break
        return parent

    def _successors(self) -> dict[str, tuple[FunctionFacts, list[Edge]]]:
        """Each function with its callees in order, their call sites and the variant
        members that take the edge (the graph is complete once built)."""
        if self._out is None:
            functions, when = self.model.functions, self.when
            self._out = {
                caller: (
                    functions[caller],
                    [
                        (callee, callees[callee], when.get((caller, callee)))
                        for callee in sorted(callees)
                    ],
                )
                for caller, callees in self._edges.items()
            }
        return self._out


def _read_events(fn: FunctionFacts) -> Iterable[tuple[Expr, Span, Guards]]:
    """The expressions ``fn`` evaluates, each with where and under which guards."""
    for bind in fn.binds:
        yield bind.value, bind.span, bind.guards
    for store in fn.stores:
        yield store.value, store.span, store.guards
    for call in fn.calls:
        yield (
            ("seq", (call.func[1] if call.func[0] == "attr" else call.func, *call.args)),
            (call.span),
            call.guards,
        )
        for _, value in call.kwargs:
            yield value, call.span, call.guards
    for ret in fn.returns:
        if ret.value is not None:
            yield ret.value, ret.span, ret.guards
    for grow in fn.grows:
        yield grow.value, grow.span, grow.guards
    for deref in fn.derefs:
        yield deref.obj, deref.span, deref.guards
    for cond, span, guards in fn.branches:
        yield cond, span, guards
    for test, span, guards in fn.asserts:
        yield test, span, guards


def _on_self(func: Expr) -> bool:
    """A call of a method on ``self`` (``self.name(...)``)."""
    return func[0] == "attr" and func[1] == ("name", "self")


def call_chain(
    parents: dict[str, tuple[str, CallFact] | None], node: str
) -> list[tuple[str, CallFact | None]]:
    """(function, call site in its caller) from the root of a :meth:`CallGraph.reach`
    result down to ``node``."""
    chain: list[tuple[str, CallFact | None]] = []
    current: str | None = node
    visited: set[str] = set()
    while current is not None and current not in visited:
        visited.add(current)
        link = parents[current]
        chain.append((current, link[1] if link else None))
        current = link[0] if link else None
    chain.reverse()
    return chain
