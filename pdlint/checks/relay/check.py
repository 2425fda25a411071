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
from pdlint.checks.relay.decode_tests import ROLE_FLAGS
from pdlint.checks.relay.pack import RelayPack

if TYPE_CHECKING:
    from pdlint.settings.packs import Pack


# the words of a decode-role test (``is_decode_test``), as validators write them: the
# role's names as strings, a disaggregation mode, a role's member (``ServerRole.
# GENERATION``, ``Role.DECODE``), a role's predicate (``cfg.role.is_decode()``) and a
# flag (``is_decode_server``)
_DECODE_WORDS = (
    "'decode'",
    '"decode"',
    "'generation'",
    '"generation"',
    "disagg*decode",
    "decode*disagg",
    "role.decode",
    "role.generation",
    "role.is_decode",
    "role.is_generation",
    *(f"decode_{flag}" for flag in ROLE_FLAGS),
)
REJECTION_WORDS = tuple(("raise", word) for word in _DECODE_WORDS)
REJECTION_BRANCHES = (_DECODE_WORDS, ("raise",))


class RelayCheck(Check):
    """Builders, relays and the consumers reached from the decode entry points."""

    rules = RULES
    pack_section = RelayPack

    # ``rejected`` enumerates every ``raise`` under a decode-mode test
    # (``is_decode_test``: the role's name as a string, or a name with a role word),
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
