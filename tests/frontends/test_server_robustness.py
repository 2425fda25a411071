"""The language server on hostile input (issue 35): names, frames, buffers, line breaks.

Tests that need a well-behaved client use pytest-lsp on a fresh copy of
fixtures/relay_gap; those that send what no client should (bad frames) speak
JSON-RPC over the server's pipes themselves.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pdlint_helpers import copy_relay_gap
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

SERVER = [sys.executable, "-m", "pdlint", "server"]
TIMEOUT = 60.0
PKG = "relay_gap_engine"
CONSUMER = f"{PKG}/spec_utils.py"


@pytest.fixture
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    """relay_gap; with the parameter ``undecodable``, also names that are not UTF-8."""
    root = copy_relay_gap(tmp_path / "relay_gap")
    if getattr(request, "param", None) == "undecodable":
        for name, text in [(b"/bad\xff.py", "def broken(:\n"), (b"/ok\xfe.py", "X = 1\n")]:
            with open(os.fsencode(root / PKG) + name, "w") as handle:
                handle.write(text)
    return root


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="relay_gap")],
        )
    )
    yield
    server = lsp_client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(lsp_client.shutdown_session(), 10)
        except Exception:
            server.kill()


async def until(predicate: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def open_text(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )
    return uri


def cleared(client: LanguageClient, uri: str) -> bool:
    """True once the server has published an empty list for ``uri``."""
    return uri in client.diagnostics and len(client.diagnostics[uri]) == 0


def codes(client: LanguageClient, uri: str) -> list[tuple[str, int]]:
    return sorted((str(d.code), d.range.start.line) for d in client.diagnostics.get(uri, []))


# --- 7: a name that is not UTF-8 -------------------------------------------------------


@pytest.mark.parametrize("workspace", ["undecodable"], indirect=True)
@pytest.mark.skipif(sys.platform in ("win32", "darwin"), reason="needs a POSIX file system")
@pytest.mark.asyncio
async def test_a_name_that_is_not_utf8_keeps_the_workspace(client: LanguageClient, workspace: Path):
    consumer = workspace / CONSUMER
    uri = open_text(client, consumer, consumer.read_text())

    await until(lambda: bool(client.diagnostics.get(uri)), "the consumer's diagnostics")

    assert codes(client, uri) == [("PDL101", 19)]
    assert not [m for m in client.messages if "internal error" in m.message]


# --- 15: line breaks that are not Python's ---------------------------------------------

ODD_BREAKS = "# a\x0c b\x1c c\x1d d\x1e e\x85 f\u2028 g\u2029 h\n"  # one line for Python and LSP


def python_lines(text: str) -> list[str]:
    """Lines with their ends, broken at ``\\n``, ``\\r\\n`` and ``\\r`` only (as LSP does)."""
    return re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z", text)


def apply(text: str, edit: types.TextEdit) -> str:
    """Apply a one-line edit (positions in UTF-16 units; this text is all in the BMP)."""
    lines = python_lines(text)
    start, end = edit.range.start, edit.range.end
    assert start.line == end.line
    line = lines[start.line]
    lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return "".join(lines)


@pytest.mark.asyncio
async def test_noqa_quick_fix_and_edits_below_odd_line_breaks(
    client: LanguageClient, workspace: Path
):
    consumer = workspace / CONSUMER
    text = ODD_BREAKS + consumer.read_text()
    consumer.write_text(text)
    uri = open_text(client, consumer, text)
    await until(lambda: bool(client.diagnostics.get(uri)), "the consumer's diagnostics")
    assert codes(client, uri) == [("PDL101", 20)]
    (diagnostic,) = client.diagnostics[uri]

    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic]),
        )
    )

    assert actions is not None and len(actions) == 1
    action = actions[0]
    assert isinstance(action, types.CodeAction) and action.edit and action.edit.changes
    (edit,) = action.edit.changes[uri]
    fixed = python_lines(apply(text, edit))
    assert fixed[20] == "        batch.draft_input.prepare(batch)  # noqa: PDL101\n"
    assert fixed[0] == ODD_BREAKS

    # The same edit typed in the editor: the buffer the server analyses must get it
    # on the same line, and the finding goes.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=edit.range, text=edit.new_text)
            ],
        )
    )
    await until(lambda: cleared(client, uri), "the finding to go")


# --- 16: a buffer whose file is not on disk ----------------------------------------------


@pytest.mark.asyncio
async def test_a_buffer_whose_file_was_deleted_keeps_its_findings(
    client: LanguageClient, workspace: Path
):
    consumer = workspace / CONSUMER
    uri = open_text(client, consumer, consumer.read_text())
    await until(lambda: bool(client.diagnostics.get(uri)), "the consumer's diagnostics")
    first = len(client.log_messages)

    consumer.unlink()  # the buffer still has the gap
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uri, type=types.FileChangeType.Deleted)]
        )
    )
    await until(
        lambda: any("analysed" in m.message for m in client.log_messages[first:]),
        "a run after the deletion",
    )
    await asyncio.sleep(0.5)  # what it publishes, if anything

    assert codes(client, uri) == [("PDL101", 19)]


@pytest.mark.asyncio
async def test_a_new_unsaved_buffer_is_analysed(client: LanguageClient, workspace: Path):
    uri = open_text(client, workspace / PKG / "draft.py", "import os\ndef broken(:\n")

    await until(lambda: uri in client.diagnostics, "the new buffer's diagnostics")

    assert codes(client, uri) == [("PDL900", 1)]
    assert not (workspace / PKG / "draft.py").exists()


# --- 14: frames no client should send ----------------------------------------------------


def frame(message: dict, length: int | None = None) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def request(id_: int, method: str, params: object = None) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


class RawServer:
    """``pdlint server`` on pipes: bytes in, responses (by id) out."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            SERVER, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        self.responses: queue.Queue[dict] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line in (b"\r\n", b"\n"):
                    break
            message = json.loads(out.read(length or 0))
            if "id" in message and "method" not in message:
                self.responses.put(message)

    def send(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def response(self, id_: int, timeout: float = 20.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.responses.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no response to request {id_}") from None
            if message.get("id") == id_:
                return message


BAD_FRAMES = {
    "length too large": frame(request(7, "shutdown"), length=500),
    "length too small": frame(request(7, "shutdown"), length=10),
    "no length": b'Content-Type: application/json\r\n\r\n{"jsonrpc": "2.0", "id": 7}',
    "length not a number": b"Content-Length: lots\r\n\r\n{}",
    "binary garbage": bytes(range(256)) * 4 + b"\r\n\r\n\x89PNG\r\n\x1a\n",
    "body not utf-8": frame(request(7, "x"), length=None).replace(b'"x"', b'"\xff\xfe"'),
    "body not json": b"Content-Length: 5\r\n\r\nhello",
    "length of 100 GB": b"Content-Length: 100000000000\r\n\r\n{}",
}


@pytest.mark.parametrize("bad", list(BAD_FRAMES), ids=list(BAD_FRAMES))
def test_a_bad_frame_leaves_the_server_listening(tmp_path: Path, bad: str):
    server = RawServer(tmp_path)
    try:
        server.send(BAD_FRAMES[bad])
        server.send(frame(request(1, "initialize", {"processId": None, "capabilities": {}})))
        assert "capabilities" in server.response(1)["result"]
        server.send(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        server.send(frame(request(2, "shutdown")))
        assert server.response(2)["result"] is None
        server.send(frame({"jsonrpc": "2.0", "method": "exit"}))
        assert server.proc.wait(timeout=20) == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait()
    stderr = server.proc.stderr.read().decode() if server.proc.stderr else ""
    assert "MemoryError" not in stderr and "Traceback" not in stderr, stderr
    assert "pdlint: dropped" in stderr, stderr  # a log message says what was lost
