"""The language server's first analysis shows progress, and the server ends clean
(issue 34, point 12).

A client that takes work done progress sees ``window/workDoneProgress/create``,
then ``$/progress`` begin, reports and end around the first diagnostics; one that
does not (or refuses the token) sees no progress. However the server ends, its
stderr holds no "leaked semaphore objects" warning from multiprocessing's
resource tracker.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from pdlint_helpers import copy_relay_gap

SERVER = [sys.executable, "-m", "pdlint", "server"]
CONSUMER = "relay_gap_engine/spec_utils.py"
TIMEOUT = 60.0
LEAK = "leaked semaphore"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Client:
    """A bare LSP client over the server's pipes: it answers the server's requests
    as told and keeps every message it receives, in order."""

    def __init__(self, root: Path, capabilities: dict[str, Any], accept: bool = True) -> None:
        self.proc = subprocess.Popen(
            SERVER, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.accept = accept
        self.received: list[dict[str, Any]] = []
        self.send(
            {"id": 1, "method": "initialize", "params": {"rootUri": root.as_uri(), **capabilities}},
            {"method": "initialized", "params": {}},
        )

    def send(self, *messages: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(frame(m) for m in messages))
        self.proc.stdin.flush()

    def open(self, path: Path) -> None:
        document = {"uri": path.as_uri(), "languageId": "python", "version": 1}
        document["text"] = path.read_text()
        self.send({"method": "textDocument/didOpen", "params": {"textDocument": document}})

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = 0
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line.strip() == b"" and length:
                message: dict[str, Any] = json.loads(self.proc.stdout.read(length))
                break
        self.received.append(message)
        if message.get("method") == "window/workDoneProgress/create":
            if self.accept:
                self.send({"id": message["id"], "result": None})
            else:
                error = {"code": -32603, "message": "no progress here"}
                self.send({"id": message["id"], "error": error})
        return message

    def until(self, test: Any) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not test(self.read()):
            assert time.monotonic() < deadline, [m.get("method") for m in self.received]

    def events(self) -> list[str]:
        """What the client received, in order: methods, a progress by its kind."""
        out = []
        for message in self.received:
            method = message.get("method")
            if method == "$/progress":
                out.append(f"progress {message['params']['value']['kind']}")
            elif method in ("window/workDoneProgress/create", "textDocument/publishDiagnostics"):
                out.append(method)
        return out

    def end(self, how: str) -> tuple[int, str]:
        """End the server (``shutdown``: shutdown then exit; ``sigterm``); its exit
        status and stderr."""
        if how == "shutdown":
            self.send({"id": 99, "method": "shutdown"}, {"method": "exit"})
        else:
            self.proc.send_signal(signal.SIGTERM)
        assert self.proc.stderr is not None
        self.proc.wait(TIMEOUT)
        return self.proc.returncode, self.proc.stderr.read().decode()


def is_progress_end(message: dict[str, Any]) -> bool:
    return message.get("method") == "$/progress" and message["params"]["value"]["kind"] == "end"


def is_diagnostics(message: dict[str, Any]) -> bool:
    return message.get("method") == "textDocument/publishDiagnostics"


WITH_PROGRESS = {"capabilities": {"window": {"workDoneProgress": True}}}


def test_the_first_analysis_shows_progress_around_the_first_diagnostics(tmp_path: Path):
    root = copy_relay_gap(tmp_path / "relay_gap")
    client = Client(root, WITH_PROGRESS)
    client.open(root / CONSUMER)
    client.until(is_progress_end)

    events = client.events()
    assert events[:2] == ["window/workDoneProgress/create", "progress begin"], events
    end = events.index("progress end")
    assert "textDocument/publishDiagnostics" in events[2:end], events
    assert set(events[2:end]) <= {"progress report", "textDocument/publishDiagnostics"}
    progress = [m["params"] for m in client.received if m.get("method") == "$/progress"]
    assert len({p["token"] for p in progress}) == 1
    assert progress[0]["value"]["title"] == "pdlint"
    assert progress[0]["value"]["message"] == "analysing relay_gap"
    assert "5 files" in progress[-1]["value"]["message"]  # the end says what was analysed

    # an edit runs the analysis again, without progress
    client.send(
        {
            "method": "textDocument/didSave",
            "params": {"textDocument": {"uri": (root / CONSUMER).as_uri()}},
        }
    )
    before = len(client.received)
    client.until(is_diagnostics)
    assert all(m.get("method") != "$/progress" for m in client.received[before:])

    status, stderr = client.end("shutdown")
    assert status == 0
    assert LEAK not in stderr, stderr


@pytest.mark.parametrize("capabilities", [{"capabilities": {}}, WITH_PROGRESS])
def test_no_progress_where_the_client_does_not_take_it(tmp_path: Path, capabilities):
    root = copy_relay_gap(tmp_path / "relay_gap")
    client = Client(root, capabilities, accept=False)
    client.open(root / CONSUMER)
    client.until(is_diagnostics)
    time.sleep(0.5)  # a late progress notification would come now
    status, stderr = client.end("shutdown")

    asked = bool(capabilities["capabilities"])
    assert "progress begin" not in client.events()
    assert ("window/workDoneProgress/create" in client.events()) == asked
    assert status == 0 and LEAK not in stderr, stderr


@pytest.mark.parametrize("how", ["shutdown", "sigterm"])
@pytest.mark.parametrize("when", ["after the first diagnostics", "during the first analysis"])
def test_no_leaked_semaphores_however_the_server_ends(tmp_path: Path, how: str, when: str):
    root = copy_relay_gap(tmp_path / "relay_gap")
    client = Client(root, WITH_PROGRESS)
    client.open(root / CONSUMER)
    if when == "after the first diagnostics":
        client.until(is_diagnostics)
    else:
        client.until(lambda m: m.get("method") == "window/workDoneProgress/create")

    status, stderr = client.end(how)

    assert status == (0 if how == "shutdown" else -signal.SIGTERM)
    assert LEAK not in stderr, stderr
    assert "Traceback" not in stderr, stderr
