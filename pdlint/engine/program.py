"""The analysed program: every file's bytes and module name, facts loaded on demand.

Reading and hashing every file is cheap; parsing is not. A :class:`Program`
knows each module's name from its path (no parsing), keeps the text scan of
every file (:mod:`pdlint.engine.textscan`, cached by content hash), and parses and indexes
a module only when asked (:meth:`Program.load`): the model asks for the modules
a name resolves into, the files that may define an entry point, the files whose
class headers may name a class whose subclasses it needs, and the files that
hold a check's relevant words. Facts come from the fact cache when the file's
bytes, pdlint's version and the rule packs are unchanged; a batch of uncached
files is indexed in worker processes when it is large enough to pay for them.
"""

from __future__ import annotations

import bisect
import itertools
import os
import pickle
import sys
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pdlint.cache.line_moves import moves
from pdlint.cache.stat_index import StatIndex, stamp
from pdlint.cache.store import CODE, FactStore, content_hash, make_key
from pdlint.engine.queries import branch_part, selects, text_test
from pdlint.engine.textscan import (
    Branches,
    FileScan,
    WordGroups,
    scan_source,
)
from pdlint.facts.indexer import index_module, module_of_absolute
from pdlint.facts.types import ModuleFacts, Span, packed, unpacked
from pdlint.findings import Finding
from pdlint.settings.config import ConfigError
from pdlint.source.discover import SourceFile
from pdlint.source.read import decode_source, parse_error, parse_source, read_bytes

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from pdlint.cache.records import Reads, RunRecord

# A batch is sent to worker processes when it holds at least this many bytes of
# uncached source (about a tenth of a second of parsing and indexing on one core;
# forking the workers costs a few milliseconds).
PARALLEL_BYTES = 400_000
# Files read at the start are scanned by the worker processes in chunks of about
# this many bytes, while the rest are read (when the text scan will be needed).
SCAN_CHUNK_BYTES = 1_000_000
SCAN_INDEX = "scan-index"
SCAN_DELTA = "scan-delta"  # the scans of files changed since the scan index was written
SCAN_DELTA_MAX = 64  # more of them: the whole index is written again
TEXT_INDEX = "text-index"

Progress = Callable[[str], None]
IndexOutcome = tuple[ModuleFacts | None, Finding | None]
# What indexing one file gave, keyed by (absolute path, display path, content hash
# of the bytes); long-lived callers (the language server) keep one between runs.
FactsMemo = MutableMapping[tuple[str, str, str], IndexOutcome]


@dataclass
class SourceEntry:
    """One discovered file: where it is, its module name and its bytes.

    When the stat index vouched for the file's content hash (see
    :mod:`pdlint.cache.stat_index`), its bytes are read on first use of :attr:`data`.
    """

    source: SourceFile
    module: str
    is_package: bool
    raw: bytes | None  # the bytes read so far (None: not yet, or unreadable)
    digest: str  # "" when unreadable
    error: Finding | None = None  # a read error (PDL900)
    stats: StatIndex | None = None  # set while the bytes are not read yet

    @property
    def data(self) -> bytes | None:
        """The file's bytes; None when it could not be read."""
        if self.raw is None and self.stats is not None:
            stats, self.stats = self.stats, None
            stats.read_later += 1
            path = os.path.abspath(self.source.path)
            try:
                self.raw = read_bytes(self.source.path)
            except OSError as exc:
                reason = exc.strerror or str(exc)
                self.error = parse_error(self.source.display, f"cannot read: {reason}")
                self.digest = ""
                stats.forget(path)
                return None
            digest = content_hash(self.raw)
            if digest != self.digest:  # written since its stamp was taken
                self.digest = digest
                stats.forget(path)
        return self.raw

    @property
    def readable(self) -> bool:
        return self.error is None


@dataclass
class Gains:
    """What a copy of a program, detached into a forked process, loaded and was asked
    (see :meth:`Program.detach`); :meth:`Program.merge` takes it in."""

    done: set[str]
    parsed_files: list[str]
    looked_up: set[str]
    asked: dict[tuple[object, ...], tuple[object, ...]]
    fact_digests: dict[str, str]
    errors: dict[str, Finding]
    text_now: dict[tuple[object, ...], set[str]]
    timings: dict[str, float]
    stored: dict[str, tuple[bytes, str]]  # facts entries indexed there: key -> payload, slot
    memo: list[tuple[tuple[str, str, str], IndexOutcome]]  # indexed there (not cache reads)
    memo_used: list[tuple[str, str, str]]  # found in the memo (a long-lived one keeps them)
    modules: set[str]  # the modules it loaded
    parsed_ahead: int = 0  # of its parsed files, those parsed ahead of their load


def worker_count() -> int | None:
    """``PDLINT_WORKERS``: how many processes index files (1: this one); None if unset."""
    raw = os.environ.get("PDLINT_WORKERS", "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"PDLINT_WORKERS: expected a positive integer, got '{raw}'")
    return int(raw)


def _index_result(job: tuple[str, str, bytes, str]) -> tuple[object, ...]:
    """Parse and index one file: ``("facts", ModuleFacts)`` or ``("error", msg, line, col)``."""
    path, display, data, module = job
    parsed = parse_source(display, data)
    if parsed.error is not None or parsed.tree is None:
        err = parsed.error
        assert err is not None
        return ("error", err.message, err.location.line, err.location.column)
    try:
        facts = index_module(path, display, parsed.tree, parsed.text)
    except RecursionError:
        return ("error", "cannot index: too deeply nested", 1, 1)
    if facts.module != module:
        facts = facts._replace(module=module)
    return ("facts", facts)


def error_result(error: Finding | None) -> tuple[object, ...]:
    """The indexing result that stands for a PDL900 finding."""
    assert error is not None
    return ("error", error.message, error.location.line, error.location.column)


def _scan_chunk(job: tuple[list[bytes], WordGroups]) -> list[FileScan]:
    """Text scans of a chunk of files (runs in a worker process)."""
    datas, groups = job
    return [scan_source(data, groups) for data in datas]


def _index_payload(job: tuple[str, str, bytes, str]) -> bytes:
    """:func:`_index_result`, pickled (what a worker process sends back)."""
    return payload_of(_index_result(job))


def payload_of(result: tuple[object, ...]) -> bytes:
    """An indexing result as the fact cache holds it: pickled, its facts packed
    (:func:`pdlint.facts.types.packed`); :func:`result_of` reads it back."""
    if result[0] == "facts":
        assert isinstance(result[1], ModuleFacts)
        result = ("facts", packed(result[1]))
    return pickle.dumps(result, pickle.HIGHEST_PROTOCOL)


def result_of(payload: bytes) -> tuple[object, ...] | None:
    """The indexing result :func:`payload_of` gave ``payload`` of; None when it
    does not decode (see :meth:`Program._decode`)."""
    try:
        result = pickle.loads(payload)
        if isinstance(result, tuple) and len(result) == 2 and result[0] == "facts":
            return ("facts", unpacked(result[1]))
    except Exception:
        return None
    return result if isinstance(result, tuple) else None


class Program:
    """Discovered files by module name; facts parsed or read from cache on demand."""

    def __init__(
        self,
        jobs: list[tuple[SourceFile, bytes | None]],
        store: FactStore,
        salt: str,
        groups: WordGroups = (),
        progress: Progress | None = None,
        memo: FactsMemo | None = None,
        scan_ahead: bool = False,
    ) -> None:
        """``scan_ahead``: the text scan will be needed (a lazy analysis), so the
        files read now are scanned by worker processes meanwhile, when they pay."""
        self.store = store
        self.memo = memo
        self.salt = salt
        self.groups = groups
        self.progress = progress
        self.entries: list[SourceEntry] = []
        self.by_module: dict[str, SourceEntry] = {}
        self.duplicates = 0
        self._stats = StatIndex(store)
        self.files_read = 0  # read when discovered (see reads)
        self._pool: ProcessPoolExecutor | None = None
        self._workers_count = 0
        self._detached = False
        self._stored_scan_table: dict[str, FileScan] | None = None
        self._scan_base: dict[str, FileScan] = {}  # the whole index, as read
        # chunks of files scanned by the worker processes as they were read
        self._early_scans: list[tuple[list[SourceEntry], Future[list[FileScan]]]] = []
        chunk: list[SourceEntry] = []
        size = 0
        for source, data in jobs:
            entry = self._entry(source, data)
            self.entries.append(entry)
            if scan_ahead and entry.raw is not None:
                chunk.append(entry)
                size += len(entry.raw)
                if size >= SCAN_CHUNK_BYTES:
                    scan_ahead = self._scan_early(chunk)
                    chunk, size = [], 0
        if chunk and self._early_scans:
            self._scan_early(chunk)
        for entry in sorted(self.entries, key=lambda e: e.source.display):
            if not entry.readable:
                continue
            if entry.module in self.by_module:
                self.duplicates += 1
                continue
            self.by_module[entry.module] = entry
        self.loaded: dict[str, ModuleFacts] = {}
        self.errors: dict[str, Finding] = {}  # display -> PDL900
        self.done: set[str] = set()  # displays parsed or read from the cache
        self.timings: defaultdict[str, float] = defaultdict(float)  # seconds per phase
        self.parsed = 0  # files parsed in this run (not from the cache)
        self.parsed_ahead = 0  # of which parsed ahead of their load (see prefetch)
        self.parsed_files: list[str] = []
        # display -> digest of the pickled indexing result (see RunRecord.holds_for)
        self.fact_digests: dict[str, str] = {}
        # (old facts key, facts key) -> line_moves' answer
        self._line_moves: dict[tuple[str, str], dict[Span, Span] | None] = {}
        self._scans: dict[str, FileScan] | None = None
        self._scans_dirty = False
        self._header_index: dict[str, set[str]] | None = None
        # (module, its name and defined names), all of them joined, where each starts
        self._names_text: dict[bool, tuple[list[tuple[str, str]], str, list[int]]] = {}
        # text query -> (digests of the files in its answer, digests of the files tested):
        # the last runs' answers, and this run's
        self._text_known: dict[tuple[object, ...], tuple[set[str], set[str]]] | None = None
        self._text_now: dict[tuple[object, ...], set[str]] = {}
        # (a query's branch part, a content hash) -> whether the file passes it
        self._branch_hits: dict[tuple[object, str], bool] = {}
        self.asked: dict[tuple[object, ...], tuple[object, ...]] = {}
        self.looked_up: set[str] = set()
        self.reading: Reads | None = None  # a check's record of its queries (see Reading)
        # the records of checks whose findings this run reused: the run depends on them
        self.reused: list[RunRecord] = []
        # files parsed ahead of their load (see prefetch): display -> its future,
        # the files waiting for a worker, and the futures not done yet
        self._ahead: dict[str, Future[bytes]] = {}
        self._ahead_queue: deque[SourceEntry] = deque()
        self._ahead_running: set[Future[bytes]] = set()
        self._ahead_lock = threading.Lock()  # a done file's callback queues the next
        # a copy detached into a forked process (see detach): what it indexed
        self._stored: dict[str, tuple[bytes, str]] = {}
        self._memo_new: list[tuple[tuple[str, str, str], IndexOutcome]] = []
        self._memo_used: list[tuple[str, str, str]] = []
        self._base: tuple[int, dict[str, float]] = (0, {})
        self._ahead_base = 0
        self.loaded_elsewhere: set[str] = set()  # modules a detached copy loaded

    def _entry(self, source: SourceFile, data: bytes | None) -> SourceEntry:
        path = source.path
        where = os.path.abspath(path)
        module = module_of_absolute(where)
        is_package = os.path.basename(path).startswith("__init__.")
        if data is not None:  # an editor's buffer, or stdin
            return SourceEntry(source, module, is_package, data, content_hash(data))
        try:
            now = stamp(os.stat(path))
        except OSError:
            now = None
        known = self._stats.digest(where, now) if now is not None else None
        if known is not None:
            return SourceEntry(source, module, is_package, None, known, stats=self._stats)
        self.files_read += 1
        try:
            data = read_bytes(path, now[2] if now is not None else 0)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            error = parse_error(source.display, f"cannot read: {reason}")
            return SourceEntry(source, module, is_package, None, "", error)
        digest = content_hash(data)
        if now is not None:
            self._stats.record(where, now, digest)
        return SourceEntry(source, module, is_package, data, digest)

    # the text scan ------------------------------------------------------------
    def scans(self) -> dict[str, FileScan]:
        """Module name -> text scan, for every readable file (cached by content)."""
        if self._scans is not None:
            return self._scans
        start = time.perf_counter()
        stored = self._stored_scans()
        early: dict[int, FileScan] = {}
        for chunk, future in self._early_scans:
            early.update(zip(map(id, chunk), future.result(), strict=True))
        self._early_scans = []
        out: dict[str, FileScan] = {}
        todo: list[str] = []
        fresh = 0
        for module, entry in self.by_module.items():
            scan = stored.get(entry.digest)
            if scan is None or len(scan.groups) != len(self.groups):
                scan = early.get(id(entry))
                if scan is None:
                    todo.append(module)
                    continue
                fresh += 1
            out[module] = scan
        fresh += len(todo)
        for module, scan in zip(todo, self._scan_all(todo), strict=True):
            out[module] = scan
        self._scans = out
        self._scans_dirty = fresh > 0 or len(stored) != len(out)
        self.timings["scan"] += time.perf_counter() - start
        return out

    def _stored_scans(self) -> dict[str, FileScan]:
        """The scan index of the last runs: content hash -> text scan (the whole
        index, and the scans of the few files that changed since it was written)."""
        if self._stored_scan_table is None:
            self._scan_base = self._read_table(self._index_key(SCAN_INDEX))
            table = dict(self._scan_base)
            table.update(self._read_table(self._index_key(SCAN_DELTA)))
            self._stored_scan_table = table
        return self._stored_scan_table

    def _read_table(self, key: str) -> dict[str, FileScan]:
        blob = self.store.get(key, kind="blob")
        if blob is not None:
            try:
                loaded = pickle.loads(blob)
            except Exception:
                return {}
            if isinstance(loaded, dict):
                return loaded
        return {}

    def _scan_early(self, chunk: list[SourceEntry]) -> bool:
        """Scan these files (just read) in the worker processes, but those the scan
        index holds; False when the workers do not run (one process only)."""
        known = self._stored_scans()
        chunk = [entry for entry in chunk if entry.digest not in known]
        size = sum(len(entry.raw or b"") for entry in chunk)
        pool = self._workers(max(size, PARALLEL_BYTES) if self._early_scans else size, 2)
        if pool is None:
            return not chunk  # none to scan: the next chunk may need the workers
        datas = [entry.raw or b"" for entry in chunk]
        self._early_scans.append((chunk, pool.submit(_scan_chunk, (datas, self.groups))))
        return True

    def _scan_all(self, modules: list[str]) -> list[FileScan]:
        datas = [self.by_module[m].data or b"" for m in modules]
        pool = self._workers(sum(map(len, datas)), len(datas))
        if pool is None:
            return [scan_source(data, self.groups) for data in datas]
        step = max(1, len(datas) // 16)
        chunks = [(datas[i : i + step], self.groups) for i in range(0, len(datas), step)]
        return [scan for part in pool.map(_scan_chunk, chunks) for scan in part]

    def _workers(self, size: int, count: int) -> ProcessPoolExecutor | None:
        """The worker pool, if ``count`` jobs of ``size`` bytes in all pay for it."""
        if self._detached:
            return None
        forced = worker_count()
        most = forced if forced is not None else min(os.cpu_count() or 1, 8)
        workers = min(most, count)
        # a batch too small to start the workers for is still parsed by them once
        # they run, when it can keep two busy
        started = self._pool is not None and count >= 2 and size >= PARALLEL_BYTES // 8
        small = forced is None and size < PARALLEL_BYTES and not started
        # a daemonic process (a flake8 --jobs worker) may not start children
        if small or workers < 2:
            return None
        # here: a run that needs no worker process never imports multiprocessing
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        if multiprocessing.current_process().daemon:
            return None
        if self._pool is None:
            self._workers_count = most
            method = "fork" if sys.platform == "linux" else "spawn"
            self._pool = ProcessPoolExecutor(
                max_workers=most,
                mp_context=multiprocessing.get_context(method),
            )
        return self._pool

    def prefetch(self, modules: Iterable[str]) -> None:
        """Parse these modules' files ahead, in the worker processes, while the
        analysis goes on: a check that will load them later finds them done.

        Only files neither loaded, nor in the fact cache or the memo; only when
        they pay for the workers. A few at a time, so that a file a lookup
        waits for is never queued behind many of them (see :meth:`_pump`). The
        files an earlier call queued and no worker took yet are dropped: each call
        names what the analysis is now expected to load.
        """
        with self._ahead_lock:
            self._ahead_queue.clear()
        todo = []
        for module in dict.fromkeys(modules):
            entry = self.by_module.get(module)
            if entry is None or not entry.readable or entry.source.display in self.done:
                continue
            if self.memo is not None and self._memo_key(entry) in self.memo:
                continue
            if not self.store.has(self._key(entry)):
                todo.append(entry)
        if not todo or self._workers(sum(len(e.data or b"") for e in todo), len(todo)) is None:
            return
        with self._ahead_lock:
            self._ahead_queue.extend(sorted(todo, key=lambda e: -len(e.data or b"")))
        self._pump()

    def _pump(self, _done: Future[bytes] | None = None) -> None:
        """Keep files parsing ahead in all worker processes but one (called again
        as each is done, from the pool's thread).

        The callbacks are added once the lock is released: a file parsed before its
        callback was added calls back at once, in this thread, and the lock is not
        reentrant (a deadlock, seen on small files)."""
        started: list[Future[bytes]] = []
        with self._ahead_lock:
            self._ahead_running = {f for f in self._ahead_running if not f.done()}
            # all workers but one: the analysis, which goes on meanwhile, keeps a core
            limit = max(1, self._workers_count - 1)
            while self._ahead_queue and len(self._ahead_running) < limit:
                entry = self._ahead_queue.popleft()
                display = entry.source.display
                if display in self.done or display in self._ahead or self._pool is None:
                    continue
                try:
                    future = self._pool.submit(_index_payload, self._job(entry))
                except RuntimeError:  # the pool is shutting down
                    self._ahead_queue.clear()
                    break
                self._ahead[display] = future
                self._ahead_running.add(future)
                started.append(future)
        for future in started:
            future.add_done_callback(self._pump)

    def save(self) -> None:
        """Write the facts indexed in this run, the scan index when it changed, and the
        files' stamps (see :mod:`pdlint.cache.stat_index`)."""
        start = time.perf_counter()
        self.store.flush()
        self._stats.save()
        self.timings["cache write"] += time.perf_counter() - start
        if self._scans is not None and self._scans_dirty:
            table = {self.by_module[m].digest: s for m, s in self._scans.items()}
            base = self._scan_base
            delta = {d: s for d, s in table.items() if d not in base}
            if base and len(delta) <= SCAN_DELTA_MAX:
                # an edit: the few new scans beside the index (rewriting the whole of
                # it took 0.05 s of each edit run on sglang 0.5.23)
                payload = pickle.dumps(delta, protocol=pickle.HIGHEST_PROTOCOL)
                self.store.put(self._index_key(SCAN_DELTA), payload, kind="blob")
            else:
                payload = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
                self.store.put(self._index_key(SCAN_INDEX), payload, kind="blob")
                if self._stored_scan_table is not None and len(self._stored_scan_table) > len(base):
                    self.store.put(self._index_key(SCAN_DELTA), pickle.dumps({}), kind="blob")
            self._scans_dirty = False
        if self._text_now:
            digests = {e.digest for e in self.by_module.values()}
            answers = {q: (passing, digests) for q, passing in self._text_now.items()}
            payload = pickle.dumps(answers, protocol=pickle.HIGHEST_PROTOCOL)
            self.store.put(self._index_key(TEXT_INDEX, CODE), payload, kind="blob")
            self._text_now = {}

    def _index_key(self, *parts: str) -> str:
        """The cache key of a whole-tree index (its word groups are part of it)."""
        return make_key(*parts, self.salt, repr(self.groups))

    def _text_answer(self, query: tuple[object, ...]) -> list[str]:
        """A ``("text", ...)`` query's answer; a file whose bytes a last run tested
        takes that run's answer (the cache key of the table holds the word groups)."""
        if self._text_known is None:
            self._text_known = {}
            blob = self.store.get(self._index_key(TEXT_INDEX, CODE), kind="blob")
            try:
                loaded = pickle.loads(blob) if blob is not None else None
            except Exception:
                loaded = None
            if isinstance(loaded, dict):
                self._text_known = loaded
        passing, tested = self._text_known.get(query, (set(), set()))
        scans = self.scans() if query[1] else {}
        test = text_test(query, self._branch_hits)
        out = []
        for module, entry in self.by_module.items():
            if entry.digest in tested:
                hit = entry.digest in passing
            else:
                hit = test(scans.get(module), entry.data or b"", entry.digest)
            if hit:
                out.append(module)
        self._text_now[query] = {self.by_module[m].digest for m in out}
        return out

    # queries (each answer is recorded, see RunRecord) ---------------------------
    def defining(self, pieces: Iterable[str], *, ignore_case: bool = False) -> list[str]:
        """Modules that may define a qualified name holding every piece."""
        return self._ask(("defining", tuple(pieces), ignore_case))

    def with_text(
        self,
        *,
        gate: WordGroups = (),
        any_of: Iterable[str] = (),
        all_of: WordGroups = (),
        starts: Iterable[str] = (),
        branches: Branches = ((), ()),
        record: bool = True,
    ) -> list[str]:
        """Modules whose text passes a check's second-phase query (see :mod:`pdlint.checks`).

        A file is selected when its lower-cased text holds every word of one
        ``gate`` group (a group the scan knows is read from the cached scan),
        when its bytes hold one word of ``any_of``, and every word of one
        ``all_of`` group (identifiers, case-sensitive), and one word of
        ``starts`` where an identifier starts (after a byte no identifier holds:
        ``dst_`` in ``self.dst_ptrs``, not in ``is_dst_`` or ``DST_``), and, with
        ``branches`` ``(words, later)``, one of ``words`` in the condition of a
        branch with one of ``later`` after it (lower-cased words and text; see
        :func:`pdlint.engine.textscan.in_condition`); an empty part selects every file.
        ``record=False``: a guess that decides nothing the run reports (what to
        parse ahead), left out of the run record (see :class:`RunRecord`).
        """
        known = [g for g in dict.fromkeys(gate) if g in self.groups]
        folded = tuple(g for g in dict.fromkeys(gate) if g not in self.groups)
        query = (
            "text",
            tuple(self.groups.index(g) for g in known),
            folded,
            tuple(sorted(set(any_of))),
            tuple(sorted({tuple(sorted(set(g), key=lambda w: (-len(w), w))) for g in all_of})),
            tuple(sorted(set(starts))),
            branch_part(branches),
        )
        return self._ask(query) if record else self._answer(query)

    def class_headers_naming(self, words: set[str]) -> list[str]:
        """Modules with a class header that names one of ``words``."""
        return self._ask(("headers", tuple(sorted(words))))

    def aliases(self) -> dict[str, set[str]]:
        """Name -> every alias it is given by ``name as alias`` in any file."""
        out: dict[str, set[str]] = {}
        for scan in self.scans().values():
            for name, alias in scan.aliases:
                if name != alias:
                    out.setdefault(name, set()).add(alias)
        self.asked[("aliases",)] = tuple(sorted((k, tuple(sorted(v))) for k, v in out.items()))
        return out

    def source_text(self, module: str) -> str | None:
        """The decoded text of the file that stands for ``module``, as the facts of it
        were indexed from; None when unknown (no such file, unreadable, undecodable,
        or changed since its facts were read)."""
        entry = self.by_module.get(module)
        if entry is None:
            return None
        digest = entry.digest
        data = entry.data
        if data is None or entry.digest != digest:
            return None
        try:
            return decode_source(data)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            return None

    def tops(self) -> set[str]:
        """The top-level package names of the program."""
        return set(self._ask(("tops",)))

    def _ask(self, query: tuple[object, ...]) -> list[str]:
        if self.reading is not None:
            self.reading.asked.add(query)
        known = self.asked.get(query)
        if known is not None:  # asked before in this run (or in a forked copy's parent)
            return list(known)  # type: ignore[arg-type]
        answer = self._answer(query)
        self.asked[query] = tuple(answer)
        return answer

    def _answer(self, query: tuple[object, ...]) -> list[str]:
        kind = query[0]
        if kind == "defining":
            return self._defining(query)
        if kind == "text":
            return self._text_answer(query)
        if kind == "headers":
            words = query[1]
            assert isinstance(words, tuple)
            return self._headers_naming(words)
        if kind == "tops":
            return sorted({m.split(".")[0] for m in self.by_module})
        if kind == "aliases":
            self.aliases()
            return list(self.asked[query])  # type: ignore[arg-type]
        raise ValueError(f"unknown query {query!r}")

    def _defining(self, query: tuple[object, ...]) -> list[str]:
        """:func:`pdlint.engine.textscan.may_define` for every module, on one string per module
        (its name and defined names, a line each; a piece holds no line break),
        the modules joined in one text: its longest piece is searched once there,
        the others in the modules that hold it."""
        pieces, ignore_case = query[1], query[2]
        assert isinstance(pieces, tuple) and isinstance(ignore_case, bool)
        wanted = [p.lower() if ignore_case else p for p in pieces]
        if any("\n" in p or "\0" in p for p in wanted):
            return [m for m, s in self.scans().items() if selects(query, m, s)]
        texts = self._names_text.get(ignore_case)
        if texts is None:
            names = []
            for module, scan in self.scans().items():
                joined = "\n".join([module, *scan.defs])
                names.append((module, joined.lower() if ignore_case else joined))
            starts = list(itertools.accumulate((len(j) + 1 for _m, j in names), initial=0))
            texts = self._names_text[ignore_case] = (names, "\0".join(j for _m, j in names), starts)
        names, whole, starts = texts
        longest = max(wanted, key=len, default="")
        if not longest:
            return [m for m, joined in names if all(p in joined for p in wanted)]
        out = []
        at = whole.find(longest)
        while at != -1:
            index = bisect.bisect_right(starts, at) - 1
            module, joined = names[index]
            if all(p in joined for p in wanted):
                out.append(module)
            at = whole.find(longest, starts[index + 1])  # the next module on
        return out

    def _headers_naming(self, words: tuple[str, ...]) -> list[str]:
        if self._header_index is None:
            index: dict[str, set[str]] = {}
            for module, scan in self.scans().items():
                for _name, header in scan.headers:
                    for word in header:
                        index.setdefault(word, set()).add(module)
            self._header_index = index
        found: set[str] = set()
        for word in words:
            found |= self._header_index.get(word, set())
        return sorted(found)

    # loading ------------------------------------------------------------------
    def __contains__(self, module: str) -> bool:
        """Whether a file stands for ``module`` (the lookup is recorded)."""
        self.looked_up.add(module)
        return module in self.by_module

    def load(self, modules: Iterable[str]) -> list[ModuleFacts]:
        """Facts of the named modules (unknown names are ignored), in order: those
        loaded for another model are shared, the others parsed or read now."""
        wanted = [self.by_module[m] for m in dict.fromkeys(modules) if m in self.by_module]
        self.load_entries([e for e in wanted if e.module not in self.loaded])
        return [self.loaded[e.module] for e in wanted if e.module in self.loaded]

    def load_entries(self, entries: list[SourceEntry]) -> list[ModuleFacts]:
        """Parse (or read from the cache) these files; their facts, in order.

        A file that cannot be parsed gets a PDL900 in :attr:`errors` instead.
        Only the first file of each module name enters :attr:`loaded`.
        """
        wanted = [e for e in entries if e.readable and e.source.display not in self.done]
        if not wanted:
            return []
        self._pump()
        clock = time.perf_counter
        start = clock()
        results: dict[int, bytes | tuple[object, ...]] = {}
        digests: dict[int, str] = {}  # of the facts entries read from the cache
        todo: list[SourceEntry] = []
        memo_keys: dict[int, tuple[str, str, str]] = {}  # entries to put in the memo
        for entry in wanted:
            if self.memo is not None:
                key = self._memo_key(entry)
                outcome = self.memo.get(key)
                if outcome is None:
                    memo_keys[id(entry)] = key
                else:
                    if self._detached:
                        self._memo_used.append(key)
                    facts, error = outcome
                    results[id(entry)] = (
                        ("facts", facts) if facts is not None else error_result(error)
                    )
                    continue
            cached = self.store.get_signed(self._key(entry))
            if cached is None:
                todo.append(entry)
            else:
                results[id(entry)], digests[id(entry)] = cached
        self.timings["cache read"] += clock() - start
        decoded: dict[int, ModuleFacts | None] = {}
        if todo:
            # decoded as they come, while the worker processes index the others
            start = clock()
            for entry, result in self._index(todo):
                payload = result if isinstance(result, bytes) else payload_of(result)
                digest = self._store_facts(entry, payload)
                decoded[id(entry)] = self._finish(entry, result, digest, True, memo_keys)
            self.timings["parse and index"] += clock() - start
        start = clock()
        out: list[ModuleFacts] = []
        for entry in wanted:
            if id(entry) not in decoded:
                found = results[id(entry)]
                digest = digests.get(id(entry), "")
                decoded[id(entry)] = self._finish(entry, found, digest, False, memo_keys)
            facts = decoded[id(entry)]
            if facts is not None and self.by_module.get(entry.module) is entry:
                self.loaded[entry.module] = facts
                out.append(facts)
        self.timings["unpickle"] += clock() - start
        if self.progress is not None:
            self.progress(f"{len(self.done)} of {len(self.entries)} files loaded")
        return out

    def _finish(
        self,
        entry: SourceEntry,
        found: bytes | tuple[object, ...],
        digest: str,
        indexed: bool,
        memo_keys: dict[int, tuple[str, str, str]],
    ) -> ModuleFacts | None:
        """Decode what indexing ``entry`` gave (``indexed``: in this run); record the
        digest of its facts entry (see :meth:`facts_digest`), its PDL900 and its
        memo entry."""
        if self.memo is None and digest:
            self.fact_digests[entry.source.display] = digest
        facts = self._decode(entry, found)
        self.done.add(entry.source.display)
        if id(entry) in memo_keys:
            assert self.memo is not None
            outcome = (facts, self.errors.get(entry.source.display))
            self.memo[memo_keys[id(entry)]] = outcome
            if self._detached and indexed:
                # indexed here: the parent keeps it (facts read from the cache are
                # not sent, their pickling cost more than reading them again)
                self._memo_new.append((memo_keys[id(entry)], outcome))
        return facts

    def facts_digest(self, entry: SourceEntry) -> str:
        """Digest of what indexing ``entry`` gives (from the cache, else indexed now):
        the fact cache's keyed digest of the pickled result ("" without a cache)."""
        cached = self.store.get_signed(self._key(entry))
        if cached is not None:
            return cached[1]
        start = time.perf_counter()
        payload = payload_of(_index_result(self._job(entry)))
        self.parsed += 1
        self.parsed_files.append(entry.source.display)
        digest = self._store_facts(entry, payload)
        self.timings["parse and index"] += time.perf_counter() - start
        return digest

    def line_moves(self, entry: SourceEntry, old_digest: str) -> dict[Span, Span] | None:
        """How the spans of ``entry``'s facts moved since its bytes had ``old_digest``
        (:func:`pdlint.cache.line_moves.moves`); None when more than spans changed, or when the
        fact cache no longer holds either version. Computed once per run (the run
        records of a run, asked in turn, mostly read the same versions)."""
        key = self._key(entry)
        old_key = make_key(old_digest, entry.module, str(entry.is_package), self.salt)
        if (old_key, key) not in self._line_moves:
            before, after = self._stored_facts(old_key), self._stored_facts(key)
            found = moves(before, after) if before is not None and after is not None else None
            self._line_moves[(old_key, key)] = found
        return self._line_moves[(old_key, key)]

    def _stored_facts(self, key: str) -> ModuleFacts | None:
        payload = self.store.get(key)
        if payload is None:
            return None
        result = result_of(payload)
        if result is not None and len(result) == 2 and isinstance(result[1], ModuleFacts):
            return result[1]
        return None

    @staticmethod
    def _memo_key(entry: SourceEntry) -> tuple[str, str, str]:
        return (os.path.abspath(entry.source.path), entry.source.display, entry.digest)

    def _key(self, entry: SourceEntry) -> str:
        return make_key(entry.digest, entry.module, str(entry.is_package), self.salt)

    def _store_facts(self, entry: SourceEntry, payload: bytes) -> str:
        """Put what indexing ``entry`` gave in the fact cache (and, in a detached copy,
        keep it for the parent: see :meth:`gains`); its keyed digest."""
        key, slot = self._key(entry), self._slot(entry)
        digest = self.store.put(key, payload, slot=slot)
        if self._detached:
            self._stored[key] = (payload, slot)
        return digest

    def _slot(self, entry: SourceEntry) -> str:
        """What ``entry``'s facts entry is a version of (see :meth:`FactStore.put`): this
        file, as this module, with these packs (whatever its bytes)."""
        where = os.path.abspath(entry.source.path)
        return make_key("versions", where, entry.module, str(entry.is_package), self.salt)

    def _decode(self, entry: SourceEntry, found: bytes | tuple[object, ...]) -> ModuleFacts | None:
        display = entry.source.display
        result: object = result_of(found) if isinstance(found, bytes) else found
        if isinstance(result, tuple) and len(result) == 4 and result[0] == "error":
            _, message, line, column = result
            self.errors[display] = parse_error(display, message, line, column)
            return None
        if not (
            isinstance(result, tuple)
            and len(result) == 2
            and result[0] == "facts"
            and isinstance(result[1], ModuleFacts)
        ):
            # passed the checksum but does not decode (another pdlint wrote it): index again
            result = _index_result(self._job(entry))
            self._store_facts(entry, payload_of(result))
            if result[0] == "error":
                _, message, line, column = result
                assert isinstance(message, str) and isinstance(line, int)
                assert isinstance(column, int)
                self.errors[display] = parse_error(display, message, line, column)
                return None
        assert isinstance(result, tuple) and isinstance(result[1], ModuleFacts)
        facts = result[1]
        if facts.path != display:
            facts = facts._replace(path=display)
        return facts

    @staticmethod
    def _job(entry: SourceEntry) -> tuple[str, str, bytes, str]:
        return (entry.source.path, entry.source.display, entry.data or b"", entry.module)

    def _index(
        self, entries: list[SourceEntry]
    ) -> Iterator[tuple[SourceEntry, bytes | tuple[object, ...]]]:
        """Each entry with what indexing it gave (pickled when a worker process
        indexed it), in the order they are done."""
        self.parsed += len(entries)
        self.parsed_files.extend(entry.source.display for entry in entries)
        futures: dict[Future[bytes], SourceEntry] = {}
        rest = []
        with self._ahead_lock:
            for entry in entries:  # parsed ahead (or under way), else parsed now
                ahead = self._ahead.pop(entry.source.display, None)
                if ahead is None:
                    rest.append(entry)
                else:
                    futures[ahead] = entry
                    self.parsed_ahead += 1
            if self._ahead_queue:  # not parsed ahead yet: parsed now instead
                wanted = {id(e) for e in entries}
                self._ahead_queue = deque(e for e in self._ahead_queue if id(e) not in wanted)
        jobs = [self._job(entry) for entry in rest]
        pool = self._workers(sum(len(job[2]) for job in jobs), len(jobs))
        if pool is None:
            for entry, job in zip(rest, jobs, strict=True):
                yield entry, _index_result(job)
        else:
            # large files first, so that no worker is left with a big one at the end
            for i in sorted(range(len(jobs)), key=lambda i: -len(jobs[i][2])):
                futures[pool.submit(_index_payload, jobs[i])] = rest[i]
        if futures:
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                yield futures[future], future.result()
        self._pump()

    @property
    def workers_running(self) -> bool:
        """Whether worker processes were started (and not stopped since)."""
        return self._pool is not None

    def stop_workers(self) -> None:
        """Finish parsing ahead with every worker process, then stop them: this
        process has no other thread afterwards (so it may fork, see
        :mod:`pdlint.engine.fork`), and starts them again if a later batch pays for it."""
        if self._pool is None:
            return
        with self._ahead_lock:
            queued = list(self._ahead_queue)
            self._ahead_queue.clear()
            for entry in queued:
                display = entry.source.display
                if display not in self.done and display not in self._ahead:
                    self._ahead[display] = self._pool.submit(_index_payload, self._job(entry))
        start = time.perf_counter()
        self._pool.shutdown(wait=True)  # the files parsing ahead are done with it
        self._pool = None
        self._ahead_running = set()
        self.timings["parse and index"] += time.perf_counter() - start

    def close(self) -> None:
        """Write what the fact store holds; stop the worker processes (if any)."""
        self.store.close()
        if self._pool is not None:
            with self._ahead_lock:
                self._ahead_queue.clear()
            self._pool.shutdown(cancel_futures=True)  # files parsed ahead for nothing
            self._pool = None

    # a part of the analysis in a forked process (see pdlint.engine.fork) ------------
    def detach(self) -> None:
        """Make this the copy of the program in a forked child: it parses in this
        process alone, reports no progress, reads the cache through its own files
        (an inherited file's offset is shared with the parent), and keeps what it
        adds for :meth:`gains`."""
        self._detached = True
        self.progress = None
        self.store.reopen()
        self._base = (len(self.parsed_files), dict(self.timings))
        self._ahead_base = self.parsed_ahead

    def gains(self) -> Gains:
        """What this detached copy loaded and was asked (all of it: merging is a union)."""
        parsed, timings = self._base
        return Gains(
            done=set(self.done),
            parsed_files=self.parsed_files[parsed:],
            looked_up=set(self.looked_up),
            asked=dict(self.asked),
            fact_digests=dict(self.fact_digests),
            errors=dict(self.errors),
            text_now=dict(self._text_now),
            timings={k: v - timings.get(k, 0.0) for k, v in self.timings.items()},
            stored=self._stored,
            memo=self._memo_new,
            memo_used=self._memo_used,
            modules=set(self.loaded),
            parsed_ahead=self.parsed_ahead - self._ahead_base,
        )

    def merge(self, gains: Gains) -> None:
        """Take in what a detached copy did, as if this program had done it: the
        run record then depends on its queries and loaded files too."""
        self.done |= gains.done
        known = set(self.parsed_files)
        fresh = [d for d in gains.parsed_files if d not in known]
        self.parsed += len(fresh)
        self.parsed_files.extend(fresh)
        self.parsed_ahead += gains.parsed_ahead
        self.looked_up |= gains.looked_up
        for query, answer in gains.asked.items():
            self.asked.setdefault(query, answer)
        for display, digest in gains.fact_digests.items():
            self.fact_digests.setdefault(display, digest)
        for display, error in gains.errors.items():
            self.errors.setdefault(display, error)
        for query, passing in gains.text_now.items():
            self._text_now.setdefault(query, passing)
        for phase, seconds in gains.timings.items():
            if seconds:  # shown apart: they ran while this process ran its own
                self.timings[f"{phase} (forked process)"] += seconds
        for key, (payload, slot) in gains.stored.items():
            if not self.store.has(key):
                self.store.put(key, payload, slot=slot)
        if self.memo is not None:
            for memo_key, outcome in gains.memo:
                self.memo.setdefault(memo_key, outcome)
            for memo_key in gains.memo_used:
                self.memo.get(memo_key)  # used by this run (see pdlint.server.RecentMemo)
        self.loaded_elsewhere |= gains.modules - self.loaded.keys()

    def load_all(self) -> list[ModuleFacts]:
        """Every file, duplicates of a module name included (a full run)."""
        return self.load_entries(sorted(self.entries, key=lambda e: e.source.display))

    @property
    def reads(self) -> int:
        """Files whose bytes this run read (the others' stamps vouched for them)."""
        return self.files_read + self._stats.read_later

    def read_errors(self) -> list[Finding]:
        """PDL900 for every file that could not be read."""
        return [e.error for e in self.entries if e.error is not None]
