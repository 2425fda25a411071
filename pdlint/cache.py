"""The fact cache: per-file facts on disk, never trusted without a check.

Layout of a cache directory (ruff's habits: ``.pdlint_cache/`` under the
project root, with a ``.gitignore`` holding ``*`` and a ``CACHEDIR.TAG``)::

    .pdlint_cache/
      CACHEDIR.TAG  .gitignore
      v<version>/facts/<2 hex>/<key>   one entry per indexed file
      v<version>/<name>                whole-run blobs (scan index, last results)

An entry is a header (magic, its own key, payload length, payload digest) and
a pickled payload. A truncated, corrupt or foreign entry fails the check and is
treated as missing (then rewritten). Writes go to a temporary file in the same
directory and are moved into place with ``os.replace``, so a reader never sees
half an entry, and two runs writing the same entry race harmlessly.
A directory that cannot be written makes the store read-only (with a note).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import threading
from pathlib import Path

from pdlint import __version__

MAGIC = b"PDLINT-CACHE-1\n"


def _schema() -> str:
    """A digest of the code that gives facts and scans their shape and content.

    Any change to the indexer, the facts or the text scan starts a new cache, so
    an entry written by other code is never read (even within one version).
    """
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in ("facts.py", "index.py", "scan.py", "source.py"):
        try:
            digest.update((here / name).read_bytes())
        except OSError:
            digest.update(name.encode())
    return digest.hexdigest()[:12]


def _code() -> str:
    """A digest of all of pdlint's code: a run record (the findings of a whole run)
    is reused only by the code that computed it."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
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
DEFAULT_NAME = ".pdlint_cache"


def content_hash(data: bytes) -> str:
    """Hex digest of a file's bytes (the cache's notion of "unchanged")."""
    return hashlib.blake2b(data, digest_size=_DIGEST).hexdigest()


def make_key(*parts: str) -> str:
    """A cache key from its parts (content hash, module name, salt...)."""
    return hashlib.blake2b("\0".join(parts).encode(), digest_size=20).hexdigest()


def cache_location(root: str, configured: str | None, flag: str | None) -> Path:
    """``--cache-dir``, else ``$PDLINT_CACHE_DIR``, else ``cache-dir`` from the
    config, else ``.pdlint_cache`` under the project root."""
    given = flag or os.environ.get(ENV_VAR)
    if given:  # relative to the current directory, as a shell user expects
        return Path(given).expanduser().absolute()
    if configured:  # relative to the project root, where the config file is
        path = Path(configured).expanduser()
        return path if path.is_absolute() else Path(root) / path
    return Path(root) / DEFAULT_NAME


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
    return hashlib.blake2b(payload, digest_size=_DIGEST, key=_secret()).digest()


def sign(payload: bytes) -> str:
    """A keyed digest of ``payload`` (hex), with the same per-user key as the entries."""
    return _sign(payload).hex()


def _frame(key: str, payload: bytes) -> bytes:
    digest = _sign(payload)
    head = MAGIC + key.encode() + b"\n" + len(payload).to_bytes(8, "little") + digest
    return head + payload


def _unframe(key: str, blob: bytes) -> bytes | None:
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
    if not hmac.compare_digest(_sign(payload), blob[start - _DIGEST : start]):
        return None  # corrupt, or not written by this user's pdlint: never unpickled
    return payload


class FactStore:
    """Read and write cache entries under one directory (or do nothing)."""

    def __init__(self, directory: Path | None) -> None:
        self.root = directory
        self.base = directory / f"v{__version__}-{SCHEMA}" if directory is not None else None
        self.writable = directory is not None
        self.notes: list[str] = []
        self.hits = 0
        self.misses = 0
        self.rejected = 0
        self._prepared = False
        self._dirs: set[Path] = set()

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
            fresh = not self.root.exists()
            self.base.mkdir(parents=True, exist_ok=True)
            if fresh or not (self.root / "CACHEDIR.TAG").exists():
                _write_atomic(self.root / "CACHEDIR.TAG", CACHEDIR_TAG.encode())
                _write_atomic(self.root / ".gitignore", b"# Created by pdlint.\n*\n")
        except OSError as exc:
            self._read_only(exc)
        return self.writable

    def _read_only(self, exc: OSError) -> None:
        if self.writable:
            reason = exc.strerror or str(exc)
            self.notes.append(f"cache directory {self.root} is not writable ({reason}); not cached")
        self.writable = False

    def _path(self, key: str, kind: str) -> Path:
        assert self.base is not None
        if kind == "facts":
            return self.base / "facts" / key[:2] / key
        return self.base / key

    def get(self, key: str, kind: str = "facts") -> bytes | None:
        """The payload stored under ``key``, or None (missing, corrupt or foreign)."""
        if self.base is None:
            return None
        try:
            with open(self._path(key, kind), "rb") as handle:
                blob = handle.read()
        except OSError:
            self.misses += 1
            return None
        payload = _unframe(key, blob)
        if payload is None:
            self.rejected += 1
            self.misses += 1
            return None
        self.hits += 1
        return payload

    def writer_path(self, key: str) -> str | None:
        """Where a worker process may write the facts entry ``key`` (None: it may not)."""
        if self.base is None or not self._prepare():
            return None
        return str(self._path(key, "facts"))

    def put(self, key: str, payload: bytes, kind: str = "facts") -> None:
        """Store ``payload`` under ``key`` atomically; silently skipped when read-only."""
        if self.base is None or not self._prepare():
            return
        path = self._path(key, kind)
        try:
            if path.parent not in self._dirs:
                path.parent.mkdir(parents=True, exist_ok=True)
                self._dirs.add(path.parent)
            _write_atomic(path, _frame(key, payload))
        except OSError as exc:
            self._read_only(exc)


def write_entry(path: str, key: str, payload: bytes) -> None:
    """Store an entry at ``path`` (from :meth:`FactStore.writer_path`); errors are ignored,
    since a missing entry is only a miss."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_atomic(target, _frame(key, payload))
    except OSError:
        pass


def _write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file next to ``path``, then move it into place."""
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def clean(directory: Path) -> bool:
    """Remove a pdlint cache directory; False if there was none.

    Refuses a directory that is not a pdlint cache (no CACHEDIR.TAG written by
    pdlint), so a mistyped ``--cache-dir`` cannot delete anything else.
    """
    if not directory.exists():
        return False
    tag = directory / "CACHEDIR.TAG"
    try:
        marked = "created by pdlint" in tag.read_text(encoding="utf-8", errors="replace")
    except OSError:
        marked = False
    if not marked and not _only_pdlint_files(directory):
        raise OSError(f"{directory} is not a pdlint cache directory (no pdlint CACHEDIR.TAG)")
    shutil.rmtree(directory)
    return True


def _only_pdlint_files(directory: Path) -> bool:
    """An untagged folder that holds only what pdlint writes (the flake8 plugin's results)."""
    try:
        names = {p.name for p in directory.iterdir()}
    except OSError:
        return False
    return directory.name == DEFAULT_NAME and names <= {".gitignore", "flake8"}
