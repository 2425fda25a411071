"""The file table: each discovered file's module name, bytes and content hash.

A file whose stat stamp the stat index vouches for (see :mod:`pdlint.cache.stat_index`)
takes the content hash recorded for it, and is read only when its bytes are needed.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass

from pdlint import __version__
from pdlint.cache.stat_index import StatIndex, stamp
from pdlint.cache.store import SCHEMA, FactStore, content_hash, make_key
from pdlint.findings import Finding
from pdlint.source.discover import SourceFile
from pdlint.source.modules import ModuleNames, in_folder
from pdlint.source.read import parse_error, read_bytes


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


class FileTable:
    """The discovered files, in the order added, and the one that stands for each module."""

    def __init__(self, store: FactStore, names: ModuleNames | None = None) -> None:
        """``names``: how files are named (with the settings' namespace packages)."""
        self.store = store
        self.names = names or ModuleNames()
        # question about the files' imports -> content hash -> the file's answer: as
        # the cache kept them, and as this run asked them (see name_modules)
        self._evidence: dict[tuple[str, ...], dict[str, bool]] | None = None
        self._evidence_now: dict[tuple[str, ...], dict[str, bool]] = {}
        self.entries: list[SourceEntry] = []
        self.directories: set[str] = set()  # the folders of the files on disk (absolute)
        self.by_module: dict[str, SourceEntry] = {}
        self.duplicates = 0  # readable files whose module name another file took
        self.stats = StatIndex(store)
        self.files_read = 0  # read when discovered (see reads)

    def entry(self, source: SourceFile, data: bytes | None) -> SourceEntry:
        """The entry of a discovered file, for the caller to add to :attr:`entries`
        (``data``: its bytes when given, as an editor's buffer); read now unless its
        stamp vouches for its content hash."""
        path = source.path
        where = os.path.abspath(path)
        module = self.names.name(where)
        if path != "-":
            self.directories.add(os.path.dirname(where))
        is_package = os.path.basename(path).startswith("__init__.")
        if data is not None:  # an editor's buffer, or stdin
            return SourceEntry(source, module, is_package, data, content_hash(data))
        try:
            now = stamp(os.stat(path))
        except OSError:
            now = None
        known = self.stats.digest(where, now) if now is not None else None
        if known is not None:
            return SourceEntry(source, module, is_package, None, known, stats=self.stats)
        self.files_read += 1
        try:
            data = read_bytes(path, now[2] if now is not None else 0)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            error = parse_error(source.display, f"cannot read: {reason}")
            return SourceEntry(source, module, is_package, None, "", error)
        digest = content_hash(data)
        if now is not None:
            self.stats.record(where, now, digest)
        return SourceEntry(source, module, is_package, data, digest)

    def name_modules(self) -> None:
        """Once every file is added: the namespace packages the files import each
        other through name them again (see :meth:`ModuleNames.infer`); the first
        readable file (by display path) of each module name stands for it, the others
        are counted as duplicates."""
        if self.names.infer(sorted(self.directories), self._any_file):
            for entry in (e for e in self.entries if e.source.path != "-"):
                entry.module = self.names.name(os.path.abspath(entry.source.path))
        if self._evidence_now and self._evidence_now != self._evidence:
            payload = pickle.dumps(self._evidence_now, protocol=pickle.HIGHEST_PROTOCOL)
            self.store.put(self._evidence_key(), payload, kind="blob")
        for entry in sorted(self.entries, key=lambda e: e.source.display):
            if not entry.readable:
                continue
            if entry.module in self.by_module:
                self.duplicates += 1
                continue
            self.by_module[entry.module] = entry

    def _evidence_key(self) -> str:
        # the files' answers depend on their bytes and on pdlint alone (not the packs)
        return make_key("namespace-evidence", __version__, SCHEMA)

    def _any_file(
        self,
        slot: tuple[str, ...],
        test: Callable[[bytes], bool],
        within: str | None,
        directly: bool = False,
    ) -> bool:
        """Whether a readable file (under the folder ``within``, if given; in it alone,
        ``directly``) passes ``test``, the question ``slot`` names (see
        :meth:`ModuleNames.infer`); each file's answer is kept by its content hash, so a
        warm run reads no file for it."""
        if self._evidence is None:
            blob = self.store.get(self._evidence_key(), kind="blob")
            try:
                loaded = pickle.loads(blob) if blob is not None else {}
            except Exception:
                loaded = {}
            self._evidence = loaded if isinstance(loaded, dict) else {}
        known = self._evidence.get(slot, {})
        entries = [e for e in self.entries if e.readable and e.digest and e.source.path != "-"]
        if within is not None:
            entries = [e for e in entries if in_folder(e.source.path, within, directly)]
        now = self._evidence_now[slot] = {
            e.digest: known[e.digest] for e in entries if e.digest in known
        }
        # every file is asked (not only up to the first that says yes): the next run,
        # with any subset of these files, finds each answer kept
        for entry in entries:
            if entry.digest not in now:
                data = entry.data
                now[entry.digest] = data is not None and test(data)
        return any(now.values())

    @property
    def reads(self) -> int:
        """Files whose bytes this run read (the others' stamps vouched for them)."""
        return self.files_read + self.stats.read_later

    def read_errors(self) -> list[Finding]:
        """PDL900 for every file that could not be read."""
        return [e.error for e in self.entries if e.error is not None]
