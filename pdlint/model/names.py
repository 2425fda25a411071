"""The program model: names resolved across modules, classes, types, call graph.

Built from the facts of indexed modules; never touches syntax trees.
Anything it cannot resolve is dropped (and counted for ``--verbose``).

Given a :class:`ModuleSource`, the model is *lazy*: it starts from the modules
it is given and loads the module a name lives in when a lookup needs it (any
``name in model.functions`` / ``classes`` / ``module_assigns``, any name
resolution), and, for "who inherits X", first loads the files whose class
headers can name X (a text scan). Its answers are those of a model built from
every file; only enumerations of ``functions``, ``classes`` and ``modules``
see just what is loaded, so code that enumerates must first load what it needs
(:meth:`Model.load_defining`, :meth:`Model.load_modules`, or a check's
``loading``; see :class:`pdlint.checks.base.Loading`).
"""

from __future__ import annotations

import contextlib
import types
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TypeVar

from pdlint.facts.exprs import nodes, substituted
from pdlint.facts.indexer import lambda_name, string_annotation_expr
from pdlint.facts.types import CallFact, ClassFacts, Expr, FunctionFacts, ModuleFacts
from pdlint.model.binding import (
    ORDINARY,
    Bound,
    HandedCall,
    Site,
    bind_arguments,
    bind_call,
    bind_signature,
    handed_calls,
    through_held,
)
from pdlint.model.registrations import class_registered_entries, registered_entries

# what the text of a module defining an enum names: its base (``enum.Enum``, ``IntEnum``,
# ``Flag``), however it is imported
_ENUM_WORDS = ("Enum", "Flag")
ENUM_BASES = {
    "enum.Enum",
    "enum.IntEnum",
    "enum.StrEnum",
    "enum.Flag",
    "enum.IntFlag",
    "enum.ReprEnum",
}
_OPTIONAL_NAMES = {"Optional", "typing.Optional"}
_UNION_NAMES = {"Union", "typing.Union"}
_LITERAL_NAMES = {"typing.Literal", "typing_extensions.Literal", "Literal"}
# how many unannotated parameters a value is followed up through, caller to caller
_PASS_HOPS = 3
# how many modules may build a class for its constructor's callers to be read in them all
_BUILDING_MODULES = 3
_NO_CLASSES: frozenset[str] = frozenset()
_DOTTED = ("name", "attr")
_SELF_NAMES = (("name", "self"), ("name", "cls"))
# the stores an attribute's classes are read from: what a call makes or returns,
# a name (a parameter, a local), an awaited value, another object's attribute when it
# holds a variant's member (a setting copied off a configuration: ``self.spec_mode =
# llm_args.spec_mode``; see _attribute_classes)
_STORED_VALUES = frozenset({"call", "name", "await", "ifexp", "or", "subscript", "attr"})
# container literals stored in an attribute: what its elements are read from
_CONTAINERS = frozenset({"dict", "seq", "comp"})
# what a property's returns are read as (an attribute it returns, too)
_RETURNED_VALUES = frozenset({*_STORED_VALUES, "attr", "subscript"})
# what a function returning a class object returns: a class or what holds one, a
# lookup in a table of classes (``return _DRAFTERS[name]``, ``_DRAFTERS.get(name)``)
_HELD_RETURNS = frozenset({"name", "attr", "subscript", "call", "ifexp"})
# ``self.attr.<adder>(value)`` adds ``value`` to the container ``self.attr``
_ADDERS = frozenset({"append", "appendleft", "add", "insert"})
# ``container.<taker>(...)`` returns one of its elements
_TAKERS = frozenset({"pop", "popleft", "get", "setdefault", "popitem"})
# builtins whose result holds the elements of their (last) argument
_SAME_ELEMENTS = frozenset(
    {"list", "tuple", "set", "frozenset", "sorted", "reversed", "iter", "filter"}
)
# methods whose result holds the elements (a mapping's values) of their receiver
_SAME_ELEMENT_METHODS = frozenset({"values", "copy"})
# container annotations whose first parameter is the elements' type
_SEQUENCES = frozenset(
    {
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "Iterable",
        "Iterator",
        "Collection",
        "set",
        "Set",
        "MutableSet",
        "AbstractSet",
        "frozenset",
        "FrozenSet",
        "deque",
        "Deque",
        "tuple",
        "Tuple",
        "Generator",
        "AsyncIterator",
        "AsyncIterable",
    }
)
_MAPPINGS = frozenset({"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"})
# decorators that make a method read as an attribute (the last name of the decorator)
PROPERTIES = frozenset({"property", "cached_property"})


def is_property(fn: FunctionFacts) -> bool:
    """Whether ``fn`` is read as an attribute (``@property``, ``@cached_property``)."""
    return any(d in PROPERTIES for d in fn.decorators)


def assigned_values(fn: FunctionFacts, name: str) -> list[Expr]:
    """The values assigned to the local ``name`` in ``fn`` (its annotations apart)."""
    return [v for n, v in fn.assigns if n == name and v[0] != "annotated"]


def _scoped(
    function: str, module: str, entry: tuple[Expr | None, Expr]
) -> tuple[Expr | None, Expr]:
    """An entry written in another scope, each part marked with that scope."""
    key, value = entry
    return (
        None if key is None else ("scoped", function, module, key),
        ("scoped", function, module, value),
    )


# the most entries a comprehension is expanded into (more: not read)
_MAX_COMPREHENSION = 256


def _paired(key: Expr, value: Expr) -> Expr:
    """The pair ``(key, value)`` an ``.items()`` gives, each part in its own scope."""
    if key[0] == "scoped" and value[0] == "scoped" and key[1:3] == value[1:3]:
        return ("scoped", key[1], key[2], ("seq", (key[3], value[3])))
    return ("seq", (key, value))


def _bind_target(target: Expr, element: Expr, bound: dict[str, Expr]) -> bool:
    """Bind a ``for`` target (a name, or a tuple of them) to an element; False when
    the element does not unpack into it."""
    if target[0] == "name":
        bound[target[1]] = element
        return True
    if target[0] == "seq" and element[0] == "seq" and len(target[1]) == len(element[1]):
        return all(_bind_target(t, e, bound) for t, e in zip(target[1], element[1], strict=True))
    return False


# type variable (qualified) -> (annotation it is bound to, its module, its function)
Bindings = dict[str, tuple[Expr, str, FunctionFacts | None]]


def _one(classes: frozenset[str]) -> str | None:
    return next(iter(classes)) if len(classes) == 1 else None


class ModuleSource(Protocol):
    """Where a lazy model gets modules from (:class:`pdlint.engine.program.Program`)."""

    def __contains__(self, module: str) -> bool: ...

    def load(self, modules: Iterable[str]) -> list[ModuleFacts]: ...

    def defining(self, pieces: Iterable[str], *, ignore_case: bool = False) -> list[str]: ...

    def class_headers_naming(self, words: set[str]) -> list[str]: ...

    def with_text(
        self,
        *,
        gate: tuple[tuple[str, ...], ...] = (),
        any_of: Iterable[str] = (),
        all_of: tuple[tuple[str, ...], ...] = (),
        starts: Iterable[str] = (),
        branches: tuple[Iterable[str], Iterable[str]] = ((), ()),
        record: bool = True,
    ) -> list[str]: ...

    def aliases(self) -> dict[str, set[str]]: ...

    def source_text(self, module: str) -> str | None: ...


class PendingModules(Exception):
    """A lookup needs these modules loaded (raised only while deferring)."""

    def __init__(self, modules: list[str]) -> None:
        super().__init__(modules)
        self.modules = modules


V = TypeVar("V")
T = TypeVar("T")
K = TypeVar("K")


class Table(Protocol[V]):
    """What the analysis asks of a table keyed by qualified name (a ``dict`` or a
    :class:`LazyTable`).

    The model's tables are annotated with this protocol, not ``dict``: compiled
    with mypyc, code handling a ``dict`` calls ``dict``'s own operations (``in``
    as ``PyDict_Contains``), which would skip :class:`LazyTable`'s loading; a
    protocol is called through its methods.
    """

    def __contains__(self, key: object, /) -> bool: ...

    def __getitem__(self, key: str, /) -> V: ...

    def __setitem__(self, key: str, value: V, /) -> None: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[str]: ...

    def get(self, key: str, default: V | None = None, /) -> V | None: ...

    def keys(self) -> Iterable[str]: ...

    def values(self) -> Iterable[V]: ...

    def items(self) -> Iterable[tuple[str, V]]: ...


class LazyTable(dict[str, V]):
    """A table keyed by qualified name that loads the module of a missing key.

    Lookups (``in``, ``[]``, ``get``) see the whole program; iteration sees
    what is loaded.
    """

    def __init__(self, load: Callable[[str], bool]) -> None:
        super().__init__()
        # weak: the owner holds the table, and a cycle would keep every fact
        # alive until the garbage collector runs. A method of a class compiled
        # with mypyc is no bound method and its object takes no weak reference:
        # held as it is (the cycle is the collector's).
        self._load_ref: Callable[[], Callable[[str], bool] | None]
        if isinstance(load, types.MethodType):
            self._load_ref = weakref.WeakMethod(load)
        else:
            self._load_ref = lambda: load
        self._absent: set[str] = set()  # keys whose modules are all loaded: not coming

    def _load(self, key: str) -> bool:
        if key in self._absent:
            return False
        load = self._load_ref()
        if load is not None and load(key) and dict.__contains__(self, key):
            return True
        self._absent.add(key)
        return False

    def __missing__(self, key: str) -> V:
        if self._load(key):
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return isinstance(key, str) and key not in self._absent and self._load(key)

    def get(self, key: str, default: V | None = None) -> V | None:  # type: ignore[override]
        if dict.__contains__(self, key) or self._load(key):
            return dict.__getitem__(self, key)
        return default

    # Iteration works on a snapshot: a lookup made while iterating may load more.
    def __iter__(self) -> Iterator[str]:
        return iter(list(dict.keys(self)))

    def keys(self) -> list[str]:  # type: ignore[override]
        return list(dict.keys(self))

    def values(self) -> list[V]:  # type: ignore[override]
        return list(dict.values(self))

    def items(self) -> list[tuple[str, V]]:  # type: ignore[override]
        return list(dict.items(self))


def holds(table: Table[V], key: str) -> bool:
    """Whether ``key`` is in ``table`` now, without loading anything."""
    return dict.__contains__(table, key)  # type: ignore[operator]


def held(table: Table[V]) -> Iterable[V]:
    """The values ``table`` holds now: a live view, not a snapshot."""
    return dict.values(table)  # type: ignore[arg-type]


class Model:
    """Symbols of the analysed program and how names and calls resolve."""

    def __init__(
        self,
        modules: Iterable[ModuleFacts],
        source: ModuleSource | None = None,
        texts: ModuleSource | None = None,
    ) -> None:
        """``source``: where a lazy model loads modules from. ``texts``: what an eager
        model asks the text queries whose answer decides something, so that it decides
        as a lazy model of the same program does (a lazy model asks its source)."""
        self.source = source
        self.texts = source if source is not None else texts
        self.modules: dict[str, ModuleFacts] = {}
        self.functions: Table[FunctionFacts] = LazyTable(self._load_for)
        self.function_module: dict[str, str] = {}
        self.classes: Table[ClassFacts] = LazyTable(self._load_for)
        self.class_module: dict[str, str] = {}
        self.symbols: dict[str, dict[str, str]] = {}
        self.module_assigns: Table[Expr] = LazyTable(self._load_for)
        self.stats: Counter[str] = Counter()
        self._bases: dict[str, tuple[str, ...]] = {}
        self._mro: dict[str, tuple[str, ...]] = {}
        self.subclasses: dict[str, set[str]] = {}
        self._attr_types: dict[str, dict[str, list[Expr]]] = {}
        self._attr_elements: dict[str, dict[str, list[Expr]]] = {}
        self._self_stores: dict[str, dict[str, list[tuple[FunctionFacts, Expr]]]] = {}
        self._calls_named: dict[str, dict[str, list[tuple[FunctionFacts, CallFact]]]] = {}
        # (class, method or "") -> the modules that may build it (and call the method)
        self._building: dict[tuple[str, str, bool], list[str]] = {}
        self._building_text: dict[str, list[str]] = {}  # see _building_candidates
        self._handed_named: dict[str, dict[str, list[tuple[FunctionFacts, HandedCall]]]] = {}
        self._held_named: dict[str, dict[str, list[tuple[FunctionFacts, Site]]]] = {}
        self._passed_cache: dict[tuple[str, str], frozenset[str]] = {}
        self._arguments_cache: dict[tuple[str, str], list[tuple[FunctionFacts, Expr]]] = {}
        self._sites_cache: dict[str, list[tuple[FunctionFacts, Site]]] = {}  # see _call_sites
        self._in_progress: set[tuple[str, str, str]] = set()
        self._passing = 0  # parameters being resolved from their callers (see passed_classes)
        self.methods_of: dict[str, list[FunctionFacts]] = {}
        self._call_cache: dict[tuple[str, int], tuple[str, ...]] = {}
        self._canonical: dict[str, str] = {}
        self._type_depth = 0
        # how many answers were cut short (a depth bound, a cycle): a result that
        # depended on one is not kept, as it depends on where it was first asked
        self._cuts = 0
        self._resolving = 0  # calls being resolved (see _at_top)
        self._types_cache: dict[tuple[str, int], tuple[Expr, frozenset[str]]] = {}
        # (function or "", module, id of an expression) -> (it, callables_of's answer)
        self._callables_cache: dict[tuple[str, str, int], tuple[Expr, tuple[str, ...]]] = {}
        self._elements_cache: dict[tuple[str, int], tuple[Expr, frozenset[str]]] = {}
        self._type_param_cache: dict[str, tuple[str, ...]] = {}
        self._stored_cache: dict[str, dict[str, tuple[str, ...]]] = {}  # constructors
        self._probed: set[str] = set()
        self._attempted: set[str] = set()  # modules asked of the source (loaded or not)
        self._deferring = False
        self._subclasses_known: set[str] = set()
        self._base_names: dict[str, set[str]] = {}  # a name in a base expression -> classes
        self._aliases: dict[str, set[str]] | None = None
        self._registered: dict[str, list[tuple[Expr | None, Expr]]] = {}
        self._enum_texts: frozenset[str] | None = None  # see may_be_enum
        self._enum_names: dict[str, bool] = {}
        for facts in modules:
            self._add(facts)
        if source is None:
            for cls in list(self.classes):
                for base in self.bases(cls):
                    self.subclasses.setdefault(base, set()).add(cls)

    # loading ----------------------------------------------------------------
    def _load_for(self, qualname: str) -> bool:
        """Load the modules ``qualname`` may live in (each prefix that is a module)."""
        if self.source is None or qualname in self._probed:
            return False
        cut = len(qualname)
        loaded = False
        while cut > 0:
            if (
                holds(self.functions, qualname)
                or holds(self.classes, qualname)
                or holds(self.module_assigns, qualname)
            ):
                break
            prefix = qualname[:cut]
            if self._loadable(prefix):
                self._need([prefix])
                loaded = True
            cut = qualname.rfind(".", 0, cut)
        self._probed.add(qualname)
        return loaded

    def _loadable(self, module: str) -> bool:
        return (
            self.source is not None
            and module not in self.modules
            and module not in self._attempted
            and module in self.source
        )

    def _need(self, modules: list[str]) -> None:
        """Load ``modules`` now, or, while deferring, ask the caller to (in a batch)."""
        if self._deferring:
            raise PendingModules(modules)
        self.load_modules(modules)

    @contextlib.contextmanager
    def deferring(self) -> Iterator[None]:
        """Within this block a lookup that needs an unloaded module raises
        :class:`PendingModules` instead of loading it, so that a caller can
        collect the modules a batch of lookups needs and load them together."""
        before = self._deferring
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = before

    def batched(self, items: Sequence[T], work: Callable[[T], V]) -> list[V]:
        """``work(item)`` for each item, in order, loading in batches.

        In a lazy model each round runs the items not done yet while deferring,
        then loads every module they asked for at once (in parallel when it
        pays), instead of one module per lookup. ``work`` must be a lookup: safe
        to run again after :class:`PendingModules` cut it short.
        """
        results: dict[int, V] = {}
        todo = list(range(len(items)))
        while todo:
            pending: list[str] = []
            retry = []
            with self.deferring():
                for i in todo:
                    try:
                        results[i] = work(items[i])
                    except PendingModules as exc:
                        pending.extend(exc.modules)
                        retry.append(i)
            # each round tries at least one module it never tried: a module is
            # pending only while loadable, and loading it makes it tried
            self.load_modules(pending)
            todo = retry
        return [results[i] for i in range(len(items))]

    def has_module(self, module: str) -> bool:
        """Whether ``module`` is part of the program (loading it if needed)."""
        if module in self.modules:
            return True
        if self._loadable(module):
            self._need([module])
        return module in self.modules

    def load_modules(self, modules: Iterable[str]) -> None:
        """Load these modules now (in one batch, so in parallel when it pays)."""
        if self.source is None:
            return
        wanted = [m for m in dict.fromkeys(modules) if self._loadable(m)]
        for facts in self.source.load(wanted):
            self._add(facts)
        self._attempted.update(wanted)

    def load_defining(self, pieces: Iterable[str], *, ignore_case: bool = False) -> list[str]:
        """Load every module that may define a qualified name holding all ``pieces``.

        Returns the modules to search: those, or every module of an eager model.
        Call before enumerating functions by name (entry points, validators).
        """
        if self.source is None:
            return list(self.modules)
        found = self.source.defining(pieces, ignore_case=ignore_case)
        self.load_modules(found)
        return [m for m in found if m in self.modules]

    def modules_building(self, cls: str, calling: str = "", *, factory: bool = False) -> list[str]:
        """The modules that may build the class ``cls`` by its name, loaded, when they
        are few (at most :data:`_BUILDING_MODULES`; else none): those inside its top
        package or naming that package (an import of it) whose text holds ``Name(`` (as
        formatted code writes a call). A class built in many modules is a component
        whose constructor's arguments are not what a request carries, and loading every
        module that builds it would make a lazy run parse most of the program. The
        count is of the text's matches in a lazy and an eager run alike (a superset of
        the calls), so both read the same callers; a model with no text (the call
        graph's, of a whole program) counts the calls in its facts. With ``calling``
        (a method's name), those of them that call a method of that name or hand it
        over (a loaded module by its facts, another by its text: ``.calling``), where
        an instance built is held and called (``self.acceptor = Acceptor(...)`` then
        ``self.acceptor.accept(batch)``, ``pool.submit(self.acceptor.accept, b)``): no
        module is loaded that would not be loaded for the constructor's callers. With
        ``factory``, those calling ``calling`` on the class by its name instead
        (``Batch.init_new(...)``, a factory classmethod)."""
        key = (cls, calling, factory)
        found = self._building.get(key)
        if found is not None:
            return found
        found = self._building_candidates(cls, calling if factory else "")
        if calling and not factory:
            word = f".{calling}"
            texts = self.texts
            found = [
                m
                for m in found
                if any(
                    calling in table
                    for table in (
                        self.module_calls_named(m),
                        self._module_handed_calls(m),
                        self._module_held_calls(m),
                    )
                )
                or (
                    m not in self.modules
                    and texts is not None
                    and word in (texts.source_text(m) or "")
                )
            ]
        missing = [m for m in found if self._loadable(m)]
        if missing:
            self._need(missing)
        found = self._building[key] = [m for m in found if m in self.modules]
        return found

    def _building_candidates(self, cls: str, method: str = "") -> list[str]:
        """The modules :meth:`modules_building` reads for ``cls``, by their text (or
        their facts), loaded or not; with ``method``, those calling it on the class by
        its name instead (``Batch.init_new(...)``, a factory classmethod)."""
        key = f"{cls}:{method}"
        found = self._building_text.get(key)
        if found is not None:
            return found
        name = cls.rsplit(".", 1)[-1]
        top = self.class_module.get(cls, cls).split(".", 1)[0]
        if self.texts is None:
            found = [
                m
                for m, facts in self.modules.items()
                if any(
                    not method or (c.func[0] == "attr" and c.func[1][-1] == name)
                    for _, c in self.module_calls_named(m).get(method or name, ())
                )
                and (m.split(".", 1)[0] == top or _imports_from(facts, top))
            ]
        else:
            word = f"{name}.{method}(" if method else f"{name}("
            calling = self.texts.with_text(all_of=((word,),))
            found = [m for m in calling if m.split(".", 1)[0] == top]
            if len(found) < len(calling):  # outside its package, where it is imported
                naming = self.texts.with_text(all_of=((word, top),))
                found = sorted({*found, *naming})
        if len(found) > _BUILDING_MODULES:
            found = []
        self._building_text[key] = found
        return found

    def load_text(
        self,
        *,
        gate: tuple[tuple[str, ...], ...] = (),
        any_of: Iterable[str] = (),
        all_of: tuple[tuple[str, ...], ...] = (),
        starts: Iterable[str] = (),
        branches: tuple[Iterable[str], Iterable[str]] = ((), ()),
    ) -> None:
        """Load every module whose text passes a check's query (see ``with_text``);
        nothing to do in an eager model or for an empty query."""
        any_of, starts = tuple(any_of), tuple(starts)
        if self.source is not None and (gate or any_of or all_of or starts):
            found = self.source.with_text(
                gate=gate, any_of=any_of, all_of=all_of, starts=starts, branches=branches
            )
            self.load_modules(found)

    def _add(self, facts: ModuleFacts) -> None:
        mod = facts.module
        if mod in self.modules:
            self.stats["duplicate module names"] += 1
            return
        self.modules[mod] = facts
        table: dict[str, str] = {}
        for local, target in facts.imports:
            table[local] = target
        for name, value, _span in facts.assigns:
            table.setdefault(name, f"{mod}.{name}")
            self.module_assigns[f"{mod}.{name}"] = value
        for cls in facts.classes:
            self.classes[cls.qualname] = cls
            self.class_module[cls.qualname] = mod
            if cls.qualname.count(".") == mod.count(".") + 1:
                table[cls.name] = cls.qualname
            for base in cls.bases:
                for name in _names_in(base):
                    self._base_names.setdefault(name, set()).add(cls.qualname)
        for fn in facts.functions:
            self.functions[fn.qualname] = fn
            self.function_module[fn.qualname] = mod
            if fn.qualname.count(".") == mod.count(".") + 1:
                table[fn.name] = fn.qualname
            if fn.cls is not None:
                self.methods_of.setdefault(fn.cls, []).append(fn)
        self.symbols[mod] = table

    # names ------------------------------------------------------------------
    def canonical(self, qualname: str, depth: int = 0) -> str:
        """Follow re-exports until ``qualname`` names a definition (or give up).

        The modules it reads are loaded as it goes, so an answer never changes.
        """
        if depth == 0:
            found = self._canonical.get(qualname)
            if found is None:
                found = self._canonical[qualname] = self._follow(qualname, 0)
            return found
        return self._follow(qualname, depth)

    def _follow(self, qualname: str, depth: int) -> str:
        if depth > 20 or qualname in self.functions or qualname in self.classes:
            return qualname
        if self.has_module(qualname) or qualname in self.module_assigns:
            return qualname
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:cut])
            if self.has_module(mod):
                rest = parts[cut:]
                target = self.symbols[mod].get(rest[0])
                if target is None or target == qualname:
                    return qualname
                resolved = self.canonical(target, depth + 1)
                if len(rest) == 1:
                    return resolved
                return self.canonical(".".join([resolved, *rest[1:]]), depth + 1)
        return qualname

    def resolve_name(self, fn: FunctionFacts | None, module: str, name: str) -> str | None:
        """Qualified name that ``name`` denotes inside ``fn`` (or at module level)."""
        scope = fn
        while scope is not None:
            for local, target in scope.local_defs:
                if local == name:
                    return target
            for local, target in scope.imports:
                if local == name:
                    return self.canonical(target)
            parent = scope.qualname.rsplit(".", 1)[0]
            scope = self.functions.get(parent)
        found = self.symbols.get(module, {}).get(name)
        if found is not None:
            return self.canonical(found)
        return None

    def is_builtin(self, fn: FunctionFacts | None, module: str, func: Expr, name: str) -> bool:
        """Whether ``func`` names the builtin ``name`` (``getattr``), not shadowed by a
        name of the module or the function."""
        return func == ("name", name) and self.resolve_name(fn, module, name) is None

    def resolve_dotted(self, fn: FunctionFacts | None, module: str, expr: Expr) -> str | None:
        """Qualified name of a ``name`` or ``attr`` chain, if it names a symbol."""
        if expr[0] == "name":
            return self.resolve_name(fn, module, expr[1])
        if expr[0] == "attr":
            base = self.resolve_dotted(fn, module, expr[1])
            if base is None:
                return None
            return self.canonical(f"{base}.{expr[2]}")
        return None

    # classes ----------------------------------------------------------------
    def bases(self, cls: str) -> tuple[str, ...]:
        """Qualified names of the direct bases of ``cls``."""
        if cls not in self._bases:
            facts = self.classes.get(cls)
            out: list[str] = []
            if facts is not None:
                module = self.class_module[cls]
                for base in facts.bases:
                    if base[0] == "subscript":
                        base = base[1]
                    resolved = self.resolve_dotted(None, module, base)
                    if resolved is not None:
                        out.append(resolved)
            self._bases[cls] = tuple(out)
        return self._bases[cls]

    def mro(self, cls: str) -> tuple[str, ...]:
        """``cls`` and its ancestors, depth-first left to right, no repeats."""
        if cls in self._mro:
            return self._mro[cls]
        self._mro[cls] = (cls,)  # cycle guard
        seen: list[str] = [cls]
        try:
            stack = list(reversed(self.bases(cls)))
            while stack and len(seen) < 500:
                base = stack.pop()
                if base in seen:
                    continue
                seen.append(base)
                stack.extend(reversed(self.bases(base)))
        except PendingModules:
            del self._mro[cls]
            raise
        self._mro[cls] = tuple(seen)
        return self._mro[cls]

    def direct_subclasses(self, cls: str) -> set[str]:
        """Classes that list ``cls`` among their bases.

        A lazy model first loads every file whose class headers name ``cls``
        (by its own name or an import alias of it): a class can only inherit
        ``cls`` through a name that reaches it.
        """
        if self.source is None or cls in self._subclasses_known:
            return self.subclasses.get(cls, set())
        if self._aliases is None:
            self._aliases = self.source.aliases()
        words = {cls.rsplit(".", 1)[-1]}
        stack = list(words)
        while stack:
            for alias in self._aliases.get(stack.pop(), ()):
                if alias not in words:
                    words.add(alias)
                    stack.append(alias)
        missing = [m for m in self.source.class_headers_naming(words) if self._loadable(m)]
        if missing:
            self._need(missing)
        candidates = sorted({c for w in words for c in self._base_names.get(w, ())})
        for candidate in candidates:
            if cls in self.bases(candidate):
                self.subclasses.setdefault(cls, set()).add(candidate)
        self._subclasses_known.add(cls)
        return self.subclasses.get(cls, set())

    def descendants(self, cls: str) -> list[str]:
        """Every class that inherits ``cls`` (directly or not), sorted."""
        out: set[str] = set()
        stack = [cls]
        while stack and len(out) < 5000:
            for sub in sorted(self.direct_subclasses(stack.pop())):
                if sub not in out:
                    out.add(sub)
                    stack.append(sub)
        return sorted(out)

    def may_share_instance(self, a: str, b: str) -> bool:
        """Whether one object can be an instance of both classes: one inherits the
        other, or a class inherits both (a mixin and the sibling base beside it)."""
        if a == b or a in self.mro(b) or b in self.mro(a):
            return True
        return any(b in self.mro(sub) for sub in self.descendants(a))

    def is_enum(self, cls: str) -> bool:
        return any(base in ENUM_BASES for base in self.mro(cls))

    def may_be_enum(self, name: str) -> bool:
        """Whether a class named ``name`` (its last name) may be an enum: a module that may
        define it names an enum base in its text. Read from the texts alone, before
        anything is resolved, so that a lazy model loads no module (nor its bases') to
        learn that a class it calls is no enum, and an eager one answers alike; True when
        the texts are not known."""
        if self.texts is None:
            return True
        if self._enum_texts is None:
            self._enum_texts = frozenset(self.texts.with_text(any_of=_ENUM_WORDS))
        found = self._enum_names.get(name)
        if found is None:
            found = not self._enum_texts.isdisjoint(self.texts.defining((name,)))
            self._enum_names[name] = found
        return found

    def lookup_method(self, cls: str, name: str) -> str | None:
        for klass in self.mro(cls):
            qual = f"{klass}.{name}"
            if qual in self.functions:
                return qual
        return None

    def methods_named(self, cls: str, name: str) -> tuple[str, ...]:
        """Targets of ``obj.name()`` for an object of class ``cls``.

        The method found over the MRO; if none (a mixin calling what the class
        that inherits it defines), the method in every subclass.
        """
        found = self.lookup_method(cls, name)
        if found is not None:
            return (found,)
        out = {m for sub in self.descendants(cls) if (m := self.lookup_method(sub, name))}
        return tuple(sorted(out))

    def self_methods_named(self, cls: str, name: str) -> tuple[str, ...]:
        """Targets of ``self.name()`` in a method of ``cls``: those of
        :meth:`methods_named`, and every override of the method in the classes that
        inherit ``cls`` (``self`` may be an instance of any of them: a base class's
        template method calls its subclasses' hooks)."""
        found = self.methods_named(cls, name)
        if len(found) != 1:
            return found
        overrides = {
            m
            for sub in self.descendants(cls)
            if (m := self.lookup_method(sub, name)) is not None and m != found[0]
        }
        return (found[0], *sorted(overrides))

    def attribute_types(self, cls: str) -> dict[str, list[Expr]]:
        """What the attributes of ``cls`` are declared or assigned as: annotations, and
        ``("value", value, method)`` for each value a method of ``cls`` stores in it; a
        property's return annotation and what it returns (a lazily made attribute)."""
        if cls in self._attr_types:
            return self._attr_types[cls]
        table: dict[str, list[Expr]] = {}
        facts = self.classes.get(cls)
        if facts is not None:
            for name, ann in facts.annotations:
                table.setdefault(name, []).append(ann)
            for fn in self.methods_of.get(cls, ()):
                for store in fn.stores:
                    tgt = store.target
                    if tgt[0] == "attr" and tgt[1] == ("name", "self"):
                        if store.annotation is not None:
                            table.setdefault(tgt[2], []).append(store.annotation)
                        value = store.value
                        if (
                            value[0] in _STORED_VALUES
                            or value[0] in _CONTAINERS
                            or self._enum_member(fn, value) is not None
                        ):
                            table.setdefault(tgt[2], []).append(("value", value, fn.qualname))
                if is_property(fn) and fn.params:
                    table.setdefault(fn.name, []).append(("property", fn.qualname))
        self._attr_types[cls] = table
        return table

    def attribute_elements(self, cls: str) -> dict[str, list[Expr]]:
        """What methods of ``cls`` add to its attributes: ``("value", value, method)``
        for each ``self.attr.append(value)`` (and ``appendleft``, ``add``, ``insert``)
        and ``self.attr[key] = value``."""
        if cls in self._attr_elements:
            return self._attr_elements[cls]
        table: dict[str, list[Expr]] = {}
        for fn in self.methods_of.get(cls, ()) if cls in self.classes else ():
            for call in fn.calls:
                func = call.func
                if (
                    func[0] == "attr"
                    and func[2] in _ADDERS
                    and func[1][0] == "attr"
                    and func[1][1] == ("name", "self")
                    and call.args
                ):
                    table.setdefault(func[1][2], []).append(("value", call.args[-1], fn.qualname))
            for held, _, value in fn.item_stores:  # ``self.by_rid[rid] = req``
                if held[0] == "attr" and held[1] == ("name", "self"):
                    table.setdefault(held[2], []).append(("value", value, fn.qualname))
        self._attr_elements[cls] = table
        return table

    def constructor_arguments(
        self, cls: str, args: Sequence[Expr], kwargs: Sequence[tuple[str, Expr]]
    ) -> tuple[tuple[str, Expr], ...]:
        """(field, argument) for each argument of ``cls(*args, **kwargs)``: bound to
        the ``__init__`` found over the MRO, each parameter named as the attributes
        it is stored in (``self.forward_mode = mode``, also through
        ``super().__init__(mode)``), else as itself; with no ``__init__`` (a
        dataclass, a named tuple: the constructor is generated), to the fields the
        classes annotate, bases first, in order."""
        init = self.lookup_method(cls, "__init__")
        if init is not None:
            pairs = bind_arguments(
                self.functions[init], ("name", cls), args, kwargs, skip_receiver_always=True
            )
            stored = self._stored_parameters(init, 0)
            return tuple(
                (field, arg) for param, arg in pairs for field in stored.get(param, (param,))
            )
        fields: dict[str, None] = {}
        for klass in reversed(self.mro(cls)):
            facts = self.classes.get(klass)
            if facts is not None:
                fields.update((name, None) for name, _ in facts.annotations)
        signature = [(name, ORDINARY) for name in fields]
        bound = bind_signature(signature, [(a, False) for a in args], list(kwargs))
        return tuple((b.param, b.arg) for b in bound)

    def _stored_parameters(self, init: str, depth: int) -> dict[str, tuple[str, ...]]:
        """Parameter of the constructor ``init`` -> the attributes of ``self`` it is
        stored in, by the constructor or by the base constructor it passes it to."""
        found = self._stored_cache.get(init)
        if found is not None:
            return found
        fn = self.functions[init]
        params = {p for p, _ in fn.params[1:]}
        out: dict[str, list[str]] = {}
        for store in fn.stores:
            target, value = store.target, store.value
            if target[0] == "attr" and target[1] == ("name", "self") and value[0] == "name":
                if value[1] in params:
                    out.setdefault(value[1], []).append(target[2])
        own = fn.cls
        for call in fn.calls if own is not None and depth < 8 else ():
            func = call.func
            if func[0] != "attr" or func[2] != "__init__":
                continue
            base = None
            if own is not None and func[1][0] == "call" and func[1][1] == ("name", "super"):
                above = [k for k in self.mro(own)[1:] if f"{k}.__init__" in self.functions]
                base = f"{above[0]}.__init__" if above else None
                args = call.args
            elif func[1][0] in _DOTTED and call.args and call.args[0] == ("name", "self"):
                owner = self.resolve_dotted(fn, self.module_of(fn), func[1])
                base = f"{owner}.__init__" if owner in self.classes else None
                args = call.args[1:]
            if base is None or base not in self.functions:
                continue
            inner = self._stored_parameters(base, depth + 1)
            for param, arg in bind_arguments(
                self.functions[base], func, args, call.kwargs, skip_receiver_always=True
            ):
                if arg[0] == "name" and arg[1] in params:
                    out.setdefault(arg[1], []).extend(inner.get(param, ()))
        result = {p: tuple(dict.fromkeys(a)) for p, a in out.items() if a}
        self._stored_cache[init] = result
        return result

    def attribute_aliases(self, cls: str | None, attr: str) -> frozenset[str]:
        """``attr`` and the names that read the same value on an object of ``cls``
        (or of a class inheriting it): a ``@property`` that returns ``self.attr``,
        and, for a property named ``attr``, the attribute it returns."""
        names = {attr}
        if cls is None:
            return frozenset(names)
        for klass in (*self.mro(cls), *self.descendants(cls)[:50]):
            for method in self.methods_of.get(klass, ()):
                if not is_property(method):
                    continue
                returned = {r.value for r in method.returns if r.value is not None}
                if len(returned) != 1:
                    continue
                (value,) = returned
                if value[0] != "attr" or value[1] != ("name", "self"):
                    continue
                if value[2] == attr:
                    names.add(method.name)
                elif method.name == attr:
                    names.add(value[2])
        return frozenset(names)

    # types ------------------------------------------------------------------
    def annotation_classes(
        self,
        ann: Expr | None,
        module: str,
        fn: FunctionFacts | None = None,
        bindings: Bindings | None = None,
    ) -> frozenset[str]:
        """The classes an annotation names: each part of a union (``X | Y``,
        ``Union``, ``Optional``) that is a class, or a generic class's own name; a
        type variable bound in ``bindings`` (see :meth:`type_bindings`) names what
        it is bound to."""
        if ann is None:
            return _NO_CLASSES
        kind = ann[0]
        if kind == "const" and isinstance(ann[1], str):
            return self.annotation_classes(string_annotation_expr(ann[1]), module, fn, bindings)
        if kind == "union":
            return self.annotation_classes(ann[1], module, fn, bindings) | self.annotation_classes(
                ann[2], module, fn, bindings
            )
        if kind == "subscript":
            head = self._annotation_head(ann, module, fn)
            if head == "Optional":
                return self.annotation_classes(ann[2], module, fn, bindings)
            if head == "Union":
                inner = ann[2][1] if ann[2][0] == "seq" else (ann[2],)
                return frozenset(
                    c for p in inner for c in self.annotation_classes(p, module, fn, bindings)
                )
            resolved = self.resolve_dotted(fn, module, ann[1]) if ann[1][0] in _DOTTED else None
            return frozenset((resolved,)) if resolved and resolved in self.classes else _NO_CLASSES
        if kind in _DOTTED:
            resolved = self.resolve_dotted(fn, module, ann)
            if resolved is not None and resolved in self.classes:
                return frozenset((resolved,))
            bound = bindings.get(resolved) if bindings and resolved is not None else None
            if bound is not None:
                return self.annotation_classes(bound[0], bound[1], bound[2])
        return _NO_CLASSES

    def annotation_class(
        self, ann: Expr | None, module: str, fn: FunctionFacts | None = None
    ) -> str | None:
        """The one class an annotation names (Optional and ``X | None`` unwrapped)."""
        return _one(self.annotation_classes(ann, module, fn))

    def _annotation_head(self, ann: Expr, module: str, fn: FunctionFacts | None) -> str:
        """``Optional``, ``Union``, or the last name of a subscripted annotation's head."""
        head = self.resolve_dotted(fn, module, ann[1]) if ann[1][0] in _DOTTED else None
        if head in _OPTIONAL_NAMES or ann[1] == ("name", "Optional"):
            return "Optional"
        if head in _UNION_NAMES or ann[1] == ("name", "Union"):
            return "Union"
        if ann[1][0] == "name":
            return str(ann[1][1])
        if ann[1][0] == "attr":
            return str(ann[1][2])
        return ""

    def element_annotation_classes(
        self,
        ann: Expr | None,
        module: str,
        fn: FunctionFacts | None = None,
        bindings: Bindings | None = None,
    ) -> frozenset[str]:
        """The classes of the elements of a container annotation (``list[T]``,
        ``Sequence[T]``, ``deque[T]``, ``tuple[T, ...]``, ``Optional[list[T]]``; a
        mapping's values for a subscript: ``dict[K, V]``)."""
        if ann is None:
            return _NO_CLASSES
        kind = ann[0]
        if kind == "const" and isinstance(ann[1], str):
            return self.element_annotation_classes(
                string_annotation_expr(ann[1]), module, fn, bindings
            )
        if kind == "union":
            return self.element_annotation_classes(
                ann[1], module, fn, bindings
            ) | self.element_annotation_classes(ann[2], module, fn, bindings)
        if kind != "subscript":
            return _NO_CLASSES
        head = self._annotation_head(ann, module, fn)
        params: tuple[Expr, ...] = ann[2][1] if ann[2][0] == "seq" else (ann[2],)
        if head in ("Optional", "Union"):
            return frozenset(
                c for p in params for c in self.element_annotation_classes(p, module, fn, bindings)
            )
        if head in _SEQUENCES and params:
            return self.annotation_classes(params[0], module, fn, bindings)
        if head in _MAPPINGS and len(params) == 2:
            return self.annotation_classes(params[1], module, fn, bindings)
        return _NO_CLASSES

    def module_of(self, fn: FunctionFacts) -> str:
        return self.function_module[fn.qualname]

    def self_class(self, fn: FunctionFacts) -> str | None:
        """The class ``self`` has in ``fn``: an annotation on it, else the enclosing class."""
        if fn.params and fn.params[0][0] in ("self", "cls") and fn.params[0][1] is not None:
            ann = self.annotation_class(fn.params[0][1], self.module_of(fn), fn)
            if ann is not None:
                return ann
        return fn.cls

    def type_of(self, fn: FunctionFacts, expr: Expr, depth: int = 0) -> str | None:
        """The class of the value of ``expr`` in ``fn``, when it is known to be one."""
        return _one(self.types_of(fn, expr, depth))

    def types_of(self, fn: FunctionFacts, expr: Expr, depth: int = 0) -> frozenset[str]:
        """The classes the value of ``expr`` in ``fn`` may be an instance of: the union
        over the values that reach it (assignments, returns, stores, annotations
        where no value is known); values it cannot tell add nothing."""
        return self._kept(
            self._types_cache,
            (fn.qualname, id(expr)),
            expr,
            depth > 8 or self._type_depth > 12,
            _NO_CLASSES,
            self._at_top(),
            lambda: self._nested_types_of(fn, expr, depth),
        )

    def _nested_types_of(self, fn: FunctionFacts, expr: Expr, depth: int) -> frozenset[str]:
        self._type_depth += 1
        try:
            return self._types_of(fn, expr, depth)
        finally:
            self._type_depth -= 1

    def _kept(
        self,
        cache: dict[K, tuple[Expr, T]],
        key: K,
        expr: Expr,
        deep: bool,
        cut: T,
        top: bool,
        find: Callable[[], T],
    ) -> T:
        """``find()``'s answer about ``expr``, kept under ``key`` (which holds the
        expression's id: the expression kept beside it tells a reused id) when it
        does not depend on where it was asked: at the ``top`` (no bound active), or
        no bound was hit.
        A kept answer serves at any depth; past the bound (``deep``) an answer not
        kept is ``cut``, and counted as cut short."""
        kept = cache.get(key)
        if kept is not None and kept[0] is expr:
            return kept[1]
        if deep:
            self._cuts += 1
            return cut
        cuts = self._cuts
        found = find()
        if top or self._cuts == cuts:
            cache[key] = (expr, found)
        return found

    def _at_top(self) -> bool:
        """No type or call is being resolved around this one: what it finds does not
        depend on where it was asked (no bound or cycle guard is active)."""
        return self._type_depth == 0 and not self._in_progress and not self._resolving

    def _types_of(self, fn: FunctionFacts, expr: Expr, depth: int) -> frozenset[str]:
        module = self.module_of(fn)
        kind = expr[0]
        if kind == "name":
            name = expr[1]
            if name in ("self", "cls") and fn.cls is not None:
                own = self.self_class(fn)
                return frozenset((own,)) if own else _NO_CLASSES
            for pname, ann in fn.params:
                if pname == name:
                    if ann is None:
                        passed = self.passed_classes(fn, name, depth)
                        return passed or self._injected_classes(fn, name)
                    return self.annotation_classes(ann, module, fn)
            out: set[str] = set()
            local = False
            for held, value in fn.assigns:
                if held == name and value != expr:
                    local = True
                    out.update(self.types_of(fn, value, depth + 1))
            if local:
                return frozenset(out)
            outer = self.closure_scope(fn, name)
            if outer is not None:  # a variable of the function ``fn`` is nested in
                return self.types_of(outer, expr, depth + 1)
            return self._constant_instances(fn, module, expr, depth)
        if kind == "annotated":
            return self.annotation_classes(expr[1], module, fn)
        if kind == "await":
            return self.types_of(fn, expr[1], depth + 1)
        if kind == "ifexp":
            return self.types_of(fn, expr[2], depth + 1) | self.types_of(fn, expr[3], depth + 1)
        if kind == "or":  # ``acceptor or Acceptor()``: either side
            return frozenset(c for value in expr[1] for c in self.types_of(fn, value, depth + 1))
        if kind == "attr":
            enum = self._enum_member(fn, expr)
            if enum is not None:  # ``ForwardMode.DECODE``
                return frozenset((enum,))
            found = frozenset(
                found
                for base in self.types_of(fn, expr[1], depth + 1)
                for found in self.attribute_classes(base, expr[2], depth)
            )
            return found or self._constant_instances(fn, module, expr, depth)
        if kind == "call":
            func = expr[1]
            if func == ("name", "cls") and fn.cls is not None:
                own = self.self_class(fn)
                return frozenset((own,)) if own else _NO_CLASSES
            args = expr[2]
            if (
                self.is_builtin(fn, module, func, "getattr")
                and len(args) == 2
                and args[0][0] in _DOTTED
            ):
                # ``getattr(Algo, name)``: a member, as ``Algo[name]``
                named = self.resolve_dotted(fn, module, args[0])
                if named is not None and named in self.classes and self.is_enum(named):
                    return frozenset((named,))
            resolved = self.resolve_dotted(fn, module, func) if func[0] in _DOTTED else None
            if resolved is not None and resolved in self.classes:
                return frozenset((resolved,))
            if resolved == "ray.get" and args:
                # the value an actor call's reference stands for (the call's result)
                return self.types_of(fn, args[0], depth + 1)
            made = self.held_classes(fn, func, depth + 1)
            if made:  # a class object held in a local, an attribute, a table
                return made
            found = frozenset(
                c
                for target in self.call_targets(fn, func)
                for c in self.return_classes(target, fn, func, depth)
            )
            if not found and func[0] == "attr" and func[2] in _TAKERS:
                # ``queue.popleft()``, ``table.get(key)``: an element of a container,
                # or the default given (``table.get(key, fallback)``)
                found = self.element_classes(fn, func[1], depth)
                if func[2] in ("get", "pop", "setdefault") and len(expr[2]) == 2:
                    found |= self.types_of(fn, expr[2][1], depth + 1)
            return found
        if kind == "subscript" and expr[1][0] in _DOTTED:
            table = expr[1]
            if table[0] == "attr" and table[2] == "__members__":
                table = table[1]  # ``Algo.__members__[name]``: as ``Algo[name]``
            named = self._class_named(fn, module, table)
            if named is not None and named in self.classes and self.is_enum(named):
                return frozenset((named,))  # ``Algo[name]``: a member
        if kind in ("elem", "subscript"):
            return self.element_classes(fn, expr[1], depth)
        if kind == "item":
            return self._item_classes(fn, expr[1], expr[2], depth)
        return _NO_CLASSES

    def _item_classes(self, fn: FunctionFacts, value: Expr, at: int, depth: int) -> frozenset[str]:
        """The classes of item ``at`` of a tuple ``value`` holds (``a, b = value``): of
        a literal, a local, a call's returned tuples or ``tuple[...]`` annotation."""
        if depth > 8:
            self._cuts += 1
            return _NO_CLASSES
        kind = value[0]
        if kind == "seq":
            parts = value[1]
            return self.types_of(fn, parts[at], depth + 1) if at < len(parts) else _NO_CLASSES
        if kind == "await":
            return self._item_classes(fn, value[1], at, depth + 1)
        if kind == "elem":  # an element of pairs: ``for i, x in enumerate(xs)``
            return self._paired_classes(fn, value[1], at, depth + 1)
        if kind == "attr":  # ``first, *rest = self.running``
            return frozenset(
                c
                for base in self.types_of(fn, value[1], depth + 1)
                for c in self.attribute_item_classes(base, value[2], at, depth)
            )
        if kind == "name" and not any(p == value[1] for p, _ in fn.params):
            return frozenset(
                c
                for local, held in fn.assigns
                if local == value[1] and held != value and held[0] != "annotated"
                for c in self._item_classes(fn, held, at, depth + 1)
            )
        if kind != "call":
            return _NO_CLASSES
        out: set[str] = set()
        for target in self.call_targets(fn, value[1]):
            callee = self.functions[target]
            where = self.module_of(callee)
            ann = callee.returns_annotation
            if ann is not None and ann[0] == "const" and isinstance(ann[1], str):
                ann = string_annotation_expr(ann[1])
            if ann is not None and ann[0] == "subscript":
                if self._annotation_head(ann, where, callee) in ("tuple", "Tuple"):
                    params = ann[2][1] if ann[2][0] == "seq" else (ann[2],)
                    if at < len(params) and params[-1] != ("const", Ellipsis):
                        out.update(self.annotation_classes(params[at], where, callee))
                    continue
            for ret in callee.returns:
                if ret.value is not None and ret.value[0] == "seq":
                    out.update(self._item_classes(callee, ret.value, at, depth + 1))
        return frozenset(out)

    def _paired_classes(
        self, fn: FunctionFacts, pairs: Expr, at: int, depth: int
    ) -> frozenset[str]:
        """The classes of item ``at`` of the tuples ``pairs`` gives: ``enumerate(xs)``
        (an element of ``xs`` second), ``zip(xs, ys)`` (an element of each in turn),
        ``d.items()`` (a value second)."""
        if pairs[0] != "call":
            return _NO_CLASSES
        source = self._element_source(fn, pairs)
        if source is not None:  # ``sorted(d.items())``: the pairs of its argument
            return self._paired_classes(fn, source, at, depth + 1) if depth < 8 else _NO_CLASSES
        func, args = pairs[1], pairs[2]
        if func[0] == "name" and func[1] in ("enumerate", "zip"):
            if self.resolve_name(fn, self.module_of(fn), func[1]) is not None:
                return _NO_CLASSES
            if func[1] == "enumerate":
                return self.element_classes(fn, args[0], depth) if at == 1 and args else _NO_CLASSES
            return self.element_classes(fn, args[at], depth) if at < len(args) else _NO_CLASSES
        if func[0] == "attr" and func[2] == "items" and not args and at == 1:
            return self.element_classes(fn, func[1], depth)
        return _NO_CLASSES

    def attribute_item_classes(self, cls: str, attr: str, at: int, depth: int) -> frozenset[str]:
        """The classes of item ``at`` of what ``obj.attr`` holds (``obj`` of class
        ``cls``) when unpacked: item ``at`` of the literals stored in it, the element
        type of its container annotations, and what is added to it."""
        out: set[str] = set()
        for klass in self.mro(cls):
            module = self.class_module.get(klass, "")
            for entry in self.attribute_types(klass).get(attr, ()):
                if entry[0] == "property":
                    continue
                if entry[0] != "value":
                    out.update(self.element_annotation_classes(entry, module))
                    continue
                where = self.functions.get(entry[2])
                if where is not None:
                    out.update(self._item_classes(where, entry[1], at, depth + 1))
            for entry in self.attribute_elements(klass).get(attr, ()):
                where = self.functions.get(entry[2])
                if where is not None:
                    out.update(self.types_of(where, entry[1], depth + 1))
        return frozenset(out)

    def element_classes(self, fn: FunctionFacts, expr: Expr, depth: int) -> frozenset[str]:
        """The classes of the elements of the container ``expr`` holds in ``fn``: from
        a literal's elements, a container annotation, or what is added to an attribute."""
        return self._kept(
            self._elements_cache,
            (fn.qualname, id(expr)),
            expr,
            depth > 8,
            _NO_CLASSES,
            self._at_top() and depth == 0,
            lambda: self._element_classes(fn, expr, depth),
        )

    def _element_classes(self, fn: FunctionFacts, expr: Expr, depth: int) -> frozenset[str]:
        module = self.module_of(fn)
        kind = expr[0]
        if kind in ("seq", "dict"):
            values = expr[1] if kind == "seq" else expr[2]
            return frozenset(c for e in values for c in self.types_of(fn, e, depth + 1))
        if kind == "ifexp":
            return self.element_classes(fn, expr[2], depth + 1) | self.element_classes(
                fn, expr[3], depth + 1
            )
        if kind == "or":  # ``pending or []``
            return frozenset(c for v in expr[1] for c in self.element_classes(fn, v, depth + 1))
        if kind == "comp":
            return self.types_of(fn, expr[2], depth + 1) if len(expr) > 2 else _NO_CLASSES
        if kind == "await":
            return self.element_classes(fn, expr[1], depth + 1)
        if kind == "call":
            found = self._returned_element_classes(fn, expr[1], depth)
            source = self._element_source(fn, expr)
            if not found and source is not None:
                return self.element_classes(fn, source, depth + 1)
            return found
        out: set[str] = set()
        if kind == "name":
            for pname, ann in fn.params:
                if pname == expr[1]:
                    return self.element_annotation_classes(ann, module, fn)
            local = False
            for name, value in fn.assigns:
                if name != expr[1] or value == expr:
                    continue
                local = True
                if value[0] == "annotated":
                    out.update(self.element_annotation_classes(value[1], module, fn))
                else:
                    out.update(self.element_classes(fn, value, depth + 1))
            if local:  # and what the function adds to it
                for held, _, value in fn.item_stores:  # ``table[key] = value``
                    if held == expr:
                        out.update(self.types_of(fn, value, depth + 1))
                for call in fn.calls:  # ``reqs.append(req)``
                    func = call.func
                    if func[0] == "attr" and func[2] in _ADDERS and func[1] == expr and call.args:
                        out.update(self.types_of(fn, call.args[-1], depth + 1))
                return frozenset(out)
            # a module-level table (``STRATEGIES[mode]``): what its entries hold
            for _, value in self.entries(fn, module, expr, depth + 1):
                out.update(self.instance_classes(fn, value, module, depth + 1))
            return frozenset(out)
        if kind == "attr":
            return frozenset(
                found
                for base in self.types_of(fn, expr[1], depth + 1)
                for found in self.attribute_element_classes(base, expr[2], depth)
            )
        return _NO_CLASSES

    def _returned_element_classes(
        self, fn: FunctionFacts, func: Expr, depth: int
    ) -> frozenset[str]:
        """The classes of the elements of what a call of ``func`` returns: its
        container annotation (``-> list[Batch]``, ``-> Iterator[Batch]``), else the
        containers it returns."""
        out: set[str] = set()
        for target in self.call_targets(fn, func):
            callee = self.functions[target]
            where = self.module_of(callee)
            bindings = self.call_bindings(fn, func, callee)
            declared = self.element_annotation_classes(
                callee.returns_annotation, where, callee, bindings
            )
            if declared:
                out.update(declared)
                continue
            if callee.yields:  # a generator: what it yields
                for value in callee.yields:
                    if value[0] == "elem":
                        out.update(self.element_classes(callee, value[1], depth + 1))
                    else:
                        out.update(self.types_of(callee, value, depth + 1))
                continue
            for ret in callee.returns:
                if ret.value is not None and ret.value != ("const", None):
                    out.update(self.element_classes(callee, ret.value, depth + 1))
        return frozenset(out)

    def _element_source(self, fn: FunctionFacts, call: Expr) -> Expr | None:
        """The container whose elements a builtin call's result holds (``sorted(x)``,
        ``list(x)``, ``filter(f, x)``, ``d.values()``, ``x.copy()``), else None; a
        name the analysed code defines is not the builtin."""
        func = call[1]
        if func[0] == "name" and func[1] in _SAME_ELEMENTS and call[2]:
            if self.resolve_name(fn, self.module_of(fn), func[1]) is None:
                return call[2][-1] if func[1] == "filter" else call[2][0]
        if func[0] == "attr" and func[2] in _SAME_ELEMENT_METHODS and not call[2]:
            return func[1]
        return None

    def call_bindings(
        self, caller: FunctionFacts, func: Expr, callee: FunctionFacts
    ) -> Bindings | None:
        """What the type variables of ``callee``'s generic class are bound to in a call
        ``receiver.method(...)`` (``pool.drain()`` with ``pool: Pool[Batch]``, or a
        receiver of a class deriving ``Pool[Batch]``); None when none is."""
        if func[0] != "attr" or callee.cls is None or not self._generic(callee.cls):
            return None
        return self.type_bindings(caller, func[1]) or None

    def type_bindings(self, fn: FunctionFacts, expr: Expr) -> Bindings:
        """The type variables bound for the value of ``expr`` in ``fn``: by its declared
        annotation (``Pool[Batch]``) and by the bases of its classes (``class
        BatchPool(Pool[Batch])``), through the bases of the generic classes in turn."""
        out: dict[str, tuple[Expr, str, FunctionFacts | None]] = {}
        declared = self._declared_annotation(fn, expr)
        if declared is not None:
            ann, module, where = declared
            if ann[0] == "subscript" and ann[1][0] in _DOTTED:
                head = self.resolve_dotted(where, module, ann[1])
                if head is not None and head in self.classes:
                    args = ann[2][1] if ann[2][0] == "seq" else (ann[2],)
                    out.update(self._bind_generic(head, [(a, module, where) for a in args], 0))
        for cls in sorted(self.types_of(fn, expr)):
            for key, value in self._bind_generic(cls, [], 0).items():
                out.setdefault(key, value)
        return out

    def _declared_annotation(
        self, fn: FunctionFacts, expr: Expr
    ) -> tuple[Expr, str, FunctionFacts | None] | None:
        """(annotation, its module, its function) ``expr`` is declared with: a
        parameter's, an annotated local's, an attribute's (in its class body or where a
        method stores it), Optional unwrapped."""
        found: tuple[Expr, str, FunctionFacts | None] | None = None
        module = self.module_of(fn)
        if expr[0] == "name":
            for pname, ann in fn.params:
                if pname == expr[1] and ann is not None:
                    found = (ann, module, fn)
            for name, value in fn.assigns if found is None else ():
                if name == expr[1] and value[0] == "annotated":
                    found = (value[1], module, fn)
        elif expr[0] == "attr":
            for cls in sorted(self.types_of(fn, expr[1])):
                for klass in self.mro(cls):
                    facts = self.classes.get(klass)
                    for name, ann in facts.annotations if facts is not None else ():
                        if name == expr[2] and found is None:
                            found = (ann, self.class_module[klass], None)
                    for method in self.methods_of.get(klass, ()):
                        for store in method.stores:
                            if (
                                found is None
                                and store.annotation is not None
                                and store.target == ("attr", ("name", "self"), expr[2])
                            ):
                                found = (store.annotation, self.module_of(method), method)
        if found is None:
            return None
        ann, module, where = found
        for _ in range(4):  # a string, Optional[...], X | None
            if ann[0] == "const" and isinstance(ann[1], str):
                parsed = string_annotation_expr(ann[1])
                if parsed is None:
                    return None
                ann = parsed
            elif ann[0] == "union":
                ann = ann[2] if ann[1] == ("const", None) else ann[1]
            elif ann[0] == "subscript" and self._annotation_head(ann, module, where) == "Optional":
                ann = ann[2]
            else:
                break
        return (ann, module, where)

    def _type_params(self, cls: str) -> tuple[str, ...]:
        """The type variables a generic class declares, in order: those of its
        ``Generic[...]`` (or ``Protocol[...]``) base, else those its bases name."""
        found = self._type_param_cache.get(cls)
        if found is not None:
            return found
        facts = self.classes.get(cls)
        module = self.class_module.get(cls, "")
        listed: list[str] = []
        declared: list[str] | None = None
        for base in facts.bases if facts is not None else ():
            if base[0] != "subscript":
                continue
            args = base[2][1] if base[2][0] == "seq" else (base[2],)
            names = [t for a in args if (t := self._type_variable(a, module)) is not None]
            head = self.resolve_dotted(None, module, base[1]) if base[1][0] in _DOTTED else None
            if head is not None and head.rsplit(".", 1)[-1] in ("Generic", "Protocol"):
                declared = names
            listed.extend(n for n in names if n not in listed)
        found = tuple(listed if declared is None else declared)
        self._type_param_cache[cls] = found
        return found

    def _type_variable(self, expr: Expr, module: str) -> str | None:
        """The qualified name of the type variable ``expr`` names (``T = TypeVar("T")``)."""
        if expr[0] not in _DOTTED:
            return None
        target = self.resolve_dotted(None, module, expr)
        value = self.module_assigns.get(target) if target is not None else None
        if value is None or value[0] != "call" or value[1][0] not in _DOTTED:
            return None
        made = value[1][1] if value[1][0] == "name" else value[1][2]
        return target if made == "TypeVar" else None

    def _generic(self, cls: str) -> bool:
        """Whether ``cls`` or a class it inherits declares type variables."""
        return any(self._type_params(klass) for klass in self.mro(cls))

    def _bind_generic(
        self, cls: str, args: list[tuple[Expr, str, FunctionFacts | None]], depth: int
    ) -> dict[str, tuple[Expr, str, FunctionFacts | None]]:
        """Type variable -> (annotation, module, function) for ``cls[args...]``, and for
        the generic bases it derives with arguments (``Pool[T]``, ``Pool[Batch]``)."""
        out = dict(zip(self._type_params(cls), args, strict=False))
        facts = self.classes.get(cls)
        if facts is None or depth > 8:
            return out
        module = self.class_module[cls]
        for base in facts.bases:
            if base[0] != "subscript" or base[1][0] not in _DOTTED:
                continue
            head = self.resolve_dotted(None, module, base[1])
            if head is None or head not in self.classes:
                continue
            given = base[2][1] if base[2][0] == "seq" else (base[2],)
            passed = []
            for arg in given:
                variable = self._type_variable(arg, module)
                bound = out.get(variable) if variable is not None else None
                passed.append(bound if bound is not None else (arg, module, None))
            for key, value in self._bind_generic(head, passed, depth + 1).items():
                out.setdefault(key, value)
        return out

    def _enum_member(self, fn: FunctionFacts, expr: Expr) -> str | None:
        """The enum ``expr`` names a member of (``ForwardMode.IDLE``, ``modes.Mode.IDLE``)."""
        if expr[0] != "attr" or expr[1][0] not in _DOTTED or expr[1] == ("name", "self"):
            return None
        if expr[1] != ("name", "cls") and any(expr[1] == ("name", p) for p, _ in fn.params):
            return None
        owner = self._class_named(fn, self.module_of(fn), expr[1])
        if owner is None or owner not in self.classes or not self.is_enum(owner):
            return None
        return owner

    def _class_named(self, fn: FunctionFacts, module: str, expr: Expr) -> str | None:
        """The class a dotted name names: ``cls`` in a classmethod (``cls[name]``,
        ``cls.NONE`` in an enum's factory) is its own class."""
        if expr == ("name", "cls"):
            return self.self_class(fn) if "classmethod" in fn.decorators else None
        return self.resolve_dotted(fn, module, expr)

    def closure_scope(self, fn: FunctionFacts, name: str) -> FunctionFacts | None:
        """The function enclosing ``fn`` (a nested function, a lambda) whose variable
        ``name`` is, when ``fn`` neither takes nor assigns it."""
        if any(p == name for p, _ in fn.params) or any(n == name for n, _ in fn.assigns):
            return None
        scope = self.functions.get(fn.qualname.rsplit(".", 1)[0])
        for _ in range(8):
            if scope is None:
                return None
            if any(p == name for p, _ in scope.params) or any(n == name for n, _ in scope.assigns):
                return scope
            scope = self.functions.get(scope.qualname.rsplit(".", 1)[0])
        return None

    def _constant_instances(
        self, fn: FunctionFacts, module: str, expr: Expr, depth: int
    ) -> frozenset[str]:
        """The classes of the object a module-level name holds (``ENGINE = Engine()``,
        read as ``ENGINE`` or ``engines.ENGINE``)."""
        target = self.resolve_dotted(fn, module, expr)
        if target is None or target in self.functions or target in self.classes:
            return _NO_CLASSES
        value = self.module_assigns.get(target)
        if value is None:
            return _NO_CLASSES
        return self.instance_classes(None, value, target.rsplit(".", 1)[0], depth + 1)

    def instance_classes(
        self, fn: FunctionFacts | None, expr: Expr, module: str = "", depth: int = 0
    ) -> frozenset[str]:
        """The classes the value of ``expr`` may be an instance of, read in ``fn``
        (None: at the top of ``module``), or in the scope that wrote it (a table's
        entry from :meth:`entries`)."""
        while expr[0] == "scoped":
            fn = self.functions.get(expr[1]) if expr[1] else None
            module, expr = expr[2], expr[3]
        if fn is not None:
            return self.types_of(fn, expr, depth)
        if expr[0] == "call":  # ``Strategy()`` at the top of a module
            return self.held_classes(None, expr[1], depth + 1, module)
        target = self.resolve_dotted(None, module, expr) if expr[0] in _DOTTED else None
        value = self.module_assigns.get(target) if target is not None else None
        if target is None or value is None or depth > 8:
            return _NO_CLASSES
        return self.instance_classes(None, value, target.rsplit(".", 1)[0], depth + 1)

    def attribute_classes(self, cls: str, attr: str, depth: int = 0) -> frozenset[str]:
        """The classes ``obj.attr`` may be for ``obj`` of class ``cls``: what the
        classes of its MRO store in it or declare it as; for a mixin that does not
        declare it, what the classes that inherit the mixin do."""
        key = (cls, attr, "")
        if key in self._in_progress:
            self._cuts += 1
            return _NO_CLASSES
        self._in_progress.add(key)
        try:
            found = self._attribute_classes(cls, attr, depth, self.attribute_types)
            if found:
                return found
            below = self.descendants(cls)[:50]
            return frozenset(
                c
                for sub in below
                for c in self._attribute_classes(sub, attr, depth, self.attribute_types)
            )
        finally:
            self._in_progress.discard(key)

    def attribute_class(self, cls: str, attr: str, depth: int = 0) -> str | None:
        """The one class ``obj.attr`` is for ``obj`` of class ``cls``, if it is one."""
        return _one(self.attribute_classes(cls, attr, depth))

    def attribute_element_classes(self, cls: str, attr: str, depth: int = 0) -> frozenset[str]:
        """The classes of the elements of the container ``obj.attr`` (``obj`` of class
        ``cls``): its container annotations, container values, and what is added to it."""
        key = (cls, attr, "elements")
        if key in self._in_progress:
            self._cuts += 1
            return _NO_CLASSES
        self._in_progress.add(key)
        try:
            out: set[str] = set()
            for klass in self.mro(cls):
                module = self.class_module.get(klass, "")
                for entry in self.attribute_types(klass).get(attr, ()):
                    if entry[0] == "property":
                        continue
                    if entry[0] != "value":
                        out.update(self.element_annotation_classes(entry, module))
                        continue
                    where = self.functions.get(entry[2])
                    if where is not None:
                        out.update(self.element_classes(where, entry[1], depth + 1))
                for entry in self.attribute_elements(klass).get(attr, ()):
                    where = self.functions.get(entry[2])
                    if where is not None:
                        out.update(self.types_of(where, entry[1], depth + 1))
            return frozenset(out)
        finally:
            self._in_progress.discard(key)

    def _attribute_classes(
        self,
        cls: str,
        attr: str,
        depth: int,
        table: Callable[[str], dict[str, list[Expr]]],
    ) -> frozenset[str]:
        out: set[str] = set()
        for klass in self.mro(cls):
            entries = table(klass).get(attr)
            if not entries:
                continue
            module = self.class_module[klass]
            for entry in entries:
                if entry[0] == "property":  # the first in the MRO is the one read
                    where = self.functions.get(entry[1])
                    return self._property_classes(cls, where, depth) if where else _NO_CLASSES
                if entry[0] == "value":
                    where = self.functions.get(entry[2])
                    if where is None:
                        continue
                    found = self.types_of(where, entry[1], depth + 1)
                    if entry[1][0] == "attr":
                        # a copy of another object's attribute: only a variant's value
                        # (``self.spec_mode = args.spec_mode``); a copied component
                        # would widen the call graph for what the checks rarely ask
                        found = frozenset(c for c in found if self.is_enum(c))
                    out.update(found)
                    continue
                out.update(self.annotation_classes(entry, module))
        return frozenset(out)

    def _property_classes(self, cls: str, prop: FunctionFacts, depth: int) -> frozenset[str]:
        """The classes a property of an object of class ``cls`` returns: what it returns,
        an attribute of ``self`` read on ``cls`` itself (a subclass may store a narrower
        class than the base that defines the property declares); else its annotation."""
        out: set[str] = set()
        for ret in prop.returns:
            value = ret.value
            if value is None or value[0] not in _RETURNED_VALUES:
                continue
            if value[0] == "attr" and value[1] in _SELF_NAMES and value[2] != prop.name:
                out.update(self.attribute_classes(cls, value[2], depth + 1))
            else:
                out.update(self.types_of(prop, value, depth + 1))
        if out:
            return frozenset(out)
        return self.annotation_classes(prop.returns_annotation, self.module_of(prop), prop)

    def return_classes(
        self, target: str, caller: FunctionFacts, func: Expr, depth: int
    ) -> frozenset[str]:
        """The classes a call of ``target`` (as ``func`` in ``caller``) returns."""
        fn = self.functions[target]
        if fn.name == "__init__" and fn.cls:
            return frozenset((fn.cls,))
        bindings = self.call_bindings(caller, func, fn)
        declared = self.annotation_classes(fn.returns_annotation, self.module_of(fn), fn, bindings)
        if declared:
            return declared
        # inferred from what it returns (factory classmethods: ``return cls(...)``)
        found = {
            c
            for r in fn.returns
            if r.value is not None and r.value != ("const", None)
            for c in self.types_of(fn, r.value, depth + 1)
        }
        if found and "classmethod" in fn.decorators and func[0] == "attr":
            receiver = self.resolve_dotted(caller, self.module_of(caller), func[1])
            if receiver is not None and receiver in self.classes:
                found = {receiver if c in self.mro(receiver) else c for c in found}
        return frozenset(found)

    # calls ------------------------------------------------------------------
    def call_targets(self, fn: FunctionFacts, func: Expr) -> tuple[str, ...]:
        """Functions a call of ``func`` inside ``fn`` may reach; () when unknown."""
        key = (fn.qualname, id(func))
        cached = self._call_cache.get(key)
        if cached is not None:
            return cached
        top, cuts = self._at_top(), self._cuts
        self._resolving += 1
        try:
            out = self._call_targets(fn, func)
        finally:
            self._resolving -= 1
        if top or self._cuts == cuts:
            self._call_cache[key] = out
        return out

    def constructed_class(self, fn: FunctionFacts, func: Expr) -> str | None:
        """The class a call of ``func`` in ``fn`` constructs when it names one: a class
        by its name, or ``cls(...)`` in a class's method (a factory classmethod)."""
        if (
            func == ("name", "cls")
            and fn.cls is not None
            and self.resolve_name(fn, "", "cls") is None
        ):
            return self.self_class(fn)
        if func[0] not in _DOTTED:
            return None
        named = self.resolve_dotted(fn, self.module_of(fn), func)
        return named if named is not None and named in self.classes else None

    def _call_targets(self, fn: FunctionFacts, func: Expr) -> tuple[str, ...]:
        module = self.module_of(fn)
        if func[0] == "name":
            target = self.resolve_name(fn, module, func[1])
            if target is None and func[1] == "cls":
                return self._callable(self.constructed_class(fn, func))
            if target is None:
                return self.callables_of(fn, func)  # a local holding a callable
            return self._callable(target)
        if func[0] in ("subscript", "lambda", "ifexp", "call"):
            return self.callables_of(fn, func)  # ``partial(f, x)(b)``: what it makes
        if func[0] != "attr":
            return ()
        receiver, meth = func[1], func[2]
        if meth == "remote":
            actor = self._actor_call(fn, module, receiver)
            if actor is not None:
                return actor
        if receiver[0] == "call" and receiver[1] == ("name", "super") and fn.cls:
            for klass in self.mro(fn.cls)[1:]:
                qual = f"{klass}.{meth}"
                if qual in self.functions:
                    return (qual,)
            return ()
        if receiver in (("name", "self"), ("name", "cls")) and fn.cls is not None:
            cls = self.self_class(fn)
            if not cls:
                return ()
            return self.self_methods_named(cls, meth) or self.attribute_callables(cls, meth)
        dotted = self.resolve_dotted(fn, module, func) if receiver[0] in ("name", "attr") else None
        if dotted is not None:
            found = self._callable(dotted)
            if found:
                return found
            owner = dotted.rsplit(".", 1)[0]
            if owner in self.classes:
                return self.methods_named(owner, meth)
        out: dict[str, None] = {}
        for cls in sorted(self.types_of(fn, receiver)):
            out.update(dict.fromkeys(self.methods_named(cls, meth)))
        return tuple(out)

    def _actor_call(self, fn: FunctionFacts, module: str, receiver: Expr) -> tuple[str, ...] | None:
        """What ``receiver.remote(...)`` calls when it is an actor call as Ray writes
        them (``@ray.remote`` classes, or a wrapper giving the same shape): a class of
        the program that defines no ``remote`` of its own, made remotely
        (``Actor.remote(args)``, ``Actor.options(...).remote(args)``: its constructor),
        or a method of such a class called remotely on an instance (``handle.step.
        remote(batch)``: a plain method has no ``remote``, so the call runs the method).
        None when it is no such call (a ``remote`` method of the program's own)."""
        if receiver[0] == "call" and receiver[1][0] == "attr" and receiver[1][2] == "options":
            receiver = receiver[1][1]
        if receiver[0] in _DOTTED:
            cls = self.resolve_dotted(fn, module, receiver)
            if cls is not None and cls in self.classes:
                if self.methods_named(cls, "remote"):
                    return None
                return self._callable(cls)
        if receiver[0] != "attr":
            return None
        out: dict[str, None] = {}
        for cls in sorted(self.types_of(fn, receiver[1])):
            if not self.methods_named(cls, "remote"):
                out.update(dict.fromkeys(self.methods_named(cls, receiver[2])))
        return tuple(out) or None

    def callables_of(
        self, fn: FunctionFacts | None, expr: Expr, depth: int = 0, module: str = ""
    ) -> tuple[str, ...]:
        """The functions the value of ``expr`` may be as a callable (not the result
        of a call), read in ``fn`` (None: at the top of ``module``): a function or
        class named, a bound method, a lambda, a ``functools.partial`` of one, a
        local, a constant or an attribute holding one, a value of a dict or an
        element of a sequence of them (``HANDLERS[mode]``), either side of ``a if c
        else b``."""
        module = self.module_of(fn) if fn is not None else module
        return self._kept(
            self._callables_cache,
            (fn.qualname if fn is not None else "", module, id(expr)),
            expr,
            depth > 6,
            (),
            self._at_top() and depth == 0,
            lambda: self._callables_of(fn, expr, depth, module),
        )

    def _callables_of(
        self, fn: FunctionFacts | None, expr: Expr, depth: int, module: str
    ) -> tuple[str, ...]:
        kind = expr[0]
        out: dict[str, None] = {}
        if kind == "scoped":  # a value written in another scope: (function or None, module)
            where = self.functions.get(expr[1]) if expr[1] else None
            return self.callables_of(where, expr[3], depth + 1, expr[2])
        if kind == "name":
            target = self.resolve_name(fn, module, expr[1])
            if target is not None:
                return self._callable(target) or self._constant_callables(target, depth)
            for local, value in fn.assigns if fn is not None else ():
                if local == expr[1] and value != expr:
                    out.update(dict.fromkeys(self.callables_of(fn, value, depth + 1)))
        elif kind == "attr":
            base = expr[1]
            if fn is not None and base in _SELF_NAMES and fn.cls is not None:
                cls = self.self_class(fn)
                if not cls:
                    return ()
                found = self.self_methods_named(cls, expr[2])
                return found or self.attribute_callables(cls, expr[2], depth)
            dotted = self.resolve_dotted(fn, module, expr) if base[0] in _DOTTED else None
            if dotted is not None:
                return self._callable(dotted) or self._constant_callables(dotted, depth)
            for cls in sorted(self.types_of(fn, base)) if fn is not None else ():
                out.update(dict.fromkeys(self.methods_named(cls, expr[2])))
        elif kind == "call":
            func = expr[1]
            called = self.resolve_dotted(fn, module, func) if func[0] in _DOTTED else None
            if expr[2] and (called == "functools.partial" or func == ("name", "partial")):
                return self.callables_of(fn, expr[2][0], depth + 1, module)
            args = expr[2]
            if (
                self.is_builtin(fn, module, func, "getattr")
                and 2 <= len(args) <= 3
                and args[1][0] == "const"
                and isinstance(args[1][1], str)
            ):
                # the builtin with a constant name: that attribute (or the default)
                for part in (("attr", args[0], args[1][1]), *args[2:]):
                    out.update(dict.fromkeys(self.callables_of(fn, part, depth + 1, module)))
                return tuple(out)
            if func[0] == "attr" and func[2] == "get" and 1 <= len(args) <= 2:
                # ``BUILDERS.get(mode)``: a value of the table, or the default
                table = ("subscript", func[1], args[0])
                for part in (table, *args[1:]):
                    out.update(dict.fromkeys(self.callables_of(fn, part, depth + 1, module)))
                if out:
                    return tuple(out)
            if fn is not None:
                out.update(dict.fromkeys(self._made_functions(fn, func, depth)))
        elif kind in ("subscript", "elem", "item"):
            for part in self._contained(fn, module, expr[1], depth):
                out.update(dict.fromkeys(self.callables_of(fn, part, depth + 1, module)))
        elif kind == "ifexp":
            for part in expr[2:]:
                out.update(dict.fromkeys(self.callables_of(fn, part, depth + 1, module)))
        elif kind == "lambda":  # indexed as a function of the scope that writes it
            qual = f"{fn.qualname if fn is not None else module}.{lambda_name(expr[1], expr[2])}"
            return (qual,) if qual in self.functions else ()
        return tuple(out)

    def _made_functions(self, fn: FunctionFacts, func: Expr, depth: int) -> list[str]:
        """The functions a call of ``func`` in ``fn`` returns that it defines itself
        (a nested function or a lambda: ``def make_picker(k): def pick(b): ...; return
        pick``)."""
        out: list[str] = []
        for target in self.callables_of(fn, func, depth + 1):
            for ret in self.functions[target].returns:
                if ret.value is not None and ret.value[0] in ("name", "lambda"):
                    found = self.callables_of(self.functions[target], ret.value, depth + 1)
                    out.extend(f for f in found if f.startswith(f"{target}."))
        return out

    def attribute_callables(self, cls: str, attr: str, depth: int = 0) -> tuple[str, ...]:
        """The functions ``obj.attr`` may be as a callable, for ``obj`` of class ``cls``:
        what the methods of its MRO store in it (``self._step = partial(self._run, k)``)."""
        out: dict[str, None] = {}
        for klass in self.mro(cls):
            for method, value in self._stores_on_self(klass).get(attr, ()):
                out.update(dict.fromkeys(self.callables_of(method, value, depth + 1)))
        return tuple(out)

    def passed_classes(self, fn: FunctionFacts, param: str, depth: int = 0) -> frozenset[str]:
        """The classes of what the callers of ``fn`` pass for its parameter ``param``
        (one with no annotation): the calls of ``fn`` by its name, on ``self``, on
        ``super()`` or on any receiver holding an instance of its class, and the calls
        of a local or an attribute holding it, written in its module and in the
        modules of its class's MRO (loaded with it, so the answer does not depend on
        what else is loaded), a constructor's also in the few modules that build its
        class and a method's, when none is written there, in those of them calling it
        (see :meth:`modules_building`), bound by the one binding helper; through a caller
        forwarding its own ``*args`` or ``**kwargs`` (``self.step(**options)``), what
        that caller's callers pass."""
        return self._passed_values(fn, ("param", param), depth)

    def _injected_classes(self, fn: FunctionFacts, param: str) -> frozenset[str]:
        """The class of a constructor's parameter (no annotation) that no analysed call
        passes, or that its callers only pass on from their own unannotated parameters:
        the object comes from code outside the analysed tree (a launcher making the
        server from its configuration), and is of the one class of the program
        defining every method called on it, by the constructor or, on the attribute
        the constructor keeps it in, by the methods of the class and its subclasses
        (``config.validate()``,
        ``self.mode.is_ngram()``). None, or several: unknown, as are methods defined
        in more than a few modules. The same holds of a parameter of a function no
        analysed code calls (an entry point a launcher runs, ``def
        run_disagg_decode(engine, handoffs)``), or whose callers only pass it on, by
        what it and the closures it makes use of it (a called name may be an attribute
        holding a callable)."""
        passed = self.passed_arguments(fn, ("param", param))
        if not all(_passed_on(caller, arg) for caller, arg in passed):
            return _NO_CLASSES
        if not passed and fn.name != "__init__" and self._call_sites(fn):
            return _NO_CLASSES  # called with nothing for it (``loop.call_soon(tally)``)
        key = (fn.qualname, f"injected:{param}")
        kept = self._passed_cache.get(key)
        if kept is not None:
            return kept
        # read by the function and by the closures it makes (``def handle(req): ...
        # worker.verify(req)``)
        readers = self._sharing(fn, param)
        on_param = ("name", param)
        called = {
            c.func[2]
            for r in readers
            for c in r.calls
            if c.func[0] == "attr" and c.func[1] == on_param
        }
        if fn.name == "__init__" and fn.cls is not None:
            called.update(self._methods_called_on(fn, fn.cls, param))
        # and the attributes read on it (``config.speculative_config``), where it has
        # them: a configuration object is mostly read, not called
        methods = sorted(called)
        attrs = sorted(set().union(*(_attributes_read(r, param) for r in readers)) - called)
        if not methods and not attrs:
            return _NO_CLASSES
        modules: set[str] | None = None
        for method in methods:  # a module defining them all defines each
            # (a name no module defines a function of is an attribute holding a
            # callable: ``worker.plain(req)``, ``self.plain = partial(...)``)
            found = set(self._modules_defining(method))
            if found:
                modules = found if modules is None else modules & found
        if modules is None and self.texts is not None:
            # read only: a module whose text names each, and declares one (``name:``,
            # ``name =``), as a class defining them all does
            names = [*methods, *attrs]
            declared = [f"{a}{s}" for a in names for s in (":", " =", "=")]
            modules = set(self.texts.with_text(any_of=declared, all_of=(tuple(names),)))
        candidates = sorted(modules) if modules is not None else sorted(self.modules)
        found_classes: frozenset[str] = _NO_CLASSES
        if len(candidates) <= _BUILDING_MODULES or modules is None:
            self.load_modules(candidates)
            defining = {
                cls.qualname
                for m in candidates
                if m in self.modules
                for cls in self.modules[m].classes
                if (
                    any(f"{cls.qualname}.{method}" in self.functions for method in methods)
                    or (not methods and any(self._declares(cls.qualname, a) for a in attrs))
                )
                and all(self._declares(cls.qualname, name) for name in (*methods, *attrs))
            }
            if len(defining) == 1:
                found_classes = frozenset(defining)
        self._passed_cache[key] = found_classes
        return found_classes

    def _sharing(self, fn: FunctionFacts, name: str) -> list[FunctionFacts]:
        """``fn`` and the functions nested in it (at any depth) whose ``name`` is the
        variable of ``fn`` (a closure's free variable)."""
        module = self.modules.get(self.module_of(fn))
        prefix = f"{fn.qualname}."
        nested = [
            f
            for f in (module.functions if module is not None else ())
            if f.qualname.startswith(prefix) and self.closure_scope(f, name) is fn
        ]
        return [fn, *nested]

    def _declares(self, cls: str, name: str) -> bool:
        """Whether a ``cls`` has the attribute ``name``: annotated or assigned in a class
        of its MRO, stored on ``self`` by a method, or a method or property."""
        for klass in self.mro(cls):
            facts = self.classes.get(klass)
            if facts is not None and (
                any(n == name for n, _ in facts.annotations)
                or any(n == name for n, _, _ in facts.assigns)
            ):
                return True
        return bool(self.attribute_stores(cls, name)) or self.lookup_method(cls, name) is not None

    def _methods_called_on(self, init: FunctionFacts, cls: str, param: str) -> list[str]:
        """The names of the methods called on a constructor's parameter: by the
        constructor, and on the attributes it keeps the parameter in by the methods of
        its class and of the subclasses."""
        on_param = ("name", param)
        names = {c.func[2] for c in init.calls if c.func[0] == "attr" and c.func[1] == on_param}
        kept_in = {
            s.target
            for s in init.stores
            if s.value == on_param and s.target[0] == "attr" and s.target[1] in _SELF_NAMES
        }
        if kept_in:
            for klass in (cls, *self.descendants(cls)):
                for method in self.methods_of.get(klass, ()):
                    names.update(
                        c.func[2]
                        for c in method.calls
                        if c.func[0] == "attr" and c.func[1] in kept_in
                    )
        return sorted(names)

    def _modules_defining(self, method: str) -> list[str]:
        """The modules that may define a method named ``method``: by their text when
        the model has it (so that a lazy and an eager model count the same), else by
        their facts."""
        if self.texts is not None:
            return self.texts.defining((method,))
        return sorted(
            {self.function_module[q] for q, f in self.functions.items() if f.name == method}
        )

    def _passed_values(
        self, fn: FunctionFacts, want: tuple[str, str], depth: int
    ) -> frozenset[str]:
        """The classes of what the callers of ``fn`` pass for ``want``: ``("param",
        name)``, ``("keyword", key)`` (a keyword its ``**kwargs`` takes) or ``("packed",
        index)`` (an element of its ``*args``)."""
        key = (fn.qualname, f"{want[0]}:{want[1]}")
        kept = self._passed_cache.get(key)
        if kept is not None:
            return kept
        guard = (*key, "passed")
        # a value handed down through unannotated parameters is followed a few hops up:
        # in a strongly connected call graph each hop multiplies the callers to ask,
        # and results cut short are not kept
        if guard in self._in_progress or depth > 8 or self._passing >= _PASS_HOPS:
            self._cuts += 1
            return _NO_CLASSES
        top, cuts = self._at_top(), self._cuts
        self._in_progress.add(guard)
        self._passing += 1
        out: set[str] = set()
        try:
            for caller, arg in self.passed_arguments(fn, want):
                if arg[0] != "forwarded":
                    out.update(self.types_of(caller, arg, depth + 1))
                elif isinstance(arg[1], int):
                    out.update(self._passed_values(caller, ("packed", str(arg[1])), depth + 1))
                else:
                    out.update(self._passed_values(caller, ("keyword", arg[1]), depth + 1))
        finally:
            self._in_progress.discard(guard)
            self._passing -= 1
        found = frozenset(out)
        if top or self._cuts == cuts:
            self._passed_cache[key] = found
        return found

    def passed_arguments(
        self, fn: FunctionFacts, want: tuple[str, str]
    ) -> list[tuple[FunctionFacts, Expr]]:
        """(caller, argument) for each call of ``fn`` passing ``want`` (see
        :meth:`_passed_values`), the callers found as :meth:`passed_classes` says; an
        argument a caller forwards from its own ``*args`` or ``**kwargs`` comes as
        ``("forwarded", index or keyword)``."""
        key = (fn.qualname, f"{want[0]}:{want[1]}")
        kept = self._arguments_cache.get(key)
        if kept is not None:
            return kept
        top, cuts = self._at_top(), self._cuts
        init = fn.name == "__init__" and fn.cls is not None
        # a keyword forwarded with ``**kwargs`` may fill it
        keyword = want[1] if want[0] in ("param", "keyword") else ""
        out: list[tuple[FunctionFacts, Expr]] = []
        for caller, site in self._call_sites(fn):
            args, kwargs = site.args, site.kwargs
            # the caller's own ``*args``/``**kwargs`` passed on: each position or
            # keyword they fill stands for the caller's callers' argument
            if isinstance(site, CallFact) and site.star is not None:
                if site.star == ("name", caller.var_params[0]) and caller.var_params[0]:
                    extra = len(fn.params) + (int(want[1]) + 1 if want[0] == "packed" else 0)
                    args = (*args, *(("forwarded", i) for i in range(extra)))
            if isinstance(site, CallFact) and site.double_star is not None and keyword:
                if (
                    site.double_star == ("name", caller.var_params[1])
                    and caller.var_params[1]
                    and all(k != keyword for k, _ in kwargs)
                ):
                    kwargs = (*kwargs, (keyword, ("forwarded", keyword)))
            packed = -1
            for bound in bind_call(fn, site.func, args, kwargs, skip_receiver_always=init):
                if bound.how == "packed":
                    packed += 1
                if _wanted(bound, want, fn.var_params, packed):
                    out.append((caller, bound.arg))
        if top or self._cuts == cuts:  # which calls are its own was not cut short
            self._arguments_cache[key] = out
        return out

    def _call_sites(self, fn: FunctionFacts) -> list[tuple[FunctionFacts, Site]]:
        """(caller, site) for each call of ``fn`` (or callable handed with arguments)
        found as :meth:`passed_classes` says."""
        kept = self._sites_cache.get(fn.qualname)
        if kept is not None:
            return kept
        top, cuts = self._at_top(), self._cuts
        sites = self._find_call_sites(fn)
        if top or self._cuts == cuts:  # which calls are its own was not cut short
            self._sites_cache[fn.qualname] = sites
        return sites

    def _find_call_sites(self, fn: FunctionFacts) -> list[tuple[FunctionFacts, Site]]:
        init = fn.name == "__init__" and fn.cls is not None
        name = fn.cls.rsplit(".", 1)[-1] if init and fn.cls is not None else fn.name
        modules = {self.module_of(fn)}
        if fn.cls is not None:
            modules.update(self.class_module[k] for k in self.mro(fn.cls) if k in self.class_module)
        if init and fn.cls is not None:  # a class is built where it is imported
            modules.update(self.modules_building(fn.cls))
        sites = [site for m in sorted(modules) for site in self._sites_in(m, name, fn)]
        if not sites and init and fn.cls is not None:
            sites = self._inherited_init_sites(fn, fn.cls)
        if init:  # ``cls(...)`` in a factory classmethod of the class or of a base
            sites += [site for m in sorted(modules) for site in self._sites_in(m, "cls", fn)]
        if not sites and fn.cls is None and "<" not in fn.qualname:
            # a module function its module never calls: a helper called where it is
            # imported (``spec_prepare(batch)`` in the batch's module), read in the
            # few modules whose text calls it by name, as a constructor's are
            sites = [
                site
                for m in self.modules_building(fn.qualname)
                if m not in modules
                for site in self._sites_in(m, name, fn)
            ]
        if (
            not sites
            and fn.cls is not None
            and {"classmethod", "staticmethod"} & set(fn.decorators)
        ):
            # a factory called on its class where the class is imported
            # (``Batch.init_new(reqs, algo)``), read as a constructor's callers are
            sites = [
                site
                for m in self.modules_building(fn.cls, fn.name, factory=True)
                if m not in modules
                for site in self._sites_in(m, name, fn)
            ]
        if not sites and fn.cls is not None and not init:
            # a method its class and bases never call is a component's, called where
            # an instance is held: ``self.acceptor = Acceptor(...)`` then
            # ``self.acceptor.accept(batch)`` (asked only then: a cold run pays a text
            # query for each class asked)
            sites = [
                site
                for m in self.modules_building(fn.cls, fn.name)
                if m not in modules
                for site in self._sites_in(m, name, fn)
            ]
        return sites

    def _inherited_init_sites(
        self, init: FunctionFacts, cls: str
    ) -> list[tuple[FunctionFacts, Site]]:
        """The constructions of the subclasses of ``cls`` that inherit its ``__init__``
        (``DecodeScheduler(...)`` with ``class DecodeScheduler(Scheduler): ...``), in
        their modules and the few building them (asked only when ``cls`` itself is
        built nowhere: finding the subclasses reads the class headers naming it)."""
        out: list[tuple[FunctionFacts, Site]] = []
        for sub in sorted(self.direct_subclasses(cls)):
            if self.lookup_method(sub, "__init__") != init.qualname:
                continue
            modules = {self.class_module[sub], *self.modules_building(sub)}
            name = sub.rsplit(".", 1)[-1]
            out.extend(site for m in sorted(modules) for site in self._sites_in(m, name, init))
        return out

    def _sites_in(
        self, module: str, name: str, fn: FunctionFacts
    ) -> list[tuple[FunctionFacts, Site]]:
        """The calls of ``fn`` (called ``name``) written in a loaded ``module``, the calls
        library code makes of it where it is handed over (``map(fn, xs)``,
        ``pool.submit(fn, x)``), and the calls of a local or an attribute holding it
        (``f = self.step; f(b)``), each with the function it is written in."""
        sites: list[tuple[FunctionFacts, Site]] = [
            (caller, call)
            for caller, call in self.module_calls_named(module).get(name, ())
            if self._may_call(caller, call.func, fn)
        ]
        sites.extend(
            (caller, handed)
            for caller, handed in self._module_handed_calls(module).get(name, ())
            if self._hands(caller, handed.func, fn)
        )
        sites.extend(
            (caller, held)
            for caller, held in self._module_held_calls(module).get(name, ())
            if (self._hands if isinstance(held, HandedCall) else self._may_call)(
                caller, held.func, fn
            )
        )
        return sites

    def _hands(self, caller: FunctionFacts, func: Expr, fn: FunctionFacts) -> bool:
        """Whether the callable ``func`` handed over in ``caller`` is ``fn`` itself (not
        a local holding it, which may be a partial with arguments of its own)."""
        if func[0] == "name":
            named = self.resolve_name(caller, self.module_of(caller), func[1])
            return named is not None and self._callable(named) == (fn.qualname,)
        return self._may_call(caller, func, fn)

    def _may_call(self, caller: FunctionFacts, func: Expr, fn: FunctionFacts) -> bool:
        """Whether ``func(...)`` in ``caller`` calls ``fn``: a name resolving to it, a
        lambda that is it, or a method of ``fn``'s name on ``self``, ``super()``, a
        class or any receiver whose value resolves to instances (``self.acceptor``
        holding an ``Acceptor``), of a class related to ``fn``'s by inheritance
        (without asking every override: that would load the modules of every subclass)."""
        if func[0] == "lambda":
            return fn.qualname == f"{caller.qualname}.{lambda_name(func[1], func[2])}"
        if func[0] == "name":
            return fn.qualname in self.call_targets(caller, func)
        if func[0] != "attr":
            return False
        if func[1][0] == "name":  # ``schedulers.Scheduler(...)``: a name in a module
            named = self.resolve_dotted(caller, self.module_of(caller), func)
            if named is not None and fn.qualname in self._callable(named):
                return True
        if fn.cls is None:
            return False
        base = func[1]
        own = None
        if base in _SELF_NAMES or (base[0] == "call" and base[1] == ("name", "super")):
            own = caller.cls  # ``self.m()``, ``super().m()``
        elif base[0] == "name":  # ``Worker.m(...)``
            own = self.resolve_dotted(caller, self.module_of(caller), base)
        if own is not None and own in self.classes:
            owners: Iterable[str] = (own,)
        elif base[0] in ("name", "attr"):
            owners = self.types_of(caller, base)
        elif base[0] == "call":  # ``Factory().make(...)``: only a class built on the spot
            made = self.constructed_class(caller, base[1])
            owners = (made,) if made is not None else ()
        else:
            return False
        return any(fn.cls in self.mro(k) or k in self.mro(fn.cls) for k in owners)

    def module_calls_named(self, module: str) -> dict[str, list[tuple[FunctionFacts, CallFact]]]:
        """The calls of a loaded module's functions, by the last name of what they call."""
        table = self._calls_named.get(module)
        if table is None:
            table = {}
            facts = self.modules.get(module)
            for fn in facts.functions if facts is not None else ():
                for call in fn.calls:
                    func = call.func
                    last = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else None
                    if isinstance(last, str):
                        table.setdefault(last, []).append((fn, call))
            if facts is not None:
                self._calls_named[module] = table
        return table

    def _module_handed_calls(
        self, module: str
    ) -> dict[str, list[tuple[FunctionFacts, HandedCall]]]:
        """The calls a loaded module's functions hand to library code to make
        (``map(f, xs)``, ``pool.submit(self.step, batch)``), by the last name of the
        callable handed (a lambda by its name); a bare name that the analysed code
        defines is not the library's (``map`` of its own)."""
        table = self._handed_named.get(module)
        if table is not None:
            return table
        table = {}
        facts = self.modules.get(module)
        for fn in facts.functions if facts is not None else ():
            for call in fn.calls:
                handed = handed_calls(call)
                if not handed:
                    continue
                if call.func[0] == "name":
                    own = self.resolve_name(fn, module, call.func[1])
                    if own is not None and (own in self.functions or own in self.classes):
                        continue
                for made in handed:
                    last = _last_name(made.func)
                    if last is not None:
                        table.setdefault(last, []).append((fn, made))
        if facts is not None:
            self._handed_named[module] = table
        return table

    def _module_held_calls(self, module: str) -> dict[str, list[tuple[FunctionFacts, Site]]]:
        """The calls a loaded module's functions make, or hand to library code to make,
        of a local or an attribute of ``self`` holding a callable (``f = self.step``
        then ``f(b)`` or ``map(f, xs)``; ``self._run = partial(self.step, k)`` in a
        method of its class), each as a call of what it holds (see
        :func:`through_held`), by the last name of that. A parameter holds what its
        callers pass, not read here."""
        table = self._held_named.get(module)
        if table is not None:
            return table
        table = {}
        sites: list[tuple[FunctionFacts, Site]] = [
            entry for entries in self.module_calls_named(module).values() for entry in entries
        ]
        sites.extend(
            entry for entries in self._module_handed_calls(module).values() for entry in entries
        )
        sites.extend(_calls_of_calls(self.modules.get(module)))
        for fn, site in sites:
            func = site.func
            if func[0] == "call":  # ``partial(self.step, k)(b)``: made and called on the spot
                held = [func]
            elif func[0] == "name" and all(p != func[1] for p, _ in fn.params):
                held = [v for n, v in fn.assigns if n == func[1] and v != func]
            elif func[0] == "attr" and func[1] == ("name", "self") and fn.cls is not None:
                held = [v for _, v in self._stores_on_self(fn.cls).get(func[2], ()) if v != func]
            else:
                continue
            for value in held:
                for made in through_held(site, value):
                    last = _last_name(made.func)
                    if last is not None:
                        table.setdefault(last, []).append((fn, made))
        if module in self.modules:
            self._held_named[module] = table
        return table

    def attribute_stores(self, cls: str, attr: str) -> list[tuple[FunctionFacts, Expr]]:
        """(method, value) of each ``self.attr = value`` in ``cls`` and its bases."""
        return [s for klass in self.mro(cls) for s in self._stores_on_self(klass).get(attr, ())]

    def _stores_on_self(self, cls: str) -> dict[str, list[tuple[FunctionFacts, Expr]]]:
        """Each ``self.attr = value`` of the methods of ``cls``, by attribute, in order."""
        table = self._self_stores.get(cls)
        if table is None:
            table = {}
            for method in self.methods_of.get(cls, ()):
                for store in method.stores:
                    tgt = store.target
                    if tgt[0] == "attr" and tgt[1] == ("name", "self"):
                        table.setdefault(tgt[2], []).append((method, store.value))
            if cls in self.classes:  # its methods are loaded with it
                self._self_stores[cls] = table
        return table

    def held_classes(
        self, fn: FunctionFacts | None, expr: Expr, depth: int = 0, module: str = ""
    ) -> frozenset[str]:
        """The classes the value of ``expr`` may be as a class object (what calling it
        makes), read in ``fn`` (None: at the top of ``module``): a class named, a local,
        a constant or an attribute holding one, a value of a table of them
        (``KINDS[k]``, ``KINDS.get(k)``), either side of ``a if c else b``, a
        parameter annotated ``type[C]``."""
        if depth > 8:
            self._cuts += 1
            return _NO_CLASSES
        module = self.module_of(fn) if fn is not None else module
        kind = expr[0]
        out: set[str] = set()
        if kind == "scoped":
            where = self.functions.get(expr[1]) if expr[1] else None
            return self.held_classes(where, expr[3], depth + 1, expr[2])
        if kind in _DOTTED:
            if fn is not None and expr[0] == "name":
                local = [v for n, v in fn.assigns if n == expr[1] and v != expr]
                if local or any(p == expr[1] for p, _ in fn.params):
                    for pname, ann in fn.params:
                        if pname == expr[1]:
                            return self._type_annotation_classes(ann, module, fn)
                    for value in local:
                        if value[0] == "annotated":
                            out.update(self._type_annotation_classes(value[1], module, fn))
                        else:
                            out.update(self.held_classes(fn, value, depth + 1, module))
                    return frozenset(out)
            if fn is not None and expr[0] == "attr" and expr[1] in _SELF_NAMES and fn.cls:
                for klass in self.mro(self.self_class(fn) or fn.cls):
                    for method in self.methods_of.get(klass, ()):
                        for store in method.stores:
                            if store.target == ("attr", ("name", "self"), expr[2]):
                                out.update(self.held_classes(method, store.value, depth + 1))
                return frozenset(out)
            target = self.resolve_dotted(fn, module, expr)
            if target is None:
                return _NO_CLASSES
            if target in self.classes:
                return frozenset((target,))
            constant = self.module_assigns.get(target)
            if constant is not None and target not in self.functions:
                return self.held_classes(None, constant, depth + 1, target.rsplit(".", 1)[0])
            return _NO_CLASSES
        if kind == "ifexp":
            return self.held_classes(fn, expr[2], depth + 1, module) | self.held_classes(
                fn, expr[3], depth + 1, module
            )
        container: Expr | None = None
        if kind == "subscript":
            container = expr[1]
        elif kind == "call" and expr[1][0] == "attr" and expr[1][2] == "get" and expr[2]:
            container = expr[1][1]
        elif kind == "call" and fn is not None:  # a function returning a class object
            for target in self.call_targets(fn, expr[1]):
                callee = self.functions[target]
                for ret in callee.returns:  # a class named, or looked up in a table
                    if ret.value is not None and ret.value[0] in _HELD_RETURNS:
                        out.update(self.held_classes(callee, ret.value, depth + 1))
            return frozenset(out)
        if container is not None:
            for part in self._contained(fn, module, container, depth):
                out.update(self.held_classes(fn, part, depth + 1, module))
        return frozenset(out)

    def _type_annotation_classes(
        self, ann: Expr | None, module: str, fn: FunctionFacts | None
    ) -> frozenset[str]:
        """The classes ``type[C]`` (``Type[C]``, Optional too) names."""
        if ann is None:
            return _NO_CLASSES
        if ann[0] == "const" and isinstance(ann[1], str):
            return self._type_annotation_classes(string_annotation_expr(ann[1]), module, fn)
        if ann[0] == "union":
            return self._type_annotation_classes(
                ann[1], module, fn
            ) | self._type_annotation_classes(ann[2], module, fn)
        if ann[0] != "subscript":
            return _NO_CLASSES
        head = self._annotation_head(ann, module, fn)
        if head in ("type", "Type"):
            return self.annotation_classes(ann[2], module, fn)
        if head == "Optional":
            return self._type_annotation_classes(ann[2], module, fn)
        return _NO_CLASSES

    def _constant_callables(self, target: str, depth: int) -> tuple[str, ...]:
        """The functions a module-level name holds (``STEP = functools.partial(f, 1)``)."""
        value = self.module_assigns.get(target)
        if value is None:
            return ()
        return self.callables_of(None, value, depth + 1, target.rsplit(".", 1)[0])

    def _contained(
        self, fn: FunctionFacts | None, module: str, container: Expr, depth: int
    ) -> list[Expr]:
        """The values a container may hold (see :meth:`entries`)."""
        return [value for _, value in self.entries(fn, module, container, depth)]

    def entries(
        self, fn: FunctionFacts | None, module: str, container: Expr, depth: int = 0
    ) -> list[tuple[Expr | None, Expr]]:
        """(key, value) for each entry a container may hold (no key for a sequence's
        elements): of a literal, a local, a module constant, or an attribute its
        class stores a literal in. What was written in another scope comes as
        ``("scoped", function or "", module, expression)``."""
        kind = container[0]
        if kind == "dict":
            return list(zip(container[1], container[2], strict=True))
        if kind == "seq":
            return [(None, value) for value in container[1]]
        if depth > 6:
            self._cuts += 1
            return []
        out: list[tuple[Expr | None, Expr]] = []
        if kind == "ifexp":
            for part in container[2:]:
                out.extend(self.entries(fn, module, part, depth + 1))
            return out
        if kind == "comp" and len(container) == 5:
            return self._comprehension_entries(fn, module, container, depth)
        if kind == "name" and fn is not None:
            values = [v for n, v in fn.assigns if n == container[1] and v != container]
            for value in values:
                out.extend(self.entries(fn, module, value, depth + 1))
            if values:
                return out
        if fn is not None and kind == "attr" and container[1] in _SELF_NAMES and fn.cls:
            for klass in self.mro(self.self_class(fn) or fn.cls):
                for method in self.methods_of.get(klass, ()):
                    for store in method.stores:
                        if store.target == ("attr", ("name", "self"), container[2]):
                            where = self.module_of(method)
                            found = self.entries(method, where, store.value, depth + 1)
                            out.extend(_scoped(method.qualname, where, e) for e in found)
                # what its methods add (``self._hooks.append(hook)``)
                for _, value, adder in self.attribute_elements(klass).get(container[2], ()):
                    out.append(_scoped(adder, self.function_module[adder], (None, value)))
            out.extend(self.class_entries(self.self_class(fn) or fn.cls, container[2]))
            return out
        if kind == "attr" and container[1][0] in _DOTTED:
            owner = self.resolve_dotted(fn, module, container[1])
            if owner is not None and owner in self.classes:
                return self.class_entries(owner, container[2])
        if kind in _DOTTED:
            target = self.resolve_dotted(fn, module, container)
            held = self.module_assigns.get(target) if target is not None else None
            if target is not None and held is not None:
                where = target.rsplit(".", 1)[0]
                if held[0] in ("dict", "seq", "comp"):
                    # a comprehension reads other tables (maybe itself: the depth goes on)
                    deeper = depth + 1 if held[0] == "comp" else 0
                    out = [_scoped("", where, e) for e in self.entries(None, where, held, deeper)]
                out.extend(self.registered_entries(target))
        return out

    def _comprehension_entries(
        self, fn: FunctionFacts | None, module: str, comp: Expr, depth: int
    ) -> list[tuple[Expr | None, Expr]]:
        """The entries of a dict comprehension with no filter over containers whose
        entries are known (``{kind: cls.build for cls, kinds in CLASSES.items() for
        kind in kinds}``): its key and value with each target bound to an element;
        none when an element is not known (an unknown entry is no entry)."""
        iterables, value, targets, key = comp[1], comp[2], comp[3][1], comp[4]
        scope = fn.qualname if fn is not None else ""
        bindings: list[dict[str, Expr]] = [{}]
        for target, iterable in zip(targets, iterables, strict=True):
            grown: list[dict[str, Expr]] = []
            for bound in bindings:
                elements = self._iterated(fn, module, substituted(iterable, bound), depth + 1)
                for element in elements or ():
                    if element[0] == "scoped":  # written in this scope: read here as it is
                        if element[1] != scope or element[2] != module:
                            return []
                        element = element[3]
                    given = dict(bound)
                    if not _bind_target(target, element, given):
                        return []
                    grown.append(given)
                if elements is None or len(grown) > _MAX_COMPREHENSION:
                    return []
            bindings = grown
        return [(substituted(key, bound), substituted(value, bound)) for bound in bindings]

    def _iterated(
        self, fn: FunctionFacts | None, module: str, iterable: Expr, depth: int
    ) -> list[Expr] | None:
        """What iterating ``iterable`` gives, element by element: a container's
        elements (a mapping's keys), its ``.items()`` as pairs, its ``.keys()`` and
        ``.values()``; None when an entry's key is not known."""
        method = ""
        if iterable[0] == "call" and iterable[1][0] == "attr" and not iterable[2]:
            method = iterable[1][2]
            if method in ("items", "keys", "values"):
                iterable = iterable[1][1]
        found = self.entries(fn, module, iterable, depth + 1)
        if not found:
            return None
        out: list[Expr] = []
        for entry_key, entry_value in found:
            if method == "values":
                out.append(entry_value)
            elif entry_key is None:
                if method in ("items", "keys"):
                    return None
                out.append(entry_value)
            elif method == "items":
                out.append(_paired(entry_key, entry_value))
            else:
                out.append(entry_key)
        return out

    def class_entries(self, cls: str, name: str) -> list[tuple[Expr | None, Expr]]:
        """The entries of the container a class body assigns to ``name`` (the first
        class of ``cls``'s MRO that does): its literal's and those its methods register
        into it on the class (see :func:`class_registered_entries`)."""
        for klass in self.mro(cls):
            facts = self.classes.get(klass)
            held = [v for n, v, _ in facts.assigns if n == name] if facts is not None else []
            if not held:
                continue
            if held[-1][0] not in ("dict", "seq"):
                return []
            where = self.class_module[klass]
            key = f"{klass}.{name}"
            found = self._registered.get(key)
            if found is None:
                found = self._registered[key] = class_registered_entries(self, klass, name)
            literal = [_scoped("", where, e) for e in self.entries(None, where, held[-1], 0)]
            return [*literal, *found]
        return []

    def registered_entries(self, target: str) -> list[tuple[Expr | None, Expr]]:
        """The entries the module-level container ``target`` gets after its literal
        (a registry filled at import time: see :mod:`pdlint.model.registrations`)."""
        found = self._registered.get(target)
        if found is None:
            found = self._registered[target] = registered_entries(self, target)
        return found

    def load_needed(self, modules: Iterable[str]) -> None:
        """Load those of ``modules`` not loaded yet (while deferring: ask the caller to)."""
        missing = [m for m in dict.fromkeys(modules) if self._loadable(m)]
        if missing:
            self._need(missing)

    def _callable(self, target: str | None) -> tuple[str, ...]:
        if target is None:
            return ()
        if target in self.functions:
            return (target,)
        if target in self.classes:
            init = self.lookup_method(target, "__init__")
            return (init,) if init else ()
        return ()


def _last_name(func: Expr) -> str | None:
    """The last name of a callable written ``func``: a name, an attribute's, a lambda's."""
    last = (
        func[2]
        if func[0] == "attr"
        else func[1]
        if func[0] == "name"
        else lambda_name(func[1], func[2])
        if func[0] == "lambda"
        else None
    )
    return last if isinstance(last, str) else None


def _calls_of_calls(facts: ModuleFacts | None) -> list[tuple[FunctionFacts, Site]]:
    """The calls of what a call returns (``partial(f, x)(b)``) in a module's functions."""
    functions = facts.functions if facts is not None else ()
    return [(fn, call) for fn in functions for call in fn.calls if call.func[0] == "call"]


def _imports_from(facts: ModuleFacts, top: str) -> bool:
    """Whether a module imports anything from the top package ``top``."""
    return any(
        q == top or q.startswith(f"{top}.")
        for imports in (facts.imports, *(fn.imports for fn in facts.functions))
        for _, q in imports
    )


def _attributes_read(fn: FunctionFacts, param: str) -> set[str]:
    """The attributes ``fn`` reads on its parameter ``param`` (``config.block_size``),
    methods called on it included."""
    on_param = ("name", param)
    exprs: list[Expr] = [value for _, value in fn.assigns]
    exprs += [store.value for store in fn.stores]
    exprs += [call.func for call in fn.calls]
    exprs += [arg for call in fn.calls for arg in (*call.args, *(v for _, v in call.kwargs))]
    exprs += [test for test, _, _ in fn.branches]
    exprs += [ret.value for ret in fn.returns if ret.value is not None]
    return {
        node[2]
        for expr in exprs
        for node in nodes(expr)
        if node[0] == "attr" and node[1] == on_param
    }


def _passed_on(caller: FunctionFacts, arg: Expr) -> bool:
    """Whether ``arg`` is a parameter of ``caller`` with no annotation (a value its own
    callers give, maybe from outside the analysed tree)."""
    return arg[0] == "name" and arg[1] not in ("self", "cls") and (arg[1], None) in caller.params


def _wanted(bound: Bound, want: tuple[str, str], var_params: tuple[str, str], packed: int) -> bool:
    """Whether an argument bound to a signature fills ``want`` (see
    :meth:`Model._passed_values`); ``packed`` counts the arguments packed so far."""
    kind, what = want
    if kind == "param":
        return bound.how == "value" and bound.param == what
    if kind == "keyword":
        return bound.how == "keyword" and bound.param == var_params[1] and bound.key == what
    return bound.how == "packed" and bound.param == var_params[0] and str(packed) == what


def _names_in(expr: Expr) -> set[str]:
    """Every variable and attribute name in an expression."""
    out: set[str] = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if node[0] == "name":
            out.add(node[1])
        elif node[0] == "attr":
            out.add(node[2])
        parts = node[1:] if isinstance(node[0], str) else node
        stack.extend(p for p in parts if isinstance(p, tuple))
    return out
