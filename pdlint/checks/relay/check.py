"""The relay check: PDL001 dispatch-gap, PDL101 relay-state-missing, PDL104
relay-field-missing, PDL105 relay-state-type and PDL106 unwired-builder.

Its declaration alone (rules, pack section, loading): a run that reuses its
record never imports the analysis (:mod:`pdlint.checks.relay.analysis`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from pdlint.checks.base import Check, Context, Loading, Run
from pdlint.checks.relay.catalogue import RULES
from pdlint.checks.relay.pack import RelayPack

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


REJECTION_WORDS = (
    ("raise", "'decode'"),
    ("raise", '"decode"'),
    ("raise", "disagg*decode"),
    ("raise", "decode*disagg"),
)
REJECTION_BRANCHES = (("'decode'", '"decode"', "disagg*decode", "decode*disagg"), ("raise",))


class RelayCheck(Check):
    """Builders, relays and the consumers reached from the decode entry points."""

    rules = RULES
    pack_section = RelayPack

    # ``rejected`` enumerates every ``raise`` under a decode-mode test
    # (``is_decode_test``: the string "decode", or a dotted name with disagg and decode),
    # and a raise's guards come from the conditions of the branches before it: the run
    # loads those files once it found an entry point (with none it reports nothing)
    loading = Loading(scanned=REJECTION_WORDS)

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> RelayPack:
        return RelayPack.of(packs)

    @classmethod
    def begin(cls, context: Context) -> Run:
        from pdlint.checks.relay.graph import GraphRun

        return GraphRun(context)
