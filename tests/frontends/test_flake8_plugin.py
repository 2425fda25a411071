"""The flake8 plugin, run through the real flake8 in a subprocess.

flake8 must print pdlint's findings in its own format, apply its own ``noqa``,
and share one whole-program analysis between the files of a run, its ``--jobs``
workers and the next run while nothing changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, copy_relay_gap, fixture, run_pdlint

# flake8's own entry point, with the plugin's log lines ("analysed", "reused")
# sent to stderr so a test can count the analyses of a run.
FLAKE8_WITH_LOG = """
import logging, sys
handler = logging.StreamHandler()
handler.setFormatter(logging.Formatter("LOG %(message)s"))
logger = logging.getLogger("pdlint")
logger.addHandler(handler)
logger.setLevel(logging.INFO)
from flake8.main.cli import main
sys.exit(main())
"""
BUILDER = Path("relay_gap_engine/spec_info.py")


def flake8(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """flake8 in ``cwd``, with pdlint's cache in the project (its default place)."""
    env = {k: v for k, v in os.environ.items() if k != "PDLINT_CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "-c", FLAKE8_WITH_LOG, *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def analyses(proc: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    """(analyses computed, analyses reused from the result file) in one run."""
    lines = proc.stderr.splitlines()
    return (
        sum(line.startswith("LOG pdlint: analysed ") for line in lines),
        sum(line.startswith("LOG pdlint: reused ") for line in lines),
    )


def add_noqa(project: Path, rel: Path, line: int, comment: str) -> None:
    path = project / rel
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + f"  {comment}\n"
    path.write_text("".join(lines))


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_relay_gap(tmp_path / "relay_gap")


def test_flake8_prints_pdlint_findings_in_its_format(project: Path):
    pdlint = run_pdlint("check", ".", cwd=project)
    assert pdlint.returncode == 1, pdlint.stderr
    expected = ["./" + line for line in pdlint.stdout.splitlines()]
    assert [line.split(": ")[1].split()[0] for line in expected] == ["PDL001", "PDL101"]

    proc = flake8("--select", "PDL", "--jobs", "1", ".", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == expected
    assert analyses(proc) == (1, 0)  # five files checked, one analysis


def test_flake8_noqa_decides(project: Path):
    add_noqa(project, CONSUMER, 20, "# noqa: E501")  # another code: still reported
    proc = flake8("--select", "PDL", ".", cwd=project)
    assert [line.split(":")[:2] for line in proc.stdout.splitlines()] == [
        ["./relay_gap_engine/spec_info.py", "48"],
        ["./relay_gap_engine/spec_utils.py", "20"],
    ]

    add_noqa(project, BUILDER, 48, "# noqa:PDL0")  # flake8's prefix matching
    consumer = project / CONSUMER
    consumer.write_text(consumer.read_text().replace("# noqa: E501", "# noqa: E501,PDL101"))
    proc = flake8("--select", "PDL", ".", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr

    proc = flake8("--select", "PDL", "--disable-noqa", ".", cwd=project)
    assert len(proc.stdout.splitlines()) == 2
    proc = flake8("--select", "PDL", "--disable-noqa", "--extend-ignore", "PDL0", ".", cwd=project)
    assert [line.split(": ")[1][:6] for line in proc.stdout.splitlines()] == ["PDL101"]


def test_flake8_jobs_share_one_analysis_and_runs_reuse_it(project: Path):
    # Enough files for pdlint to index in worker processes, which a flake8
    # worker (a daemonic process) may not start.
    extra = project / "relay_gap_engine" / "extra"
    extra.mkdir()
    (extra / "__init__.py").write_text("")
    for i in range(205):
        (extra / f"mod{i}.py").write_text(f"def helper_{i}(batch):\n    return batch.reqs\n")

    serial = flake8("--select", "PDL", "-j", "1", ".", cwd=project)
    assert serial.returncode == 1, serial.stderr
    assert len(serial.stdout.splitlines()) == 2
    assert analyses(serial) == (1, 0)

    (project / ".pdlint_cache").rename(project / "old_cache")  # a cold start for the workers
    parallel = flake8("--select", "PDL", "-j", "2", ".", cwd=project)
    assert parallel.returncode == 1, parallel.stderr
    assert parallel.stdout == serial.stdout
    computed, reused = analyses(parallel)
    assert computed == 1 and reused >= 1  # the other worker waited and read the result

    again = flake8("--select", "PDL", "-j", "2", ".", cwd=project)
    assert again.stdout == serial.stdout
    assert analyses(again)[0] == 0  # nothing changed: no analysis at all

    # The builder gets its DFLASH branch: the consumer's finding is gone.
    text = (project / BUILDER).read_text()
    branch = (
        "        if self.is_dflash():\n"
        "            return DraftInput(hidden_states=list(hidden_states), topk=topk)\n"
    )
    (project / BUILDER).write_text(
        text.replace("        return None\n", branch + "        return None\n")
    )
    fixed = flake8("--select", "PDL", "-j", "2", ".", cwd=project)
    assert analyses(fixed)[0] == 1
    assert [line.split(": ")[1][:6] for line in fixed.stdout.splitlines()] == ["PDL001"]
    assert fixed.stdout.endswith("builds no `draft_input` for NONE\n")


def test_a_planted_result_file_does_not_hide_findings(project: Path):
    """The shared result file is signed with the per-user key: one shipped in the
    repository's cache folder (same inputs, no findings) is not believed."""
    first = flake8("--select", "PDL", ".", cwd=project)
    assert first.returncode == 1 and len(first.stdout.splitlines()) == 2
    (result,) = (project / ".pdlint_cache" / "flake8").glob("*.json")
    data = json.loads(result.read_text())
    data["findings"] = {}
    result.write_text(json.dumps(data))
    planted = flake8("--select", "PDL", ".", cwd=project)
    assert planted.stdout == first.stdout
    assert analyses(planted)[0] == 1  # recomputed, not read


def test_flake8_on_one_file_analyses_its_project(project: Path):
    # pre-commit's flake8 hook passes file names: the file's project is found from
    # the file, as for a buffer on stdin, [tool.pdlint] or not (issue 34, point 7)
    expected = [[f"{CONSUMER}:20:9:", "PDL101"]]
    named = flake8("--select", "PDL", str(CONSUMER), cwd=project)
    assert [line.split(" ")[:2] for line in named.stdout.splitlines()] == expected
    piped = flake8(
        "--select",
        "PDL",
        "--stdin-display-name",
        str(CONSUMER),
        "-",
        cwd=project,
        stdin=(project / CONSUMER).read_text(),
    )
    assert piped.stdout == named.stdout, piped.stderr

    # a pyproject.toml without [tool.pdlint] marks the project; flake8 runs elsewhere
    (project / "pyproject.toml").write_text('[project]\nname = "relay-gap"\n')
    away = project / "relay_gap_engine"
    proc = flake8("--select", "PDL", "spec_utils.py", cwd=away)
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [
        ["spec_utils.py:20:9:", "PDL101"]
    ]

    (project / "pyproject.toml").write_text("[tool.pdlint]\n")
    proc = flake8("--select", "PDL", str(CONSUMER), cwd=project)
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == expected

    # An editor piping its buffer: the buffer counts, not the file on disk.
    buffer = (
        (project / CONSUMER)
        .read_text()
        .replace(
            "batch.draft_input.prepare(batch)", "batch.draft_input.prepare(batch)  # noqa: PDL101"
        )
    )
    piped = flake8(
        "--select", "PDL", "--stdin-display-name", str(CONSUMER), "-", cwd=project, stdin=buffer
    )
    assert (piped.returncode, piped.stdout) == (0, ""), piped.stderr
    unsuppressed = flake8(
        "--select",
        "PDL",
        "--stdin-display-name",
        str(CONSUMER),
        "-",
        cwd=project,
        stdin="\n\n" + (project / CONSUMER).read_text(),
    )
    assert [line.split(" ")[:2] for line in unsuppressed.stdout.splitlines()] == [
        [f"{CONSUMER}:22:9:", "PDL101"]
    ]


def test_flake8_leaves_the_note_out_by_default(project: Path):
    # flake8 fails on every code it reports: PDL001 (a note) is off unless selected
    text = (project / BUILDER).read_text()
    branch = (
        "        if self.is_dflash():\n"
        "            return DraftInput(hidden_states=list(hidden_states), topk=topk)\n"
    )
    (project / BUILDER).write_text(
        text.replace("        return None\n", branch + "        return None\n")
    )
    others = ("--extend-ignore", "E,W,F,C")  # pycodestyle's and pyflakes' own findings
    plain = flake8(*others, ".", cwd=project)
    assert (plain.returncode, plain.stdout) == (0, ""), plain.stderr

    shown = flake8(*others, "--extend-select", "PDL001", ".", cwd=project)
    assert shown.returncode == 1, shown.stderr
    assert [line.split(": ")[1][:6] for line in shown.stdout.splitlines()] == ["PDL001"]


def test_flake8_prints_the_relay_state_types(tmp_path: Path):
    """PDL105 (relay-state-type) findings in flake8's format, as pdlint prints them."""
    project = Path(shutil.copytree(fixture("state_subclass"), tmp_path / "state_subclass"))
    pdlint = run_pdlint("check", ".", cwd=project)
    expected = ["./" + line for line in pdlint.stdout.splitlines() if " PDL105 " in line]
    assert [line.split(":")[1] for line in expected] == ["17", "25", "31"]
    proc = flake8("--select", "PDL105", "--jobs", "1", ".", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == expected


def test_flake8_prints_the_unwired_builders(tmp_path: Path):
    """PDL106 (unwired-builder) findings in flake8's format, as pdlint prints them."""
    project = Path(shutil.copytree(fixture("unwired_builder"), tmp_path / "unwired_builder"))
    pdlint = run_pdlint("check", ".", cwd=project)
    expected = ["./" + line for line in pdlint.stdout.splitlines() if " PDL106 " in line]
    assert [line.split(":")[0:2] for line in expected] == [
        ["./wirekit/algos.py", "17"],
        ["./wirekit/states.py", "37"],
    ]
    proc = flake8("--select", "PDL106", "--jobs", "1", ".", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == expected
