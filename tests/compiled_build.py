"""The opt-in compiled build (``PDLINT_COMPILE=1 pip install <repo>``) made in the
background: mypyc and the C compiler take minutes on one core, so the build starts
as soon as the session knows a test needs it (tests/conftest.py) and runs beside the
tests before it; the test that needs it waits for it then.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

from pdlint_helpers import REPO, locked

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
    """``pip install <repo>`` into a fresh venv under ``root``, running in the background.

    pip's exit code goes to ``root/exit`` when it ends and its process to ``root/pid``,
    so a test process of the session can wait for an install another one started
    (:func:`start_compiled`).
    """

    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.venv = root / "venv"
        self._root = root
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(self.venv)],
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        if made.returncode != 0:
            raise RuntimeError(f"python -m venv failed: {made.stderr}")
        pip = [str(self.venv / BIN / "python"), "-m", "pip", "install"]
        pip += ["--disable-pip-version-check", str(REPO)]
        # pip's output to a file, not a pipe nobody reads for minutes; its exit code
        # to a file too, whole (renamed into place) when it ends
        script = f"{shlex.join(pip)} > pip.log 2>&1; echo $? > exit.part && mv exit.part exit"
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            ["/bin/sh", "-c", script],
            cwd=root,
            env={**clean_env(), **(env or {})},
            start_new_session=True,  # its own group: stop() ends pip with the shell
        )
        (root / "pid").write_text(str(self._proc.pid))

    @classmethod
    def attach(cls, root: Path) -> Install:
        """The install another process started under ``root``: this one waits for it
        and never stops it."""
        install = cls.__new__(cls)
        install.venv, install._root, install._proc = root / "venv", root, None
        return install

    def wait(self, timeout: float = 1800) -> tuple[int, str]:
        """The exit code of pip (-1: it was stopped or timed out) and the end of its output."""
        done, deadline = self._root / "exit", time.monotonic() + timeout
        while not done.is_file() and self._running() and time.monotonic() < deadline:
            time.sleep(0.5)
        if not done.is_file():
            self.stop()
        code = int(done.read_text()) if done.is_file() else -1
        log = self._root / "pip.log"
        text = log.read_text(encoding="utf-8", errors="replace") if log.is_file() else ""
        return code, text[-6000:]

    def _running(self) -> bool:
        if self._proc is not None:
            return self._proc.poll() is None
        try:
            os.kill(int((self._root / "pid").read_text()), 0)
        except (OSError, ValueError):
            return False
        return True

    def stop(self) -> None:
        """Stop pip if this process started it and it still runs."""
        if self._proc is not None and self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()


_compiled: Install | None = None


def start_compiled() -> Install:
    """The compiled build of this test session, started now unless a process of the
    session (this one or another pytest-xdist worker) already did: every process waits
    for the same build, in the session's shared folder (removed at the session's end)."""
    global _compiled
    if _compiled is None:
        root = Path(os.environ["PDLINT_TEST_SESSION"]) / "compiled"
        with locked(root.with_suffix(".lock")):
            if root.is_dir():
                _compiled = Install.attach(root)
            else:
                root.mkdir()
                _compiled = Install(root, {"PDLINT_COMPILE": "1"})
    return _compiled


def finish_compiled(interrupted: bool) -> None:
    """At the end of this process's session: a build this process started is waited
    for (another worker's test may still need it: xdist ends a worker as soon as it has
    no more tests), or stopped if the session was interrupted."""
    global _compiled
    if _compiled is not None:
        if interrupted:
            _compiled.stop()
        else:
            _compiled.wait()
    _compiled = None
