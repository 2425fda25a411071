"""The layout check's pack section: a pack's ``[layout]`` table (the settings
parse and validate it, see :mod:`pdlint.settings.packs`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class LayoutNames:
    """A pack's ``[layout]`` table: names the PDL201 check cannot guess."""

    handoff_lists: tuple[str, ...] = ()  # lists each role sends its peer
    peer_copies: tuple[tuple[str, str], ...] = ()  # (peer's copy name, handoff list)
    role_local: tuple[str, ...] = ()  # words marking a role's own setting
    peer_prefixes: tuple[str, ...] = ()  # name prefixes of a peer's copy ("dst_")

    def merged(self, other: LayoutNames) -> LayoutNames:
        """Both packs' names, without repeats, in order."""

        def union(a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
            return tuple(dict.fromkeys((*a, *b)))

        return LayoutNames(
            union(self.handoff_lists, other.handoff_lists),
            union(self.peer_copies, other.peer_copies),
            union(self.role_local, other.role_local),
            union(self.peer_prefixes, other.peer_prefixes),
        )
