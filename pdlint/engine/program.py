"""The analysed program: every file's bytes and module name, facts loaded on demand.

Reading and hashing every file is cheap; parsing is not. A :class:`Program`
knows each module's name from its path (no parsing, :mod:`pdlint.engine.files`),
keeps the text scan of every file (:mod:`pdlint.engine.scan_index`), and parses
and indexes a module only when asked (:meth:`Program.load`, :mod:`pdlint.engine.loading`):
the model asks for the modules a name resolves into, the files that may define an
entry point, the files whose class headers may name a class whose subclasses it
needs, and the files that hold a check's relevant words. Each query's answer is
recorded for the run record (:mod:`pdlint.cache.records`).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from pdlint.cache.store import FactStore
from pdlint.engine import gains as forked
from pdlint.engine.files import FileTable, SourceEntry
from pdlint.engine.loading import FactsMemo, Loader, Progress
from pdlint.engine.queries import branch_part
from pdlint.engine.scan_index import SCAN_CHUNK_BYTES, ScanIndex
from pdlint.engine.textscan import Branches, FileScan, WordGroups
from pdlint.engine.workers import Workers
from pdlint.facts.types import ModuleFacts, Span
from pdlint.findings import Finding
from pdlint.source.discover import SourceFile
from pdlint.source.modules import ModuleNames
from pdlint.source.read import decode_source

if TYPE_CHECKING:
    from pdlint.cache.records import Reads, RunRecord
    from pdlint.engine.gains import Gains


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
        namespaces: Iterable[str] = (),
    ) -> None:
        """``scan_ahead``: the text scan will be needed (a lazy analysis), so the
        files read now are scanned by worker processes meanwhile, when they pay.
        ``namespaces``: folders named as packages (the ``namespace-packages`` setting)."""
        self.store = store
        self.salt = salt
        self.groups = groups
        self.timings: defaultdict[str, float] = defaultdict(float)  # seconds per phase
        self.files = files = FileTable(store, ModuleNames(namespaces))
        self.entries = files.entries
        self.by_module = files.by_module
        self.workers = Workers(set(), self.timings)
        self.index = ScanIndex(store, salt, groups, self.by_module, self.workers, self.timings)
        self.progress = progress
        chunk: list[SourceEntry] = []
        size = 0
        for number, (source, data) in enumerate(jobs, start=1):
            if progress is not None:
                progress(f"reading {number} of {len(jobs)} files")
            entry = files.entry(source, data)
            self.entries.append(entry)
            if scan_ahead and entry.raw is not None:
                chunk.append(entry)
                size += len(entry.raw)
                if size >= SCAN_CHUNK_BYTES:
                    scan_ahead = self.index.scan_early(chunk)
                    chunk, size = [], 0
        if chunk and self.index.scanning_early:
            self.index.scan_early(chunk)
        files.name_modules()
        self.duplicates = files.duplicates
        self.loader = loader = Loader(
            store,
            salt,
            memo,
            (self.entries, self.by_module),
            self.workers,
            self.timings,
            progress,
        )
        # the loader's, shared: what is loaded, and what loading found
        self.loaded: dict[str, ModuleFacts] = loader.loaded
        self.errors: dict[str, Finding] = loader.errors  # display -> PDL900
        self.done: set[str] = loader.done  # displays parsed or read from the cache
        self.parsed_files: list[str] = loader.parsed_files
        # display -> digest of the pickled indexing result (see RunRecord.holds_for)
        self.fact_digests: dict[str, str] = loader.fact_digests
        self.asked: dict[tuple[object, ...], tuple[object, ...]] = {}
        self.looked_up: set[str] = set()
        self.reading: Reads | None = None  # a check's record of its queries (see Reading)
        # the records of checks whose findings this run reused: the run depends on them
        self.reused: list[RunRecord] = []
        # a copy detached into a forked process (see detach): where its counts stood
        self._baseline = forked.Baseline(0, {}, 0)
        self.loaded_elsewhere: set[str] = set()  # modules a detached copy loaded

    @property
    def parsed(self) -> int:
        """Files parsed in this run (not read from the cache)."""
        return self.loader.parsed

    @property
    def parsed_ahead(self) -> int:
        """Of the files parsed, those parsed ahead of their load (see :meth:`prefetch`)."""
        return self.loader.parsed_ahead

    # the text scan ------------------------------------------------------------
    def scans(self) -> dict[str, FileScan]:
        """Module name -> text scan, for every readable file (cached by content)."""
        if self.index.scanned is None and self.progress is not None:
            self.progress(f"scanning the text of {len(self.by_module)} files")
        return self.index.scans()

    def phase(self, name: str) -> None:
        """Name what the run does now (``checking PDL201``) for the progress line;
        the files loaded meanwhile are counted under it."""
        self.loader.phase = name
        if self.progress is not None:
            self.progress(name)

    def save(self) -> None:
        """Write the facts indexed in this run, the scan index when it changed, and the
        files' stamps (see :mod:`pdlint.cache.stat_index`)."""
        start = time.perf_counter()
        self.store.flush()
        self.files.stats.save()
        self.timings["cache write"] += time.perf_counter() - start
        self.index.save()

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
            return self.index.defining(query)
        if kind == "text":
            return self.index.text_answer(query)
        if kind == "headers":
            words = query[1]
            assert isinstance(words, tuple)
            return self.index.headers_naming(words)
        if kind == "tops":
            return sorted({m.split(".")[0] for m in self.by_module})
        if kind == "aliases":
            self.aliases()
            return list(self.asked[query])  # type: ignore[arg-type]
        raise ValueError(f"unknown query {query!r}")

    # loading ------------------------------------------------------------------
    def __contains__(self, module: str) -> bool:
        """Whether a file stands for ``module`` (the lookup is recorded)."""
        self.looked_up.add(module)
        return module in self.by_module

    def load(self, modules: Iterable[str]) -> list[ModuleFacts]:
        """Facts of the named modules (unknown names are ignored), in order: those
        loaded for another model are shared, the others parsed or read now."""
        wanted = [self.by_module[m] for m in dict.fromkeys(modules) if m in self.by_module]
        self.loader.load_entries([e for e in wanted if e.module not in self.loaded])
        return [self.loaded[e.module] for e in wanted if e.module in self.loaded]

    def load_entries(self, entries: list[SourceEntry]) -> list[ModuleFacts]:
        """Parse (or read from the cache) these files; their facts, in order.

        A file that cannot be parsed gets a PDL900 in :attr:`errors` instead.
        Only the first file of each module name enters :attr:`loaded`.
        """
        return self.loader.load_entries(entries)

    def load_all(self) -> list[ModuleFacts]:
        """Every file, duplicates of a module name included (a full run)."""
        return self.loader.load_entries(sorted(self.entries, key=lambda e: e.source.display))

    def prefetch(self, modules: Iterable[str]) -> None:
        """Parse these modules' files ahead, in the worker processes, while the
        analysis goes on: a check that will load them later finds them done.

        Only files neither loaded, nor in the fact cache or the memo; only when
        they pay for the workers. A few at a time, so that a file a lookup
        waits for is never queued behind many of them (see
        :meth:`pdlint.engine.workers.Workers.pump`). The files an earlier call queued
        and no worker took yet are dropped: each call names what the analysis is
        now expected to load.
        """
        self.loader.prefetch(modules)

    def facts_digest(self, entry: SourceEntry) -> str:
        """Digest of what indexing ``entry`` gives (from the cache, else indexed now):
        the fact cache's keyed digest of the pickled result ("" without a cache)."""
        return self.loader.facts_digest(entry)

    def line_moves(self, entry: SourceEntry, old_digest: str) -> dict[Span, Span] | None:
        """How the spans of ``entry``'s facts moved since its bytes had ``old_digest``
        (:func:`pdlint.cache.line_moves.moves`); None when more than spans changed, or when the
        fact cache no longer holds either version. Computed once per run (the run
        records of a run, asked in turn, mostly read the same versions)."""
        return self.loader.line_moves(entry, old_digest)

    @property
    def reads(self) -> int:
        """Files whose bytes this run read (the others' stamps vouched for them)."""
        return self.files.reads

    def read_errors(self) -> list[Finding]:
        """PDL900 for every file that could not be read."""
        return self.files.read_errors()

    # the worker processes -----------------------------------------------------
    @property
    def workers_running(self) -> bool:
        """Whether worker processes were started (and not stopped since)."""
        return self.workers.pool is not None

    def stop_workers(self) -> None:
        """Finish parsing ahead with every worker process, then stop them: this
        process has no other thread afterwards (so it may fork, see
        :mod:`pdlint.engine.fork`), and starts them again if a later batch pays for it."""
        self.workers.stop()

    def close(self) -> None:
        """Write what the fact store holds; stop the worker processes (if any)."""
        self.store.close()
        self.workers.close()

    # a part of the analysis in a forked process (see pdlint.engine.fork) ------------
    def detach(self) -> None:
        """Make this the copy of the program in a forked child (see
        :func:`pdlint.engine.gains.detach`)."""
        self._baseline = forked.detach(self)

    def gains(self) -> Gains:
        """What this detached copy loaded and was asked (all of it: merging is a union)."""
        return forked.gains(self, self._baseline)

    def merge(self, gains: Gains) -> None:
        """Take in what a detached copy did, as if this program had done it: the
        run record then depends on its queries and loaded files too."""
        forked.merge(self, gains)
