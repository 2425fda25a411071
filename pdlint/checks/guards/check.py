"""The guard check: PDL107 guard-narrower-than-effect and PDL108 dead-variant-branch.

Its declaration alone: the analysis (:mod:`pdlint.checks.guards.run`) is imported
when the check runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pdlint.checks.base import Check, Context, Run
from pdlint.checks.guards.catalogue import RULES
from pdlint.checks.guards.pack import GuardPack
from pdlint.checks.relay.check import RelayCheck

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


class GuardCheck(Check):
    """Guards on a variant narrower than what they guard, and branches on values a
    variant can no longer hold."""

    rules = RULES
    pack_section = GuardPack
    # the code reached from the entry points is the relay check's graph; the files
    # testing a rewritten value are loaded by the run, once it knows the values
    requires = (RelayCheck,)

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> GuardPack:
        return GuardPack.of(packs)

    @classmethod
    def begin(cls, context: Context) -> Run:
        from pdlint.checks.guards.run import GuardRun

        return GuardRun(context, context.required[RelayCheck])
