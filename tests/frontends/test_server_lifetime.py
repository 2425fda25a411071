"""The language server leaves no process behind, however it ends (issue 35, point 13).

Its analysis runs in a separate process, beside multiprocessing's resource tracker.
Each way of ending (``shutdown`` and ``exit``; ``exit`` alone; end of input;
SIGTERM; SIGKILL; a crash) must take them along, and ``exit`` without
``shutdown`` exits 1 (the LSP spec).
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
from pdlint_helpers import copy_relay_gap

SERVER = [sys.executable, "-m", "pdlint", "server"]
CONSUMER = "relay_gap_engine/spec_utils.py"


def frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def children(pid: int) -> set[int]:
    """The live descendants of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, of in parents.items():
            if of == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def started_server(root: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    """A server that has analysed ``root`` once (so its analysis process runs), and
    its descendants then."""
    proc = subprocess.Popen(
        SERVER, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    uri = (root / CONSUMER).as_uri()
    proc.stdin.write(
        frame(
            {
                "id": 1,
                "method": "initialize",
                "params": {"rootUri": root.as_uri(), "capabilities": {}},
            }
        )
        + frame({"method": "initialized", "params": {}})
        + frame(
            {
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {
                        "uri": uri,
                        "languageId": "python",
                        "version": 1,
                        "text": (root / CONSUMER).read_text(),
                    }
                },
            }
        )
    )
    proc.stdin.flush()
    deadline = time.monotonic() + 60
    length = 0
    while True:  # until the diagnostics of the open file arrive
        line = proc.stdout.readline()
        assert line, proc.stderr.read().decode() if proc.stderr else ""
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        elif line.strip() == b"":
            message = json.loads(proc.stdout.read(length))
            if message.get("method") == "textDocument/publishDiagnostics":
                break
        assert time.monotonic() < deadline, "no diagnostics"
    kids = children(proc.pid)
    assert kids, "no analysis process"
    return proc, kids


def send(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(data)
    proc.stdin.flush()


ENDINGS = {
    "shutdown then exit": 0,
    "exit alone": 1,
    "end of input": 0,
    "sigterm": -signal.SIGTERM,
    "sigkill": -signal.SIGKILL,
    "crash": -signal.SIGSEGV,
}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_no_process_outlives_the_server(tmp_path: Path, ending: str) -> None:
    root = copy_relay_gap(tmp_path / "relay_gap")
    proc, kids = started_server(root)
    if ending == "shutdown then exit":
        send(proc, frame({"id": 2, "method": "shutdown"}) + frame({"method": "exit"}))
    elif ending == "exit alone":
        send(proc, frame({"method": "exit"}))
    elif ending == "end of input":
        assert proc.stdin is not None
        proc.stdin.close()
    else:
        sig = {"sigterm": signal.SIGTERM, "sigkill": signal.SIGKILL, "crash": signal.SIGSEGV}
        os.kill(proc.pid, sig[ending])
    assert proc.wait(timeout=30) == ENDINGS[ending]
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in kids) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in kids if alive(pid)]
    for pid in left:  # the test leaves nothing either
        os.kill(pid, signal.SIGKILL)
    assert left == [], ending
