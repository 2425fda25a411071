"""GitHub Actions workflow-command output."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pdlint_helpers import copy_relay_gap, fixture, run_pdlint

from pdlint.findings import Finding, Location
from pdlint.output.github import annotation, escape_data, escape_property, to_github


def finding(code: str, message: str, path: str = "pkg/x.py", line: int = 4) -> Finding:
    return Finding(code, message, Location(path, line, 5, line, 37))


def test_annotation_line_carries_position_and_rule_code():
    assert annotation(finding("PDL101", "DFLASH reaches prepare()")) == (
        "::error file=pkg/x.py,line=4,col=5,endLine=4,endColumn=37,title=PDL101"
        "::DFLASH reaches prepare()"
    )


@pytest.mark.parametrize(
    ("code", "command"),
    [
        ("PDL101", "error"),
        ("PDL103", "warning"),
        ("PDL001", "notice"),
        ("PDL104", "error"),
        ("PDL105", "error"),
        ("PDL106", "warning"),
        ("PDL107", "error"),
        ("PDL108", "warning"),
        ("PDL301", "warning"),
    ],
)
def test_rule_severity_picks_the_command(code: str, command: str):
    assert annotation(finding(code, "m")).startswith(f"::{command} ")


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("100% sure", "100%25 sure"),
        ("a\nb", "a%0Ab"),
        ("a\r\nb", "a%0D%0Ab"),
        ("%0A is not a newline", "%250A is not a newline"),
        ("keeps: colons, commas", "keeps: colons, commas"),
    ],
)
def test_message_escaping(raw: str, escaped: str):
    assert escape_data(raw) == escaped


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("pkg/a,b.py", "pkg/a%2Cb.py"),
        ("C:pkg", "C%3Apkg"),
        ("50%", "50%25"),
        ("a\nb", "a%0Ab"),
        ("%3A", "%253A"),
    ],
)
def test_property_escaping(raw: str, escaped: str):
    assert escape_property(raw) == escaped


def test_properties_and_message_are_escaped_in_the_command():
    line = annotation(finding("PDL102", "IDLE: 100%\nno guard", path="pkg/a,b:c.py"))
    assert line == (
        "::error file=pkg/a%2Cb%3Ac.py,line=4,col=5,endLine=4,endColumn=37,"
        "title=PDL102::IDLE: 100%25%0Ano guard"
    )


def test_unknown_position_leaves_out_line_and_columns():
    unknown = Finding("PDL900", "cannot read file", Location("pkg/x.py", 0, 0, 0, 0))
    assert annotation(unknown) == "::error file=pkg/x.py,title=PDL900::cannot read file"


def test_output_is_sorted_one_command_per_line():
    out = to_github(
        [
            finding("PDL101", "second", line=9),
            finding("PDL001", "first", line=2),
        ]
    )
    lines = out.splitlines()
    assert out.endswith("\n")
    assert [line.rsplit("::", 1)[1] for line in lines] == ["first", "second"]
    assert to_github([]) == ""


def test_cli_names_files_from_the_repository_root(tmp_path: Path):
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    copy_relay_gap(repo / "service")
    proc = run_pdlint("check", "--output-format", "github", ".", cwd=repo / "service")
    assert proc.returncode == 1, proc.stderr
    commands = [line.split("::")[1] for line in proc.stdout.splitlines()]
    assert commands == [
        "notice file=service/relay_gap_engine/spec_info.py,line=48,col=5,endLine=48,"
        "endColumn=33,title=PDL001",
        "error file=service/relay_gap_engine/spec_utils.py,line=20,col=9,endLine=20,"
        "endColumn=26,title=PDL101",
    ]
    assert "DFLASH reaches `batch.draft_input`" in proc.stdout.splitlines()[1]


def test_cli_outside_a_repository_keeps_paths_as_shown(tmp_path: Path):
    copy_relay_gap(tmp_path / "service")
    proc = run_pdlint("check", "--output-format", "github", "service", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    files = [line.split(",", 1)[0] for line in proc.stdout.splitlines()]
    assert files == [
        "::notice file=service/relay_gap_engine/spec_info.py",
        "::error file=service/relay_gap_engine/spec_utils.py",
    ]


def test_cli_annotates_the_unwired_builders(tmp_path: Path):
    """PDL106 (unwired-builder) as workflow commands: a warning at each builder left out."""
    shutil.copytree(fixture("unwired_builder"), tmp_path / "service")
    proc = run_pdlint("check", "--output-format", "github", "service", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    found = [
        (line.split(" ", 1)[0], line.split("title=")[1].split("::")[0], line.split(",")[0])
        for line in proc.stdout.splitlines()
        if "PDL106" in line
    ]
    assert found == [
        ("::warning", "PDL106", "::warning file=service/wirekit/algos.py"),
        ("::warning", "PDL106", "::warning file=service/wirekit/states.py"),
    ]


def test_cli_annotates_the_relay_state_types(tmp_path: Path):
    """PDL105 (relay-state-type) as workflow commands: an error per consumer demand."""
    shutil.copytree(fixture("state_subclass"), tmp_path / "service")
    proc = run_pdlint("check", "--output-format", "github", "service", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    found = [
        (line.split(" ", 1)[0], line.split("title=")[1].split("::")[0], line.split(",")[1])
        for line in proc.stdout.splitlines()
    ]
    assert found == [
        ("::notice", "PDL001", "line=11"),
        ("::error", "PDL105", "line=17"),
        ("::error", "PDL105", "line=25"),
        ("::error", "PDL105", "line=31"),
    ]
    last = proc.stdout.splitlines()[-1]
    assert "LAYERED_TREE reaches `LayeredTreeStepper.step`, which demands" in last
    assert "`assert isinstance(batch.state, LayeredTreeState)`" in last
