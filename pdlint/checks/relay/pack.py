"""The relay check's pack section: the ``[relay]`` names it reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


@dataclass(frozen=True)
class RelayPack:
    """The packs' ``[relay]`` names the relay check reads."""

    entry_points: tuple[str, ...] = ()
    startup_validators: tuple[str, ...] = ()
    # placeholders a PDL101 notes when its request would reach them next
    placeholder_factories: tuple[str, ...] = ()

    @classmethod
    def of(cls, packs: Sequence[Pack]) -> RelayPack:
        """The names of all ``packs``, in order."""
        return cls(
            # an idle or dummy run is where a batch no handoff made enters the decode
            # engine: an entry point too
            tuple(p for pack in packs for p in (*pack.entry_points, *pack.idle_runs)),
            tuple(v for pack in packs for v in pack.startup_validators),
            tuple(f for pack in packs for f in pack.placeholder_factories),
        )
