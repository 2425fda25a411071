"""A buffer read from stdin stands for its file within the project (issue 34, point 6).

An editor that lints on type pipes the unsaved buffer with ``--stdin-filename``:
pdlint analyses it in place of that file, with the rest of the project read
from disk, and reports the buffer's findings only (as ruff does), the same
findings the saved file gets.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, GAP_PDL001, fixture, invoke, run_pdlint

# Every fixture file with a finding (from the fixtures' expected.txt).
FILES_WITH_FINDINGS = [
    ("relay_gap", "relay_gap_engine/spec_utils.py"),
    ("relay_gap", "relay_gap_engine/spec_info.py"),
    ("two_modules_away", "distant_engine/draft_ops.py"),
    ("mixin_relay", "mixin_engine/schedule_batch.py"),
    ("worker_registry", "regeng/workers/lookahead.py"),
    ("factory_table", "tabdec/decode_loop.py"),
    ("idle_bypass", "idle_engine/scheduler.py"),
    ("layout_halved", "halved_engine/sender.py"),
]


def edited(path: Path) -> str:
    """The file's text as an editor holds it after an edit: two lines added on top,
    so every finding of the buffer is two lines below the file's on disk."""
    return "# edited\n\n" + path.read_text()


def lines_of(stdout: str, display: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith(f"{display}:")]


@pytest.mark.parametrize(("name", "rel"), FILES_WITH_FINDINGS)
def test_the_buffer_gets_the_findings_of_the_saved_file(tmp_path: Path, name: str, rel: str):
    project = shutil.copytree(fixture(name), tmp_path / name)
    buffer = edited(project / rel)

    piped = invoke("check", "-", "--stdin-filename", rel, cwd=project, stdin=buffer)
    (project / rel).write_text(buffer)
    saved = invoke("check", ".", cwd=project)

    assert piped.stdout.splitlines() == lines_of(saved.stdout, rel)
    # exit 1 for the file's findings but a note (PDL001) alone
    fails = any(" PDL001 " not in line for line in lines_of(saved.stdout, rel))
    assert piped.returncode == int(fails), piped.stderr
    assert lines_of(saved.stdout, rel), "the fixture's finding is in this file"


def test_the_buffer_alone_reports_only_its_findings(relay_gap: Path):
    buffer = edited(relay_gap / CONSUMER)

    res = run_pdlint("check", "-", "--stdin-filename", CONSUMER, cwd=relay_gap, stdin=buffer)

    # the gap's PDL001 is in the builder's file, not shown; the PDL101 moved with the edit
    assert res.returncode == 1, res.stderr
    assert [line.split(" PDL")[0] for line in res.stdout.splitlines()] == [f"{CONSUMER}:22:9:"]
    assert res.stderr == "Found 1 finding (1 error).\n"  # the summary, of this file alone


def test_the_buffer_replaces_its_file_among_the_paths(relay_gap: Path):
    buffer = edited(relay_gap / CONSUMER)

    res = run_pdlint("check", ".", "-", "--stdin-filename", CONSUMER, cwd=relay_gap, stdin=buffer)

    # the project's findings, the buffer's from its text: not the file on disk's, not twice
    assert res.returncode == 1, res.stderr
    assert [line.split(" PDL")[0] for line in res.stdout.splitlines()] == [
        GAP_PDL001.split(" PDL")[0],
        f"{CONSUMER}:22:9:",
    ]


def test_stdin_without_a_name_is_one_more_module(relay_gap: Path):
    buffer = edited(relay_gap / CONSUMER)

    res = run_pdlint("check", ".", "-", cwd=relay_gap, stdin=buffer)

    # the file on disk is analysed as it is saved; "-" is a module of its own
    assert res.returncode == 1, res.stderr
    assert f"{CONSUMER}:20:9: PDL101 " in res.stdout
    assert f"{CONSUMER}:22:9:" not in res.stdout


def test_the_project_and_its_configuration_are_found_from_the_name(relay_gap: Path):
    rel = Path("relay_gap") / CONSUMER
    buffer = (relay_gap / CONSUMER).read_text()
    outside = relay_gap.parent

    found = run_pdlint("check", "-", "--stdin-filename", rel, cwd=outside, stdin=buffer)
    assert found.returncode == 1, found.stderr
    assert found.stdout.startswith(f"{rel.as_posix()}:20:9: PDL101 ")

    (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\nignore = ["PDL101"]\n')
    configured = run_pdlint("check", "-", "--stdin-filename", rel, cwd=outside, stdin=buffer)
    assert (configured.returncode, configured.stdout) == (0, ""), configured.stderr
