"""PDL201's loading plan on a lazy model: the files the layout check loads, in phases.

The check first loads the files that name a peer's copy by its prefix; the stems of
the copies whose offsets read a length there (``dst_kv_ptrs`` -> ``kv_ptrs``) select
the files loaded next: those that can grow a list of such a name under a role-local
setting, then the lists built from them (see :meth:`LoadingPlan.load_related`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import TYPE_CHECKING

from pdlint.checks.layout.frames import MAX_DEPTH
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
    GROWING_WORDS,
    LOADED_LATER,
    NAMING_WORDS,
    PEER_PREFIXES,
    growing_near,
    subsequence,
)
from pdlint.facts.exprs import nodes
from pdlint.facts.types import BindFact, Expr, FunctionFacts, IndexFact
from pdlint.model.binding import bind_arguments, call_arguments

if TYPE_CHECKING:
    from pdlint.checks.layout.analysis import LayoutAnalysis

NO_STEMS: frozenset[str] = frozenset()


class LoadingPlan:
    """What the layout check loads on a lazy model, and the stems that choose it.

    It reads the check's names (peer prefixes, a pack's copies, role-local words)
    and its per-function tables (:meth:`LayoutAnalysis.binds_of`, the grows it indexed),
    and keeps the stems of the copies found (:meth:`fits_stem`)."""

    def __init__(self, check: LayoutAnalysis) -> None:
        self.check = check
        self.model = check.model
        self.peer_prefixes = check.peer_prefixes
        self.pack_copies = check.pack_copies
        self.role_words = check.role_words
        self.roles = check.roles
        self._stems: dict[str, list[str]] = {}  # the copies' stems, by words
        self._fits: dict[str, bool] = {}
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
        # memos of what depends on a function's facts (or an expression) alone,
        # by the id of a function's facts (kept in the value, so the id stays unique)
        self._name_stems: dict[int, tuple[FunctionFacts, dict[str, frozenset[str]]]] = {}
        self._measured: dict[tuple[int, int], tuple[object, frozenset[str] | None]] = {}
        self._measured_param_memo: dict[tuple[int, int], tuple[FunctionFacts, set[str]]] = {}
        self._peer_stems: dict[str, frozenset[str]] = {}  # an attribute of a peer word
        self._peer_bases: dict[Expr, bool] = {}
        self._plain_stems: dict[str, frozenset[str]] = {}

    def load_related(self) -> None:
        """Load, in a lazy model, the files that can grow the lists this check needs.

        The files loaded first (:data:`~pdlint.checks.layout.words.LOADED_LATER`) name
        a peer's copy by its prefix (an identifier starting with it). Subscripts of a peer's copy
        whose offset reads a length (in the function, through its assignments,
        or in a helper it calls), in any loaded function that can name a copy
        (:meth:`_naming_modules`), name the copies that matter: the stem of each
        (``dst_kv_ptrs`` -> ``kv_ptrs``) denotes a list whose name holds every
        word of the stem. Copies passed to a function that subscripts its
        parameters count too (a call binds them, see :meth:`LayoutAnalysis._contexts`). So the
        files loaded next hold those words and a grow word after a branch whose
        condition names a role-local word (:data:`GROWING_WORDS`, and a pack's
        role-local setting, scanned too: :meth:`LayoutCheck.scanned_for`; a grow's
        guards come from such conditions, see :func:`pdlint.engine.textscan.in_condition`);
        then, twice, the files that also name
        a list grown under a role-local condition (a list built from it). The
        files that call a function growing such a list are loaded when its
        setup path is asked (:meth:`LayoutAnalysis._fetch_setup_callers`), and the handshake
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
        self.check.forget_callers()  # they were read from a part of what is loaded now

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
        first_gate, starts = LOADED_LATER
        self.model.load_text(gate=first_gate, starts=starts)
        # a pack's prefixes and names of a peer's copy, but those the query above holds
        named = [*self.peer_prefixes, *self.pack_copies]
        self.model.load_text(
            any_of=[n for n in named if not any(p in n.lower() for p in PEER_PREFIXES)]
        )
        gate = (*GROWING_WORDS, *growing_near(self.role_words))
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

    def fits_stem(self, name: str) -> bool:
        """Whether a copy's stem can denote a list of this name (see
        :meth:`LayoutAnalysis._match`)."""
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
        scanned = [w for (w,) in NAMING_WORDS]
        words = {p.rstrip("_") for p in self.peer_prefixes} | set(self.pack_copies)
        others = {w for w in words if not any(k in w.lower() for k in scanned)}
        naming = set(
            self.model.source.with_text(gate=NAMING_WORDS, any_of=shortest(words - others))
        )
        if others:
            naming.update(self.model.source.with_text(any_of=shortest(others)))
        return naming

    def _grown_names(self, sources: set[str], fresh: set[str]) -> set[str]:
        """Names of lists grown under a role-local condition (in ``fresh`` modules, or
        fitting a stem), and of lists fitting a stem built from one of ``sources``."""
        out: set[str] = set()
        grows, comprehensions = self.check.building_sites()
        for fn, grow, names in grows:
            if self.roles.condition(grow.guards) is not None:
                fresh_setup: bool | None = None
                for n in names:
                    if not self.fits_stem(n):
                        if fresh_setup is None:
                            module = self.model.function_module[fn.qualname]
                            fresh_setup = module in fresh and self.check.is_setup(fn)
                        if not fresh_setup:
                            continue
                    out.add(n)
            if sources and grow.loops:
                if any(i in sources for loop in grow.loops for i in self.roles.identifiers(loop)):
                    out.update(n for n in names if self.fits_stem(n))
        if sources:
            for fn, bind in comprehensions:
                if not sources.isdisjoint(self.roles.identifiers(bind.value)):
                    names = self.check.aliases(fn, ("name", bind.names[0])) or []
                    out.update(n for n in names if self.fits_stem(n))
        return out

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
        binds = self.check.binds_of(fn)
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
        """Stems of the peer's copies ``expr`` can be in ``fn`` (see
        :meth:`PeerOffsets.copy_of`)."""
        kind = expr[0]
        if kind == "name":
            table = self._names_stems(fn)
            found = table.get(expr[1])
            if found is None:
                name = expr[1]
                binds = self.check.binds_of(fn).get(name)
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
            return isinstance(base[1], str) and self.check.peer_word(base[1])
        found = self._peer_bases.get(base)
        if found is None:
            found = self._peer_bases[base] = any(
                self.check.peer_word(w) for w in self.roles.identifiers(base)
            )
        return found

    def _passed_stems(self, fn: FunctionFacts, stems: set[str]) -> None:
        """Stems of the peer's copies ``fn`` passes to a parameter that the callee
        subscripts at an offset reading a length, or passes on to one that is
        (a call binding the callee's frame, see :meth:`LayoutAnalysis._contexts`)."""
        if not fn.calls:
            return
        # the hot loop of :meth:`load_related`: the stems of a name found before,
        # or of an attribute of a base that is no peer word (its name's alone)
        names = self._names_stems(fn)
        plain = self._plain_stems
        peer_words = self.check.peer_words
        binds: dict[str, list[BindFact]] | None = None
        for call in fn.calls:
            args = (*call.args, *(v for _, v in call.kwargs)) if call.kwargs else call.args
            for arg in args:
                kind = arg[0]
                if kind == "name":
                    name = arg[1]
                    found = names.get(name)
                    if found is None:
                        binds = self.check.binds_of(fn) if binds is None else binds
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
        params = self.check.params_of(fn)
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
        """Names :meth:`PeerOffsets.copy_of` can take ``expr`` in ``fn`` to (without a caller):
        (name, True) for a list name read from the peer (``peer.kv_ptrs``)."""
        if depth > MAX_DEPTH:
            return []
        kind = expr[0]
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self._copy_names(fn, expr[2][0], depth + 1)
        if kind == "name":
            out = [(expr[1], False)]
            binds = self.check.binds_of(fn).get(expr[1], [])
            if len(binds) == 1 and binds[0].names == (expr[1],):
                out += self._copy_names(fn, binds[0].value, depth + 1)
            return out
        if kind == "attr":
            return [(expr[2], self._peer_base(expr[1]))]
        return []
