"""select/ignore/extend-select and ``# noqa`` decide exactly as flake8 does.

The reference is flake8 itself (a dev dependency here): its ``DecisionEngine``
for selection and ``Violation.is_inline_ignored`` for inline suppression.
"""

from __future__ import annotations

import argparse
import itertools

import flake8.defaults as flake8_defaults
import flake8.style_guide as flake8_style_guide
import flake8.utils as flake8_utils
import flake8.violation as flake8_violation
import pytest

from pdlint.findings import Finding, Location
from pdlint.policy.selection import NOQA_RE, apply_policy, is_enabled, is_suppressed, noqa_codes
from pdlint.settings.config import Settings, check_codes

CODES = ("PDL001", "PDL101", "PDL102", "PDL103", "PDL201", "PDL900")

SELECTS = (
    None,  # not given: every PDL code, implicitly (flake8's extended default)
    [],
    ["PDL"],
    ["PD"],
    ["PDL1"],
    ["PDL10"],
    ["PDL101"],
    ["PDL9"],
    ["PDL1", "PDL9"],
    ["PDL0", "PDL201"],
)
IGNORES = (
    None,
    ["PDL"],
    ["P"],
    ["PD"],
    ["PDL1"],
    ["PDL10"],
    ["PDL101"],
    ["PDL0"],
    ["PDL2", "PDL101"],
    ["PDL9", "PDL10"],
)
EXTEND_SELECTS = (None, ["PDL"], ["PDL1"], ["PDL101"], ["PDL9"], ["PDL102", "PDL0"])

COMBINATIONS = list(itertools.product(SELECTS, IGNORES, EXTEND_SELECTS))


def flake8_selects(
    code: str,
    select: list[str] | None,
    ignore: list[str] | None,
    extend_select: list[str] | None,
) -> bool:
    """flake8's decision for a plugin registered under the ``PDL`` prefix."""
    options = argparse.Namespace(
        select=select,
        ignore=ignore,
        extend_select=extend_select,
        extend_ignore=None,
        extended_default_select=["PDL"],
        extended_default_ignore=[],
    )
    engine = flake8_style_guide.DecisionEngine(options)
    return engine.decision_for(code) is flake8_style_guide.Decision.Selected


def pdlint_settings(
    select: list[str] | None,
    ignore: list[str] | None,
    extend_select: list[str] | None,
) -> Settings:
    """Settings as the CLI builds them (codes go through the same validation)."""
    return Settings(
        select=None if select is None else check_codes(select, "--select"),
        ignore=check_codes(ignore or [], "--ignore"),
        extend_select=check_codes(extend_select or [], "--extend-select"),
    )


@pytest.mark.parametrize(
    ("select", "ignore", "extend_select"),
    COMBINATIONS,
    ids=[f"select={s}-ignore={i}-extend={e}" for s, i, e in COMBINATIONS],
)
def test_selection_matches_flake8(select, ignore, extend_select):
    settings = pdlint_settings(select, ignore, extend_select)

    got = {code: is_enabled(code, settings) for code in CODES}
    want = {code: flake8_selects(code, select, ignore, extend_select) for code in CODES}

    assert got == want


def test_selection_table_exercises_both_outcomes_and_precedence():
    """Guard the table itself: it must contain the cases that can disagree."""
    outcomes = {
        (code, s is None, flake8_selects(code, s, i, e))
        for s, i, e in COMBINATIONS
        for code in CODES
    }
    assert {(True, True), (True, False), (False, True), (False, False)} <= {
        (implicit, selected) for _, implicit, selected in outcomes
    }
    # Explicit ignore shorter than the implicit default "PDL": flake8 ignores.
    assert not flake8_selects("PDL101", None, ["PD"], None)
    # ... but an explicit select of the same default, being longer, wins.
    assert flake8_selects("PDL101", ["PDL"], ["PD"], None)
    # Equal length: ignore wins.
    assert not flake8_selects("PDL101", ["PDL1"], ["PDL1"], None)


def test_default_settings_select_every_code():
    assert all(is_enabled(code, Settings()) for code in CODES)


# --- noqa ------------------------------------------------------------------------

NOQA_LINES = (
    "x = 1",
    "",
    "x = 1  # noqa",
    "x = 1  # noqa: PDL101",
    "x = 1  # noqa:PDL101",
    "x = 1  # noqa:PDL1",
    "x = 1  # noqa: PDL",
    "x = 1  # noqa: PDL10",
    "x = 1  # noqa: PDL1011",
    "x = 1  # noqa: PDL101,PDL102",
    "x = 1  # noqa: PDL101, PDL102",
    "x = 1  # noqa: PDL102 PDL101",
    "x = 1  # noqa:PDL101,,PDL102",
    "x = 1  # noqa: PDL102",
    "x = 1  # noqa: E501",
    "x = 1  # noqa: E501,PDL900",
    "x = 1  # NOQA",
    "x = 1  # NoQA: PDL101",
    "x = 1  # NOQA:PDL0",
    "x = 1  #noqa",
    "x = 1  #noqa: PDL101",
    "x = 1  # noqa : PDL101",
    "x = 1  # noqa PDL102",
    "x = 1  # noqa:  PDL102",
    "x = 1  # noqa:\tPDL101",
    "x = 1  # noqa: pdl101",
    "x = 1  # noqa:pdl1",
    "x = 1  # noqa: PDL101 because the builder raises",
    "x = 1  # noqa: PDL102 -- not this one",
    "x = 1  # noqa:,PDL101",
    "x = 1  # noqa-PDL101",
    "x = 1  # no qa",
    "x = 1  # type: ignore  # noqa: PDL102",
    "x = 1  # noqa: PDL102  # noqa: PDL101",
    "x = '# noqa: PDL900'",
    "    batch.draft_input.prepare(batch)  # noqa: PDL101 PDL103",
)


def flake8_suppresses(code: str, line: str) -> bool:
    violation = flake8_violation.Violation(
        code=code,
        filename="pkg/mod.py",
        line_number=1,
        column_number=0,
        text="message",
        physical_line=line + "\n",
    )
    return violation.is_inline_ignored(disable_noqa=False)


def finding(code: str, line: int = 1) -> Finding:
    return Finding(code, "message", Location("pkg/mod.py", line, 1, line, 2))


def test_noqa_regexp_is_flake8s():
    assert NOQA_RE.pattern == flake8_defaults.NOQA_INLINE_REGEXP.pattern
    assert NOQA_RE.flags == flake8_defaults.NOQA_INLINE_REGEXP.flags


@pytest.mark.parametrize("line", NOQA_LINES)
def test_noqa_codes_match_flake8s_parse(line):
    match = flake8_defaults.NOQA_INLINE_REGEXP.search(line)
    if match is None:
        want = None
    elif match.group("codes") is None:
        want = ()
    else:
        want = tuple(flake8_utils.parse_comma_separated_list(match.group("codes")))

    assert noqa_codes(line) == want


@pytest.mark.parametrize("line", NOQA_LINES)
def test_noqa_suppression_matches_flake8(line):
    got = {code: is_suppressed(finding(code), [line]) for code in CODES}
    want = {code: flake8_suppresses(code, line) for code in CODES}

    assert got == want


def test_noqa_table_exercises_both_outcomes():
    decisions = {flake8_suppresses(c, line) for line in NOQA_LINES for c in CODES}
    assert decisions == {True, False}
    assert not flake8_suppresses("PDL101", "x = 1  # noqa: pdl101")


def test_noqa_applies_to_the_reported_line_only():
    lines = ["a = 1", "b = 2  # noqa: PDL101", "c = 3"]

    assert is_suppressed(finding("PDL101", 2), lines)
    assert not is_suppressed(finding("PDL101", 1), lines)
    assert not is_suppressed(finding("PDL101", 3), lines)
    assert not is_suppressed(finding("PDL101", 4), lines)  # past the end
    assert not is_suppressed(finding("PDL101", 2), None)  # source unknown


def test_apply_policy_combines_selection_per_file_ignores_and_noqa():
    sources = {
        "pkg/a.py": ["x = 1", "y = 2  # noqa"],
        "pkg/b.py": ["x = 1", "y = 2"],
    }
    findings = [
        Finding("PDL101", "m", Location("pkg/b.py", 2, 1, 2, 2)),
        Finding("PDL101", "m", Location("pkg/a.py", 1, 1, 1, 2)),
        Finding("PDL101", "m", Location("pkg/a.py", 2, 1, 2, 2)),  # noqa
        Finding("PDL001", "m", Location("pkg/a.py", 1, 1, 1, 2)),  # ignored
        Finding("PDL900", "m", Location("pkg/b.py", 1, 1, 1, 1)),  # per-file
        Finding("PDL900", "m", Location("pkg/a.py", 1, 1, 1, 1)),
    ]
    settings = Settings(ignore=("PDL0",), per_file_ignores=(("*/b.py", ("PDL9",)),))

    kept = apply_policy(findings, settings, sources)

    assert [(f.location.path, f.location.line, f.code) for f in kept] == [
        ("pkg/a.py", 1, "PDL101"),
        ("pkg/a.py", 1, "PDL900"),
        ("pkg/b.py", 2, "PDL101"),
    ]
