"""A killed or interrupted run leaves no process behind (issue 35, point 12).

The worker processes held the run's stdout open after SIGTERM or SIGKILL, so
``pdlint check . | cat`` never ended; Ctrl-C exited 1, the findings code. Each
test starts a run big enough for two workers, signals it once they run, and
checks what is left.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="Linux /proc")


def children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is ``pid``."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(name))
    return out


def alive(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != "Z"


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("big")
    pkg = root / "pkg"
    pkg.mkdir()
    body = "".join(
        f"def f{j}(x):\n    return x + {j}\n\n\nclass C{j}:\n    a: int = {j}\n\n"
        f"    def m(self):\n        return self.a\n\n\n"
        for j in range(150)
    )
    for i in range(400):
        (pkg / f"m{i}.py").write_text(body)
    return root


def start(tree: Path) -> tuple[subprocess.Popen[bytes], list[int]]:
    """A run with two workers, once they are running."""
    env = {**os.environ, "PDLINT_WORKERS": "2", "PYTHONPATH": str(Path(__file__).parents[2])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdlint", "check", ".", "--no-cache"],
        cwd=tree,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while len(children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    workers = children(proc.pid)
    assert len(workers) >= 2, "the run started no workers"
    time.sleep(0.2)
    return proc, workers


def left_after(workers: list[int], seconds: float = 5) -> list[int]:
    deadline = time.monotonic() + seconds
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in workers if alive(pid)]
    for pid in left:  # never leave them to the next test
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGKILL])
def test_a_killed_run_leaves_no_worker(big_tree, signum):
    proc, workers = start(big_tree)
    proc.send_signal(signum)
    proc.wait(timeout=30)

    assert proc.returncode == -signum
    assert left_after(workers) == []


def test_a_killed_run_piped_to_cat_ends(big_tree):
    env = {**os.environ, "PDLINT_WORKERS": "2", "PYTHONPATH": str(Path(__file__).parents[2])}
    shell = subprocess.Popen(
        [f"exec {sys.executable} -m pdlint check . --no-cache | cat"],
        shell=True,
        cwd=big_tree,
        env=env,
        stdout=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    run = None
    while run is None and time.monotonic() < deadline:
        pids = children(shell.pid) + [shell.pid]
        run = next((p for p in pids if len(children(p)) >= 2 and "pdlint" in _cmd(p)), None)
        time.sleep(0.02)
    assert run is not None
    workers = children(run)
    os.kill(run, signal.SIGTERM)
    try:
        shell.communicate(timeout=30)  # cat ends when nothing holds the pipe
    finally:
        shell.kill()
        left = left_after(workers)
    assert left == []


def _cmd(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def test_an_interrupted_run_exits_130(big_tree):
    proc, workers = start(big_tree)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)

    assert proc.returncode == 130
    assert err.decode() == "\nAborted!\n"  # no traceback, from no process
    assert left_after(workers) == []
