"""The text scan of every file, cached by content hash, and the text queries' answers.

The scan index (content hash -> :class:`~pdlint.engine.textscan.FileScan`) is kept
in the cache between runs, the scans of a few changed files beside it; the answers
of the last runs' ``("text", ...)`` queries are kept too, by the content hashes of
the files tested. The ``defining``, ``text`` and ``headers`` queries (see
:class:`pdlint.engine.program.Program`) are answered from them.
"""

from __future__ import annotations

import bisect
import itertools
import pickle
import re
import time
from collections import defaultdict
from collections.abc import Iterator
from typing import TYPE_CHECKING, AnyStr

from pdlint.cache.store import CODE, FactStore, make_key
from pdlint.engine.files import SourceEntry
from pdlint.engine.queries import selects, text_test
from pdlint.engine.textscan import FileScan, WordGroups, scan_source
from pdlint.engine.workers import PARALLEL_BYTES, Workers, scan_chunk

if TYPE_CHECKING:
    from concurrent.futures import Future

# Files read at the start are scanned by the worker processes in chunks of about
# this many bytes, while the rest are read (when the text scan will be needed).
SCAN_CHUNK_BYTES = 1_000_000
SCAN_INDEX = "scan-index"
SCAN_DELTA = "scan-delta"  # the scans of files changed since the scan index was written
SCAN_DELTA_MAX = 64  # more of them: the whole index is written again
TEXT_INDEX = "text-index"
FEW_FILES = 256  # files a text query tests one by one, with no word index


class ScanIndex:
    """Module name -> text scan of its file, made once per run, and the answers of
    the queries asked of the scans."""

    def __init__(
        self,
        store: FactStore,
        salt: str,
        groups: WordGroups,
        by_module: dict[str, SourceEntry],
        workers: Workers,
        timings: defaultdict[str, float],
    ) -> None:
        """``by_module``: the file table's (filled in once every file is read)."""
        self.store = store
        self.salt = salt
        self.groups = groups
        self.by_module = by_module
        self.workers = workers
        self.timings = timings
        self.scanned: dict[str, FileScan] | None = None  # see scans
        self._dirty = False
        self._stored_table: dict[str, FileScan] | None = None
        self._base: dict[str, FileScan] = {}  # the whole index, as read
        # chunks of files scanned by the worker processes as they were read
        self._early: list[tuple[list[SourceEntry], Future[list[FileScan]]]] = []
        self._header_index: dict[str, set[str]] | None = None
        # (module, its name and defined names), all of them joined, where each starts
        self._names_text: dict[bool, tuple[list[tuple[str, str]], str, list[int]]] = {}
        # text query -> (digests of the files in its answer, digests of the files tested):
        # the last runs' answers, and this run's
        self._text_known: dict[tuple[object, ...], tuple[set[str], set[str]]] | None = None
        self.text_now: dict[tuple[object, ...], set[str]] = {}
        # (a query's branch part, a content hash) -> whether the file passes it
        self._branch_hits: dict[tuple[object, str], bool] = {}
        # the identifier tokens of the files read so far (see _containing), each word's hits
        self._tokens: _TokenIndex | None = None
        self._digests: frozenset[str] | None = None  # of every file, once all are read
        self._word_hits: dict[bytes, set[str]] = {}

    def scans(self) -> dict[str, FileScan]:
        """Module name -> text scan, for every readable file (cached by content)."""
        if self.scanned is not None:
            return self.scanned
        start = time.perf_counter()
        stored = self._stored_scans()
        early: dict[int, FileScan] = {}
        for chunk, future in self._early:
            early.update(zip(map(id, chunk), future.result(), strict=True))
        self._early = []
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
        self.scanned = out
        self._dirty = fresh > 0 or len(stored) != len(out)
        self.timings["scan"] += time.perf_counter() - start
        return out

    def _stored_scans(self) -> dict[str, FileScan]:
        """The scan index of the last runs: content hash -> text scan (the whole
        index, and the scans of the few files that changed since it was written)."""
        if self._stored_table is None:
            self._base = self._read_table(self.key(SCAN_INDEX))
            table = dict(self._base)
            table.update(self._read_table(self.key(SCAN_DELTA)))
            self._stored_table = table
        return self._stored_table

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

    def scan_early(self, chunk: list[SourceEntry]) -> bool:
        """Scan these files (just read) in the worker processes, but those the scan
        index holds; False when the workers do not run (one process only)."""
        known = self._stored_scans()
        chunk = [entry for entry in chunk if entry.digest not in known]
        size = sum(len(entry.raw or b"") for entry in chunk)
        pool = self.workers.pool_for(max(size, PARALLEL_BYTES) if self._early else size, 2)
        if pool is None:
            return not chunk  # none to scan: the next chunk may need the workers
        datas = [entry.raw or b"" for entry in chunk]
        self._early.append((chunk, pool.submit(scan_chunk, (datas, self.groups))))
        return True

    @property
    def scanning_early(self) -> bool:
        """Whether files were sent to the worker processes to scan as they were read."""
        return bool(self._early)

    def _scan_all(self, modules: list[str]) -> list[FileScan]:
        datas = [self.by_module[m].data or b"" for m in modules]
        pool = self.workers.pool_for(sum(map(len, datas)), len(datas))
        if pool is None:
            return [scan_source(data, self.groups) for data in datas]
        step = max(1, len(datas) // 16)
        chunks = [(datas[i : i + step], self.groups) for i in range(0, len(datas), step)]
        return [scan for part in pool.map(scan_chunk, chunks) for scan in part]

    def save(self) -> None:
        """Write the scan index when it changed, and this run's text query answers."""
        if self.scanned is not None and self._dirty:
            table = {self.by_module[m].digest: s for m, s in self.scanned.items()}
            base = self._base
            delta = {d: s for d, s in table.items() if d not in base}
            if base and len(delta) <= SCAN_DELTA_MAX:
                # an edit: the few new scans beside the index, not the whole of it again
                payload = pickle.dumps(delta, protocol=pickle.HIGHEST_PROTOCOL)
                self.store.put(self.key(SCAN_DELTA), payload, kind="blob")
            else:
                payload = pickle.dumps(table, protocol=pickle.HIGHEST_PROTOCOL)
                self.store.put(self.key(SCAN_INDEX), payload, kind="blob")
                if self._stored_table is not None and len(self._stored_table) > len(base):
                    self.store.put(self.key(SCAN_DELTA), pickle.dumps({}), kind="blob")
            self._dirty = False
        if self.text_now:
            digests = {e.digest for e in self.by_module.values()}
            answers = {q: (passing, digests) for q, passing in self.text_now.items()}
            payload = pickle.dumps(answers, protocol=pickle.HIGHEST_PROTOCOL)
            self.store.put(self.key(TEXT_INDEX, CODE), payload, kind="blob")
            self.text_now = {}

    def key(self, *parts: str) -> str:
        """The cache key of a whole-tree index (its word groups are part of it)."""
        return make_key(*parts, self.salt, repr(self.groups))

    def text_answer(self, query: tuple[object, ...]) -> list[str]:
        """A ``("text", ...)`` query's answer; a file whose bytes a last run tested
        takes that run's answer (the cache key of the table holds the word groups)."""
        if self._text_known is None:
            self._text_known = {}
            blob = self.store.get(self.key(TEXT_INDEX, CODE), kind="blob")
            try:
                loaded = pickle.loads(blob) if blob is not None else None
            except Exception:
                loaded = None
            if isinstance(loaded, dict):
                self._text_known = loaded
        passing, tested = self._text_known.get(query, (set(), set()))
        scans = self.scans() if query[1] else {}
        test = text_test(query, self._branch_hits)
        # the files no last run tested: a few (an edit) are tested one by one, more
        # narrowed down first by the words the query needs
        if self._digests is None:
            self._digests = frozenset(e.digest for e in self.by_module.values())
        found = self._candidates(query) if len(self._digests - tested) > FEW_FILES else None
        out = []
        for module, entry in self.by_module.items():
            if entry.digest in tested:
                hit = entry.digest in passing
            elif found is not None and module in found[1] and module not in found[0]:
                hit = False  # a word the query needs is not in the file
            else:
                hit = test(scans.get(module), entry.data or b"", entry.digest)
            if hit:
                out.append(module)
        self.text_now[query] = {self.by_module[m].digest for m in out}
        return out

    def _candidates(self, query: tuple[object, ...]) -> tuple[set[str], set[str]] | None:
        """(the files that may hold the words a text query needs, the files that
        answer covers: those read so far), or None when the query needs no word."""
        any_of, all_of = query[3], query[4]
        assert isinstance(any_of, tuple) and isinstance(all_of, tuple)
        words = [*any_of, *(w for group in all_of for w in group)]
        if not words:
            return None
        hits = self._containing
        parts = []
        if any_of:
            parts.append(set().union(*(hits(w.encode()) for w in any_of)))
        if all_of:
            parts.append(
                set().union(
                    *(set.intersection(*(hits(w.encode()) for w in group)) for group in all_of)
                )
            )
        assert self._tokens is not None
        return set.intersection(*parts), self._tokens.covered

    def _containing(self, word: bytes) -> set[str]:
        """The files read so far that may hold ``word`` (all that do, and a few that
        do not: the query's test of each file decides): those holding the identifier
        tokens the word's identifier runs can be part of. Each distinct token of the
        files is kept with the files holding it, so a word is looked up among the
        tokens (a small fraction of the bytes) rather than searched through every
        file, which costs a pass over the whole tree for each word."""
        if self._tokens is None:
            self._tokens = _TokenIndex(
                [m for m, e in self.by_module.items() if e.raw is not None],
                [e.raw for e in self.by_module.values() if e.raw is not None],
            )
        found = self._word_hits.get(word)
        if found is None:
            found = self._word_hits[word] = self._tokens.holding(word)
        return found

    def defining(self, query: tuple[object, ...]) -> list[str]:
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
            whole, starts = _joined([j for _m, j in names], "\0")
            texts = self._names_text[ignore_case] = (names, whole, starts)
        names, whole, starts = texts
        longest = max(wanted, key=len, default="")
        if not longest:
            return [m for m, joined in names if all(p in joined for p in wanted)]
        out = []
        for index in _parts_holding(whole, starts, longest):
            module, joined = names[index]
            if all(p in joined for p in wanted):
                out.append(module)
        return out

    def headers_naming(self, words: tuple[str, ...]) -> list[str]:
        """Modules with a class header that names one of ``words``."""
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


class _TokenIndex:
    """Each identifier token (a run of ``[A-Za-z0-9_]``) of some files, with the files
    holding it; the tokens joined in one text, a line each, to find those that hold,
    start or end with a piece of a word."""

    def __init__(self, modules: list[str], datas: list[bytes]) -> None:
        self.modules = modules
        self.covered = set(modules)
        postings: dict[bytes, list[int]] = {}
        for index, data in enumerate(datas):
            for token in set(data.translate(_SPACE_BETWEEN_TOKENS).split()):
                holders = postings.get(token)
                if holders is None:
                    postings[token] = [index]
                else:
                    holders.append(index)
        self.postings = postings
        self.tokens = list(postings)
        self.text, self.starts = _joined([b"", *self.tokens, b""], b"\n")

    def holding(self, word: bytes) -> set[str]:
        """The files whose tokens can hold each identifier run of ``word``: a run with
        other characters of the word on both sides is a whole token, one at the
        word's start ends a token, one at its end starts one, one spanning the word
        is inside one. A word with no run may be anywhere."""
        found: set[int] | None = None
        for run in _TOKEN.finditer(word):
            piece = run.group()
            after, before = run.start() > 0, run.end() < len(word)
            if after and before:
                holders = set(self.postings.get(piece, ()))
            else:
                pattern = (b"\n" if after else b"") + piece + (b"\n" if before else b"")
                # token i is the text's part i + 1; a hit starting with a line break
                # starts in the part before its token's
                shift = 0 if after else 1
                tokens = {i - shift for i in _parts_holding(self.text, self.starts, pattern)}
                holders = {h for i in tokens for h in self.postings[self.tokens[i]]}
            found = holders if found is None else found & holders
            if not found:
                break
        if found is None:
            return set(self.modules)
        return {self.modules[i] for i in found}


_TOKEN = re.compile(rb"[A-Za-z0-9_]+")
# every byte but a token's made a space: a file's tokens are its bytes split (which
# is several times faster than finding each with _TOKEN)
_SPACE_BETWEEN_TOKENS = bytes(
    c if chr(c).isascii() and (chr(c).isalnum() or chr(c) == "_") else ord(" ") for c in range(256)
)


def _joined(parts: list[AnyStr], separator: AnyStr) -> tuple[AnyStr, list[int]]:
    """``parts`` joined by ``separator`` (one character no word holds), and where each
    part starts in the whole."""
    starts = list(itertools.accumulate((len(p) + 1 for p in parts), initial=0))
    return separator.join(parts), starts


def _parts_holding(whole: AnyStr, starts: list[int], word: AnyStr) -> Iterator[int]:
    """The index of each part of ``whole`` (see :func:`_joined`) that holds ``word``: one
    search in C through the whole, a Python step only at each hit, the search going on
    from the next part."""
    at = whole.find(word) if len(starts) > 1 else -1
    while at != -1:
        index = bisect.bisect_right(starts, at) - 1
        yield index
        at = whole.find(word, starts[index + 1])
