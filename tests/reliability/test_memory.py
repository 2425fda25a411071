"""Peak memory grows with a file's size by a small multiple (issue 35, point 6).

A 50 MB file of small functions took 8.3 GB, 48 MB with a syntax error at the end
15.5 GB, a million short lines 2.6 GB and a 20 MB document in the language server
3.2 GB. Each case runs here, scaled down to keep the suite fast, beside the same
run on a one-line file; the difference in peak resident memory (of the process
and its descendants, as ``wait4`` reports it) must stay within the bound the
guarantees state (docs/guarantees.md): :data:`ROOM` for the parser's tree of one
piece and the interpreter's pools, and :data:`PER_BYTE` times the file's size.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from large_inputs import short_lines, small_functions, source_over
from pdlint_helpers import REPO

from pdlint.engine.workers import FACTS_PER_BYTE
from pdlint.source.pieces import PIECEWISE_BYTES, PIECEWISE_LINES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="wait4's maxrss")

MB = 1_000_000
ROOM = 30 * MB  # what a file over the piecewise size may take besides PER_BYTE
PER_BYTE = 8  # times the size of a file pdlint refuses as too dense, or of a document
ANALYSED_PER_BYTE = 24  # times the size of a large file of real code, analysed
SIZE = PIECEWISE_BYTES * 2  # over the size where a file is parsed in pieces


def peak(args: list[str], cwd: Path, stdin: bytes | None = None) -> tuple[int, str]:
    """Peak resident memory in bytes of ``args`` run in ``cwd`` with its descendants,
    and its standard output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as feed:
        feed.write(stdin or b"")
        feed.seek(0)
        proc = subprocess.Popen(args, cwd=cwd, stdin=feed, stdout=out, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        return usage.ru_maxrss * 1024, out.read().decode()


def check(root: Path) -> tuple[int, str]:
    return peak([sys.executable, "-m", "pdlint", "check", "--no-cache", "."], root)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> int:
    """The peak of a run on a one-line file."""
    root = tmp_path_factory.mktemp("one_line")
    (root / "m.py").write_text("x = 1\n")
    return check(root)[0]


def project(tmp_path: Path, text: str) -> Path:
    (tmp_path / "big.py").write_text(text)
    return tmp_path


@pytest.mark.parametrize(
    "kind",
    ["small functions", "syntax error at the end", "short lines"],
)
def test_a_dense_file(tmp_path: Path, base: int, kind: str):
    if kind == "short lines":
        text = short_lines(SIZE // 6)
    else:
        text = small_functions(SIZE)
    if kind == "syntax error at the end":
        text += "def broken(:\n    pass\n"
    size = len(text)
    used, out = check(project(tmp_path, text))
    expected = "syntax error" if kind == "syntax error at the end" else "cannot analyse: too large"
    assert "big.py:" in out and expected in out, out
    assert used - base <= ROOM + PER_BYTE * size, (used - base) / size


def test_a_large_file_of_real_code(tmp_path: Path, base: int):
    text = source_over(SIZE)
    used, out = check(project(tmp_path, text))
    assert "big.py:" in out and "PDL900" not in out  # analysed: its findings
    assert used - base <= ROOM + ANALYSED_PER_BYTE * len(text), (used - base) / len(text)


@pytest.mark.slow
def test_growth_is_linear(tmp_path: Path):
    """Twice the file takes at most :data:`PER_BYTE` times the bytes added more (a
    whole tree, or a second copy of the facts, would grow faster)."""
    size = PIECEWISE_BYTES + 100_000
    used = []
    for scale in (1, 2):
        root = tmp_path / str(scale)
        root.mkdir()
        used.append(check(project(root, small_functions(size * scale)))[0])
    assert used[1] - used[0] <= PER_BYTE * size, (used[1] - used[0]) / size


def frame(message: dict) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def server_peak(root: Path, text: str) -> tuple[int, list[dict]]:
    """The peak of a language server that gets ``text`` as an open document, analyses
    it and is shut down, and the document's diagnostics."""
    uri = (root / "big.py").as_uri()
    messages = [
        {"id": 1, "method": "initialize", "params": {"rootUri": root.as_uri(), "capabilities": {}}},
        {"method": "initialized", "params": {}},
        {
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}
            },
        },
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "pdlint", "server"],
        cwd=root,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"".join(frame(m) for m in messages))
    proc.stdin.flush()
    deadline = time.monotonic() + 120
    diagnostics = None
    length = 0
    while diagnostics is None:
        header = proc.stdout.readline()
        assert header and time.monotonic() < deadline, "no diagnostics"
        if header.lower().startswith(b"content-length:"):
            length = int(header.split(b":")[1])
        elif header.strip() == b"":
            message = json.loads(proc.stdout.read(length))
            params = message.get("params") or {}
            if message.get("method") == "textDocument/publishDiagnostics" and params["uri"] == uri:
                diagnostics = params["diagnostics"]
    proc.stdin.write(frame({"id": 2, "method": "shutdown"}) + frame({"method": "exit"}))
    proc.stdin.close()
    proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return usage.ru_maxrss * 1024, diagnostics


def test_a_document_in_the_language_server(tmp_path: Path):
    pytest.importorskip("pygls")
    (tmp_path / "other.py").write_text("y = 2\n")
    quiet, _ = server_peak(tmp_path, "x = 1\n")
    text = small_functions(SIZE)
    used, diagnostics = server_peak(tmp_path, text)
    assert any("too large" in d["message"] for d in diagnostics), diagnostics
    assert used - quiet <= ROOM + PER_BYTE * len(text), (used - quiet) / len(text)


def test_the_guarantees_state_these_bounds():
    text = (REPO / "docs" / "guarantees.md").read_text(encoding="utf-8")
    assert f"at most {ROOM // MB} MB + {PER_BYTE} times the size of such a file" in text
    assert f"{ROOM // MB} MB + {ANALYSED_PER_BYTE} times the size of a large file" in text
    assert f"at most {FACTS_PER_BYTE:g} bytes per byte of it pickled" in text
    assert f"over {PIECEWISE_BYTES // 1000} KB or {PIECEWISE_LINES:,} lines" in text
