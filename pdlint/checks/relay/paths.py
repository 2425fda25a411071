"""The paths of a member's request from each decode entry point: which entry a
finding's path starts at, and whether the request meets one place before another.

A member's reach from all entries at once keeps one path per function, from
whichever entry got there first; a path is printed from an entry whose event loop
can take it instead (see :mod:`pdlint.checks.relay.loop_settings`), and a place
comes after a crash when, from every entry that reaches it, the crash is met first
on the way (the two paths part in a function that calls towards the crash first).
"""

from __future__ import annotations

from collections.abc import Callable

from pdlint.checks.relay.loop_settings import Literal, SettingLiterals, conflicts
from pdlint.facts.types import CallFact, Guards, Span
from pdlint.model.callgraph import call_chain
from pdlint.model.names import Model

Parents = dict[str, tuple[str, CallFact] | None]
Place = tuple[str, Span]  # a function and a span in it


class EntryTrees:
    """Per-entry reach of one member of a relay, cached."""

    def __init__(
        self,
        model: Model,
        settings: SettingLiterals,
        entries: Callable[[], list[str]],
        reach: Callable[[str], Parents],
    ) -> None:
        self.model = model
        self.settings = settings
        self._entries = entries
        self._reach = reach  # the member's reach from one entry
        self._trees: dict[str, Parents] = {}

    def tree(self, entry: str) -> Parents:
        if entry not in self._trees:
            self._trees[entry] = self._reach(entry)
        return self._trees[entry]

    def reaching(self, function: str) -> list[str]:
        """The entries whose tree holds ``function``, in the entries' order."""
        return [e for e in self._entries() if function in self.tree(e)]

    def path_literals(self, tree: Parents, function: str, guards: Guards, at: Span) -> set[Literal]:
        """The literals the path of ``tree`` to ``function`` tests, with ``guards`` at ``at``."""
        model = self.model
        out = set(self.settings.of_guards(model.functions[function], guards, at))
        for node, site in call_chain(tree, function):
            link = tree[node]
            if site is None or link is None:
                continue
            caller = model.functions[link[0]]
            out.update(self.settings.of_guards(caller, site.guards, site.span))
        return out

    def choose(self, default: Parents, function: str, guards: Guards, at: Span) -> Parents:
        """The tree a finding at ``at`` in ``function`` prints its path from: ``default``
        unless another entry's loop agrees better with the settings the path tests (no
        setting needed both ways, the most of them tested alike by the entry's callers)."""
        reaching = self.reaching(function)
        if len(reaching) < 2:
            return default
        selected = self.settings.of_entries(reaching)
        first = call_chain(default, function)[0][0]
        best: tuple[int, int] | None = None
        chosen = default
        for entry in reaching:
            tree = self.tree(entry)
            needed = self.path_literals(tree, function, guards, at)
            if conflicts(needed | selected[entry]):
                continue
            score = (len(needed & selected[entry]), 1 if entry == first else 0)
            if best is None or score > best:
                best, chosen = score, (default if entry == first else tree)
        return chosen

    def after(self, place: Place, crashes: list[Place]) -> Place | None:
        """The crash the request meets before ``place`` from every entry that reaches
        it (the one on the first entry's path), or None."""
        found: Place | None = None
        for entry in self.reaching(place[0]):
            tree = self.tree(entry)
            first = next((c for c in crashes if c[0] in tree and _before(tree, c, place)), None)
            if first is None:
                return None
            found = found or first
        return found


def _before(tree: Parents, crash: Place, place: Place) -> bool:
    """On ``tree``, the request meets ``crash`` before ``place``: their paths part in a
    function that calls towards the crash (or holds it) before towards ``place``."""
    to_crash = call_chain(tree, crash[0])
    to_place = call_chain(tree, place[0])
    common = 0
    while common < min(len(to_crash), len(to_place)) and to_crash[common][0] == to_place[common][0]:
        common += 1
    if common == 0:
        return False
    # where the crash is in the parting function, its span; else the call towards it
    crash_at = crash[1] if common == len(to_crash) else _site_span(to_crash[common][1])
    place_at = place[1] if common == len(to_place) else _site_span(to_place[common][1])
    if common < len(to_crash) and common < len(to_place):
        # the call towards the crash runs on every path to the one towards ``place``
        # (not in another branch: ``if overlap: a() else: b()``)
        crash_site, place_site = to_crash[common][1], to_place[common][1]
        assert crash_site is not None and place_site is not None
        if not all(g in place_site.guards for g in crash_site.guards):
            return False
    return crash_at < place_at


def _site_span(site: CallFact | None) -> Span:
    assert site is not None
    return site.span
