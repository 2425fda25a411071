"""Exit codes as a pre-commit hook or CI job sees them: notes never fail a run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, REPO, fixture, run_pdlint


def test_the_documented_fix_exits_0_though_it_reports_its_inventory_note():
    # fixtures/relay/startup_validator is the README's fix: only PDL001 (a note) remains
    res = run_pdlint("check", "fixtures/relay/startup_validator", cwd=REPO)

    assert res.returncode == 0, res.stderr
    (line,) = res.stdout.splitlines()
    # the members the validator rejects are left out of the inventory too
    assert line.endswith(" PDL001 `build_disagg_draft` builds no `draft` for NONE")


def test_an_error_finding_beside_a_note_exits_1(relay_gap):
    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1, res.stderr
    first, second = res.stdout.splitlines()
    assert first.startswith(GAP_PDL001) and second.startswith(GAP_PDL101)


def test_only_the_note_left_exits_0(relay_gap):
    res = run_pdlint("check", ".", "--ignore", "PDL101", cwd=relay_gap)

    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith(GAP_PDL001)


def test_a_warning_finding_exits_1(tmp_path: Path):
    # PDL103 is a warning: it fails the run as an error does
    shutil.copytree(fixture("masked_placeholder"), tmp_path / "p")
    res = run_pdlint("check", ".", "--select", "PDL103", cwd=tmp_path / "p")

    assert res.returncode == 1, res.stderr
    assert " PDL103 " in res.stdout


def test_exit_zero_still_exits_0_with_errors(relay_gap):
    res = run_pdlint("check", ".", "--exit-zero", cwd=relay_gap)

    assert res.returncode == 0
    assert " PDL101 " in res.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_every_format_exits_0_on_notes_alone_and_keeps_the_note(relay_gap, fmt):
    res = run_pdlint("check", ".", "--ignore", "PDL101", "--output-format", fmt, cwd=relay_gap)

    assert res.returncode == 0, res.stderr
    if fmt == "sarif":
        (result,) = json.loads(res.stdout)["runs"][0]["results"]
        assert (result["ruleId"], result["level"]) == ("PDL001", "note")
    else:
        assert "PDL001" in res.stdout
