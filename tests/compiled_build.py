"""The opt-in compiled build (``PDLINT_COMPILE=1 pip install <repo>``) made in the
background: mypyc and the C compiler take minutes on one core, so the build starts
as soon as the session knows a test needs it (tests/conftest.py) and runs beside the
tests before it; the test that needs it waits for it then.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

from pdlint_helpers import REPO

BIN = "Scripts" if os.name == "nt" else "bin"
# what could point the install back at the source tree, or ask for the compiled build
_HIDDEN = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PDLINT_COMPILE"}


def clean_env() -> dict[str, str]:
    """The environment without anything that could point back at the source tree
    (nor ask for the compiled build)."""
    env = {k: v for k, v in os.environ.items() if k not in _HIDDEN}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def has_c_compiler() -> bool:
    """Whether an extension module can be built here: a C compiler and Python's headers."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(cc) and shutil.which(cc[0]) is not None and headers.is_file()


class Install:
    """``pip install <repo>`` into a fresh venv under ``root``, running in the background."""

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.venv = root / "venv"
        self._log = root / "pip.log"
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(self.venv)],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        if made.returncode != 0:
            raise RuntimeError(f"python -m venv failed: {made.stderr}")
        with open(self._log, "wb") as log:  # a file, not a pipe nobody reads for minutes
            self._proc = subprocess.Popen(
                [str(self.venv / BIN / "python"), "-m", "pip", "install"]
                + ["--disable-pip-version-check", str(REPO)],
                cwd=root,
                env={**clean_env(), **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )

    def wait(self, timeout: float = 1800) -> tuple[int, str]:
        """The exit code of pip and the end of its output."""
        try:
            code = self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
            code = -1
        text = self._log.read_text(encoding="utf-8", errors="replace")
        return code, text[-6000:]

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


_compiled: Install | None = None
_compiled_root: Path | None = None


def start_compiled() -> Install:
    """The compiled build, started now unless it already was."""
    global _compiled, _compiled_root
    if _compiled is None:
        _compiled_root = Path(tempfile.mkdtemp(prefix="pdlint-compiled-"))
        _compiled = Install(_compiled_root, {"PDLINT_COMPILE": "1"})
    return _compiled


def discard_compiled() -> None:
    """Stop the build if it still runs and remove its venv (at the end of the session)."""
    global _compiled, _compiled_root
    if _compiled is not None:
        _compiled.stop()
    if _compiled_root is not None:
        shutil.rmtree(_compiled_root, ignore_errors=True)
    _compiled = _compiled_root = None
