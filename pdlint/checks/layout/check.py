"""PDL201 handoff-layout-asymmetry (case 3 of the brief).

A list that crosses the handoff (KV buffer addresses, registration descriptors)
is built with entries added under a condition each role evaluates from its own
configuration (a draft pool, a speculative algorithm). Code that indexes the
peer's copy of that list at an offset derived from an assumed shape
(``len(dst) // 2``, ``len(dst) // k``, bounds mixing the peer's length with the
local list's) is right only when both roles agree on that condition.

Each such offset is evaluated twice: with both lists alike, and with the
peer's list holding extra entries that this side's list lacks (the setting holds
on the peer's role only). Lengths are concrete numbers; everything else is an
opaque symbol, the same in both runs (a count the peer sent, a start layer). An
offset whose value moves when the peer's list grows lands in the wrong group of
the peer's list. Code the program cannot reach with those lengths (after an
equality check that raises, in a branch for the mismatched case) is not
evaluated; anything not computable is silent.

Bounds taken from the local list's length alone do not move in that run, and
are not reported: with entries appended at the end, the peer's groups start
where the local ones do. The opposite case (this side's list holds the extra
entries) is not reported either: offsets into the peer's list then overrun it,
or only mirror a wrong split of this side's own list, which is not a peer-shape
assumption.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from fractions import Fraction
from typing import ClassVar

from pdlint.checks.base import Check, Loading, Run
from pdlint.checks.base import Context as CheckContext
from pdlint.checks.layout.frames import (
    AGREE,
    MAX_CONTEXTS,
    MAX_DEPTH,
    PEER_GROWS,
    Context,
    Frame,
    Move,
    Scenario,
)
from pdlint.checks.layout.linear import Lin, arith, compare
from pdlint.checks.layout.lists import Growth, HandoffList
from pdlint.checks.layout.messages import entries, role_of
from pdlint.checks.layout.role_local import RoleLocal
from pdlint.checks.layout.rules import RULES
from pdlint.checks.layout.run import LayoutRun
from pdlint.checks.layout.text_queries import (
    TextQuery,
    line_numbers,
    minimal_groups,
    occurrences,
    shortest,
)
from pdlint.checks.layout.words import (
    BUILTINS,
    GROW_WORDS,
    LOCAL_PREFIXES,
    PEER_PREFIXES,
    ROLE_LOCAL_WORDS,
    growing_near,
    setup_name,
    subsequence,
)
from pdlint.facts.exprs import (
    NEGATED_OP,
    comparisons,
    comparisons_with_sense,
    identifiers,
    nodes,
    text,
)
from pdlint.facts.types import (
    BindFact,
    CallFact,
    Expr,
    FunctionFacts,
    GrowFact,
    Guards,
    IndexFact,
    Span,
)
from pdlint.findings import Finding, Related, Step
from pdlint.model.binding import bind_arguments, call_arguments
from pdlint.model.locations import location, short_name
from pdlint.model.names import Model, held
from pdlint.settings.packs import LayoutNames, Pack

NO_STEMS: frozenset[str] = frozenset()
COPY_KINDS = frozenset(("name", "attr", "call"))  # expressions that can be a copy of a list
NO_ALIASES: frozenset[tuple[str, str]] = frozenset()
NO_NAMES: frozenset[str] = frozenset()


class LayoutCheck(Check):
    """Finds handoff lists, the peer's copies of them and the offsets into those."""

    rules = RULES
    pack_section = LayoutNames
    isolated = True  # its own model on a lazy run: the same findings whatever else loads

    # Scanned (and cached) with the checks' relevant words, loaded only by
    # :meth:`load_related`: the files that name a peer's copy by its prefix
    # (``dst_``, ``peer_`` or ``remote_``: where offsets into it are computed,
    # with ``len(`` or with a helper elsewhere that returns one), and the files
    # that can grow a list under a role-local setting (a grow word and a
    # draft/speculative word; of those, the query loads the files where the
    # latter is in a branch's condition with a grow word after it, see
    # load_next). The files that can name a peer's copy (a peer word, in any
    # case) are scanned too, never loaded.
    measuring_words: ClassVar[tuple[tuple[str, ...], ...]] = tuple(
        (prefix,) for prefix in PEER_PREFIXES
    )
    growing_words: ClassVar[tuple[tuple[str, ...], ...]] = tuple(
        (grow, word) for grow in GROW_WORDS for word in ROLE_LOCAL_WORDS
    )
    naming_words: ClassVar[tuple[tuple[str, ...], ...]] = tuple(
        (prefix.rstrip("_"),) for prefix in PEER_PREFIXES
    )
    # load_related's first query, (gate, starts) of Program.with_text: its files are
    # parsed ahead. A name gives a stem only when it starts with a peer prefix (see
    # peer_word), so the files whose text holds one inside an identifier alone
    # (``is_remote_``, ``NVML_REMOTE_``: a third of those the scan selects on sglang
    # 0.5.23) are not loaded for it
    loaded_later: ClassVar[tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]] = (
        measuring_words,
        PEER_PREFIXES,
    )
    scanned_words: ClassVar[tuple[tuple[str, ...], ...]] = (
        *measuring_words,
        *growing_words,
        *naming_words,
    )

    @staticmethod
    def pack_scanned_words(layouts: Iterable[LayoutNames]) -> tuple[tuple[str, ...], ...]:
        """Word groups to scan besides :attr:`scanned_words` for these packs' tables:
        a grow word near a pack's role-local setting (so :meth:`load_related`
        reads them from the scan, not from every file's lower-cased text)."""
        return growing_near(w for names in layouts for w in names.role_local)

    loading = Loading(scanned=scanned_words, later=loaded_later)

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> LayoutNames:
        names = LayoutNames()
        for pack in packs:
            names = names.merged(pack.layout)
        return names

    @classmethod
    def scanned_for(cls, packs: Iterable[Pack]) -> tuple[tuple[str, ...], ...]:
        return cls.pack_scanned_words(p.layout for p in packs)

    @classmethod
    def begin(cls, context: CheckContext) -> Run:
        return LayoutRun(cls(context.model, context.section))

    def __init__(self, model: Model, names: LayoutNames | None = None) -> None:
        names = names or LayoutNames()
        self.model = model
        self.peer_prefixes = tuple(dict.fromkeys((*PEER_PREFIXES, *names.peer_prefixes)))
        self.role_words = tuple(w.lower() for w in (*ROLE_LOCAL_WORDS, *names.role_local))
        self.roles = RoleLocal(self.role_words)
        self.pack_lists = set(names.handoff_lists)
        self.pack_copies = dict(names.peer_copies)
        self._prefixes = (*self.peer_prefixes, *LOCAL_PREFIXES)  # of a copy's name
        self.lists: dict[str, HandoffList] = {}
        self._by_name: dict[str, HandoffList] = {}
        self._callers: dict[str, list[tuple[FunctionFacts, Expr]]] = {}
        self._name_count: dict[str, int] | None = None
        self._setup: dict[str, bool] = {}
        self._origins: list[tuple[str, Span, str, str]] = []
        self._binds: list[tuple[str, BindFact]] = []
        self._named: dict[str, tuple[str, HandoffList] | None] = {}
        self._bind_table: dict[str, dict[str, list[BindFact]]] = {}
        self._params: dict[str, set[str]] = {}
        self._aliases_cache: set[tuple[str, str]] = set()
        self._attrs: dict[str, set[str]] | None = None
        self._stems: dict[str, list[str]] = {}  # the copies' stems, by words (lazy loading)
        # the words a name giving a stem holds (see _names_a_peer), and module texts
        self._peer_texts = tuple(
            dict.fromkeys((*(p[:-1] or p for p in self.peer_prefixes), *self.pack_copies))
        )
        self._lines: dict[str, list[int] | None] = {}
        # load_related's first phase: whether it ran, and the query that follows it
        self._first_done = False
        self._next_query: TextQuery | None = None
        self._next_fresh: set[str] | None = None  # the modules that query loaded
        # and the part of it that its gate's files must pass besides: a list grows
        # (a grow word) after a branch whose condition names a role-local word,
        # which is where a grow's guards come from (see RoleLocal.condition)
        self._branches: tuple[tuple[str, ...], tuple[str, ...]] = (self.role_words, GROW_WORDS)
        self._fits: dict[str, bool] = {}
        # memos of what depends on a function's facts (or an expression) alone
        # the last name (or other tail) of what each function calls, in the model's order
        self._call_lasts: dict[str, tuple[FunctionFacts, set[object]]] = {}
        self._indexed = 0  # functions of the model in ``_call_lasts``
        self._indexed_modules = 0
        self._indexed_names: set[str] = set()
        self._grow_sites: list[tuple[FunctionFacts, GrowFact, list[str]]] = []
        self._comprehensions: list[tuple[FunctionFacts, BindFact]] = []
        self._copy_binds: list[tuple[FunctionFacts, BindFact]] = []
        self._name_totals: dict[str, int] = {}  # functions by name
        # by the id of a function's facts (kept in the value, so the id stays unique)
        self._alias_memo: dict[tuple[int, str], tuple[FunctionFacts, list[str] | None]] = {}
        self._name_stems: dict[int, tuple[FunctionFacts, dict[str, frozenset[str]]]] = {}
        self._measured: dict[tuple[int, int], tuple[object, frozenset[str] | None]] = {}
        self._measured_param_memo: dict[tuple[int, int], tuple[FunctionFacts, set[str]]] = {}
        self._peer_stems: dict[str, frozenset[str]] = {}  # an attribute of a peer word
        self._peer_bases: dict[Expr, bool] = {}
        self._peer_words: dict[str, bool] = {}
        self._plain_stems: dict[str, frozenset[str]] = {}
        self._copy_flags: dict[str, bool] = {}  # see :meth:`_is_named_copy`
        self._sorted: tuple[int, list[str]] = (-1, [])
        self._alias_locals: dict[str, set[str]] = {}  # :meth:`_alias_names` by function

    @property
    def list_names(self) -> dict[str, HandoffList]:
        """Every name a handoff list is known by."""
        return self._by_name

    def binds_of(self, fn: FunctionFacts) -> dict[str, list[BindFact]]:
        """The function's assignments by name, in order."""
        table = self._bind_table.get(fn.qualname)
        if table is None:
            table = {}
            for bind in fn.binds:
                for name in bind.names:
                    table.setdefault(name, []).append(bind)
            self._bind_table[fn.qualname] = table
        return table

    def params_of(self, fn: FunctionFacts) -> set[str]:
        found = self._params.get(fn.qualname)
        if found is None:
            found = self._params[fn.qualname] = {p for p, _ in fn.params}
        return found

    # handoff lists --------------------------------------------------------
    def _is_setup(self, fn: FunctionFacts, depth: int = 0) -> bool:
        key = fn.qualname
        if key in self._setup:
            return self._setup[key]
        self._setup[key] = False  # cycle guard
        found = setup_name(fn.name)
        if not found and depth < 2:
            found = any(self._is_setup(c, depth + 1) for c in self._callers_of(fn))
        self._setup[key] = found
        return found

    def _fetch_setup_callers(self, functions: list[FunctionFacts]) -> None:
        """Index, one pass per depth, the callers :meth:`_is_setup` will ask for.

        In a lazy model the files that can call a function growing a list that a
        loaded copy can denote (their text holds its name) are loaded first, so
        its direct callers are those of the whole program; their own callers
        are those loaded.
        """
        level = functions
        for depth in range(2):
            names = {fn.name for fn in level}
            if self.model.source is not None and depth == 0:
                wanted = {fn.name for fn in level if self._may_matter(fn)}
                unnamed = {n for n in wanted - self._callers.keys() if not setup_name(n)}
                if unnamed:
                    self.model.load_text(any_of=unnamed)
                    self._name_count = None
            self._fetch_callers(names)
            level = [c for fn in level for c in self._callers_of(fn)]

    def _may_matter(self, fn: FunctionFacts) -> bool:
        """Whether a function grows a list a loaded copy can denote (a lazy model)."""
        for grow in fn.grows:
            names = self._aliases(fn, grow.target) if grow.target[0] in ("name", "attr") else None
            if any(self._fits_stem(n) for n in names or ()):
                return True
        return False

    def _fits_stem(self, name: str) -> bool:
        """Whether a copy's stem can denote a list of this name (see :meth:`_match`)."""
        found = self._fits.get(name)
        if found is None:
            found = self._fits[name] = self._fits_any_stem(name)
        return found

    def _fits_any_stem(self, name: str) -> bool:
        name_words = name.split("_")
        return any(
            name == stem
            or (
                len(stem_words) > 1
                and stem_words[-1] == name_words[-1]
                and subsequence(stem_words, name_words)
            )
            for stem, stem_words in self._stems.items()
        )

    def _fetch_callers(self, names: set[str]) -> None:
        """Index the calls of these function names (one pass over every function
        that calls one of them, as the model is now)."""
        missing = names - self._callers.keys()
        if not missing:
            return
        for name in missing:
            self._callers[name] = []
        self._refresh()
        for caller, lasts in self._call_lasts.values():
            if lasts.isdisjoint(missing):
                continue
            for call in caller.calls:
                last = call.func[-1]
                if last in missing and call.func[0] in ("name", "attr"):
                    self._callers[last].append((caller, call.func))

    def _refresh(self) -> None:
        """Add the functions loaded since the last use to the tables read from
        every function (what each calls by its last name, grows, comprehensions,
        assignments of one name that can be a copy of a list), in the model's order."""
        functions = self.model.functions
        modules = self.model.modules
        if self._indexed_modules == len(modules) and self._indexed == len(functions):
            return
        fresh = itertools.islice(modules.values(), self._indexed_modules, None)
        if any(fn.qualname in self._indexed_names for facts in fresh for fn in facts.functions):
            # a module loaded since took the qualified name of an indexed function
            self._indexed, self._indexed_names = 0, set()
            self._call_lasts, self._grow_sites = {}, []
            self._comprehensions, self._copy_binds = [], []
            self._name_totals = {}
        call_lasts = self._call_lasts
        indexed = self._indexed_names
        comprehensions, copy_binds = self._comprehensions, self._copy_binds
        totals = self._name_totals
        for fn in itertools.islice(held(functions), self._indexed, None):
            indexed.add(fn.qualname)
            totals[fn.name] = totals.get(fn.name, 0) + 1
            call_lasts[fn.qualname] = (fn, {call.func[-1] for call in fn.calls})
            for grow in fn.grows:
                if grow.target[0] in ("name", "attr"):
                    names = self._aliases(fn, grow.target)
                    if names:
                        self._grow_sites.append((fn, grow, names))
            for bind in fn.binds:
                if len(bind.names) == 1:
                    kind = bind.value[0]
                    if kind == "comp":
                        comprehensions.append((fn, bind))
                    elif kind in COPY_KINDS:
                        copy_binds.append((fn, bind))
        self._indexed = len(functions)
        self._indexed_modules = len(modules)

    def _callers_of(self, fn: FunctionFacts) -> list[FunctionFacts]:
        """Functions that call ``fn``, resolved cheaply (no type inference).

        ``self.name()`` from a method of a related class, a plain name that
        resolves to ``fn``, or ``x.name()`` when no other function has that name.
        """
        self._fetch_callers({fn.name})
        if self._name_count is None:
            self._refresh()
            self._name_count = dict(self._name_totals)
        out: list[FunctionFacts] = []
        seen: set[str] = set()
        for caller, func in self._callers[fn.name]:
            if caller.qualname in seen:
                continue
            if func[0] == "name":
                module = self.model.module_of(caller)
                hit = self.model.resolve_name(caller, module, fn.name) == fn.qualname
            elif func[1] == ("name", "self") and caller.cls and fn.cls:
                hit = fn.cls in self.model.mro(caller.cls) or caller.cls in self.model.mro(fn.cls)
            else:
                hit = self._name_count.get(fn.name) == 1
            if hit:
                seen.add(caller.qualname)
                out.append(caller)
        return out

    def _aliases(self, fn: FunctionFacts, target: Expr) -> list[str] | None:
        """Names a grown list is known by outside its function: the attributes it is
        stored as (a local variable's own name means nothing elsewhere), or a
        pack-named variable. None when the list never leaves the function.
        """
        if target[0] == "attr":
            return [target[2]]
        key = (id(fn), target[1])
        found = self._alias_memo.get(key)
        if found is None:
            found = self._alias_memo[key] = (fn, self._stored_as(fn, target))
        return found[1]

    def _stored_as(self, fn: FunctionFacts, target: Expr) -> list[str] | None:
        stored = sorted(
            {s.target[2] for s in fn.stores if s.value == target and s.target[0] == "attr"}
        )
        if stored:
            return stored
        return [target[1]] if target[1] in self.pack_lists else None

    def _add(self, names: list[str], growths: Iterable[Growth], derived: str | None) -> None:
        existing = [self._by_name[n] for n in names if n in self._by_name]
        if existing:
            lst = existing[0]
        else:
            lst = HandoffList(sorted(names, key=lambda n: n not in self.pack_lists)[0])
            lst.derived_from = derived
            self.lists[lst.name] = lst
        lst.names.update(names)
        for growth in growths:
            if growth not in lst.growths:
                lst.growths.append(growth)
        for name in lst.names:
            self._by_name[name] = lst

    def find_lists(self) -> dict[str, HandoffList]:
        """Lists grown under a role-local condition on a setup path, and lists built from them."""
        self._refresh()
        # (function, list built, what it iterates, whether grown in a loop), in order
        built: list[tuple[FunctionFacts, Expr, tuple[Expr, ...], bool]] = []
        candidates = []
        sites: list[tuple[str, int, FunctionFacts, GrowFact | BindFact, list[str]]] = [
            (fn.qualname, 0, fn, grow, names) for fn, grow, names in self._grow_sites
        ]
        sites += [(fn.qualname, 1, fn, bind, []) for fn, bind in self._comprehensions]
        sites.sort(key=lambda site: site[:2])  # by function, its grows first (stable)
        for _, _, fn, fact, names in sites:
            if isinstance(fact, BindFact):
                built.append((fn, ("name", fact.names[0]), (fact.value,), False))
                continue
            if fact.loops:
                built.append((fn, fact.target, fact.loops, True))
            if fact.value[0] == "const":
                continue
            condition = self.roles.condition(fact.guards)
            if condition is not None:
                candidates.append((fn, fact, condition, names))
        self._fetch_setup_callers([fn for fn, _, _, _ in candidates])
        for fn, grow, condition, names in candidates:
            if self.pack_lists.intersection(names) or self._is_setup(fn):
                growth = Growth(fn.qualname, grow.span, condition, grow.value)
                self._add(names, [growth], None)
        for _ in range(2):  # lists built entry by entry from a handoff list, on a setup path
            derived: list[tuple[FunctionFacts, list[str], HandoffList]] = []
            for fn, target, iterated, looped in built:
                for expr in iterated:
                    source = self._named_list(expr)
                    if source is None:
                        continue
                    aliases = self._aliases(fn, target)
                    if aliases is not None and not (looped and source.names.intersection(aliases)):
                        derived.append((fn, aliases, source))
            self._fetch_setup_callers([fn for fn, _, _ in derived])
            for fn, names, source in derived:
                if self.pack_lists.intersection(names) or self._is_setup(fn):
                    self._add(names, source.growths, source.name)
        return self.lists

    def _named_list(self, expr: Expr) -> HandoffList | None:
        for ident in self.roles.identifiers(expr):
            lst = self._by_name.get(ident)
            if lst is not None:
                return lst
        return None

    # copies of a list ----------------------------------------------------
    def _match(self, stem: str) -> HandoffList | None:
        """The handoff list a name stem denotes: exactly, or as its closest abbreviation.

        ``kv_ptrs`` abbreviates ``kv_data_ptrs`` (same last word, words in order)
        when no other attribute of the program fits as closely (``data_ptrs``
        fits ``kv_data_ptrs`` and ``state_data_ptrs`` alike: unknown, so silent).
        """
        if stem in self._by_name:
            return self._by_name[stem]
        stem_words = stem.split("_")
        last = stem_words[-1]
        if len(stem_words) < 2 or all(n.split("_")[-1] != last for n in self._by_name):
            return None
        fits: dict[int, list[str]] = {}
        for name in self._attribute_names().get(last, ()):
            name_words = name.split("_")
            if subsequence(stem_words, name_words):
                fits.setdefault(len(name_words) - len(stem_words), []).append(name)
        closest = fits[min(fits)] if fits else []
        if len(closest) == 1 and closest[0] in self._by_name:
            return self._by_name[closest[0]]
        return None

    def _attribute_names(self) -> dict[str, set[str]]:
        """Attribute names the program stores or declares, by last word (the last
        words of handoff lists' names, the only ones :meth:`_match` asks for).

        Handoff list names included; a peer's or local copy's own name
        (``dst_kv_ptrs``) and a private spelling (``_kv_ptrs``) are not others.
        """
        if self._attrs is None:
            lasts = tuple({n.split("_")[-1] for n in self._by_name})
            names = set(self._by_name)
            for fn in self.model.functions.values():
                for store in fn.stores:
                    target = store.target
                    if target[0] == "attr" and target[2].endswith(lasts):
                        names.add(target[2])
            for cls in self.model.classes.values():
                names.update(name for name, _ in cls.annotations if name.endswith(lasts))
                names.update(name for name, _, _ in cls.assigns if name.endswith(lasts))
            prefixes = (*self.peer_prefixes, *LOCAL_PREFIXES)
            self._attrs = {}
            for name in names:
                bare = name.lstrip("_")
                if bare and not bare.startswith(prefixes):
                    self._attrs.setdefault(bare.split("_")[-1], set()).add(bare)
        return self._attrs

    def peer_word(self, name: str) -> bool:
        """A name for the peer or something of it: ``peer``, ``peer_info``, ``dst_ptrs``."""
        found = self._peer_words.get(name)
        if found is None:
            found = any(name.startswith(p) or name == p[:-1] for p in self.peer_prefixes)
            self._peer_words[name] = found
        return found

    def _maybe_copy(self, expr: Expr, qual: str, aliases: AbstractSet[tuple[str, str]]) -> bool:
        """Cheap test before :meth:`copy_of`: can ``expr`` name a copy at all."""
        kind = expr[0]
        if kind == "name":
            return self._is_named_copy(expr[1]) or (qual, expr[1]) in aliases
        if kind == "attr":
            return self._is_named_copy(expr[2]) or expr[2] in self._by_name
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self._maybe_copy(expr[2][0], qual, aliases)
        return False

    def _passes_maybe_copy(self, fn: FunctionFacts, call: CallFact) -> bool:
        """Whether an argument of ``call`` passes :meth:`_maybe_copy` (the same
        tests in the same order, with the lookups of this hot loop at hand)."""
        flags, by_name = self._copy_flags, self._by_name
        local = self._alias_locals.get(fn.qualname, NO_NAMES)
        for arg in (*call.args, *(v for _, v in call.kwargs)) if call.kwargs else call.args:
            kind = arg[0]
            if kind == "name" or kind == "attr":
                name = arg[1] if kind == "name" else arg[2]
                flag = flags.get(name)
                if flag is None:
                    flag = self._is_named_copy(name)
                if flag or ((name in local) if kind == "name" else (name in by_name)):
                    return True
            elif kind == "call" and self._maybe_copy(arg, fn.qualname, self._aliases_cache):
                return True
        return False

    def _is_named_copy(self, name: str) -> bool:
        """``named_copy(name) is not None``, without a lookup for most names."""
        found = self._copy_flags.get(name)
        if found is None:
            found = (
                name in self._by_name or name in self.pack_copies or name.startswith(self._prefixes)
            ) and self.named_copy(name) is not None  # otherwise :meth:`_named_copy` finds None
            self._copy_flags[name] = found
        return found

    def _alias_names(self) -> set[tuple[str, str]]:
        """(function, local name) pairs assigned a named copy of a handoff list."""
        out = set()
        self._refresh()
        for fn, bind in self._copy_binds:
            if self._maybe_copy(bind.value, fn.qualname, NO_ALIASES):
                out.add((fn.qualname, bind.names[0]))
                self._alias_locals.setdefault(fn.qualname, set()).add(bind.names[0])
        return out

    def named_copy(self, name: str) -> tuple[str, HandoffList] | None:
        """("peer"|"local", list) that a variable or attribute name denotes."""
        if name not in self._named:
            self._named[name] = self._named_copy(name)
        return self._named[name]

    def _named_copy(self, name: str) -> tuple[str, HandoffList] | None:
        if name in self.pack_copies:
            lst = self._by_name.get(self.pack_copies[name])
            return ("peer", lst) if lst is not None else None
        for prefix in self.peer_prefixes:
            if name.startswith(prefix):
                lst = self._match(name[len(prefix) :])
                return ("peer", lst) if lst is not None else None
        if name in self._by_name:
            return ("local", self._by_name[name])
        for prefix in LOCAL_PREFIXES:
            if name.startswith(prefix):
                lst = self._match(name[len(prefix) :])
                return ("local", lst) if lst is not None else None
        return None

    def copy_of(self, frame: Frame, expr: Expr, depth: int = 0) -> tuple[str, HandoffList] | None:
        """Whether ``expr`` in ``frame`` is a whole copy of a handoff list, and whose."""
        if depth > MAX_DEPTH:
            return None
        kind = expr[0]
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self.copy_of(frame, expr[2][0], depth + 1)
        if kind == "name":
            name = expr[1]
            found = self.named_copy(name)
            if found is not None:
                return found
            if name in self.params_of(frame.fn):
                arg = frame.arg(name)
                if arg is not None and frame.ctx is not None:
                    return self.copy_of(frame.ctx.caller, arg, depth + 1)
                return None
            binds = self.binds_of(frame.fn).get(name, [])
            if (
                len(binds) == 1
                and binds[0].names == (name,)
                and binds[0].value[0] in ("name", "attr", "call")
            ):
                return self.copy_of(frame, binds[0].value, depth + 1)
            return None
        if kind == "attr":
            found = self.named_copy(expr[2])
            if found is not None:
                return found
            lst = self._by_name.get(expr[2])
            if lst is not None and any(self.peer_word(w) for w in identifiers(expr[1])):
                return ("peer", lst)
        return None

    def _mentions_copy(self, frame: Frame, expr: Expr) -> bool:
        return any(
            node[0] in ("name", "attr") and self.copy_of(frame, node) is not None
            for node in nodes(expr)
        )

    def _contexts(self) -> dict[str, list[Context]]:
        """Call sites passing a copy of a handoff list, per callee (two levels deep).

        Only callees that index a parameter, or pass a parameter on to one that
        does, can use such a binding; other calls are not resolved.
        """
        functions = [self.model.functions[q] for q in self._sorted_names()]
        self._refresh()
        lasts = self._call_lasts
        wanted = {
            fn.name
            for fn in functions
            if fn.indexes and any(self._param_base(fn, i.base) for i in fn.indexes)
        }
        for fn in functions:  # in this order: a name wanted counts for the functions after
            if fn.name in wanted or lasts[fn.qualname][1].isdisjoint(wanted):
                continue
            params = self.params_of(fn)
            for call in fn.calls:
                if call.func[-1] in wanted and (
                    any(e[0] == "name" and e[1] in params for e in call.args)
                    or any(e[0] == "name" and e[1] in params for _, e in call.kwargs)
                ):
                    wanted.add(fn.name)
                    break
        out: dict[str, list[Context]] = {}
        seen: set[tuple[str, str, Span]] = set()
        self._aliases_cache = self._alias_names()
        frames = []
        for fn in functions:
            if not lasts[fn.qualname][1].isdisjoint(wanted):
                for call in fn.calls:
                    if call.func[-1] in wanted and self._passes_maybe_copy(fn, call):
                        frames.append(Frame(fn))
                        break
        for _ in range(2):
            new: list[Frame] = []
            for frame in frames:
                for call in frame.fn.calls:
                    if call.func[-1] not in wanted or not any(
                        e[0] in ("name", "attr", "call") and self.copy_of(frame, e) is not None
                        for e in call_arguments(call)
                    ):
                        continue
                    for target in self.model.call_targets(frame.fn, call.func):
                        key = (target, frame.fn.qualname, call.span)
                        known = out.setdefault(target, [])
                        if key in seen or len(known) >= MAX_CONTEXTS:
                            continue
                        seen.add(key)
                        callee = self.model.functions[target]
                        bound = bind_arguments(callee, call.func, call.args, call.kwargs)
                        ctx = Context(frame, call, bound)
                        known.append(ctx)
                        new.append(Frame(callee, ctx))
            frames = new
        return out

    def _sorted_names(self) -> list[str]:
        """The loaded functions' qualified names, sorted (kept while none is loaded)."""
        count = len(self.model.functions)
        if self._sorted[0] != count:
            self._sorted = (count, sorted(self.model.functions))
        return self._sorted[1]

    def _param_base(self, fn: FunctionFacts, base: Expr) -> bool:
        """Whether a subscript's base is a parameter (or a name assigned one)."""
        if base[0] != "name":
            return False
        params = self.params_of(fn)
        if base[1] in params:
            return True
        binds = [b for b in self.binds_of(fn).get(base[1], ()) if b.names == (base[1],)]
        return len(binds) == 1 and binds[0].value[0] == "name" and binds[0].value[1] in params

    # evaluation ------------------------------------------------------------
    def value(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, depth: int = 0) -> Lin | None:
        """The value of ``expr`` at ``at`` in ``frame`` when the lists have lengths ``sc``."""
        if depth > MAX_DEPTH:
            return None
        kind = expr[0]
        d = depth + 1
        if kind == "const":
            v = expr[1]
            if isinstance(v, int):  # bool included
                return Lin.of(int(v))
            if isinstance(v, float):
                return Lin.of(Fraction(v))
            return None
        if kind == "binop":
            left = self.value(frame, expr[2], at, sc, d)
            right = self.value(frame, expr[3], at, sc, d)
            if left is None or right is None:
                return None
            return arith(expr[1], left, right)
        if kind == "neg":
            inner = self.value(frame, expr[1], at, sc, d)
            return inner.scaled(Fraction(-1)) if inner is not None else None
        if kind == "name":
            return self._name_value(frame, expr[1], at, sc, d)
        if kind == "call":
            return self._call_value(frame, expr, at, sc, d)
        if kind in ("attr", "subscript"):
            if self._mentions_copy(frame, expr):
                return None
            return Lin.symbol(f"{frame.fn.qualname}:{expr!r}")
        return None

    def _name_value(self, frame: Frame, name: str, at: Span, sc: Scenario, d: int) -> Lin | None:
        fn = frame.fn
        if self.copy_of(frame, ("name", name)) is not None:
            return None
        binds = self._reaching(frame, name, at, d)
        if binds:
            values = set()
            for bind in binds:
                values.add(self._bind_value(frame, bind, name, sc, d))
            return values.pop() if len(values) == 1 else None
        if name in self.params_of(fn):
            arg = frame.arg(name)
            if arg is not None and frame.ctx is not None:
                return self.value(frame.ctx.caller, arg, frame.ctx.call.span, sc, d)
            return Lin.symbol(f"{fn.qualname}:param:{name}")
        return Lin.symbol(f"{fn.qualname}:name:{name}")

    def _bind_value(
        self, frame: Frame, bind: BindFact, name: str, sc: Scenario, d: int
    ) -> Lin | None:
        value = bind.value
        if len(bind.names) > 1:
            if value[0] != "seq" or len(value[1]) != len(bind.names):
                return None
            value = value[1][bind.names.index(name)]
        self._binds.append((frame.fn.qualname, bind))
        try:
            return self.value(frame, value, bind.span, sc, d)
        finally:
            self._binds.pop()

    def _reaching(self, frame: Frame, name: str, at: Span, d: int) -> list[BindFact]:
        """Assignments of ``name`` that may reach ``at`` on the grown run's path.

        The last one on every path to ``at`` (its guards a prefix of those at
        ``at``), and later ones in branches the grown lengths do not rule out.
        """
        before = [b for b in self.binds_of(frame.fn).get(name, []) if b.span[:2] < at[:2]]
        if not before:
            return []
        here = self._guards_at(frame.fn, at)
        dominating = None
        for bind in before:
            if here[: len(bind.guards)] == bind.guards:
                dominating = bind
        later = [b for b in before if dominating is None or b.span[:2] > dominating.span[:2]]
        # The path is the one taken with the grown lengths, whatever ``sc`` is:
        # the agreeing run asks what the same code computes with other lengths.
        saved = self._origins
        self._origins = []
        try:
            live = [
                b
                for b in later
                if self.reachable(frame, b.guards, b.span, PEER_GROWS, d) is not False
            ]
        finally:
            self._origins = saved
        if dominating is not None:
            live.insert(0, dominating)
        return live

    def _guards_at(self, fn: FunctionFacts, at: Span) -> Guards:
        for index in fn.indexes:
            if index.span == at:
                return index.guards
        for bind in fn.binds:
            if bind.span == at:
                return bind.guards
        for call in fn.calls:
            if call.span == at:
                return call.guards
        for ret in fn.returns:
            if ret.span == at:
                return ret.guards
        return ()

    def _call_value(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, d: int) -> Lin | None:
        func, args = expr[1], expr[2]
        if func == ("name", "len") and len(args) == 1:
            copy = self.copy_of(frame, args[0])
            if copy is not None:
                kind = copy[0]
                here = frame.fn.qualname
                if not self._binds or self._binds[-1][0] != here:
                    self._origins.append((here, at, text(expr), kind))  # a helper's return
                if self._binds:
                    qual, bind = self._binds[-1]
                    source = f"{' = '.join(bind.names)} = {text(bind.value)}"
                    self._origins.append((qual, bind.span, source, kind))
                return Lin.of(sc[0] if kind == "peer" else sc[1])
            if self._mentions_copy(frame, args[0]):
                return None
            return Lin.symbol(f"{frame.fn.qualname}:len:{args[0]!r}")
        if func in (("name", "int"), ("name", "round")) and len(args) == 1:
            inner = self.value(frame, args[0], at, sc, d)
            if inner is None or not inner.known:
                return None
            return Lin.of(int(inner.const) if func[1] == "int" else round(inner.const))
        if func in (("name", "min"), ("name", "max")) and len(args) > 1:
            values = [self.value(frame, a, at, sc, d) for a in args]
            if any(v is None or not v.known for v in values):
                return None
            consts = [v.const for v in values if v is not None]
            return Lin.of(min(consts) if func[1] == "min" else max(consts))
        targets = self.model.call_targets(frame.fn, func)
        if len(targets) == 1:
            helper = self.model.functions[targets[0]]
            returned = {r.value for r in helper.returns if r.value is not None}
            if len(returned) == 1:
                call = CallFact(func, args, expr[3], at, (), None)
                bound = bind_arguments(helper, func, args, expr[3])
                helper_frame = Frame(helper, Context(frame, call, bound))
                ret = next(r for r in helper.returns if r.value is not None)
                return self.value(helper_frame, returned.pop(), ret.span, sc, d)
            return None
        if self._mentions_copy(frame, expr):
            return None
        return Lin.symbol(f"{frame.fn.qualname}:{expr!r}")

    def truth(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, d: int = 0) -> bool | None:
        """Truth of a condition under the scenario; None when it cannot be told."""
        if d > MAX_DEPTH:
            return None
        kind = expr[0]
        if kind == "not":
            inner = self.truth(frame, expr[1], at, sc, d + 1)
            return None if inner is None else not inner
        if kind in ("and", "or"):
            results = [self.truth(frame, e, at, sc, d + 1) for e in expr[1]]
            stop = kind == "or"
            if stop in results:
                return stop
            return None if None in results else not stop
        if kind == "cmp":
            left = self.value(frame, expr[1], at, sc, d + 1)
            result: bool | None = True
            for op, right_expr in zip(expr[2], expr[3], strict=False):
                right = self.value(frame, right_expr, at, sc, d + 1)
                if left is None or right is None:
                    return None
                outcome = compare(op, left, right)
                if outcome is None:
                    return None
                if not outcome:
                    result = False
                left = right
            return result
        value = self.value(frame, expr, at, sc, d + 1)
        if value is None or not value.known:
            return None
        return bool(value.const)

    def reachable(
        self, frame: Frame, guards: Guards, at: Span, sc: Scenario, d: int = 0
    ) -> bool | None:
        """False when a guard is false under the scenario; the call sites binding the frame too."""
        for expr, polarity in guards:
            outcome = self.truth(frame, expr, at, sc, d + 1)
            if outcome is not None and outcome != polarity:
                return False
        if frame.ctx is not None and d < MAX_DEPTH:
            ctx = frame.ctx
            return self.reachable(ctx.caller, ctx.call.guards, ctx.call.span, sc, d + 1)
        return None

    # findings -----------------------------------------------------------------
    def _moves(self, frame: Frame, site: IndexFact) -> list[Move]:
        index = site.index
        bounds = [index[1], index[2]] if index[0] == "slice" else [index]
        out: list[Move] = []
        if self.reachable(frame, site.guards, site.span, PEER_GROWS) is False:
            return out
        if self._growth_rejected(frame, site.span, site.guards):
            return out
        for position, bound in enumerate(bounds):
            if bound == ("const", None) or bound[0] == "const":
                continue
            agreed = self.value(frame, bound, site.span, AGREE)
            if agreed is None:
                continue
            self._origins = []
            moved = self.value(frame, bound, site.span, PEER_GROWS)
            if moved is None or moved == agreed:
                continue
            whole = position == 1 and index[0] == "slice"
            if whole and moved == Lin.of(PEER_GROWS[0]) and agreed == Lin.of(AGREE[0]):
                continue  # ``dst[a:len(dst)]``: up to the end, whatever the length
            origins = [o[:3] for o in self._origins if o[3] == "peer"]
            if origins:
                out.append(Move(bound, tuple(dict.fromkeys(origins))))
        return out

    def _growth_rejected(self, frame: Frame, at: Span, guards: Guards, d: int = 0) -> bool:
        """A raise or assert before ``at`` fails when the peer's list has grown.

        An equality test on a count taken from the peer's length (``!=`` raises),
        or an upper limit on it (``count > limit`` raises), against a value that
        does not depend on that length: the code then fails loudly instead of
        computing offsets from a grown list. Also checked at the call sites that
        bind the frame.
        """
        fn = frame.fn
        rejecting: list[tuple[Expr, bool]] = []
        for span, raise_guards in fn.raises:
            if span[:2] < at[:2] and raise_guards:
                cond, polarity = raise_guards[-1]
                prefix = raise_guards[:-1]
                if guards[: len(prefix)] == prefix and (cond, not polarity) in guards:
                    rejecting.append((cond, polarity))
        for test, span, assert_guards in fn.asserts:
            if span[:2] < at[:2] and guards[: len(assert_guards)] == assert_guards:
                rejecting.append((test, False))
        for cond, sense in rejecting:
            for cmp, raises_when in comparisons_with_sense(cond, sense):
                if self._rejects(frame, cmp, raises_when, at):
                    return True
        if frame.ctx is not None and d < MAX_DEPTH:
            ctx = frame.ctx
            return self._growth_rejected(ctx.caller, ctx.call.span, ctx.call.guards, d + 1)
        return False

    def _rejects(self, frame: Frame, cmp: Expr, raises_when: bool, at: Span) -> bool:
        op = cmp[2][0] if raises_when else NEGATED_OP.get(cmp[2][0], "")
        left, right = cmp[1], cmp[3][0]
        growth = []
        for side in (left, right):
            agreed = self.value(frame, side, at, AGREE)
            grown = self.value(frame, side, at, PEER_GROWS)
            if agreed is None or grown is None:
                return False
            diff = grown.plus(agreed, -1)
            if not diff.known:
                return False
            growth.append(diff.const)
        if op == "!=":
            return (growth[0] != 0) != (growth[1] != 0)
        if op in (">", ">="):
            return growth[0] > 0 and growth[1] == 0
        if op in ("<", "<="):
            return growth[1] > 0 and growth[0] == 0
        return False

    def _agreed_at_handshake(self) -> set[str]:
        """Lists whose length or setting a raise (or assert) compares across the roles."""
        out: set[str] = set()
        for qual in sorted(self.model.functions):
            fn = self.model.functions[qual]
            checks = [g[0] for _, guards in fn.raises for g in guards[-1:]]
            checks += [test for test, _, _ in fn.asserts]
            frame: Frame | None = None
            for expr in checks:
                for cmp in comparisons(expr):
                    idents = set(identifiers(cmp))
                    if not any(
                        self.named_copy(i) is not None or i in self._by_name or self.peer_word(i)
                        for i in idents
                    ):
                        continue
                    frame = frame or Frame(fn)
                    for lst in self.lists.values():
                        if lst.name not in out and self._compares_layouts(frame, cmp, lst):
                            out.add(lst.name)
        return out

    def _compares_layouts(self, frame: Frame, cmp: Expr, lst: HandoffList) -> bool:
        sides = (cmp[1], cmp[3][0])
        kinds = []
        for side in sides:
            side_kind = None
            for node in nodes(side):
                if node[0] in ("name", "attr"):
                    copy = self.copy_of(frame, node)
                    if copy is not None and copy[1] is lst:
                        side_kind = copy[0]
                        break
            kinds.append(side_kind)
        if set(kinds) == {"peer", "local"}:
            return True
        peerish = [any(self.peer_word(w) for w in identifiers(s)) for s in sides]
        return peerish.count(True) == 1 and all(self.roles.role_local(s) for s in sides)

    # loading (a lazy model) ----------------------------------------------------
    def load_related(self) -> None:
        """Load, in a lazy model, the files that can grow the lists this check needs.

        The files loaded first (:attr:`loaded_later`) name a peer's copy by
        its prefix (an identifier starting with it). Subscripts of a peer's copy
        whose offset reads a length (in the function, through its assignments,
        or in a helper it calls), in any loaded function that can name a copy
        (:meth:`_naming_modules`), name the copies that matter: the stem of each
        (``dst_kv_ptrs`` -> ``kv_ptrs``) denotes a list whose name holds every
        word of the stem. Copies passed to a function that subscripts its
        parameters count too (a call binds them, see :meth:`_contexts`). So the
        files loaded next hold those words and a grow word after a branch whose
        condition names a role-local word (:attr:`growing_words`, and a pack's
        role-local setting, scanned too: :meth:`pack_scanned_words`; a grow's
        guards come from such conditions, see :func:`pdlint.engine.textscan.in_condition`);
        then, twice, the files that also name
        a list grown under a role-local condition (a list built from it). The
        files that call a function growing such a list are loaded when its
        setup path is asked (:meth:`_fetch_setup_callers`), and the handshake
        checks when a finding is about to be reported.
        """
        fresh = self.load_next()
        if fresh is None or self._next_query is None:
            return
        all_of = self._next_query[1]
        sources: set[str] = set()
        for _ in range(2):
            names = self._grown_names(sources, fresh) - sources
            if not names:
                break
            sources |= names
            before = set(self.model.modules)
            self.model.load_text(any_of=shortest(names), all_of=all_of)
            fresh = set(self.model.modules) - before
        # callers were read from a part of what is loaded now
        self._callers.clear()
        self._setup.clear()
        self._name_count = None

    def load_next(self) -> set[str] | None:
        """Load the files of the query that follows :meth:`first_phase` (once): the
        modules it added, None when no query follows. A forked run loads them before
        it forks, as they are parsed (see :func:`pdlint.engine.schedule.analyse`)."""
        query = self.first_phase()
        if query is None:
            return None
        if self._next_fresh is None:
            gate, all_of = query
            before = set(self.model.modules)
            self.model.load_text(gate=gate, all_of=all_of, branches=self._branches)
            self._next_fresh = set(self.model.modules) - before
        return self._next_fresh

    def first_phase(self, prefetch: Callable[[list[str]], None] | None = None) -> TextQuery | None:
        """:meth:`load_related`'s first query, and the stems it gives: the gate and
        word groups of the query that follows (None: no stem, nothing follows).

        Computed once. ``prefetch`` receives that query's modules, to parse them
        ahead while the other checks run (a lazy model whose check runs later);
        before, while the stems are found, it receives the modules the query's gate
        selects (each call replaces the files the last one queued).
        """
        if self._first_done:
            return self._next_query
        self._first_done = True
        source = self.model.source
        if source is None:
            return None
        first_gate, starts = self.loaded_later
        self.model.load_text(gate=first_gate, starts=starts)
        # a pack's prefixes and names of a peer's copy, but those the query above holds
        named = [*self.peer_prefixes, *self.pack_copies]
        self.model.load_text(
            any_of=[n for n in named if not any(p in n.lower() for p in PEER_PREFIXES)]
        )
        gate = (*self.growing_words, *growing_near(self.role_words))
        if prefetch is not None:
            # the next query's files are among those its gate selects: parsed ahead
            # while the stems are found, which narrow them (the worker processes
            # would idle meanwhile)
            prefetch(source.with_text(gate=gate, branches=self._branches, record=False))
        stems: set[str] = set()
        naming = self._naming_modules()
        module_of = self.model.function_module
        functions = [
            fn
            for qual, fn in self.model.functions.items()
            if module_of[qual] in naming and self._names_a_peer(fn, module_of[qual])
        ]

        def find(fn: FunctionFacts) -> None:  # a lookup: adding to the set is idempotent
            self._site_stems(fn, stems)
            self._passed_stems(fn, stems)

        # in batches: the modules the helpers and callees are in, loaded together
        self.model.batched(functions, find)
        if not stems:
            if prefetch is not None:
                prefetch([])  # none of them will be loaded
            return None
        stems.update(self.pack_copies.values())
        self._stems = {stem: [w for w in stem.split("_") if w] for stem in sorted(stems)}
        # a name a stem denotes holds its words (a one-word stem: exactly, an attribute)
        all_of = minimal_groups(
            tuple(words) if len(words) > 1 else (f".{stem}",)
            for stem, words in self._stems.items()
            if words
        )
        self._next_query = (gate, all_of)
        if prefetch is not None:
            prefetch(source.with_text(gate=gate, all_of=all_of, branches=self._branches))
        return gate, all_of

    def _names_a_peer(self, fn: FunctionFacts, module: str) -> bool:
        """Whether ``fn``'s text can hold a name that gives a stem (see :meth:`_stems_of`):
        a peer word (``dst_ptrs``, ``peer``) or a pack's name for a copy. A stem comes
        from a name in a subscript or a call of the function, or in an assignment they
        read, so a function whose lines from its ``def`` to the last of those hold none
        of these words gives none (most functions of a file naming a peer; True when
        the text is not known)."""
        if not fn.calls and not fn.indexes:
            return False  # nothing to subscript a copy with or pass one to
        lines = self._peer_lines(module)
        if lines is None:
            return True
        first = fn.span[0]
        last = max(fact.span[2] for facts in (fn.calls, fn.indexes, fn.binds) for fact in facts)
        at = bisect.bisect_left(lines, first)
        return at < len(lines) and lines[at] <= max(first, last)

    def _peer_lines(self, module: str) -> list[int] | None:
        """The numbers of the lines of a module that hold one of those words, in order
        (None when its text is not known)."""
        if module not in self._lines:
            source = self.model.source
            text = source.source_text(module) if source is not None else None
            found = None
            if text is not None:
                positions = sorted(
                    at for word in self._peer_texts for at in occurrences(text, word)
                )
                found = line_numbers(text, positions)
            self._lines[module] = found
        return self._lines[module]

    def _naming_modules(self) -> set[str]:
        """Modules whose text can name a peer's copy: a stem (see :meth:`_stems_of`)
        needs a name that starts with a peer prefix, a peer word in an attribute's
        base or a pack's name for a copy, so no function of another module gives one.
        The bytes are searched only in the files whose scan holds a peer word (in any
        case), but for a pack's word that holds none."""
        assert self.model.source is not None
        scanned = [w for (w,) in self.naming_words]
        words = {p.rstrip("_") for p in self.peer_prefixes} | set(self.pack_copies)
        others = {w for w in words if not any(k in w.lower() for k in scanned)}
        naming = set(
            self.model.source.with_text(gate=self.naming_words, any_of=shortest(words - others))
        )
        if others:
            naming.update(self.model.source.with_text(any_of=shortest(others)))
        return naming

    def _grown_names(self, sources: set[str], fresh: set[str]) -> set[str]:
        """Names of lists grown under a role-local condition (in ``fresh`` modules, or
        fitting a stem), and of lists fitting a stem built from one of ``sources``."""
        out: set[str] = set()
        grows, comprehensions = self._building_sites()
        for fn, grow, names in grows:
            if self.roles.condition(grow.guards) is not None:
                fresh_setup: bool | None = None
                for n in names:
                    if not self._fits_stem(n):
                        if fresh_setup is None:
                            module = self.model.function_module[fn.qualname]
                            fresh_setup = module in fresh and self._is_setup(fn)
                        if not fresh_setup:
                            continue
                    out.add(n)
            if sources and grow.loops:
                if any(i in sources for loop in grow.loops for i in self.roles.identifiers(loop)):
                    out.update(n for n in names if self._fits_stem(n))
        if sources:
            for fn, bind in comprehensions:
                if not sources.isdisjoint(self.roles.identifiers(bind.value)):
                    names = self._aliases(fn, ("name", bind.names[0])) or []
                    out.update(n for n in names if self._fits_stem(n))
        return out

    def _building_sites(
        self,
    ) -> tuple[
        list[tuple[FunctionFacts, GrowFact, list[str]]], list[tuple[FunctionFacts, BindFact]]
    ]:
        """Grows of a list known outside its function (with its names) and
        comprehensions assigned to one name, of every loaded function, in order."""
        self._refresh()
        return list(self._grow_sites), list(self._comprehensions)

    def _site_stems(self, fn: FunctionFacts, stems: set[str]) -> None:
        """Stems of the peer's copies ``fn`` subscripts at an offset that reads a
        length, and of the copies whose length it reads."""
        for site in fn.indexes:
            bases = self._stems_of(fn, site.base)
            if bases:
                lengths = self._measures(fn, site)
                if lengths is not None:
                    stems |= bases | lengths

    def _measures(self, fn: FunctionFacts, site: IndexFact) -> frozenset[str] | None:
        """Whether the offset of ``site`` reads a length (``len``, through the
        function's assignments or a helper's return): the stems of the peer's
        copies it takes the length of; None when it reads none."""
        key = (id(fn), id(site))
        found = self._measured.get(key)
        if found is None:
            found = self._measured[key] = ((fn, site), self._measured_lengths(fn, site))
        return found[1]

    def _measured_lengths(self, fn: FunctionFacts, site: IndexFact) -> frozenset[str] | None:
        binds = self.binds_of(fn)
        lengths: set[str] = set()
        measured = False
        seen: set[str] = set()
        stack = [site.index]
        while stack:
            for node in nodes(stack.pop()):
                if node[0] == "name" and node[1] not in seen:
                    seen.add(node[1])
                    stack.extend(b.value for b in binds.get(node[1], ()))
                elif node[0] == "call" and node[1] == ("name", "len") and node[2]:
                    measured = True
                    lengths |= self._stems_of(fn, node[2][0])
                elif node[0] == "call" and not (node[1][0] == "name" and node[1][1] in BUILTINS):
                    measured = measured or self._helper_measures(fn, node[1])
        return frozenset(lengths) if measured else None

    def _helper_measures(self, fn: FunctionFacts, func: Expr) -> bool:
        """Whether a called helper (one target) returns a value that reads a length."""
        if func[0] not in ("name", "attr"):
            return False
        targets = self.model.call_targets(fn, func)
        if len(targets) != 1:
            return False
        helper = self.model.functions[targets[0]]
        return any(
            node[0] == "call" and node[1] == ("name", "len")
            for ret in helper.returns
            if ret.value is not None
            for node in nodes(ret.value)
        )

    def _stems_of(self, fn: FunctionFacts, expr: Expr) -> frozenset[str]:
        """Stems of the peer's copies ``expr`` can be in ``fn`` (see :meth:`copy_of`)."""
        kind = expr[0]
        if kind == "name":
            table = self._names_stems(fn)
            found = table.get(expr[1])
            if found is None:
                name = expr[1]
                binds = self.binds_of(fn).get(name)
                if binds is not None and len(binds) == 1 and binds[0].names == (name,):
                    found = self._stems_in(self._copy_names(fn, expr, 0))
                else:
                    found = self._plain(name)
                table[name] = found
            return found
        if kind == "attr":
            if not self._peer_base(expr[1]):
                return self._plain(expr[2])
            found = self._peer_stems.get(expr[2])
            if found is None:
                found = self._peer_stems[expr[2]] = self._stems_in([(expr[2], True)])
            return found
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self._stems_in(self._copy_names(fn, expr, 0))
        return NO_STEMS

    def _names_stems(self, fn: FunctionFacts) -> dict[str, frozenset[str]]:
        """The stems of names in ``fn`` found so far (see :meth:`_stems_of`)."""
        memo = self._name_stems.get(id(fn))
        if memo is None:
            memo = self._name_stems[id(fn)] = (fn, {})
        return memo[1]

    def _plain(self, name: str) -> frozenset[str]:
        """Stems of a name alone (not read from the peer)."""
        found = self._plain_stems.get(name)
        if found is None:
            if name in self.pack_copies or name.startswith(self.peer_prefixes):
                found = self._stems_in([(name, False)])
            else:
                found = NO_STEMS  # as :meth:`_stems_in` finds
            self._plain_stems[name] = found
        return found

    def _stems_in(self, names: list[tuple[str, bool]]) -> frozenset[str]:
        out: set[str] = set()
        for name, peer in names:
            if name in self.pack_copies:
                out.add(self.pack_copies[name])
            if peer:
                out.add(name)
            for prefix in self.peer_prefixes:
                if name.startswith(prefix) and len(name) > len(prefix):
                    out.add(name[len(prefix) :])
        return frozenset(out) if out else NO_STEMS

    def _peer_base(self, base: Expr) -> bool:
        """Whether an attribute's base names the peer (``peer.x``, ``dst_info.x``)."""
        if base[0] == "name":
            return isinstance(base[1], str) and self.peer_word(base[1])
        found = self._peer_bases.get(base)
        if found is None:
            found = self._peer_bases[base] = any(
                self.peer_word(w) for w in self.roles.identifiers(base)
            )
        return found

    def _passed_stems(self, fn: FunctionFacts, stems: set[str]) -> None:
        """Stems of the peer's copies ``fn`` passes to a parameter that the callee
        subscripts at an offset reading a length, or passes on to one that is
        (a call binding the callee's frame, see :meth:`_contexts`)."""
        if not fn.calls:
            return
        # the hot loop of :meth:`load_related`: the stems of a name found before,
        # or of an attribute of a base that is no peer word (its name's alone)
        names = self._names_stems(fn)
        plain = self._plain_stems
        peer_words = self._peer_words
        binds: dict[str, list[BindFact]] | None = None
        for call in fn.calls:
            args = (*call.args, *(v for _, v in call.kwargs)) if call.kwargs else call.args
            for arg in args:
                kind = arg[0]
                if kind == "name":
                    name = arg[1]
                    found = names.get(name)
                    if found is None:
                        binds = self.binds_of(fn) if binds is None else binds
                        bound = binds.get(name)
                        if bound is None or len(bound) != 1 or bound[0].names != (name,):
                            found = names[name] = self._plain(name)  # as :meth:`_stems_of`
                elif kind == "attr":
                    base = arg[1]
                    bare = base[0] == "name" and peer_words.get(base[1]) is False
                    found = plain.get(arg[2]) if bare else None
                elif kind == "call":
                    found = None
                else:
                    continue
                if found is None:
                    found = self._stems_of(fn, arg)
                if found:
                    break
            else:
                continue
            for target in self.model.call_targets(fn, call.func):
                callee = self.model.functions[target]
                wanted = self._measured_params(callee, 1)
                for param, arg in bind_arguments(callee, call.func, call.args, call.kwargs):
                    if param in wanted and arg[0] in ("name", "attr", "call"):
                        stems |= self._stems_of(fn, arg)

    def _measured_params(self, fn: FunctionFacts, depth: int) -> set[str]:
        key = (id(fn), depth)
        found = self._measured_param_memo.get(key)
        if found is None:
            found = self._measured_param_memo[key] = (fn, self._params_measured(fn, depth))
        return found[1]

    def _params_measured(self, fn: FunctionFacts, depth: int) -> set[str]:
        params = self.params_of(fn)
        out = {
            site.base[1]
            for site in fn.indexes
            if site.base[0] == "name"
            and site.base[1] in params
            and self._measures(fn, site) is not None
        }
        if depth > 0:
            for call in fn.calls:
                passed = [e for e in call_arguments(call) if e[0] == "name" and e[1] in params]
                if not passed:
                    continue
                for target in self.model.call_targets(fn, call.func):
                    callee = self.model.functions[target]
                    inner = self._measured_params(callee, depth - 1)
                    for param, arg in bind_arguments(callee, call.func, call.args, call.kwargs):
                        if param in inner and arg[0] == "name" and arg[1] in params:
                            out.add(arg[1])
        return out

    def _copy_names(self, fn: FunctionFacts, expr: Expr, depth: int) -> list[tuple[str, bool]]:
        """Names :meth:`copy_of` can take ``expr`` in ``fn`` to (without a caller):
        (name, True) for a list name read from the peer (``peer.kv_ptrs``)."""
        if depth > MAX_DEPTH:
            return []
        kind = expr[0]
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self._copy_names(fn, expr[2][0], depth + 1)
        if kind == "name":
            out = [(expr[1], False)]
            binds = self.binds_of(fn).get(expr[1], [])
            if len(binds) == 1 and binds[0].names == (expr[1],):
                out += self._copy_names(fn, binds[0].value, depth + 1)
            return out
        if kind == "attr":
            return [(expr[2], self._peer_base(expr[1]))]
        return []

    def run(self) -> Iterator[Finding]:
        self.load_related()
        if not self.find_lists():
            return
        contexts = self._contexts()
        aliases = self._aliases_cache
        agreed: set[str] | None = None
        seen: set[tuple[str, Span]] = set()
        for qual in self._sorted_names():
            fn = self.model.functions[qual]
            if not fn.indexes:
                continue
            bound = contexts.get(qual, [])
            sites = [
                s
                for s in fn.indexes
                if bound or (s.base[0] in COPY_KINDS and self._maybe_copy(s.base, qual, aliases))
            ]
            if not sites:
                continue
            frames = [Frame(fn), *(Frame(fn, c) for c in bound)]
            for frame in frames:
                for site in sites:
                    if (qual, site.span) in seen:
                        continue
                    copy = self.copy_of(frame, site.base)
                    if copy is None or copy[0] != "peer" or not copy[1].growths:
                        continue
                    lst = copy[1]
                    moves = self._moves(frame, site)
                    if not moves:
                        continue
                    if agreed is None:
                        if self.model.source is not None:
                            # checks at the handshake that compare the lists' layouts
                            words = (*self.peer_prefixes, *self._by_name)
                            self.model.load_text(
                                all_of=tuple((k, w) for k in ("raise", "assert") for w in words)
                            )
                        agreed = self._agreed_at_handshake()
                    if lst.name in agreed:
                        continue
                    seen.add((qual, site.span))
                    yield self._finding(frame, site, lst, moves)

    def _finding(
        self, frame: Frame, site: IndexFact, lst: HandoffList, moves: list[Move]
    ) -> Finding:
        fn = frame.fn
        # a setting appended under on several roles first: the usual asymmetric toggle
        counts: dict[str, int] = {}
        for growth in lst.growths:
            counts[growth.condition] = counts.get(growth.condition, 0) + 1
        conditions = sorted(counts, key=lambda c: (-counts[c], c))
        setting = " or ".join(f"`{c}`" for c in conditions[:2])
        origins = list(dict.fromkeys(o for m in moves for o in m.origins))
        qual, span, source = next((o for o in origins if o[0] == fn.qualname), origins[0])
        assumption = text(moves[0].bound) if (qual, span) == (fn.qualname, site.span) else source
        listed = f"`{lst.name}`" + (
            f" (built from `{lst.derived_from}`)" if lst.derived_from else ""
        )
        message = (
            f"offset into `{text(site.base)}`, the peer's copy of {listed}, comes from "
            f"`{assumption}`, which assumes the peer's list has this side's shape; when "
            f"{setting} holds on the peer's role and not on this one, the peer's list holds "
            "extra entries and the offset lands in the wrong group; send the count per group "
            "with the handoff and index by it, or reject mismatched configurations at the "
            "handshake"
        )
        related = [
            Related(
                location(self.model, q, sp), f"`{src}` takes the group size from the peer's length"
            )
            for q, sp, src in origins
            if (q, sp) != (fn.qualname, site.span)
        ]
        for growth in sorted(lst.growths, key=lambda g: location(self.model, g.function, g.span)):
            related.append(
                Related(
                    location(self.model, growth.function, growth.span),
                    f"{role_of(growth.function)} appends {entries(growth.added)} "
                    f"when `{growth.condition}`",
                )
            )
        path: list[Step] = []
        callee, ctx = fn.qualname, frame.ctx
        while ctx is not None:
            caller = ctx.caller.fn.qualname
            note = f"calls `{short_name(callee)}` with the peer's copy"
            path.insert(0, Step(location(self.model, caller, ctx.call.span), caller, note))
            callee, ctx = caller, ctx.caller.ctx
        if path:
            here = location(self.model, fn.qualname, site.span)
            path.append(Step(here, fn.qualname, "indexes the peer's copy"))
        return Finding(
            "PDL201",
            message,
            location(self.model, fn.qualname, site.span),
            related=tuple(related),
            path=tuple(path),
            member=lst.name,
            key=("PDL201", fn.qualname, text(site.base), text(site.index), lst.name),
        )
