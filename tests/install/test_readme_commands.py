"""The README's first two commands: the install one, run as it is in a fresh copy
of the repository, and the test one, which is what CI runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from pdlint_helpers import GAP_PDL101, REPO


def readme_commands() -> list[str]:
    """The README's ``bash`` blocks before its first section: install, then test."""
    intro = (REPO / "README.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", intro, flags=re.S)]


def test_ci_runs_the_readmes_test_command():
    _, test_command = readme_commands()
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [line for line in script if line.strip() and not line.lstrip().startswith("#")]
    assert commands[-1] == test_command
    assert test_command.startswith("python3 -m venv .venv && . .venv/bin/activate && ")
    assert test_command.endswith("&& python -m pytest")


def copy_of_the_repository(into: Path) -> Path:
    """The repository's files (tracked and new, as ``git ls-files`` lists them)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
        timeout=120,
    ).stdout.decode()
    for rel in filter(None, listed.split("\0")):
        if (REPO / rel).is_file():
            (into / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, into / rel)
    return into


def test_the_readmes_install_command_in_a_fresh_copy(tmp_path: Path):
    install_command, _ = readme_commands()
    clone = copy_of_the_repository(tmp_path / "pdlint")
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PDLINT_COMPILE"}
    }

    proc = subprocess.run(
        ["bash", "-c", install_command],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]  # findings
    assert f"fixtures/relay/relay_gap/{GAP_PDL101}" in proc.stdout
    assert (clone / ".venv" / "bin" / "pdlint").is_file()
