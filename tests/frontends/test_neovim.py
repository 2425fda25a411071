"""End to end in a real editor: headless Neovim runs ``pdlint server`` as its
language server on the relay_gap fixture and reports the diagnostics it got.

.ci/run installs Debian's ``neovim``; under CI=true a missing ``nvim`` fails.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, copy_relay_gap

from pdlint.checks.catalogue import RULES

LUA = Path(__file__).resolve().parent / "editors" / "nvim_diagnostics.lua"


def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("nvim is not installed (.ci/run installs the Debian package neovim)")
        pytest.skip("nvim is not installed (apt-get install neovim)")
    return found


def test_neovim_receives_pdlint_diagnostics(tmp_path: Path):
    editor = nvim()
    project = copy_relay_gap(tmp_path / "relay_gap")
    out = tmp_path / "diagnostics.txt"
    env = {
        **os.environ,
        "PDLINT_CMD": json.dumps([sys.executable, "-m", "pdlint", "server"]),
        "PDLINT_ROOT": str(project),
        "PDLINT_OUT": str(out),
        "HOME": str(tmp_path),  # no user configuration, no state left behind
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    proc = subprocess.run(
        [editor, "--headless", "-u", "NONE", "-i", "NONE", "-n"]
        + ["-c", f"luafile {LUA}", str(project / CONSUMER)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    # code, line, column (1-based), severity (1: error), source, related, docs link
    href = RULES["PDL101"].help_uri
    assert out.read_text().splitlines() == [f"PDL101 20 9 1 pdlint 8 {href}"]
