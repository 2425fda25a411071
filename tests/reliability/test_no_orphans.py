"""SIGTERM leaves no process of pdlint behind (issue 35, points 12 and 13).

A ``pdlint check`` run and the language server each start in a process group of
their own; SIGTERM reaches the first process only (as ``kill`` or a CI runner's
timeout sends it), at several moments of the run, and afterwards no process of
the group may be alive: not an indexing worker, a forked check, the server's
analysis process, its own workers or multiprocessing's resource tracker.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pdlint_helpers import REPO, copy_relay_gap

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

ENV = {**os.environ, "PDLINT_WORKERS": "2", "PYTHONPATH": str(REPO)}


def group(pgid: int) -> set[int]:
    """The live (not zombie) processes of the process group ``pgid``."""
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.add(int(name))
    return found


def descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(name)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, of in parents.items():
            if of == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def left_in(pgid: int, seconds: float = 10) -> set[int]:
    """What of the group is still alive after ``seconds`` (killed then: the test
    leaves nothing either)."""
    deadline = time.monotonic() + seconds
    while group(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = group(pgid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """relay_gap and enough code for worker processes, and a lazy run."""
    root = copy_relay_gap(tmp_path_factory.mktemp("big") / "proj")
    body = "".join(
        f"def f{j}(x):\n    return x.batch.spec_info\n\n\nclass C{j}:\n    a: int = {j}\n\n"
        f"    def m(self):\n        return self.a\n\n\n"
        for j in range(120)
    )
    pkg = root / "pkg"
    pkg.mkdir()
    for i in range(600):
        (pkg / f"m{i}.py").write_text(body)
    return root


def wait_for(condition, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.02)


@pytest.mark.parametrize("after", [0.0, 0.5, 1.5])
def test_a_terminated_check_leaves_no_process(big_tree: Path, after: float):
    """SIGTERM once workers run, then later in the run (analysis, a forked check)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdlint", "check", ".", "--no-cache"],
        cwd=big_tree,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    wait_for(lambda: len(descendants(proc.pid)) >= 2 or proc.poll() is not None)
    time.sleep(after)
    if proc.poll() is not None:
        pytest.skip("the run ended before the signal")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGTERM, err.decode()[-2000:]
    assert b"Traceback" not in err
    assert left_in(proc.pid) == set()


def frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.parametrize("when", ["while it analyses", "after its diagnostics"])
def test_a_terminated_server_leaves_no_process(big_tree: Path, when: str):
    pytest.importorskip("pygls")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdlint", "server"],
        cwd=big_tree,
        env=ENV,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    consumer = big_tree / "relay_gap_engine" / "spec_utils.py"
    proc.stdin.write(
        frame(
            {
                "id": 1,
                "method": "initialize",
                "params": {"rootUri": big_tree.as_uri(), "capabilities": {}},
            }
        )
        + frame({"method": "initialized", "params": {}})
        + frame(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": consumer.as_uri(),
                        "languageId": "python",
                        "version": 1,
                        "text": consumer.read_text(),
                    }
                },
            }
        )
    )
    proc.stdin.flush()
    if when == "while it analyses":
        # the analysis process and the workers it starts for a tree this size
        wait_for(lambda: len(descendants(proc.pid)) >= 3)
    else:
        length = 0
        while True:
            line = proc.stdout.readline()
            assert line, "the server ended"
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line.strip() == b"":
                message = json.loads(proc.stdout.read(length))
                if message.get("method") == "textDocument/publishDiagnostics":
                    break
        assert descendants(proc.pid), "no analysis process"
    proc.send_signal(signal.SIGTERM)
    proc.stdin.close()
    proc.stdout.close()
    proc.wait(timeout=60)
    assert left_in(proc.pid) == set()
