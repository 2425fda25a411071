"""``pdlint server`` driven by a real LSP client (pytest-lsp) over stdio.

Each test starts the real server subprocess on a fresh copy of
fixtures/relay/relay_gap and asserts on what an editor receives: the published
diagnostics, the quick fixes, the server's answers to bad input.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pdlint_helpers import copy_relay_gap, fixture
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

import pdlint
from pdlint.checks.catalogue import RULES
from pdlint.server import noqa_edit

SERVER = [sys.executable, "-m", "pdlint", "server"]
TIMEOUT = 60.0  # seconds; a run on this fixture takes well under one

CONSUMER = "relay_gap_engine/spec_utils.py"
BUILDER = "relay_gap_engine/spec_info.py"
# The DFLASH branch that the builder lacks, inserted before its `return None` (line 54).
DFLASH_BRANCH = (
    "        if self.is_dflash():\n"
    "            return DraftInput(hidden_states=list(hidden_states), topk=topk)\n"
)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return copy_relay_gap(tmp_path / "relay_gap")


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, workspace: Path):  # type: ignore[no-untyped-def]
    await start_session(lsp_client, workspace, "relay_gap")
    yield
    await end_session(lsp_client)


async def start_session(client: LanguageClient, folder: Path, name: str) -> None:
    """Initialise the session as VS Code does, with ``folder`` as the workspace."""
    await client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name=name)],
        )
    )


async def end_session(lsp_client: LanguageClient) -> None:
    # A test that failed before its own shutdown leaves the server running, and
    # the client's stop() waits for it to exit.
    server = lsp_client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(lsp_client.shutdown_session(), 10)
        except Exception:
            server.kill()


@pytest.fixture
def types_workspace(tmp_path: Path) -> Path:
    """A copy of fixtures/relay/state_subclass (PDL105 relay-state-type findings)."""
    return Path(shutil.copytree(fixture("state_subclass"), tmp_path / "state_subclass"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def types_client(lsp_client: LanguageClient, types_workspace: Path):  # type: ignore[no-untyped-def]
    await start_session(lsp_client, types_workspace, "state_subclass")
    yield
    await end_session(lsp_client)


async def shut_down(client: LanguageClient) -> None:
    """End the session as an editor does: shutdown, exit; the server exits with 0."""
    await client.shutdown_session()
    assert client._server is not None and client._server.returncode == 0
    assert client.error is None


def uri(workspace: Path, rel: str) -> str:
    return (workspace / rel).as_uri()


def rng(line: int, col: int, end_line: int, end_col: int) -> types.Range:
    """A 0-based LSP range."""
    return types.Range(types.Position(line, col), types.Position(end_line, end_col))


async def until(predicate: Callable[[], bool], what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TIMEOUT
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


def open_doc(client: LanguageClient, workspace: Path, rel: str) -> str:
    path = workspace / rel
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=path.as_uri(), language_id="python", version=1, text=path.read_text()
            )
        )
    )
    return path.as_uri()


def change(client: LanguageClient, doc: str, version: int, at: int, text: str) -> None:
    """Insert ``text`` at the start of 0-based line ``at`` (an incremental change)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=doc, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(range=rng(at, 0, at, 0), text=text)
            ],
        )
    )


def codes(client: LanguageClient, doc: str) -> list[tuple[str, int]]:
    return [(str(d.code), d.range.start.line) for d in client.diagnostics.get(doc, [])]


def cleared(client: LanguageClient, doc: str) -> bool:
    """True once the server has published an empty list for ``doc``."""
    return doc in client.diagnostics and len(client.diagnostics[doc]) == 0


def analysed(client: LanguageClient) -> list[str]:
    """The server's one log line per analysis, from 'analysed' on."""
    return [
        m.message.split(": ", 2)[2]
        for m in client.log_messages
        if m.message.startswith("pdlint: analysed ")
    ]


def pdl101(workspace: Path) -> types.Diagnostic:
    """The relay_gap PDL101 as an editor must receive it (fixtures/relay/relay_gap/expected.txt)."""

    def loc(rel: str, r: types.Range) -> types.Location:
        return types.Location(uri=uri(workspace, rel), range=r)

    sched, batch = "relay_gap_engine/scheduler.py", "relay_gap_engine/batch.py"
    entry = "`DecodeSchedulerMixin.event_loop_disagg_decode`"
    steps = [
        (sched, rng(26, 4, 26, 32), f"entry point {entry}"),
        (sched, rng(31, 12, 31, 44), "calls `DecodeSchedulerMixin.update_running_batch`"),
        (sched, rng(24, 8, 24, 30), "calls `ScheduleBatch.prepare_decode`"),
        (batch, rng(36, 12, 36, 37), "calls `spec_utils.spec_prepare_decode`"),
        (CONSUMER, rng(19, 8, 19, 25), "dereferences `batch.draft_input`"),
    ]
    related = [
        types.DiagnosticRelatedInformation(loc(f, r), f"path {i}/5: {m}")
        for i, (f, r, m) in enumerate(steps, 1)
    ] + [
        types.DiagnosticRelatedInformation(
            loc(BUILDER, rng(53, 8, 53, 19)), "`build_disagg_draft_input` returns None for DFLASH"
        ),
        types.DiagnosticRelatedInformation(
            loc(batch, rng(21, 12, 21, 28)), "relay stores `draft_input` only when built"
        ),
        types.DiagnosticRelatedInformation(
            loc(sched, rng(26, 4, 26, 32)), f"decode entry point {entry}"
        ),
    ]
    return types.Diagnostic(
        range=rng(19, 8, 19, 25),
        message=(
            "DFLASH reaches `batch.draft_input` but `build_disagg_draft_input` returns None "
            f"for DFLASH, so `draft_input` is never built on the decode relay from {entry}; "
            "build it for DFLASH or raise for DFLASH (in the builder or a startup validator)"
        ),
        severity=types.DiagnosticSeverity.Error,
        code="PDL101",
        code_description=types.CodeDescription(href=RULES["PDL101"].help_uri),
        source="pdlint",
        related_information=tuple(related),
    )


@pytest.mark.asyncio
async def test_relay_state_types_are_published_with_their_rule(
    types_client: LanguageClient, types_workspace: Path
):
    steppers = open_doc(types_client, types_workspace, "bough/steppers.py")
    await until(lambda: steppers in types_client.diagnostics, "the steppers' diagnostics")
    published = list(types_client.diagnostics[steppers])
    assert [(d.code, d.range.start.line, d.severity) for d in published] == [
        ("PDL105", 16, types.DiagnosticSeverity.Error),
        ("PDL105", 24, types.DiagnosticSeverity.Error),
        ("PDL105", 30, types.DiagnosticSeverity.Error),
    ]
    for diagnostic in published:
        assert diagnostic.code_description == types.CodeDescription(href=RULES["PDL105"].help_uri)
        assert diagnostic.source == "pdlint"
        # the builder's branch that makes the plain class, among the related locations
        assert any(
            r.location.uri == uri(types_workspace, "bough/handoff.py")
            and "makes `TreeState`" in r.message
            for r in diagnostic.related_information or ()
        )
    assert "PREFIX_TREE reaches" in published[0].message
    await shut_down(types_client)


@pytest.fixture
def unwired_workspace(tmp_path: Path) -> Path:
    """A copy of fixtures/relay/unwired_builder (PDL106 unwired-builder findings)."""
    return Path(shutil.copytree(fixture("unwired_builder"), tmp_path / "unwired_builder"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def unwired_client(lsp_client: LanguageClient, unwired_workspace: Path):  # type: ignore[no-untyped-def]
    await start_session(lsp_client, unwired_workspace, "unwired_builder")
    yield
    await end_session(lsp_client)


@pytest.mark.asyncio
async def test_unwired_builders_are_published_as_warnings(
    unwired_client: LanguageClient, unwired_workspace: Path
):
    states = open_doc(unwired_client, unwired_workspace, "wirekit/states.py")
    await until(lambda: states in unwired_client.diagnostics, "the states' diagnostics")
    (published,) = list(unwired_client.diagnostics[states])
    assert (published.code, published.range.start.line, published.severity) == (
        "PDL106",
        36,
        types.DiagnosticSeverity.Warning,
    )
    assert published.code_description == types.CodeDescription(href=RULES["PDL106"].help_uri)
    assert "`lookup_state_from_handoff`" in published.message
    # the dispatcher's None for LOOKUP, among the related locations
    assert any(
        r.location.uri == uri(unwired_workspace, "wirekit/algos.py")
        and "returns None for LOOKUP" in r.message
        for r in published.related_information or ()
    )
    await shut_down(unwired_client)


@pytest.mark.asyncio
async def test_open_publishes_exact_diagnostics_and_quick_fix(
    client: LanguageClient, workspace: Path
):
    consumer = open_doc(client, workspace, CONSUMER)
    await until(lambda: consumer in client.diagnostics, "the consumer's diagnostics")
    assert list(client.diagnostics[consumer]) == [pdl101(workspace)]

    builder = open_doc(client, workspace, BUILDER)
    await until(lambda: builder in client.diagnostics, "the builder's diagnostics")
    [note] = client.diagnostics[builder]
    assert (note.code, note.range, note.severity, note.source) == (
        "PDL001",
        rng(47, 4, 47, 32),
        types.DiagnosticSeverity.Information,
        "pdlint",
    )
    assert note.code_description == types.CodeDescription(href=RULES["PDL001"].help_uri)
    assert "returns None for DFLASH, NONE" in note.message
    # the relay's store, and the builder's None for those members (0-based lines)
    assert [(r.location.uri, r.location.range.start.line) for r in note.related_information] == [
        (uri(workspace, "relay_gap_engine/batch.py"), 21),
        (uri(workspace, "relay_gap_engine/spec_info.py"), 53),
    ]
    # The workspace was indexed once at startup; opening unchanged files indexes nothing.
    first, *later = [a.split(",")[:2] for a in analysed(client)]
    assert first == ["5 files", " 5 indexed"]
    assert later and all(run == ["5 files", " 0 indexed"] for run in later)

    # The quick fix appends a noqa comment naming PDL101 to the reported line.
    diagnostics = list(client.diagnostics[consumer])
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(consumer),
            range=rng(19, 10, 19, 10),
            context=types.CodeActionContext(diagnostics=diagnostics),
        )
    )
    assert actions is not None and len(actions) == 1
    [action] = actions
    assert isinstance(action, types.CodeAction)
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.edit == types.WorkspaceEdit(
        changes={consumer: (types.TextEdit(rng(19, 40, 19, 40), "  # noqa: PDL101"),)}
    )
    # Applying it (as the editor does) suppresses the finding.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=consumer, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(range=rng(19, 40, 19, 40), text=e.new_text)
                for e in action.edit.changes[consumer]  # type: ignore[index,union-attr]
            ],
        )
    )
    await until(lambda: cleared(client, consumer), "the suppressed PDL101 to clear")
    await shut_down(client)


@pytest.mark.asyncio
async def test_builder_edit_clears_the_consumer_and_save_republishes(
    client: LanguageClient, workspace: Path
):
    consumer = open_doc(client, workspace, CONSUMER)
    builder = open_doc(client, workspace, BUILDER)
    await until(lambda: codes(client, consumer) == [("PDL101", 19)], "PDL101 in the consumer")
    await until(lambda: codes(client, builder) == [("PDL001", 47)], "PDL001 in the builder")
    runs = len(analysed(client))

    # Three keystroke-like edits in quick succession: the debounce makes them one run.
    change(client, builder, 2, 53, DFLASH_BRANCH[:10])
    change(client, builder, 3, 53, "")
    change(client, builder, 4, 53, "")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=builder, version=5),
            content_changes=[
                types.TextDocumentContentChangePartial(range=rng(53, 0, 53, 10), text=DFLASH_BRANCH)
            ],
        )
    )
    # The unsaved edit in the builder's file clears the consumer's finding...
    await until(lambda: cleared(client, consumer), "the consumer's PDL101 to clear")
    # ...and the builder's inventory now lists NONE alone.
    await until(
        lambda: "returns None for NONE " in client.diagnostics[builder][0].message,
        "PDL001 for NONE only",
    )
    assert codes(client, builder) == [("PDL001", 47)]
    assert analysed(client)[runs:] == [analysed(client)[runs]]  # one debounced run
    assert ", 1 indexed," in analysed(client)[runs]  # only the edited file was indexed

    # Save writes the buffer to disk; the save republishes the saved file.
    (workspace / BUILDER).write_text(client_text(workspace, BUILDER, DFLASH_BRANCH))
    before = len(client.log_messages)
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(builder))
    )
    await until(lambda: len(analysed(client)) > runs + 1, "the run after save")
    assert len(client.log_messages) > before
    assert cleared(client, consumer)
    assert codes(client, builder) == [("PDL001", 47)]

    # Closing the builder's buffer: the file on disk has the branch too, nothing returns.
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(builder))
    )
    await until(lambda: cleared(client, builder), "the closed file's diagnostics")
    await until(lambda: len(analysed(client)) > runs + 2, "the run after close")
    assert cleared(client, consumer)
    await shut_down(client)


def client_text(workspace: Path, rel: str, branch: str) -> str:
    lines = (workspace / rel).read_text().splitlines(keepends=True)
    return "".join(lines[:53]) + branch + "".join(lines[53:])


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("    x.y()\n", (9, 9, "  # noqa: PDL101")),
        ("    x.y()   \n", (9, 12, "  # noqa: PDL101")),
        ("    x.y()  # why\n", (16, 16, "  # noqa: PDL101")),
        ("    x.y()  # noqa: PDL001\n", (25, 25, ", PDL101")),
        ("    x.y()  # noqa:PDL001,E501\n", (29, 29, ", PDL101")),
        ("    x.y()  # noqa: PDL001 stale state\n", (25, 25, ", PDL101")),
        ("    x.y()  # noqa: PDL1\n", None),
        ("    x.y()  # noqa\n", None),
        ("    x = a + \\\n", None),
    ],
)
def test_noqa_edit(line: str, expected: tuple[int, int, str] | None):
    assert noqa_edit(line, "PDL101") == expected


@pytest.mark.asyncio
async def test_bad_input_does_not_kill_the_server(client: LanguageClient, workspace: Path):
    loop = asyncio.get_running_loop()

    async def raw(body: bytes, msg_id: str | None = None) -> object:
        """Write one message as bytes; return the server's error response, if any."""
        answer: asyncio.Future[object] = loop.create_future()
        if msg_id is not None:
            client.protocol._request_futures[msg_id] = answer
        stdin = client._server.stdin  # type: ignore[union-attr]
        stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        if msg_id is None:
            return None
        try:
            await asyncio.wait_for(answer, TIMEOUT)
        except Exception as exc:
            return exc
        return answer.result()

    with pytest.raises(Exception, match="Method Not Found"):
        await client.protocol.send_request_async("pdlint/noSuchMethod", {})
    bad_params = b'{"jsonrpc":"2.0","id":"bad-1","method":"textDocument/codeAction","params":5}'
    assert "Invalid Params" in str(await raw(bad_params, "bad-1"))
    await raw(b"{this is not json")
    await raw(b"[1, 2, 3]")
    await raw(b'{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"x":1}}')
    not_open = (workspace / "nowhere.py").as_uri()
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(not_open),
            range=rng(0, 0, 0, 0),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert actions is not None and list(actions) == []

    # Still serving: an open file gets its diagnostics, a file outside the
    # workspace is analysed alone (here: a syntax error), and shutdown is clean.
    consumer = open_doc(client, workspace, CONSUMER)
    await until(lambda: codes(client, consumer) == [("PDL101", 19)], "PDL101")

    # The analysis process is killed: the next run starts a new one (indexing anew).
    killed = kill_analysis_process(client)
    assert killed == 1
    runs = len(analysed(client))
    change(client, consumer, 2, 0, "\n")
    await until(lambda: codes(client, consumer) == [("PDL101", 20)], "PDL101 one line down")
    assert ", 5 indexed," in analysed(client)[runs]
    outside = workspace.parent / "scratch.py"
    outside.write_text("def broken(:\n")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(outside.as_uri(), "python", 1, outside.read_text())
        )
    )
    await until(lambda: codes(client, outside.as_uri()) == [("PDL900", 0)], "PDL900 alone")
    await shut_down(client)


def kill_analysis_process(client: LanguageClient) -> int:
    """Kill the server's analysis process (a spawned multiprocessing child)."""
    assert client._server is not None
    pid = client._server.pid
    killed = 0
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
        if b"spawn_main" in cmdline:
            os.kill(int(child), signal.SIGKILL)
            killed += 1
    return killed


def test_server_needs_the_lsp_extra(tmp_path: Path):
    code = (
        "import sys; sys.modules['pygls'] = None; sys.argv = ['pdlint', 'server'];"
        "from pdlint.cli import main; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ},
        timeout=60,
    )
    assert proc.returncode == 2
    # pdlint is not on PyPI: the command installs this version's tag, or a clone
    tag = f"git+https://github.com/pdlint/pdlint@v{pdlint.__version__}"
    assert f"pip install 'pdlint[lsp] @ {tag}' (from a clone: pip install '.[lsp]')" in proc.stderr
    assert "pygls is not installed" in proc.stderr
    assert proc.stdout == ""


def test_an_analysis_reads_files_with_the_collector_off(tmp_path: Path, monkeypatch) -> None:
    """The analysis process keeps every file's facts between runs: a collection
    while the next run reads the files scanned them all (1.2 s of a 1.8 s run on
    sglang). The collector is off from the start and back on at the end."""
    import gc

    from pdlint.api import analyze
    from pdlint.engine import program
    from pdlint.settings.config import Settings

    folder = copy_relay_gap(tmp_path / "proj")
    seen: list[bool] = []
    original = program.Program.__init__

    def spy(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        original(self, *args, **kwargs)

    monkeypatch.setattr(program.Program, "__init__", spy)
    assert gc.isenabled()
    memo: dict = {}
    for _ in range(2):
        analyze([str(folder)], Settings(root=str(folder), cache=False), facts_memo=memo)
    assert seen == [False, False]
    assert gc.isenabled()


@pytest.mark.parametrize("through", ["the same path", "a linked folder", "a linked file"])
def test_an_unsaved_buffer_is_the_text_of_its_file_by_any_path(
    tmp_path: Path, through: str
) -> None:
    """The analysis takes a buffer for the discovered file it is on disk, whatever path
    the editor names it by (files are matched by identity, not by resolving every
    path): a buffer with a syntax error gives that file a PDL900."""
    from pdlint.api import analyze
    from pdlint.settings.config import Settings

    folder = copy_relay_gap(tmp_path / "proj")
    target = sorted(folder.rglob("*.py"))[-1]
    named = target
    if through == "a linked folder":
        (tmp_path / "link").symlink_to(folder, target_is_directory=True)
        named = tmp_path / "link" / target.relative_to(folder)
    elif through == "a linked file":
        named = tmp_path / "linked.py"
        named.symlink_to(target)
    settings = Settings(root=str(folder), cache=False)
    assert not [f for f in analyze([str(folder)], settings).findings if f.code == "PDL900"]
    result = analyze([str(folder)], settings, overlays={str(named): "def broken(:\n"})
    broken = [Path(f.location.path) for f in result.findings if f.code == "PDL900"]
    assert broken == [target]
