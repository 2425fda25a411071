"""Files unchanged since a run read them, told by their ``stat`` alone (as git's index).

A run records each file's device, inode, size, modification and change times
with the content hash of the bytes it read. A later run that finds a file with
the same five values takes that hash without reading the file, and reads the
bytes only if something needs them. Every write to a file moves its change time,
which no program can set back (``touch`` and ``cp -p`` set the modification time
only). A file changed within :data:`RACY_NS` before the recording run began is
never taken on trust: a write in the same tick of a coarse clock would leave its
times as they were (git's "racily clean" entries).
"""

from __future__ import annotations

import os
import pickle
import time

from pdlint.cache.store import FactStore, make_key

RACY_NS = 2_000_000_000  # coarser than any file system's time stamps
# Stamps no run has looked at since are dropped after this long (files deleted, or
# another checkout's), so that the index does not grow without bound.
KEEP_NS = 30 * 24 * 3600 * 1_000_000_000
KEY = make_key("file-stats", "1")
Stamp = tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns


def stamp(result: os.stat_result) -> Stamp:
    return (
        result.st_dev,
        result.st_ino,
        result.st_size,
        result.st_mtime_ns,
        result.st_ctime_ns,
    )


class StatIndex:
    """Absolute path -> (stamp, content hash) as the last runs read them."""

    def __init__(self, store: FactStore) -> None:
        self.store = store
        self.started = time.time_ns()  # before any file of this run is looked at
        self._known: dict[str, tuple[Stamp, str, int]] = {}  # ..., when it was recorded
        self._now: dict[str, tuple[Stamp, str, int]] = {}
        self.read_later = 0  # files whose bytes were read after all (see SourceEntry.data)
        self._dropped = False  # a recorded stamp was forgotten: the index must be written
        if not store.enabled:
            return
        blob = store.get(KEY, kind="blob")
        try:
            known = pickle.loads(blob) if blob is not None else {}
        except Exception:
            known = {}
        if isinstance(known, dict):
            self._known = known

    def digest(self, path: str, now: Stamp) -> str | None:
        """The content hash recorded for ``path`` if its stamp is the recorded one
        and was recorded well after the file last changed; else None."""
        found = self._known.get(path)
        if found is None:
            return None
        recorded, digest, when = found
        if recorded != now or max(now[3], now[4]) >= when - RACY_NS:
            return None
        self._now[path] = found
        return digest

    def record(self, path: str, now: Stamp, digest: str) -> None:
        """``path`` had ``digest`` when its stamp was ``now`` (taken before reading)."""
        self._now[path] = (now, digest, self.started)

    def forget(self, path: str) -> None:
        """``path`` is not what its stamp said (read again, or unreadable): the stamp
        is dropped, so the next run reads the file."""
        self._now.pop(path, None)
        if self._known.pop(path, None) is not None:
            self._dropped = True

    def save(self) -> None:
        """Write the stamps of this run's files, with those of others the index held."""
        if not (self._now or self._dropped) or not self.store.enabled:
            return
        merged = {**self._known, **self._now}
        if merged == self._known and not self._dropped:
            return
        stale = self.started - KEEP_NS
        merged = {p: v for p, v in merged.items() if p in self._now or v[2] >= stale}
        self.store.put(KEY, pickle.dumps(merged, pickle.HIGHEST_PROTOCOL), kind="blob")
        self._known = merged
        self._now = {}
        self._dropped = False
