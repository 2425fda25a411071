"""The mode check's pack section: the ``[relay]`` names of batch modes and placeholders."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


@dataclass(frozen=True)
class ModePack:
    """The packs' ``[relay]`` names the mode check reads."""

    bypass_modes: tuple[str, ...] = ()
    placeholder_factories: tuple[str, ...] = ()

    @classmethod
    def of(cls, packs: Sequence[Pack]) -> ModePack:
        """The names of all ``packs``, in order."""
        return cls(
            tuple(m for pack in packs for m in pack.bypass_modes),
            tuple(f for pack in packs for f in pack.placeholder_factories),
        )
