"""The worker processes that parse, index and scan files, and what they send back.

The pool starts only when a batch pays for it (see :meth:`Workers.pool_for`); while
the analysis goes on, files it is expected to load are parsed ahead there, a few
at a time (see :meth:`Workers.pump`). An indexing result travels, and is cached,
pickled with its facts packed (:func:`payload_of`).
"""

from __future__ import annotations

import io
import os
import pickle
import signal
import sys
import threading
import time
from collections import defaultdict, deque
from typing import TYPE_CHECKING

from pdlint.engine.files import SourceEntry
from pdlint.engine.textscan import FileScan, WordGroups, scan_source
from pdlint.facts.indexer import index_module, index_pieces, joined
from pdlint.facts.types import ModuleFacts, packed, unpacked
from pdlint.findings import Finding
from pdlint.settings.config import ConfigError
from pdlint.source.pieces import PIECEWISE_BYTES
from pdlint.source.read import ParsedFile, parse_source

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# A batch is sent to worker processes when it holds at least this many bytes of
# uncached source (forking the workers costs far less than parsing that much on
# one core).
PARALLEL_BYTES = 400_000

IndexJob = tuple[str, str, bytes, str]  # path, display path, bytes, module name

# A file over PIECEWISE_BYTES (larger than any source file of the serving engines)
# is analysed while its facts, pickled, take at most this many bytes per byte of
# it: source code's take 1 to 2 (their objects in memory about eight times that),
# while a file of nothing but tiny definitions or statements takes 5, which the
# analysis would hold forty times over.
FACTS_PER_BYTE = 2.5
_TOO_DEEP = ("error", "cannot index: too deeply nested", 1, 1)
_PIECES = "facts in pieces"  # the header of a payload pickled a piece at a time
_END = "end"  # and its last pickle


def worker_count() -> int | None:
    """``PDLINT_WORKERS``: how many processes index files (1: this one); None if unset."""
    raw = os.environ.get("PDLINT_WORKERS", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"PDLINT_WORKERS: expected a positive integer, got '{raw}'")
    return int(raw)


def job_of(entry: SourceEntry) -> IndexJob:
    """What indexing ``entry`` needs, as sent to a worker process."""
    return (entry.source.path, entry.source.display, entry.data or b"", entry.module)


def index_job(job: IndexJob) -> bytes | tuple[object, ...]:
    """Parse and index one file: ``("facts", ModuleFacts)`` or ``("error", msg, line,
    col)``; for a file parsed in pieces, already pickled (:func:`index_payload`)."""
    path, display, data, module = job
    parsed = parse_source(display, data)
    if parsed.pieces is not None:
        return _pieces_payload(parsed, path, module, len(data))
    if parsed.tree is None:
        return error_result(parsed.error)
    try:
        facts = index_module(path, display, parsed.tree, parsed.text, module)
    except RecursionError:
        return _TOO_DEEP
    return ("facts", facts)


def index_result(job: IndexJob) -> tuple[object, ...]:
    """:func:`index_job`, not pickled."""
    result = index_job(job)
    if isinstance(result, bytes):
        decoded = result_of(result)
        assert decoded is not None  # made here, it decodes
        return decoded
    return result


def index_payload(job: IndexJob) -> bytes:
    """:func:`index_job`, pickled (what a worker process sends back and the fact
    cache keeps; :func:`result_of` reads it)."""
    result = index_job(job)
    return result if isinstance(result, bytes) else payload_of(result)


def _pieces_payload(parsed: ParsedFile, path: str, module: str, size: int) -> bytes:
    """The payload of a file parsed in pieces, its facts pickled a piece at a time as
    they are made (a pickle of all at once would hold a second copy of them in its
    memo), within the budget of :data:`FACTS_PER_BYTE` when it is over
    :data:`~pdlint.source.pieces.PIECEWISE_BYTES`. A file that goes over it is
    parsed to its end without being indexed: its syntax error, if it has one, is its
    PDL900, as for any file."""
    assert parsed.pieces is not None
    out = io.BytesIO()
    out.write(pickle.dumps((_PIECES, parsed.display, module), pickle.HIGHEST_PROTOCOL))
    facts = index_pieces(path, parsed.display, parsed.pieces, parsed.text, module)
    within = True
    try:
        for piece in facts:
            # a pickle each: the next piece shares nothing with this one but names
            out.write(pickle.dumps(packed(piece)[2:], pickle.HIGHEST_PROTOCOL))
            if size > PIECEWISE_BYTES and out.tell() > FACTS_PER_BYTE * size:
                within = False
                break
    except RecursionError:
        return payload_of(_TOO_DEEP)
    finally:
        facts.close()
    if not within:
        out = io.BytesIO()  # the facts so far go
        for _ in parsed.pieces:  # parsed for a syntax error, each tree dropped
            pass
    if parsed.error is not None:
        return payload_of(error_result(parsed.error))
    if not within:
        return payload_of(("error", _too_dense(size), 1, 1))
    out.write(pickle.dumps(_END, pickle.HIGHEST_PROTOCOL))
    return out.getvalue()


def _too_dense(size: int) -> str:
    return (
        f"cannot analyse: too large ({size / 1e6:.1f} MB; a file over {PIECEWISE_BYTES // 1000} KB"
        f" is analysed while its facts take at most {FACTS_PER_BYTE:g} times its size pickled,"
        " and this one's take more); exclude it"
    )


def _joined(payload: bytes, display: str, module: str) -> ModuleFacts:
    """The facts of a payload :func:`_pieces_payload` made (a wrong one raises)."""
    stream = io.BytesIO(payload)
    pickle.load(stream)  # the header, read already
    parts = []
    while (part := pickle.load(stream)) != _END:
        parts.append(unpacked((display, module, *part)))
    return joined(display, module, parts)


def die_with_parent(parent: int, from_main_thread: bool) -> None:
    """Make this worker process end when its parent does (the pool's initializer).

    A killed ``pdlint check`` must leave no worker holding its stdout open (``pdlint
    check . | cat`` would never end): on Linux the kernel kills the worker when the
    parent dies; everywhere a thread checks the parent every fraction of a second
    (a worker in the middle of a long parse notices when it ends). An interrupt
    (Ctrl-C reaches the whole process group) is the parent's to handle.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if from_main_thread:
        killed_with_parent()
    if os.getppid() != parent:  # it died before the death signal was set
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


_PR_SET_PDEATHSIG = 1  # prctl option (Linux): a signal sent when the parent dies


def killed_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when the thread that forked it ends
    (Linux; elsewhere nothing): a child of a killed process never lingers."""
    if sys.platform != "linux":
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # no prctl: the callers' own checks still run
        pass


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.25)
    os._exit(1)


def error_result(error: Finding | None) -> tuple[object, ...]:
    """The indexing result that stands for a PDL900 finding."""
    assert error is not None
    return ("error", error.message, error.location.line, error.location.column)


def scan_chunk(job: tuple[list[bytes], WordGroups]) -> list[FileScan]:
    """Text scans of a chunk of files (runs in a worker process)."""
    datas, groups = job
    return [scan_source(data, groups) for data in datas]


def payload_of(result: tuple[object, ...]) -> bytes:
    """An indexing result as the fact cache holds it: pickled, its facts packed
    (:func:`pdlint.facts.types.packed`); :func:`result_of` reads it back."""
    if result[0] == "facts":
        assert isinstance(result[1], ModuleFacts)
        result = ("facts", packed(result[1]))
    return pickle.dumps(result, pickle.HIGHEST_PROTOCOL)


def result_of(payload: bytes) -> tuple[object, ...] | None:
    """The indexing result :func:`payload_of` gave ``payload`` of; None when it
    does not decode (see :meth:`pdlint.engine.loading.Loader.decode`)."""
    try:
        result = pickle.loads(payload)  # the first pickle of a file's in pieces
        if isinstance(result, tuple) and len(result) == 2 and result[0] == "facts":
            return ("facts", unpacked(result[1]))
        if isinstance(result, tuple) and len(result) == 3 and result[0] == _PIECES:
            display, module = result[1], result[2]
            assert isinstance(display, str) and isinstance(module, str)
            return ("facts", _joined(payload, display, module))
    except Exception:
        return None
    return result if isinstance(result, tuple) else None


class Workers:
    """The pool of worker processes (started when a batch pays for it), and the
    files parsed ahead in it."""

    def __init__(self, done: set[str], timings: defaultdict[str, float]) -> None:
        """``done``: the display paths loaded so far (never parsed ahead);
        ``timings``: seconds per phase, where stopping the pool is counted."""
        self.done = done
        self.timings = timings
        self.pool: ProcessPoolExecutor | None = None
        self.count = 0  # processes in the pool
        self.detached = False  # a copy in a forked process: it starts no pool
        # files parsed ahead of their load (see Loader.prefetch): display -> its
        # future, the files waiting for a worker, and the futures not done yet
        self.ahead: dict[str, Future[bytes]] = {}
        self.queue: deque[SourceEntry] = deque()
        self.running: set[Future[bytes]] = set()
        self.lock = threading.Lock()  # a done file's callback queues the next

    def pool_for(self, size: int, count: int) -> ProcessPoolExecutor | None:
        """The worker pool, if ``count`` jobs of ``size`` bytes in all pay for it."""
        if self.detached:
            return None
        forced = worker_count()
        most = forced if forced is not None else min(os.cpu_count() or 1, 8)
        workers = min(most, count)
        # a batch too small to start the workers for is still parsed by them once
        # they run, when it can keep two busy
        started = self.pool is not None and count >= 2 and size >= PARALLEL_BYTES // 8
        small = forced is None and size < PARALLEL_BYTES and not started
        # a daemonic process (a flake8 --jobs worker) may not start children
        if small or workers < 2:
            return None
        # here: a run that needs no worker process never imports multiprocessing
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if multiprocessing.current_process().daemon:
            return None
        if self.pool is None:
            self.count = most
            method = "fork" if sys.platform == "linux" else "spawn"
            # the death signal follows the thread that forks: only the main one lasts
            main = threading.current_thread() is threading.main_thread()
            self.pool = ProcessPoolExecutor(
                max_workers=most,
                mp_context=multiprocessing.get_context(method),
                initializer=die_with_parent,
                initargs=(os.getpid(), main),
            )
        return self.pool

    def drop_queued(self) -> None:
        """Forget the files queued to parse ahead that no worker took yet."""
        with self.lock:
            self.queue.clear()

    def parse_ahead(self, entries: list[SourceEntry]) -> None:
        """Queue these files to parse ahead, in this order, and start the first."""
        with self.lock:
            self.queue.extend(entries)
        self.pump()

    def take_ahead(
        self, entries: list[SourceEntry]
    ) -> tuple[dict[Future[bytes], SourceEntry], list[SourceEntry]]:
        """The futures of those of ``entries`` parsed ahead (or under way), and the
        others, which are parsed now (and no longer ahead)."""
        futures: dict[Future[bytes], SourceEntry] = {}
        rest = []
        with self.lock:
            for entry in entries:  # parsed ahead (or under way), else parsed now
                ahead = self.ahead.pop(entry.source.display, None)
                if ahead is None:
                    rest.append(entry)
                else:
                    futures[ahead] = entry
            if self.queue:  # not parsed ahead yet: parsed now instead
                wanted = {id(e) for e in entries}
                self.queue = deque(e for e in self.queue if id(e) not in wanted)
        return futures, rest

    def pump(self, _done: Future[bytes] | None = None) -> None:
        """Keep files parsing ahead in all worker processes but one (called again
        as each is done, from the pool's thread).

        The callbacks are added once the lock is released: a file parsed before its
        callback was added calls back at once, in this thread, and the lock is not
        reentrant (a deadlock, seen on small files)."""
        started: list[Future[bytes]] = []
        with self.lock:
            self.running = {f for f in self.running if not f.done()}
            # all workers but one: the analysis, which goes on meanwhile, keeps a core
            limit = max(1, self.count - 1)
            while self.queue and len(self.running) < limit:
                entry = self.queue.popleft()
                display = entry.source.display
                if display in self.done or display in self.ahead or self.pool is None:
                    continue
                try:
                    future = self.pool.submit(index_payload, job_of(entry))
                except RuntimeError:  # the pool is shutting down
                    self.queue.clear()
                    break
                self.ahead[display] = future
                self.running.add(future)
                started.append(future)
        for future in started:
            future.add_done_callback(self.pump)

    def stop(self) -> None:
        """Finish parsing ahead with every worker process, then stop them (see
        :meth:`pdlint.engine.program.Program.stop_workers`)."""
        if self.pool is None:
            return
        with self.lock:
            queued = list(self.queue)
            self.queue.clear()
            for entry in queued:
                display = entry.source.display
                if display not in self.done and display not in self.ahead:
                    self.ahead[display] = self.pool.submit(index_payload, job_of(entry))
        start = time.perf_counter()
        self.pool.shutdown(wait=True)  # the files parsing ahead are done with it
        self.pool = None
        self.running = set()
        self.timings["parse and index"] += time.perf_counter() - start

    def close(self) -> None:
        """Stop the worker processes (if any), dropping the files parsed ahead."""
        if self.pool is not None:
            with self.lock:
                self.queue.clear()
            self.pool.shutdown(cancel_futures=True)  # files parsed ahead for nothing
            self.pool = None
