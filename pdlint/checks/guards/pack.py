"""The guard check's pack section: a pack's ``[variants]`` table (the settings parse
and validate it, see :mod:`pdlint.settings.packs`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


@dataclass(frozen=True)
class VariantNames:
    """A pack's ``[variants]`` table: the variant settings of a framework."""

    # attributes holding a variant (``pkg.Config.method``): their class and name
    settings: tuple[str, ...] = ()
    # functions testing a setting (``pkg.Config.use_eagle``; globs)
    predicates: tuple[str, ...] = ()
    # functions, besides a class's own construction, that rewrite a setting it holds
    normalisers: tuple[str, ...] = ()
    # a setting of a framework read but not analysed, as code reads it
    # (``speculative_config.method``), with the values it is rewritten from and to
    # (``*_mtp`` -> ``mtp``: any value matching the glob but the new one)
    rewrites: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class GuardPack:
    """The ``[variants]`` names of every active pack."""

    variants: VariantNames = VariantNames()

    @classmethod
    def of(cls, packs: Sequence[Pack]) -> GuardPack:
        """The names of all ``packs``, in order, without repeats."""
        sections = [pack.variants for pack in packs]
        return cls(
            VariantNames(
                tuple(dict.fromkeys(v for s in sections for v in s.settings)),
                tuple(dict.fromkeys(v for s in sections for v in s.predicates)),
                tuple(dict.fromkeys(v for s in sections for v in s.normalisers)),
                tuple(dict.fromkeys(v for s in sections for v in s.rewrites)),
            )
        )
