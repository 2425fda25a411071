"""The language server: pdlint's findings as LSP diagnostics, and a ``# noqa`` quick fix.

Each workspace folder is a project, analysed once when the client is ready; after
that, edits (debounced), saves and opens re-run the analysis with the open
buffers as overlays, and a per-file facts memo means only the files whose text
changed are indexed again. The analysis is interprocedural, so every run
republishes the diagnostics of each open file whose findings changed.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import PositionCodec, TextDocument, Workspace

from pdlint import __version__
from pdlint.api import Result, analyze
from pdlint.cache.memo import RecentMemo
from pdlint.checks.catalogue import get_rule
from pdlint.engine.workers import killed_with_parent
from pdlint.findings import Finding, Location
from pdlint.lsp_frames import CHUNK, FrameReader, parse_body, serve_frames
from pdlint.lsp_progress import AnalysisProgress, Sender, supported
from pdlint.policy.selection import NOQA_RE, noqa_codes
from pdlint.settings.config import ConfigError, Settings, resolve_settings
from pdlint.source.discover import DiscoveryError, would_walk
from pdlint.source.read import decode_source, source_lines
from pdlint.source.regular import SOURCE_LIMIT, read_limited

DEBOUNCE = 0.3  # seconds of quiet after an edit before the analysis runs
SOURCE = "pdlint"
SEVERITIES = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
}

log = logging.getLogger(__name__)

# In the analysis process: one facts memo per project root, kept between runs.
_MEMOS: dict[str, RecentMemo] = {}
# In the analysis process: where its runs send their progress messages.
_CHANNEL: list[Connection] = []


def die_with_server(server: int) -> None:
    """In the analysis process: end when the server ends, however it ends (``exit``
    without ``shutdown``, end of input, a signal, a crash): the kernel sends
    SIGKILL when the parent dies (Linux), and a parent already gone ends it now."""
    killed_with_parent()
    if os.getppid() != server:
        os._exit(1)


def start_analysis_process(server: int, channel: Connection | None) -> None:
    """The analysis process's initializer: :func:`die_with_server`, and ``channel``
    for the runs' progress messages (see :mod:`pdlint.lsp_progress`)."""
    die_with_server(server)
    _CHANNEL[:] = [channel] if channel is not None else []


def analyse_project(root: str, is_file: bool, overlays: dict[str, str]) -> tuple[Result, int]:
    """Analyse one project (runs in the analysis process): the result, files indexed.

    The analysis runs in a process of its own, single-threaded, so that pdlint
    may fork its indexing workers there (forking the threaded server can
    deadlock) and the server keeps answering while it runs.
    """
    memo = _MEMOS.setdefault(root, RecentMemo())
    before = memo.stored
    settings = resolve_settings([root], None)
    progress = Sender(_CHANNEL[0]) if _CHANNEL else None
    if is_file:
        result = analyze(
            ["-"],
            settings,
            stdin=overlays[root].encode("utf-8"),
            stdin_filename=root,
            facts_memo=memo,
            alone=True,
            progress=progress,
        )
    else:
        result = _analyse_folder(root, settings, overlays, memo, progress)
    memo.sweep()
    # the server has the lines of its buffers: not sent back (a large one is large)
    result.sources = {d: ls for d, ls in result.sources.items() if _real(d) not in overlays}
    return result, memo.stored - before


def _analyse_folder(
    root: str,
    settings: Settings,
    overlays: dict[str, str],
    memo: RecentMemo,
    progress: Callable[[str], None] | None,
) -> Result:
    """Analyse a folder with its open buffers; a buffer whose file is not on disk
    (new and unsaved, or deleted) is analysed from its text, as the file it names."""
    excludes = settings.exclude + settings.extend_exclude
    unsaved = sorted(
        path
        for path in overlays
        if not os.path.lexists(path)
        and would_walk(path, root, excludes, respect_gitignore=settings.respect_gitignore)
    )
    if not unsaved:
        return analyze([root], settings, overlays=overlays, facts_memo=memo, progress=progress)
    # One buffer can stand for a file in a run (it comes as stdin): each further
    # one gets a run of its own, which gives its findings.
    result: Result | None = None
    for path in unsaved:
        run = analyze(
            [root, "-"],
            settings,
            stdin=overlays[path].encode("utf-8"),
            stdin_filename=path,
            overlays=overlays,
            facts_memo=memo,
            progress=progress,
        )
        if result is None:
            result = run
            continue
        result.findings.extend(f for f in run.findings if _real(f.location.path) == path)
        result.sources.update(run.sources)
    assert result is not None
    return result


@dataclass
class Project:
    """A workspace folder, or a file open outside every folder (analysed alone)."""

    root: str
    is_file: bool
    published: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    last_error: str | None = None

    def owns(self, path: str) -> bool:
        if self.is_file:
            return path == self.root
        return path == self.root or path.startswith(self.root.rstrip(os.sep) + os.sep)


@dataclass
class Snapshot:
    """The open documents of a project when its analysis starts."""

    overlays: dict[str, str]  # real path -> buffer text
    uris: dict[str, str]  # real path -> the document's URI as the client sent it
    versions: dict[str, int]  # uri -> version


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


class PythonLinesDocument(TextDocument):
    """A document whose lines break where Python's (and LSP's) do: ``\n``, ``\r\n``, ``\r``.

    pygls splits with ``str.splitlines``, which also breaks at form feeds,
    ``\x1c``-``\x1e``, ``\x85``, U+2028 and U+2029: every position below one
    would then name another line, and edits and quick fixes land mid-token.
    """

    @property
    def lines(self) -> tuple[str, ...]:
        return tuple(match.group() for match in _LINE.finditer(self.source))


class PythonLinesWorkspace(Workspace):
    """pygls's workspace, holding :class:`PythonLinesDocument` documents."""

    def _create_text_document(
        self,
        doc_uri: str,
        source: str | None = None,
        version: int | None = None,
        language_id: str | None = None,
    ) -> TextDocument:
        return PythonLinesDocument(
            doc_uri,
            source=source,
            version=version,
            language_id=language_id,
            sync_kind=self._sync_kind,
            position_codec=self._position_codec,
        )


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _units(codec: PositionCodec, line: str, column: int) -> int:
    """Code points (0-based ``column``) to the client's position units."""
    return int(codec.client_num_units(line[:column]))


def to_range(location: Location, lines: Sequence[str], codec: PositionCodec) -> types.Range:
    """A 1-based pdlint span as an LSP range in the client's position encoding."""

    def position(line: int, column: int) -> types.Position:
        index, col = max(line - 1, 0), max(column - 1, 0)
        text = lines[index] if index < len(lines) else ""
        return types.Position(line=index, character=_units(codec, text, col))

    return types.Range(
        start=position(location.line, location.column),
        end=position(location.end_line, location.end_column),
    )


class Converter:
    """Turns findings into diagnostics, reading each referenced file's lines once."""

    def __init__(self, result: Result, snapshot: Snapshot, codec: PositionCodec) -> None:
        self.result = result
        self.snapshot = snapshot
        self.codec = codec
        self._lines: dict[str, Sequence[str]] = {}

    def lines(self, display: str) -> Sequence[str]:
        if display not in self._lines:
            real = _real(display)
            text = self.snapshot.overlays.get(real)
            if text is not None:
                self._lines[display] = source_lines(text)
            elif display in self.result.sources:
                self._lines[display] = self.result.sources[display]
            else:
                try:
                    data = read_limited(display, SOURCE_LIMIT)
                    self._lines[display] = source_lines(decode_source(data))
                except (OSError, SyntaxError, LookupError, UnicodeDecodeError):
                    self._lines[display] = []
        return self._lines[display]

    def uri(self, display: str) -> str:
        real = _real(display)
        return self.snapshot.uris.get(real) or from_fs_path(os.path.abspath(display)) or display

    def location(self, location: Location) -> types.Location:
        rng = to_range(location, self.lines(location.path), self.codec)
        return types.Location(uri=self.uri(location.path), range=rng)

    def diagnostic(self, finding: Finding) -> types.Diagnostic:
        rule = get_rule(finding.code)
        related = [
            types.DiagnosticRelatedInformation(
                location=self.location(step.location),
                message=f"path {i}/{len(finding.path)}: {step.message}",
            )
            for i, step in enumerate(finding.path, 1)
        ]
        related += [
            types.DiagnosticRelatedInformation(
                location=self.location(r.location), message=r.message
            )
            for r in finding.related
        ]
        return types.Diagnostic(
            range=to_range(finding.location, self.lines(finding.location.path), self.codec),
            message=finding.message,
            severity=SEVERITIES.get(rule.severity if rule else "error"),
            code=finding.code,
            code_description=types.CodeDescription(href=rule.help_uri) if rule else None,
            source=SOURCE,
            related_information=related or None,
        )

    def by_path(self) -> dict[str, list[types.Diagnostic]]:
        """Diagnostics keyed by the real path of the file they are reported in."""
        out: dict[str, list[types.Diagnostic]] = {}
        for finding in self.result.findings:
            out.setdefault(_real(finding.location.path), []).append(self.diagnostic(finding))
        return out


def noqa_edit(line: str, code: str) -> tuple[int, int, str] | None:
    """The edit (start, end, text; code points) that adds ``code`` to a line's noqa.

    None when the line already suppresses ``code`` or cannot take a comment (it
    ends with a backslash continuation).
    """
    body = line.rstrip("\r\n")
    match = NOQA_RE.search(body)
    if match is None:
        stripped = body.rstrip()
        if stripped.endswith("\\"):
            return None
        return len(stripped), len(body), f"  # noqa: {code}"
    codes = noqa_codes(body)
    if not codes or code.startswith(codes):
        return None
    listed = match.group("codes")
    end = match.start("codes") + len(listed.rstrip(", \t"))
    return end, end, f", {code}"


class Protocol(LanguageServerProtocol):
    """pygls's protocol, but a request it cannot read gets an error response.

    pygls logs such a request and drops it, which leaves the client waiting.
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            if "id" in data and "method" in data:
                self._send_response(data["id"], error=exc.to_response_error())
            raise


class PdlintServer(LanguageServer):
    """pdlint over the Language Server Protocol."""

    def __init__(self) -> None:
        super().__init__("pdlint", __version__, protocol_cls=Protocol)
        self.projects: dict[str, Project] = {}
        self._dirty: dict[str, set[str]] = {}  # project root -> URIs to publish anyway
        self._due = 0.0
        self._runner: asyncio.Task[None] | None = None
        self._pool: ProcessPoolExecutor | None = None
        # the pipe the analysis process sends progress messages through (read, write)
        self._channel: tuple[Connection, Connection] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._progress: AnalysisProgress | None = None  # of the analyses running now
        self._progress_shown = False  # the first analyses showed their progress
        self.exit_code = 0  # the process's, once :meth:`start_io` returns
        self.terminated = False  # ended by SIGTERM

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """Serve over stdin and stdout, reading frames with :class:`FrameReader`
        (pygls's loop goes deaf after one bad frame)."""
        stop = self._stop_event = threading.Event()
        stream = stdin or sys.stdin.buffer
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        read1 = getattr(stream, "read1", None)

        def chunk() -> bytes:
            return read1(CHUNK) if read1 is not None else os.read(stream.fileno(), CHUNK)

        async def main() -> None:
            loop = asyncio.get_running_loop()
            reader = FrameReader(
                lambda: loop.run_in_executor(self.thread_pool, chunk), self._frame_warning
            )
            await serve_frames(reader, self._handle_frame, stop.is_set)

        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _terminated)  # end as on exit: see serve
        try:
            asyncio.run(main())
        except BrokenPipeError:
            log.error("pdlint: the connection to the client is lost; shutting down")
        except KeyboardInterrupt:
            pass
        except Terminated:
            self.terminated = True
        except SystemExit as stop:  # ``exit``: 0 after ``shutdown``, else 1 (the LSP spec)
            self.exit_code = stop.code if isinstance(stop.code, int) else 1
        finally:
            self.end_analysis_process()
            if not self.terminated:  # pygls waits for the thread reading the input
                self.shutdown()

    def _frame_warning(self, message: str) -> None:
        log.warning("pdlint: %s", message)
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Warning, message=f"pdlint: {message}")
        )

    def _handle_frame(self, body: bytes) -> None:
        try:
            message = parse_body(body, self.protocol.structure_message)
        except Exception as exc:  # not JSON, not UTF-8, not a message: the next may be
            self._frame_warning(f"dropped a frame that is not a JSON-RPC message: {exc}")
            return
        try:
            self.protocol.handle_message(message)
        except Exception as exc:
            log.exception("pdlint: unable to handle a message")
            self.report_server_error(exc, JsonRpcException)

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Log what went wrong with a message (pygls would pop a dialog up)."""
        self.window_log_message(
            types.LogMessageParams(type=types.MessageType.Error, message=f"pdlint: {error}")
        )

    # projects ----------------------------------------------------------------
    def folder_roots(self) -> list[str]:
        roots = [to_fs_path(f.uri) for f in self.workspace.folders.values()]
        if not roots and self.workspace.root_path:
            roots = [self.workspace.root_path]
        return sorted({_real(r) for r in roots if r})

    def project_for(self, path: str) -> Project:
        """The folder holding ``path`` (the innermost), else a project of its own."""
        owners = [r for r in self.folder_roots() if Project(r, False).owns(path)]
        root = max(owners, key=len) if owners else path
        if root not in self.projects:
            self.projects[root] = Project(root, is_file=not owners)
        return self.projects[root]

    def open_documents(self, project: Project) -> Snapshot:
        snapshot = Snapshot({}, {}, {})
        for uri, doc in list(self.workspace.text_documents.items()):
            path = to_fs_path(uri) if uri.startswith("file:") else None
            if path is None or not project.owns(_real(path)):
                continue
            real = _real(path)
            snapshot.overlays[real] = doc.source
            snapshot.uris[real] = doc.uri
            snapshot.versions[doc.uri] = doc.version or 0
        return snapshot

    # scheduling --------------------------------------------------------------
    def schedule(self, root: str, delay: float, force: tuple[str, ...] = ()) -> None:
        """Analyse the project at ``root`` after ``delay`` s of quiet (0: at once)."""
        self._dirty.setdefault(root, set()).update(force)
        loop = asyncio.get_running_loop()
        self._due = loop.time() + delay if delay else min(self._due, loop.time())
        if self._runner is None or self._runner.done():
            self._runner = loop.create_task(self._run())

    def schedule_uri(self, uri: str, delay: float, force: bool = False) -> None:
        path = to_fs_path(uri) if uri.startswith("file:") else None
        if path is not None:
            self.schedule(self.project_for(_real(path)).root, delay, (uri,) if force else ())

    def pool(self) -> ProcessPoolExecutor:
        """The analysis process, started on first use (and again if it died)."""
        if self._pool is None:
            self._close_channel()
            context = multiprocessing.get_context("spawn")
            reader, writer = context.Pipe(duplex=False)
            self._loop = asyncio.get_running_loop()
            try:
                self._loop.add_reader(reader.fileno(), self._progress_message)
                self._channel = (reader, writer)
            except NotImplementedError:  # an event loop that cannot watch a pipe: no reports
                reader.close()
                writer.close()
            self._pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=context,
                initializer=start_analysis_process,
                initargs=(os.getpid(), writer if self._channel is not None else None),
            )
        return self._pool

    def _progress_message(self) -> None:
        """Read what the analysis process sent; report it while progress shows."""
        if self._channel is None:
            return
        reader = self._channel[0]
        try:
            while reader.poll():
                message = reader.recv()
                if self._progress is not None:
                    self._progress.report(str(message))
        except (EOFError, OSError, ValueError, TypeError):
            self._close_channel()

    def _close_channel(self) -> None:
        channel, self._channel = self._channel, None
        if channel is None:
            return
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.remove_reader(channel[0].fileno())
        for end in channel:
            end.close()

    def stop_analysis(self) -> None:
        """Cancel pending runs and end the analysis process, even in mid-run."""
        if self._runner is not None:
            self._runner.cancel()
        self._dirty.clear()
        self.end_analysis_process()

    def end_analysis_process(self) -> None:
        """End the analysis process now (its runs are not waited for), and free the
        pool's queues: their semaphores are named ones, which the resource tracker
        reports as leaked when the server exits holding them (it exits without the
        interpreter's cleanup, see :func:`pdlint.cli.main`)."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        # the pool sees its process gone, fails the run under way and lets go of
        # its queues; collected now, they unlink their semaphores
        pool.shutdown(wait=True, cancel_futures=True)
        del pool
        gc.collect()
        self._close_channel()

    async def _run(self) -> None:
        """Run the analyses due, until none is; the server's first such busy spell
        (its first analyses, until the first diagnostics are out) shows its progress
        in a client that takes it (see :mod:`pdlint.lsp_progress`)."""
        progress = None
        if not self._progress_shown and supported(self.client_capabilities):
            self._progress_shown = True
            names = ", ".join(os.path.basename(r) or r for r in sorted(self._dirty))
            progress = self._progress = AnalysisProgress(self, f"analysing {names}")
        ended = "stopped"
        try:
            loop = asyncio.get_running_loop()
            while self._dirty:
                wait = self._due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                    continue
                dirty, self._dirty = self._dirty, {}
                for root, force in sorted(dirty.items()):
                    project = self.projects.get(root)
                    if project is not None:
                        ended = await self._analyze(project, force) or ended
        finally:
            if progress is not None:
                self._progress = None
                progress.end(ended)

    async def _analyze(self, project: Project, force: set[str]) -> str | None:
        """Analyse ``project`` and publish its diagnostics; how the run ended (None:
        nothing to analyse)."""
        snapshot = self.open_documents(project)
        if project.is_file and project.root not in snapshot.overlays:
            return None
        return await self._analysis(project, snapshot, force)

    async def _analysis(self, project: Project, snapshot: Snapshot, force: set[str]) -> str:
        """Run the analysis of ``project`` and publish its diagnostics; how it ended."""
        started = time.perf_counter()
        loop = asyncio.get_running_loop()
        try:
            try:
                result, indexed = await loop.run_in_executor(
                    self.pool(), analyse_project, project.root, project.is_file, snapshot.overlays
                )
            except BrokenProcessPool:  # the analysis process died (killed, out of memory)
                self.end_analysis_process()
                result, indexed = await loop.run_in_executor(
                    self.pool(), analyse_project, project.root, project.is_file, snapshot.overlays
                )
            diagnostics = Converter(result, snapshot, self.workspace.position_codec).by_path()
        except (ConfigError, DiscoveryError) as exc:
            self._report(project, str(exc))
            return str(exc)
        except BrokenProcessPool:
            self.end_analysis_process()
            message = "the analysis process died twice in a row; retrying on edit"
            self._report(project, message)
            return message
        except Exception as exc:  # the server outlives any one failed run
            log.exception("pdlint: analysis of %s failed", project.root)
            message = f"internal error: {type(exc).__name__}: {exc}"
            self._report(project, message)
            return message
        project.last_error = None
        done = (
            f"{result.files} files, {indexed} indexed, {len(result.findings)} findings "
            f"in {time.perf_counter() - started:.2f} s"
        )
        summary = f"pdlint: analysed {project.root}: {done}"
        self.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=summary))
        self._publish(project, snapshot, diagnostics, force)
        return done

    def _report(self, project: Project, message: str) -> None:
        if message != project.last_error:
            project.last_error = message
            self.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"pdlint: {message}")
            )

    def _publish(
        self,
        project: Project,
        snapshot: Snapshot,
        diagnostics: dict[str, list[types.Diagnostic]],
        force: set[str],
    ) -> None:
        open_now = set(self.workspace.text_documents)
        for real, uri in sorted(snapshot.uris.items()):
            if uri not in open_now:
                continue
            new = diagnostics.get(real, [])
            if uri not in force and project.published.get(uri) == new:
                continue
            project.published[uri] = new
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri, diagnostics=new, version=snapshot.versions.get(uri)
                )
            )

    def close(self, uri: str) -> None:
        """Clear a closed document's diagnostics; re-analyse the folder it was in."""
        path = to_fs_path(uri) if uri.startswith("file:") else None
        real = _real(path) if path else None
        for project in list(self.projects.values()):
            if project.published.pop(uri, None) is not None:
                self.text_document_publish_diagnostics(
                    types.PublishDiagnosticsParams(uri=uri, diagnostics=[])
                )
            if project.is_file and project.root == real:
                del self.projects[project.root]
            elif real is not None and project.owns(real):
                # Without the buffer, the file on disk counts again for the others.
                self.schedule(project.root, DEBOUNCE)

    # code actions ------------------------------------------------------------
    def noqa_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        wanted = [d for d in params.context.diagnostics if d.source == SOURCE]
        if not wanted and not params.context.diagnostics:
            published = next(
                (p.published[uri] for p in self.projects.values() if uri in p.published), []
            )
            lines = range(params.range.start.line, params.range.end.line + 1)
            wanted = [d for d in published if d.range.start.line in lines]
        try:
            doc_lines = self.workspace.get_text_document(uri).lines
        except (OSError, UnicodeDecodeError):
            return []
        codec = self.workspace.position_codec
        actions: list[types.CodeAction] = []
        for diagnostic in wanted:
            line_no = diagnostic.range.start.line
            if not isinstance(diagnostic.code, str) or line_no >= len(doc_lines):
                continue
            line = doc_lines[line_no]
            edit = noqa_edit(line, diagnostic.code)
            if edit is None:
                continue
            start, end, text = edit
            rng = types.Range(
                start=types.Position(line=line_no, character=_units(codec, line, start)),
                end=types.Position(line=line_no, character=_units(codec, line, end)),
            )
            actions.append(
                types.CodeAction(
                    title=f"Suppress {diagnostic.code} on this line (# noqa: {diagnostic.code})",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(rng, text)]}),
                )
            )
        return actions


def build_server() -> PdlintServer:
    """A server with every feature registered."""
    server = PdlintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PdlintServer, params: types.InitializeParams) -> None:
        # pygls has just made the workspace, and no document is open yet.
        workspace = ls.protocol.workspace
        if type(workspace) is Workspace:
            workspace.__class__ = PythonLinesWorkspace

    @server.feature(types.INITIALIZED)
    def initialized(ls: PdlintServer, params: types.InitializedParams) -> None:
        for root in ls.folder_roots():
            ls.projects.setdefault(root, Project(root, is_file=False))
            ls.schedule(root, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PdlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.schedule_uri(params.text_document.uri, 0, force=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PdlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule_uri(params.text_document.uri, DEBOUNCE)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PdlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_uri(params.text_document.uri, 0, force=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PdlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PdlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        for root in ls.folder_roots():
            ls.projects.setdefault(root, Project(root, is_file=False))
            ls.schedule(root, DEBOUNCE)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: PdlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return ls.noqa_actions(params)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: PdlintServer, params: None) -> None:
        ls.stop_analysis()

    return server


class Terminated(SystemExit):
    """SIGTERM: the server ends as on ``exit`` (its analysis process and the pool's
    semaphores freed), then by the signal. A ``SystemExit``: asyncio lets it out of
    a callback or a task, where it would keep another exception."""


def _terminated(signum: int, frame: object) -> None:
    raise Terminated


def serve() -> None:
    """Run the language server over stdin and stdout until the client exits."""
    server = build_server()
    server.start_io()
    if server.terminated:  # the status of a process the signal ended
        sys.stdout.flush()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
    if server.exit_code:
        sys.exit(server.exit_code)
