"""What a user sees from ``pdlint check`` as ruff shows it: short concise lines (the whole
message in ``full``, JSON and SARIF), a summary on stderr after every run, and a
warning when no Python file is found."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture_dirs, run_pdlint

from pdlint.api import analyze
from pdlint.output.text import concise, finding_json, full
from pdlint.settings.config import Settings

# ruff's concise line: ``path:line:col: CODE message``, the message one short line
MESSAGE_MAX = 90
LINE_MAX = 120


def _findings(folder: Path):  # type: ignore[no-untyped-def]
    with chdir(folder):
        return analyze(["."], Settings(root=str(folder), cache=False))


@pytest.fixture(scope="module")
def every_fixture() -> list:  # type: ignore[type-arg]
    return [(folder, _findings(folder)) for folder in fixture_dirs()]


def test_concise_lines_are_short_on_every_fixture(every_fixture: list) -> None:  # type: ignore[type-arg]
    lines = [line for _, result in every_fixture for line in concise(result.findings).splitlines()]
    assert len(lines) > 50
    messages = [line.split(": ", 1)[1].split(" ", 1)[1] for line in lines]
    assert max(map(len, messages)) <= MESSAGE_MAX, max(messages, key=len)
    assert max(map(len, lines)) <= LINE_MAX, max(lines, key=len)


def test_full_json_and_sarif_keep_the_whole_message(every_fixture: list) -> None:  # type: ignore[type-arg]
    from pdlint.output.sarif import escape_message, render

    for folder, result in every_fixture:
        for finding in result.findings:
            if finding.summary:  # a check's finding: its message says more than the line
                assert len(finding.message) > len(finding.summary)
            assert finding_json(finding)["message"] == finding.message
        text = full(result.findings, result.sources)
        log = json.loads(render(result.findings, cwd=folder, version="0", project_root=str(folder)))
        shown = [r["message"]["text"] for r in log["runs"][0]["results"]]
        for finding in result.findings:
            assert f": {finding.code} {finding.message}\n" in text
            assert any(m.startswith(escape_message(finding.message)) for m in shown)


def test_concise_line_on_the_relay_gap(relay_gap: Path) -> None:
    res = run_pdlint("check", ".", "--select", "PDL101", cwd=relay_gap)

    assert res.stdout == (
        "relay_gap_engine/spec_utils.py:20:9: PDL101 DFLASH reaches `batch.draft_input`, "
        "never built on the decode relay\n"
    )


# --- the summary ----------------------------------------------------------------


def test_summary_on_stderr_after_every_run(relay_gap: Path) -> None:
    res = run_pdlint("check", ".", cwd=relay_gap)
    # not a terminal, and still the summary; PDL001 is a note, not an error
    assert (res.returncode, res.stderr) == (1, "Found 2 findings (1 error).\n")

    # a note alone exits 0
    res = run_pdlint("check", ".", "--select", "PDL001", cwd=relay_gap)
    assert (res.returncode, res.stderr) == (0, "Found 1 finding (0 errors).\n")

    res = run_pdlint("check", ".", "--select", "PDL102", cwd=relay_gap)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "All checks passed!\n")


@pytest.mark.parametrize("fmt", ["json", "sarif", "github"])
def test_summary_never_mixed_into_machine_output(relay_gap: Path, fmt: str) -> None:
    res = run_pdlint("check", ".", "--output-format", fmt, cwd=relay_gap)

    assert res.stderr == "Found 2 findings (1 error).\n"
    assert "Found" not in res.stdout
    if fmt != "github":
        json.loads(res.stdout)  # stdout is the document alone


def test_quiet_prints_the_findings_only(relay_gap: Path) -> None:
    res = run_pdlint("check", ".", "--quiet", cwd=relay_gap)

    assert res.returncode == 1 and res.stderr == ""
    assert len(res.stdout.splitlines()) == 2


def test_no_python_files_is_a_warning_as_in_ruff(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.txt").write_text("no Python here\n")

    res = run_pdlint("check", "docs", cwd=tmp_path)

    assert (res.returncode, res.stdout) == (0, "")
    assert res.stderr == (
        "pdlint: warning: No Python files found under the given path(s)\nAll checks passed!\n"
    )
