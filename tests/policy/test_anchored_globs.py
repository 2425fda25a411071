"""``exclude``, ``extend-exclude`` and ``per-file-ignores`` are anchored to the folder
of the configuration that declares them (the command line's to the current
directory), as in ruff: the same files are skipped and the same findings
ignored from the project root, a subfolder and the project's parent.

Every file below has a syntax error, so each analysed file is reported (PDL900)
unless a per-file ignore drops it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint

BAD = "def (\n"
FILES = [
    "regeng/core.py",
    "regeng/workers/w.py",  # extend-exclude regeng/workers
    "regeng/legacy/old.py",  # per-file-ignores regeng/legacy/*.py
    "regeng/sub/regeng/workers/x.py",  # another regeng/workers: not the project's
    "regeng/sub/regeng/legacy/old.py",  # nor another regeng/legacy
    "regeng/scratch/t.py",  # scratch, a name: excluded at any depth
    "scratch/s.py",
    "tests/conftest.py",  # conftest.py, a name: ignored at any depth
]
CONFIG = """[tool.pdlint]
extend-exclude = ["regeng/workers", "scratch"]
per-file-ignores = { "regeng/legacy/*.py" = ["PDL900"], "conftest.py" = ["PDL9"] }
"""
REPORTED = [
    "regeng/core.py",
    "regeng/sub/regeng/legacy/old.py",
    "regeng/sub/regeng/workers/x.py",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(BAD)
    return root


def reported(project: Path, cwd: Path, *args: str) -> list[str]:
    """The reported files, relative to the project (whatever the current directory)."""
    res = run_pdlint("check", "--no-cache", *args, cwd=cwd)
    assert res.returncode in (0, 1), res.stderr
    shown = {line.split(":", 1)[0] for line in res.stdout.splitlines()}
    return sorted(str((cwd / p).resolve().relative_to(project.resolve())) for p in shown)


@pytest.mark.parametrize(
    ("where", "path"),
    [(".", "."), ("regeng", ".."), ("..", "proj")],
    ids=["project root", "subfolder", "parent"],
)
def test_the_projects_globs_mean_the_same_from_three_folders(project, where, path):
    (project / "pyproject.toml").write_text(CONFIG)

    assert reported(project, (project / where).resolve(), path) == REPORTED


def test_a_subfolder_run_reports_nothing_the_project_ignores(project):
    (project / "pyproject.toml").write_text(CONFIG)

    assert reported(project, project / "regeng", ".") == REPORTED
    assert reported(project, project / "regeng" / "legacy", ".") == []


def test_a_command_line_glob_is_relative_to_the_current_directory(project):
    # the walked folder is regeng, but the glob names the current directory's
    got = reported(project, project, "--extend-exclude", "regeng/workers", "regeng")
    assert "regeng/workers/w.py" not in got
    assert "regeng/sub/regeng/workers/x.py" in got

    inside = reported(project, project / "regeng", "--extend-exclude", "workers", ".")
    assert "regeng/workers/w.py" not in inside

    ignored = reported(project, project / "regeng", "--per-file-ignores", "legacy/*.py:PDL900", ".")
    assert "regeng/legacy/old.py" not in ignored
    assert "regeng/sub/regeng/legacy/old.py" in ignored


def test_a_config_named_with_config_anchors_to_its_own_folder(project, tmp_path):
    config = project / "settings" / "pdlint.toml"
    config.parent.mkdir()
    config.write_text('extend-exclude = ["../regeng/workers"]\n')

    for cwd in (project, tmp_path):
        got = reported(project, cwd, "--config", str(config), str(project))
        assert "regeng/workers/w.py" not in got
        assert "regeng/sub/regeng/workers/x.py" in got
