"""A finding's identity does not depend on the directory pdlint runs in (issue 35).

Baselines and SARIF's logical fingerprints name a finding's file relative to the
project root (the folder of the pyproject.toml with ``[tool.pdlint]``; without
one, the nearest folder with a pyproject.toml or a ``.git``, else the analysed
folder), so a baseline written at the root matches every finding from a
subfolder or from the parent, and SARIF fingerprints are the same from each.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint

PKG = "relay_gap_engine"


@pytest.fixture(params=["[tool.pdlint]", "a pyproject.toml without it", "nothing"])
def project(relay_gap: Path, request: pytest.FixtureRequest) -> Path:
    """relay_gap with a PDL900 more, marked as a project each way pdlint knows one."""
    if request.param == "[tool.pdlint]":
        (relay_gap / "pyproject.toml").write_text("[tool.pdlint]\n")
    elif request.param == "a pyproject.toml without it":
        (relay_gap / "pyproject.toml").write_text("[project]\nname = 'engine'\n")
    (relay_gap / PKG / "bad.py").write_text("def broken(:\n")  # a PDL900, keyed by its file
    return relay_gap


def places(project: Path) -> list[tuple[Path, str]]:
    """(current directory, the path to analyse) at the root, below it and above it."""
    return [(project, "."), (project / PKG, ".."), (project.parent, project.name)]


def test_a_baseline_written_at_the_root_matches_from_anywhere(project: Path):
    written = run_pdlint("check", "--no-cache", "--write-baseline", "base.json", ".", cwd=project)
    assert written.returncode == 0, written.stderr
    base = project / "base.json"
    files = sorted(e["file"] for e in json.loads(base.read_text())["entries"])
    assert files == [f"{PKG}/bad.py", f"{PKG}/spec_info.py", f"{PKG}/spec_utils.py"]

    for cwd, target in places(project):
        res = run_pdlint("check", "--no-cache", "--baseline", str(base), target, cwd=cwd)
        assert res.returncode == 0, (cwd, res.stdout, res.stderr)
        assert "3 known, 0 stale, 0 new" in res.stderr, (cwd, res.stderr)
        assert res.stdout == ""


def test_sarif_fingerprints_are_the_same_from_anywhere(project: Path):
    seen = []
    for cwd, target in places(project):
        res = run_pdlint("check", "--no-cache", "--output-format", "sarif", target, cwd=cwd)
        assert res.returncode == 1, res.stderr
        results = json.loads(res.stdout)["runs"][0]["results"]
        seen.append(
            sorted(
                (r["ruleId"], r["partialFingerprints"]["pdlintLogicalFingerprint/v1"])
                for r in results
            )
        )
    assert len(seen[0]) == 3
    assert seen[1] == seen[0] and seen[2] == seen[0]
