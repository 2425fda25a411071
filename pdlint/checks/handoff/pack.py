"""The handoff check's pack section: a pack's ``[handoff]`` table (the settings parse
and validate it, see :mod:`pdlint.settings.packs`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack

# The keys the decode side finds the prefill side's result under, with no pack: the
# names serving engines give it (Dynamo's result, TensorRT-LLM's and SGLang's parameters)
DEFAULT_PAYLOADS = ("prefill_result", "disaggregated_params", "bootstrap_info")


@dataclass(frozen=True)
class HandoffNames:
    """A pack's ``[handoff]`` table."""

    payloads: tuple[str, ...] = ()  # keys of the request holding the handoff payload
    preconditions: tuple[str, ...] = ()  # functions that raise when it is missing (globs)


@dataclass(frozen=True)
class HandoffPack:
    """The ``[handoff]`` names of every active pack, with the default payload key."""

    payloads: tuple[str, ...] = DEFAULT_PAYLOADS
    preconditions: tuple[str, ...] = ()

    @classmethod
    def of(cls, packs: Sequence[Pack]) -> HandoffPack:
        """The names of all ``packs``, in order, without repeats."""
        payloads = (*DEFAULT_PAYLOADS, *(p for pack in packs for p in pack.handoff.payloads))
        preconditions = (p for pack in packs for p in pack.handoff.preconditions)
        return cls(tuple(dict.fromkeys(payloads)), tuple(dict.fromkeys(preconditions)))
