"""The pre-commit hook, run by pre-commit itself.

A project's ``.pre-commit-config.yaml`` names a snapshot of this repository by
path and commit, as users name it by URL and tag. pre-commit builds the hook's
environment once (a venv and ``pip install`` of the snapshot, the pure-Python wheel)
in ``PRE_COMMIT_HOME`` and both runs share it (``try-repo`` would build it again
for every run, in a throwaway store).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from github_assets import load_yaml
from pdlint_helpers import REPO, fixture

HOOKS = REPO / ".pre-commit-hooks.yaml"
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "pdlint tests",
    "GIT_AUTHOR_EMAIL": "tests@pdlint.invalid",
    "GIT_COMMITTER_NAME": "pdlint tests",
    "GIT_COMMITTER_EMAIL": "tests@pdlint.invalid",
}


def env(home: Path) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    out.update(GIT_IDENTITY, PRE_COMMIT_HOME=str(home), PRE_COMMIT_COLOR="never")
    return out


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, timeout=120, env=env(cwd)
    )


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=cwd,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=900,
    )


def commit_tree(directory: Path) -> None:
    git("init", "-q", ".", cwd=directory)
    git("add", "-A", cwd=directory)
    git("commit", "-q", "--no-verify", "-m", "snapshot", cwd=directory)


def test_hook_manifest_is_accepted_by_pre_commit(tmp_path: Path):
    proc = pre_commit("validate-manifest", str(HOOKS), cwd=REPO, home=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (hook,) = load_yaml(HOOKS.read_text(encoding="utf-8"))
    assert hook["id"] == "pdlint"
    assert hook["entry"] == "pdlint check"
    assert (hook["language"], hook["pass_filenames"], hook["require_serial"]) == (
        "python",
        False,
        True,
    )
    assert hook["types"] == ["python"]


def test_readme_pre_commit_config_is_accepted_by_pre_commit(tmp_path: Path):
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n### pre-commit\n", 1)[1].split("\n## ", 1)[0]
    (config,) = re.findall(r"```yaml\n(.*?)```", section, flags=re.S)
    config_file = tmp_path / ".pre-commit-config.yaml"
    config_file.write_text(config, encoding="utf-8")
    proc = pre_commit("validate-config", str(config_file), cwd=tmp_path, home=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (repo,) = load_yaml(config_file.read_text(encoding="utf-8"))["repos"]
    assert [hook["id"] for hook in repo["hooks"]] == ["pdlint"]


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository's files (tracked and new, as ``git ls-files`` lists them)
    committed to a fresh repository, so pre-commit installs what is on disk."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout.decode()
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():
            (snapshot / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / rel)
    assert (snapshot / ".pre-commit-hooks.yaml").is_file()
    commit_tree(snapshot)
    return snapshot


def test_hook_fails_on_a_gap_and_passes_once_fixed(hook_repo: Path, tmp_path: Path):
    home = tmp_path / "pre-commit-home"
    project = tmp_path / "project"
    shutil.copytree(fixture("relay_gap"), project)
    rev = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=hook_repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    config = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [{"id": "pdlint"}]}]}
    (project / ".pre-commit-config.yaml").write_text(json.dumps(config), encoding="utf-8")
    commit_tree(project)

    failing = pre_commit("run", "--all-files", cwd=project, home=home)
    output = failing.stdout + failing.stderr
    assert failing.returncode == 1, output
    assert "- hook id: pdlint" in output and "- exit code: 1" in output
    assert (
        "relay_gap_engine/spec_utils.py:20:9: PDL101 DFLASH reaches `batch.draft_input`" in output
    )
    assert "relay_gap_engine/spec_info.py:48:5: PDL001" in output

    # The upstream-style fix: the same project as relay_fixed.
    git("rm", "-r", "-q", "relay_gap_engine", cwd=project)
    for item in fixture("relay_fixed").iterdir():
        if item.is_dir():
            shutil.copytree(item, project / item.name)
    git("add", "-A", cwd=project)
    passing = pre_commit("run", "--all-files", cwd=project, home=home)
    output = passing.stdout + passing.stderr
    assert passing.returncode == 0, output
    assert re.search(r"^pdlint\.+Passed$", output, flags=re.M), output
    assert "PDL101" not in output and "PDL001" not in output
    assert "Installing environment" not in output  # the first run's is reused
