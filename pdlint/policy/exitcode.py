"""Which findings fail a run: every finding but a note (PDL001, the support inventory)."""

from __future__ import annotations

from collections.abc import Iterable

from pdlint.checks.catalogue import RULES, get_rule
from pdlint.findings import Finding


def fails_run(finding: Finding) -> bool:
    """True if ``finding`` makes ``pdlint check`` exit 1: its rule's severity is not
    "note" (a note informs, it names no problem in the code; an unknown code fails)."""
    rule = get_rule(finding.code)
    return rule is None or rule.severity != "note"


def any_fails(findings: Iterable[Finding]) -> bool:
    """True if one of ``findings`` makes the run exit 1 (see :func:`fails_run`)."""
    return any(fails_run(f) for f in findings)


def note_codes() -> tuple[str, ...]:
    """The codes of every rule of severity "note", sorted."""
    return tuple(code for code, rule in sorted(RULES.items()) if rule.severity == "note")
