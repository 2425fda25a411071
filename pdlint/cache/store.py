"""The fact cache: per-file facts on disk, never trusted without a check.

Layout of a cache directory (ruff's habits: ``.pdlint_cache/`` under the
project root, with a ``.gitignore`` holding ``*`` and a ``CACHEDIR.TAG``)::

    .pdlint_cache/
      CACHEDIR.TAG  .gitignore
      v<version>/facts/<32 hex>.pack   the facts entries a run wrote, one after another
      v<version>/facts/index           key -> pack, offset and size of its entry
      v<version>/<name>                whole-run blobs (scan index, last results)

An entry is a header (magic, its own key, payload length, payload digest) and
a pickled payload. A truncated, corrupt or foreign entry fails the check and is
treated as missing (then rewritten). The index is an entry too (its key is
``index``). Files are written to a temporary file in the same directory and
moved into place with ``os.replace``, so a reader never sees half a file.
A run keeps the facts it indexes in memory and writes them in a few packs
(creating a file per entry cost more than the rest of a cold run's writing),
then merges their places into the index as it is on disk then: two runs
writing at once may each lose the other's places, which are then only misses.
A directory that cannot be written makes the store read-only (with a note).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import stat
import threading
import time
from pathlib import Path
from typing import BinaryIO

from pdlint import __version__

MAGIC = b"PDLINT-CACHE-1\n"


def _schema() -> str:
    """A digest of the code that gives facts and scans their shape and content.

    Any change to the indexer, the facts or the text scan starts a new cache, so
    an entry written by other code is never read (even within one version).
    """
    digest = hashlib.sha256()
    here = Path(__file__).parent.parent
    for name in ("facts/types.py", "facts/indexer.py", "engine/textscan.py", "source/read.py"):
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()[:12]


def _code() -> str:
    """A digest of all of pdlint's code: a run record (the findings of a whole run)
    is reused only by the code that computed it."""
    digest = hashlib.sha256()
    here = Path(__file__).parent.parent
    for path in sorted(here.rglob("*.py")):
        digest.update(path.relative_to(here).as_posix().encode())
        try:
            digest.update(path.read_bytes())
        except OSError:
            pass
    return digest.hexdigest()[:12]


SCHEMA = _schema()
CODE = _code()
_DIGEST = 16
CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by pdlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
ENV_VAR = "PDLINT_CACHE_DIR"
INDEX = "index"
PACK_BYTES = 16 << 20  # facts kept in memory before they are written as a pack
STALE_SECONDS = 60  # a file a run is writing is never older than this
MAX_PACKS = 64  # more packs in the index: all live entries are rewritten as one
# Facts entries kept of each file (the newest): an edit makes a new one, and a
# branch switched back and forth is served by the last two.
VERSIONS = 2
_PACK_NAME = re.compile(r"[0-9a-f]{32}\.pack")
_SLOT = re.compile(r"[0-9a-f]{40}")
# where an entry is: pack, offset, size, and the slot it is a version in ("": none)
Place = tuple[str, int, int, str]
DEFAULT_NAME = ".pdlint_cache"


def content_hash(data: bytes) -> str:
    """Hex digest of a file's bytes (the cache's notion of "unchanged"). SHA-256 runs
    in the processor's SHA instructions where it has them, faster than BLAKE2b on a
    whole repository's bytes."""
    return hashlib.sha256(data).hexdigest()[: 2 * _DIGEST]


def make_key(*parts: str) -> str:
    """A cache key from its parts (content hash, module name, salt...)."""
    # surrogatepass: a module named from a file name that is not UTF-8 keeps its
    # surrogate escapes, and a key is still made for it.
    data = "\0".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def cache_location(root: str, configured: str | None, flag: str | None) -> Path:
    """``--cache-dir``, else ``$PDLINT_CACHE_DIR``, else ``cache-dir`` from the
    config, else ``.pdlint_cache`` under the project root.

    Raises :class:`CacheDirError` for a folder that is not pdlint's own to use
    (see :func:`check_cache_dir`).
    """
    given = flag or os.environ.get(ENV_VAR)
    if given:  # relative to the current directory, as a shell user expects
        directory = Path(given).expanduser().absolute()
    elif configured:  # relative to the project root, where the config file is
        path = Path(configured).expanduser()
        directory = path if path.is_absolute() else Path(root) / path
    else:
        directory = Path(root) / DEFAULT_NAME
    check_cache_dir(directory, root)
    return directory


class CacheDirError(Exception):
    """A folder pdlint must not use as its cache (the message says why)."""


# What pdlint writes at the top of a cache folder, and nothing else.
_TAG = "CACHEDIR.TAG"
_GITIGNORE = b"# Created by pdlint.\n*\n"
_GITIGNORES = (_GITIGNORE, b"*\n")  # the second: the flake8 plugin's, before it tagged
_VERSION_DIR = re.compile(r"v[0-9][\w.+!-]*-[0-9a-f]{12}")
_TEMPORARY = re.compile(r"(CACHEDIR\.TAG|\.gitignore)\.\d+\.\d+\.tmp")
_FOLDERS = ("flake8",)


def check_cache_dir(directory: Path, root: str) -> None:
    """Raise :class:`CacheDirError` unless ``directory`` is, or can become, pdlint's
    own cache folder.

    The cache folder is pdlint's alone, since ``pdlint clean`` removes it: never a
    symbolic link (a repository can ship one pointing anywhere), never a folder
    reached through one inside the project, never the project root, HOME or a
    folder above either, and never a folder holding anything pdlint did not write.
    """
    path = Path(os.path.abspath(directory))
    try:
        info: os.stat_result | None = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None  # made on the first write, or found not writable then
    except (OSError, ValueError) as exc:
        raise CacheDirError(f"cache directory {directory}: {_reason(exc)}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise CacheDirError(
            f"cache directory {directory} is a symbolic link; pdlint never follows one"
        )
    real = os.path.realpath(path)
    if real in _protected(root):
        raise CacheDirError(
            f"cache directory {directory} is the project root, HOME or a folder above "
            "one; pdlint keeps its cache in a folder of its own"
        )
    inside = os.path.relpath(path, os.path.abspath(root))
    if not inside.startswith(os.pardir) and real != os.path.join(os.path.realpath(root), inside):
        raise CacheDirError(
            f"cache directory {directory} is reached through a symbolic link in the "
            "project; pdlint never follows one"
        )
    if info is None:
        return
    if not stat.S_ISDIR(info.st_mode):
        raise CacheDirError(f"cache directory {directory} exists and is not a folder")
    foreign = _foreign_entries(path)
    if foreign:
        raise CacheDirError(
            f"cache directory {directory} is not a pdlint cache directory: it holds "
            f"{foreign}, which pdlint did not write; pdlint keeps its cache in a new "
            "or empty folder of its own"
        )


def _protected(root: str) -> set[str]:
    """The project root, HOME and every folder above either (real paths)."""
    out: set[str] = set()
    for start in (root, os.path.expanduser("~")):
        real = Path(os.path.realpath(start))
        out.update(str(p) for p in (real, *real.parents))
    return out


def _foreign_entries(directory: Path) -> str:
    """What in ``directory`` pdlint did not write ("" if nothing): its tag, its
    ``.gitignore``, its version folders, the flake8 plugin's folder, their
    temporary files. An untagged folder is pdlint's only by its default name."""
    try:
        names = sorted(os.listdir(directory))
    except OSError as exc:
        return f"entries that cannot be listed ({_reason(exc)})"
    foreign = [name for name in names if not _own_entry(directory, name)]
    if not foreign and names and _TAG not in names and directory.name != DEFAULT_NAME:
        return f"no {_TAG}"
    shown = ", ".join(repr(name) for name in foreign[:3])
    return shown + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")


def _own_entry(directory: Path, name: str) -> bool:
    try:
        info = os.lstat(directory / name)
    except OSError:
        return True  # gone meanwhile
    if name == _TAG or name == ".gitignore":
        content = read_regular(directory / name, limit=4096) if stat.S_ISREG(info.st_mode) else None
        if name == _TAG:
            return content is not None and b"created by pdlint" in content
        return content in _GITIGNORES
    if name in _FOLDERS or _VERSION_DIR.fullmatch(name):
        return stat.S_ISDIR(info.st_mode)
    return _TEMPORARY.fullmatch(name) is not None and stat.S_ISREG(info.st_mode)


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def prepare_cache_dir(directory: Path, *inner: str) -> Path:
    """Create ``directory`` (checked by :func:`check_cache_dir`) with its tag and
    ``.gitignore`` where they are missing, and the folders ``inner`` below it;
    returns the innermost. Raises OSError where a folder turns out to be a
    symbolic link or not a folder (made so after the check)."""
    directory.mkdir(parents=True, exist_ok=True)
    _real_folder(directory)
    _create(directory / _TAG, CACHEDIR_TAG.encode())
    _create(directory / ".gitignore", _GITIGNORE)  # never replaces one that is there
    folder = directory
    for name in inner:
        folder = folder / name
        try:
            folder.mkdir()
        except FileExistsError:
            pass
        _real_folder(folder)
    return folder


def _real_folder(path: Path) -> None:
    if not stat.S_ISDIR(os.lstat(path).st_mode):
        raise NotADirectoryError(20, "not a folder, or a symbolic link", str(path))


def _create(path: Path, data: bytes) -> None:
    """Write a new file at ``path``; leave whatever is there already."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644)
    except FileExistsError:
        return
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


_SECRET: bytes | None = None


def _secret() -> bytes:
    """This user's cache key, kept outside any analysed tree.

    Entries are pickles, and a cache folder may sit inside a repository that
    someone else wrote: only an entry signed with this key (which no repository
    can contain) is ever unpickled. Without a readable key file, a key for this
    process alone (entries then never match on a later run: no cache, no risk).
    """
    global _SECRET
    if _SECRET is None:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "pdlint", "secret")
        try:
            with open(path, "rb") as handle:
                key = handle.read()
            if len(key) < 32:
                raise OSError("short key")
        except OSError:
            key = os.urandom(32)
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(key)
            except OSError:
                try:  # another process made it first: use theirs
                    with open(path, "rb") as handle:
                        found = handle.read()
                    key = found if len(found) >= 32 else key
                except OSError:
                    pass
        _SECRET = key[:64]
    return _SECRET


def _sign(payload: bytes) -> bytes:
    # HMAC-SHA-256: the processor's SHA instructions make it faster than keyed
    # BLAKE2b over the facts an edit run reads
    return hmac.digest(_secret(), payload, "sha256")[:_DIGEST]


def sign(payload: bytes) -> str:
    """A keyed digest of ``payload`` (hex), with the same per-user key as the entries."""
    return _sign(payload).hex()


def _frame(key: str, payload: bytes, digest: bytes | None = None) -> bytes:
    digest = _sign(payload) if digest is None else digest
    head = MAGIC + key.encode() + b"\n" + len(payload).to_bytes(8, "little") + digest
    return head + payload


def _unframe(key: str, blob: bytes) -> bytes | None:
    found = _unframe_signed(key, blob)
    return None if found is None else found[0]


def _unframe_signed(key: str, blob: bytes) -> tuple[bytes, bytes] | None:
    """The payload of a framed entry and its keyed digest, once checked."""
    head = MAGIC + key.encode() + b"\n"
    if not blob.startswith(head):
        return None
    start = len(head) + 8 + _DIGEST
    if len(blob) < start:
        return None
    size = int.from_bytes(blob[len(head) : len(head) + 8], "little")
    payload = blob[start:]
    if len(payload) != size:
        return None
    digest = _sign(payload)
    if not hmac.compare_digest(digest, blob[start - _DIGEST : start]):
        return None  # corrupt, or not written by this user's pdlint: never unpickled
    return payload, digest


class FactStore:
    """Read and write cache entries under one directory (or do nothing).

    Facts entries (``kind="facts"``) go to packs when :meth:`flush` is called
    (or enough of them are waiting); other entries are files of their own.
    """

    def __init__(self, directory: Path | None) -> None:
        self.root = directory
        self.base = directory / f"v{__version__}-{SCHEMA}" if directory is not None else None
        self.writable = directory is not None
        self.notes: list[str] = []
        self.hits = 0
        self.misses = 0
        self.rejected = 0
        self._prepared = False
        self._index: dict[str, Place] | None = None
        self._pending: dict[str, bytes] = {}  # key -> framed entry, not written yet
        self._slots: dict[str, str] = {}  # key -> its slot, for the pending entries
        self._pending_bytes = 0
        self._packs: dict[str, BinaryIO | None] = {}  # open packs (None: unreadable)

    @property
    def enabled(self) -> bool:
        return self.base is not None

    def _prepare(self) -> bool:
        """Create the directory with its tag files on the first write."""
        if self._prepared:
            return self.writable
        self._prepared = True
        assert self.root is not None and self.base is not None
        try:
            prepare_cache_dir(self.root, self.base.name, "facts")
        except OSError as exc:
            self._read_only(exc)
        return self.writable

    def _read_only(self, exc: OSError) -> None:
        if self.writable:
            reason = exc.strerror or str(exc)
            self.notes.append(f"cache directory {self.root} is not writable ({reason}); not cached")
        self.writable = False

    def get(self, key: str, kind: str = "facts") -> bytes | None:
        """The payload stored under ``key``, or None (missing, corrupt or foreign)."""
        if self.base is None:
            return None
        if kind == "facts":
            blob = self._pending.get(key) or self._read_packed(key)
        else:
            blob = read_regular(self.base / key)
        if blob is None:
            self.misses += 1
            return None
        payload = _unframe(key, blob)
        if payload is None:
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return payload

    def get_signed(self, key: str) -> tuple[bytes, str] | None:
        """A facts entry's payload and its keyed digest (:func:`sign`), or None."""
        if self.base is None:
            return None
        blob = self._pending.get(key) or self._read_packed(key)
        found = _unframe_signed(key, blob) if blob is not None else None
        if found is None:
            self.misses += 1
            if blob is not None:
                self.rejected += 1
            return None
        self.hits += 1
        return found[0], found[1].hex()

    def has(self, key: str) -> bool:
        """Whether a facts entry is stored under ``key`` (not read, so not checked)."""
        if self.base is None:
            return False
        return key in self._pending or key in self._places()

    def put(self, key: str, payload: bytes, kind: str = "facts", slot: str = "") -> str:
        """Store ``payload`` under ``key``; silently skipped when read-only. Returns
        a facts entry's keyed digest (:func:`sign`; "" when the store is off).

        A facts entry is written with the others at the next :meth:`flush`. Its
        ``slot`` (a key too) names what it is a version of (a file): only the
        :data:`VERSIONS` newest entries of a slot stay in the index.
        """
        if self.base is None:
            return ""
        if kind == "facts":
            digest = _sign(payload)
            if self.writable:
                frame = _frame(key, payload, digest)
                self._pending[key] = frame
                self._slots[key] = slot
                self._pending_bytes += len(frame)
                if self._pending_bytes >= PACK_BYTES:
                    self.flush()
            return digest.hex()
        if not self.writable:
            return ""
        if not self._prepare():
            return ""
        try:
            _write_atomic(self.base / key, _frame(key, payload))
        except OSError as exc:
            self._read_only(exc)
        return ""

    def flush(self) -> None:
        """Write the waiting facts entries as one pack and add them to the index."""
        if not self._pending or self.base is None or not self._prepare():
            self._pending.clear()
            self._slots.clear()
            self._pending_bytes = 0
            return
        folder = self.base / "facts"
        name = f"{os.urandom(16).hex()}.pack"
        places: dict[str, Place] = {}
        offset = 0
        for key, frame in self._pending.items():
            places[key] = (name, offset, len(frame), self._slots.get(key, ""))
            offset += len(frame)
        try:
            _write_atomic(folder / name, b"".join(self._pending.values()))
            index = self._read_index()  # as another run may have left it
            held = {place[0] for place in index.values()}
            for key in places:  # a key written again is as new as the others
                index.pop(key, None)
            index.update(places)
            index = _newest_versions(index)
            if len({place[0] for place in index.values()}) > MAX_PACKS:
                try:
                    index = self._compact(index)
                except OSError:
                    pass  # the packs as they are still serve
            _write_atomic(folder / INDEX, _frame(INDEX, _index_text(index)))
            self._index = index
            named = {place[0] for place in index.values()}
            self._remove_packs(held - named)
            self._sweep(named | {name})
        except OSError as exc:
            self._read_only(exc)
        self._pending.clear()
        self._slots.clear()
        self._pending_bytes = 0

    def close(self) -> None:
        """Write what is waiting and close the open packs."""
        self.flush()
        self._close_packs()

    def _remove_packs(self, names: set[str]) -> None:
        """Remove packs the index no longer names (another run reading one of them
        gets misses)."""
        assert self.base is not None
        for name in names:
            handle = self._packs.pop(name, None)
            if handle is not None:
                handle.close()
            try:
                (self.base / "facts" / name).unlink()
            except OSError:
                pass

    def _sweep(self, named: set[str]) -> None:
        """Remove what no index will name again: packs the index does not name (a
        run under another key, whose index this one replaced) and temporary files
        a killed run left, once older than :data:`STALE_SECONDS` (a run writing now
        names its pack, or moves its file, well within that)."""
        assert self.base is not None
        cutoff = time.time() - STALE_SECONDS
        for folder in (self.base, self.base / "facts"):
            try:
                listing = list(os.scandir(folder))
            except OSError:
                continue
            for entry in listing:
                name = entry.name
                stale = name.endswith(".tmp") or (
                    _PACK_NAME.fullmatch(name) is not None and name not in named
                )
                try:
                    if stale and entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        handle = self._packs.pop(name, None)
                        if handle is not None:
                            handle.close()
                        os.unlink(entry.path)
                except OSError:
                    pass

    def reopen(self) -> None:
        """Open the packs again when next read (a forked process: the files it
        inherited share their offsets with its parent's)."""
        self._close_packs()

    def _close_packs(self) -> None:
        for handle in self._packs.values():
            if handle is not None:
                handle.close()
        self._packs.clear()

    def _places(self) -> dict[str, Place]:
        """The index, read once per store."""
        if self._index is None:
            self._index = self._read_index()
        return self._index

    def _read_packed(self, key: str) -> bytes | None:
        place = self._places().get(key)
        return None if place is None else self._read_at(*place[:3])

    def _read_at(self, pack: str, offset: int, size: int) -> bytes | None:
        assert self.base is not None
        if pack not in self._packs:
            try:
                self._packs[pack] = _open_regular(self.base / "facts" / pack)
            except (OSError, ValueError):
                self._packs[pack] = None
        handle = self._packs[pack]
        if handle is None:
            return None
        try:
            handle.seek(offset)
            return handle.read(size)
        except OSError:
            return None

    def _read_index(self) -> dict[str, Place]:
        """The index on disk, oldest entries first; empty when missing or damaged."""
        assert self.base is not None
        blob = read_regular(self.base / "facts" / INDEX)
        payload = _unframe(INDEX, blob) if blob is not None else None
        out: dict[str, Place] = {}
        if payload is None:
            return out
        for line in payload.decode("ascii", "replace").splitlines():
            parts = line.split(" ")
            if len(parts) == 4:  # written before slots
                parts.append("-")
            if len(parts) == 5 and _PACK_NAME.fullmatch(parts[1]):
                key, pack, offset, size, slot = parts
                if offset.isdigit() and size.isdigit() and (slot == "-" or _SLOT.fullmatch(slot)):
                    out[key] = (pack, int(offset), int(size), "" if slot == "-" else slot)
        return out

    def _compact(self, index: dict[str, Place]) -> dict[str, Place]:
        """Rewrite every readable entry of ``index`` into one pack, in the index's
        order (oldest first); remove the other packs (and the bytes of the entries
        the index no longer holds)."""
        assert self.base is not None
        folder = self.base / "facts"
        name = f"{os.urandom(16).hex()}.pack"
        found: dict[str, bytes] = {}
        for key, place in sorted(index.items(), key=lambda kv: kv[1]):  # pack by pack
            frame = self._read_at(*place[:3])
            if frame is not None and _unframe(key, frame) is not None:
                found[key] = frame
        frames: list[bytes] = []
        out: dict[str, Place] = {}
        offset = 0
        for key, place in index.items():
            frame = found.get(key)
            if frame is None:
                continue
            out[key] = (name, offset, len(frame), place[3])
            frames.append(frame)
            offset += len(frame)
        _write_atomic(folder / name, b"".join(frames))
        self._close_packs()
        for path in folder.glob("*.pack"):
            if path.name != name:
                try:
                    path.unlink()  # another run reading it gets misses
                except OSError:
                    pass
        return out


def _index_text(index: dict[str, Place]) -> bytes:
    lines = [
        f"{key} {pack} {offset} {size} {slot or '-'}\n"
        for key, (pack, offset, size, slot) in index.items()
    ]
    return "".join(lines).encode("ascii")


def _newest_versions(index: dict[str, Place]) -> dict[str, Place]:
    """``index`` (oldest first) without the entries of a slot older than its
    :data:`VERSIONS` newest; their bytes go at the next compaction."""
    kept: dict[str, int] = {}
    dropped: set[str] = set()
    for key in reversed(index):
        slot = index[key][3]
        if slot:
            kept[slot] = kept.get(slot, 0) + 1
            if kept[slot] > VERSIONS:
                dropped.add(key)
    return {k: v for k, v in index.items() if k not in dropped} if dropped else index


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
READ_LIMIT = 1 << 30  # a cache file larger than this is not pdlint's


def _open_regular(path: Path) -> BinaryIO:
    """Open a regular file for reading, never through a symbolic link and never
    blocking (a FIFO or device shipped in a cache folder is refused)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path} is not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, limit: int = READ_LIMIT) -> bytes | None:
    """The bytes of the regular file ``path``; None if it cannot be read or holds
    more than ``limit`` bytes."""
    try:
        with _open_regular(path) as handle:
            data = handle.read(limit + 1)
    except (OSError, ValueError):
        return None
    return data if len(data) <= limit else None


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file next to ``path``, then move it into place."""
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clean(directory: Path, root: str) -> bool:
    """Remove pdlint's entries from its cache folder, then the folder; False if
    there was none.

    Raises :class:`CacheDirError` for a folder that is not pdlint's own (see
    :func:`check_cache_dir`), so a mistyped ``--cache-dir`` or a repository's
    ``cache-dir`` cannot delete anything else; OSError if removing fails.
    """
    check_cache_dir(directory, root)
    if not directory.exists():
        return False
    import shutil

    for name in sorted(os.listdir(directory)):
        entry = directory / name
        if not _own_entry(directory, name):  # written since the check: keep it
            continue
        if stat.S_ISDIR(os.lstat(entry).st_mode):
            shutil.rmtree(entry)  # removes links inside, never what they point at
        else:
            entry.unlink()
    directory.rmdir()
    return True
