"""Fact loading: each file's facts from the memo, the fact cache, or parsed now.

Facts come from the fact cache when the file's bytes, pdlint's version and the
rule packs are unchanged; a batch of uncached files is indexed in worker processes
when it is large enough to pay for them (see :mod:`pdlint.engine.workers`), and
what indexing gave is stored in the cache for the next runs.
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import TYPE_CHECKING

from pdlint.cache.line_moves import moves
from pdlint.cache.store import FactStore, make_key
from pdlint.engine.files import SourceEntry
from pdlint.engine.workers import (
    Workers,
    error_result,
    index_job,
    index_payload,
    job_of,
    payload_of,
    result_of,
)
from pdlint.facts.types import ModuleFacts, Span
from pdlint.findings import Finding
from pdlint.source.read import parse_error

if TYPE_CHECKING:
    from concurrent.futures import Future

Progress = Callable[[str], None]
IndexOutcome = tuple[ModuleFacts | None, Finding | None]
# What indexing one file gave, keyed by (absolute path, display path, content hash
# of the bytes); long-lived callers (the language server) keep one between runs.
FactsMemo = MutableMapping[tuple[str, str, str], IndexOutcome]


class Loader:
    """The facts of the files loaded so far, and what loading them did (files parsed,
    PDL900s, digests of their facts entries)."""

    def __init__(
        self,
        store: FactStore,
        salt: str,
        memo: FactsMemo | None,
        files: tuple[list[SourceEntry], dict[str, SourceEntry]],
        workers: Workers,
        timings: defaultdict[str, float],
        progress: Progress | None,
    ) -> None:
        """``files``: the file table's entries and the entry of each module."""
        self.store = store
        self.salt = salt
        self.memo = memo
        self.entries, self.by_module = files
        self.workers = workers
        self.timings = timings
        self.progress = progress
        self.phase = ""  # what the run does now, for the progress line (see Program.phase)
        self.planned = 0  # files asked to load so far: the progress line's total
        self.done = workers.done  # displays parsed or read from the cache
        self.loaded: dict[str, ModuleFacts] = {}
        self.errors: dict[str, Finding] = {}  # display -> PDL900
        self.parsed = 0  # files parsed in this run (not from the cache)
        self.parsed_ahead = 0  # of which parsed ahead of their load (see prefetch)
        self.parsed_files: list[str] = []
        # display -> digest of the pickled indexing result (see RunRecord.holds_for)
        self.fact_digests: dict[str, str] = {}
        # (old facts key, facts key) -> line_moves' answer
        self._line_moves: dict[tuple[str, str], dict[Span, Span] | None] = {}
        # a copy detached into a forked process (see pdlint.engine.gains): what it indexed
        self.detached = False
        self.stored: dict[str, tuple[bytes, str]] = {}
        self.memo_new: list[tuple[tuple[str, str, str], IndexOutcome]] = []
        self.memo_used: list[tuple[str, str, str]] = []

    def prefetch(self, modules: Iterable[str]) -> None:
        """See :meth:`pdlint.engine.program.Program.prefetch`."""
        self.workers.drop_queued()
        todo = []
        for module in dict.fromkeys(modules):
            entry = self.by_module.get(module)
            if entry is None or not entry.readable or entry.source.display in self.done:
                continue
            if self.memo is not None and self._memo_key(entry) in self.memo:
                continue
            if not self.store.has(self._key(entry)):
                todo.append(entry)
        if (
            not todo
            or self.workers.pool_for(sum(len(e.data or b"") for e in todo), len(todo)) is None
        ):
            return
        self.workers.parse_ahead(sorted(todo, key=lambda e: -len(e.data or b"")))

    def load_entries(self, entries: list[SourceEntry]) -> list[ModuleFacts]:
        """See :meth:`pdlint.engine.program.Program.load_entries`."""
        wanted = [e for e in entries if e.readable and e.source.display not in self.done]
        if not wanted:
            return []
        # the total grows as each batch is asked for, never past what will load
        self.planned = max(self.planned, len(self.done)) + len(wanted)
        self.workers.pump()
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
                    if self.detached:
                        self.memo_used.append(key)
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
            ready = len(wanted) - len(todo)  # from the memo or the cache
            for entry, result in self._index(todo):
                payload = result if isinstance(result, bytes) else payload_of(result)
                digest = self._store_facts(entry, payload)
                decoded[id(entry)] = self._finish(entry, result, digest, True, memo_keys)
                self._report(len(self.done) + ready)
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
        self._report(len(self.done))
        return out

    def _report(self, loaded: int) -> None:
        """The progress line: files loaded of those asked for so far, under the phase."""
        if self.progress is not None:
            counted = f"loading {min(loaded, self.planned)} of {self.planned} files"
            self.progress(f"{self.phase}: {counted}" if self.phase else counted)

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
            if self.detached and indexed:
                # indexed here: the parent keeps it (facts read from the cache are
                # not sent, their pickling cost more than reading them again)
                self.memo_new.append((memo_keys[id(entry)], outcome))
        return facts

    def facts_digest(self, entry: SourceEntry) -> str:
        """See :meth:`pdlint.engine.program.Program.facts_digest`."""
        cached = self.store.get_signed(self._key(entry))
        if cached is not None:
            return cached[1]
        start = time.perf_counter()
        payload = index_payload(job_of(entry))
        self.parsed += 1
        self.parsed_files.append(entry.source.display)
        digest = self._store_facts(entry, payload)
        self.timings["parse and index"] += time.perf_counter() - start
        return digest

    def line_moves(self, entry: SourceEntry, old_digest: str) -> dict[Span, Span] | None:
        """See :meth:`pdlint.engine.program.Program.line_moves`."""
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
        keep it for the parent: see :func:`pdlint.engine.gains.gains`); its keyed digest."""
        key, slot = self._key(entry), self._slot(entry)
        digest = self.store.put(key, payload, slot=slot)
        if self.detached:
            self.stored[key] = (payload, slot)
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
            payload = index_payload(job_of(entry))
            self._store_facts(entry, payload)
            result = result_of(payload)
            assert result is not None  # made now, it decodes
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

    def _index(
        self, entries: list[SourceEntry]
    ) -> Iterator[tuple[SourceEntry, bytes | tuple[object, ...]]]:
        """Each entry with what indexing it gave (pickled when a worker process
        indexed it), in the order they are done."""
        self.parsed += len(entries)
        self.parsed_files.extend(entry.source.display for entry in entries)
        futures: dict[Future[bytes], SourceEntry]
        futures, rest = self.workers.take_ahead(entries)  # parsed ahead, else parsed now
        self.parsed_ahead += len(futures)
        jobs = [job_of(entry) for entry in rest]
        pool = self.workers.pool_for(sum(len(job[2]) for job in jobs), len(jobs))
        if pool is None:
            for entry, job in zip(rest, jobs, strict=True):
                yield entry, index_job(job)
        else:
            # large files first, so that no worker is left with a big one at the end
            for i in sorted(range(len(jobs)), key=lambda i: -len(jobs[i][2])):
                futures[pool.submit(index_payload, jobs[i])] = rest[i]
        if futures:
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                yield futures[future], future.result()
        self.workers.pump()
