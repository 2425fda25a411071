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

import itertools
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

from pdlint.checks.layout.frames import MAX_CONTEXTS, Context, Frame, Move
from pdlint.checks.layout.lists import Growth, HandoffList
from pdlint.checks.layout.loading_plan import LoadingPlan
from pdlint.checks.layout.messages import entries, role_of
from pdlint.checks.layout.pack import LayoutNames
from pdlint.checks.layout.peer_offsets import PeerOffsets
from pdlint.checks.layout.role_local import RoleLocal
from pdlint.checks.layout.words import (
    LOCAL_PREFIXES,
    PEER_PREFIXES,
    ROLE_LOCAL_WORDS,
    setup_name,
    subsequence,
)
from pdlint.facts.exprs import comparisons, identifiers, nodes, text
from pdlint.facts.types import BindFact, CallFact, Expr, FunctionFacts, GrowFact, IndexFact, Span
from pdlint.findings import Finding, Related, Step
from pdlint.model.binding import bind_arguments, call_arguments
from pdlint.model.locations import location, short_name
from pdlint.model.names import Model, held

COPY_KINDS = frozenset(("name", "attr", "call"))  # expressions that can be a copy of a list
NO_ALIASES: frozenset[tuple[str, str]] = frozenset()
NO_NAMES: frozenset[str] = frozenset()


class LayoutAnalysis:
    """Finds handoff lists, the peer's copies of them and the offsets into those."""

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
        self._named: dict[str, tuple[str, HandoffList] | None] = {}
        self._bind_table: dict[str, dict[str, list[BindFact]]] = {}
        self._params: dict[str, set[str]] = {}
        self._aliases_cache: set[tuple[str, str]] = set()
        self._attrs: dict[str, set[str]] | None = None
        # memos of what depends on a function's facts (or an expression) alone
        # the last name (or other tail) of what each function calls, in the model's order
        self._call_lasts: dict[str, tuple[FunctionFacts, set[object]]] = {}
        self._indexed = 0  # functions of the model in ``_call_lasts``
        self._indexed_modules = 0
        self._indexed_names: set[str] = set()
        self._grow_sites: list[tuple[FunctionFacts, GrowFact, list[str]]] = []
        # grows of a local list the function returns (its callers store it): see _returned_as
        self._returned_grows: list[tuple[FunctionFacts, GrowFact]] = []
        self._comprehensions: list[tuple[FunctionFacts, BindFact]] = []
        self._copy_binds: list[tuple[FunctionFacts, BindFact]] = []
        self._name_totals: dict[str, int] = {}  # functions by name
        # by the id of a function's facts (kept in the value, so the id stays unique)
        self._alias_memo: dict[tuple[int, str], tuple[FunctionFacts, list[str] | None]] = {}
        self.peer_words: dict[str, bool] = {}  # :meth:`peer_word`'s memo
        self._copy_flags: dict[str, bool] = {}  # see :meth:`_is_named_copy`
        self._sorted: tuple[int, list[str]] = (-1, [])
        self._alias_locals: dict[str, set[str]] = {}  # :meth:`_alias_names` by function
        self.plan = LoadingPlan(self)  # what it loads on a lazy model
        self.offsets = PeerOffsets(self)  # the copies and the offsets' values

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
    def is_setup(self, fn: FunctionFacts, depth: int = 0) -> bool:
        key = fn.qualname
        if key in self._setup:
            return self._setup[key]
        self._setup[key] = False  # cycle guard
        found = setup_name(fn.name)
        if not found and depth < 2:
            found = any(self.is_setup(c, depth + 1) for c in self._callers_of(fn))
        self._setup[key] = found
        return found

    def _fetch_setup_callers(self, functions: list[FunctionFacts]) -> None:
        """Index, one pass per depth, the callers :meth:`is_setup` will ask for.

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
            names = self.aliases(fn, grow.target) if grow.target[0] in ("name", "attr") else None
            if any(self.plan.fits_stem(n) for n in names or ()):
                return True
        return False

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
            self._call_lasts, self._grow_sites, self._returned_grows = {}, [], []
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
                    names = self.aliases(fn, grow.target)
                    if names:
                        self._grow_sites.append((fn, grow, names))
                    elif grow.target[0] == "name" and any(
                        r.value == grow.target for r in fn.returns
                    ):
                        self._returned_grows.append((fn, grow))
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

    def aliases(self, fn: FunctionFacts, target: Expr) -> list[str] | None:
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

    def _returned_as(self, fn: FunctionFacts) -> list[str]:
        """The attributes the callers of ``fn`` store its result as (``self.ptrs =
        self.register_buffers()``): the names of a list ``fn`` builds and returns."""
        if self.model.source is not None and fn.name not in self._callers:
            self.model.load_text(any_of=(fn.name,))
            self._name_count = None
        return sorted(
            {
                store.target[2]
                for caller in self._callers_of(fn)
                for store in caller.stores
                if store.target[0] == "attr"
                and store.value[0] == "call"
                and store.value[1][0] in ("name", "attr")
                and store.value[1][-1] == fn.name
            }
        )

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
        for fn, grow in list(self._returned_grows):
            if grow.value[0] != "const" and self.roles.condition(grow.guards) is not None:
                names = self._returned_as(fn)
                if names:
                    sites.append((fn.qualname, 0, fn, grow, names))
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
            if self.pack_lists.intersection(names) or self.is_setup(fn):
                growth = Growth(fn.qualname, grow.span, condition, grow.value)
                self._add(names, [growth], None)
        for _ in range(2):  # lists built entry by entry from a handoff list, on a setup path
            derived: list[tuple[FunctionFacts, list[str], HandoffList]] = []
            for fn, target, iterated, looped in built:
                for expr in iterated:
                    source = self._named_list(expr)
                    if source is None:
                        continue
                    aliases = self.aliases(fn, target)
                    if aliases is not None and not (looped and source.names.intersection(aliases)):
                        derived.append((fn, aliases, source))
            self._fetch_setup_callers([fn for fn, _, _ in derived])
            for fn, names, source in derived:
                if self.pack_lists.intersection(names) or self.is_setup(fn):
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
        found = self.peer_words.get(name)
        if found is None:
            found = any(name.startswith(p) or name == p[:-1] for p in self.peer_prefixes)
            self.peer_words[name] = found
        return found

    def _maybe_copy(self, expr: Expr, qual: str, aliases: AbstractSet[tuple[str, str]]) -> bool:
        """Cheap test before :meth:`PeerOffsets.copy_of`: can ``expr`` name a copy at all."""
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
                        e[0] in ("name", "attr", "call")
                        and self.offsets.copy_of(frame, e) is not None
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

    # handshake checks --------------------------------------------------------
    def _agreed_at_handshake(self) -> dict[str, set[str | None]]:
        """Lists whose length or setting a raise (or assert) compares across the roles,
        each with the functions that check it. A check at the handshake (None) rejects
        mismatched configurations for every transfer; one in a function that itself
        indexes the peer's copy (a transfer path of its own, ``receive_layerwise``)
        guards that function alone."""
        out: dict[str, set[str | None]] = {}
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
                        if None not in out.get(lst.name, ()) and self._compares_layouts(
                            frame, cmp, lst
                        ):
                            where = qual if self._indexes_peer_copy(frame, lst) else None
                            out.setdefault(lst.name, set()).add(where)
        return out

    def _peer_entry(self, node: Expr, lst: HandoffList) -> bool:
        """``remote_meta["kv_ptrs"]``: the list's key in what the peer sent."""
        return (
            node[0] == "subscript"
            and node[2] == ("const", lst.name)
            and any(self.peer_word(i) for i in identifiers(node[1]))
        )

    def _indexes_peer_copy(self, frame: Frame, lst: HandoffList) -> bool:
        """Whether the function of ``frame`` indexes the peer's copy of ``lst``."""
        for site in frame.fn.indexes:
            copy = self.offsets.copy_of(frame, site.base)
            if copy is not None and copy[0] == "peer" and copy[1] is lst:
                return True
        return False

    def _compares_layouts(self, frame: Frame, cmp: Expr, lst: HandoffList) -> bool:
        sides = (cmp[1], cmp[3][0])
        kinds = []
        for side in sides:
            side_kind = None
            for node in nodes(side):
                if node[0] in ("name", "attr"):
                    copy = self.offsets.copy_of(frame, node)
                    if copy is not None and copy[1] is lst:
                        side_kind = copy[0]
                        break
                elif self._peer_entry(node, lst):
                    side_kind = "peer"  # ``remote_meta["kv_ptrs"]``: the peer's list
                    break
            kinds.append(side_kind)
        if set(kinds) == {"peer", "local"}:
            return True
        peerish = [any(self.peer_word(w) for w in identifiers(s)) for s in sides]
        return peerish.count(True) == 1 and all(self.roles.role_local(s) for s in sides)

    # loading (a lazy model: see loading_plan) --------------------------------
    def building_sites(
        self,
    ) -> tuple[
        list[tuple[FunctionFacts, GrowFact, list[str]]], list[tuple[FunctionFacts, BindFact]]
    ]:
        """Grows of a list known outside its function (with its names) and
        comprehensions assigned to one name, of every loaded function, in order."""
        self._refresh()
        return list(self._grow_sites), list(self._comprehensions)

    def forget_callers(self) -> None:
        """Drop the callers read so far (more files were loaded since)."""
        self._callers.clear()
        self._setup.clear()
        self._name_count = None

    def run(self) -> Iterator[Finding]:
        self.plan.load_related()
        if not self.find_lists():
            return
        contexts = self._contexts()
        aliases = self._aliases_cache
        agreed: dict[str, set[str | None]] | None = None
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
                    copy = self.offsets.copy_of(frame, site.base)
                    if copy is None or copy[0] != "peer" or not copy[1].growths:
                        continue
                    lst = copy[1]
                    moves = self.offsets.moves(frame, site)
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
                    checked = agreed.get(lst.name, set())
                    if None in checked or qual in checked:
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
            summary=f"offset into the peer's `{lst.name}` assumes this side's shape",
        )
