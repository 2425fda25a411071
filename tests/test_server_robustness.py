"""The language server on hostile input (issue 35): names, frames, buffers, line breaks.

Tests that need a well-behaved client use pytest-lsp on a fresh copy of
fixtures/relay_gap; those that send what no client should (bad frames) speak
JSON-RPC over the server's pipes themselves.
"""

from __future__ import annotations

import asyncio
import os
import sys
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
