"""The worker processes that parse, index and scan files, and what they send back.

The pool starts only when a batch pays for it (see :meth:`Workers.pool_for`); while
the analysis goes on, files it is expected to load are parsed ahead there, a few
at a time (see :meth:`Workers.pump`). An indexing result travels, and is cached,
pickled with its facts packed (:func:`payload_of`).
"""

from __future__ import annotations

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
from pdlint.facts.indexer import index_module
from pdlint.facts.types import ModuleFacts, packed, unpacked
from pdlint.findings import Finding
from pdlint.settings.config import ConfigError
from pdlint.source.read import parse_source

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

# A batch is sent to worker processes when it holds at least this many bytes of
# uncached source (forking the workers costs far less than parsing that much on
# one core).
PARALLEL_BYTES = 400_000

IndexJob = tuple[str, str, bytes, str]  # path, display path, bytes, module name


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


def index_result(job: IndexJob) -> tuple[object, ...]:
    """Parse and index one file: ``("facts", ModuleFacts)`` or ``("error", msg, line, col)``."""
    path, display, data, module = job
    parsed = parse_source(display, data)
    if parsed.error is not None:
        return error_result(parsed.error)
    try:  # a large file's pieces are parsed as they are indexed
        facts = index_module(path, display, parsed.trees(), parsed.text, module)
    except RecursionError:
        return ("error", "cannot index: too deeply nested", 1, 1)
    if parsed.error is not None:  # a piece did not parse: the facts so far go
        return error_result(parsed.error)
    return ("facts", facts)


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


def index_payload(job: IndexJob) -> bytes:
    """:func:`index_result`, pickled (what a worker process sends back)."""
    return payload_of(index_result(job))


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
        result = pickle.loads(payload)
        if isinstance(result, tuple) and len(result) == 2 and result[0] == "facts":
            return ("facts", unpacked(result[1]))
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
