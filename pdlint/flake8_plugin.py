"""The flake8 plugin: pdlint's findings reported by flake8 under the ``PDL`` prefix.

flake8 calls a plugin once per file, but pdlint's analysis is whole-program: the
plugin runs :func:`pdlint.api.analyze` once per flake8 run and hands each file
its own findings. flake8's ``--jobs`` workers share one analysis through a
result file kept under a lock in the cache folder, which also lets the next
flake8 run reuse it while no analysed file changed. flake8 decides selection and
``# noqa``, so the findings are taken before pdlint's own noqa; notes are off by
default there (flake8 fails on every code it reports).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import hmac
import json
import logging
import os
import tempfile
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

from pdlint import __version__
from pdlint.api import analyze
from pdlint.cache.store import (
    CacheDirError,
    cache_location,
    prepare_cache_dir,
    read_regular,
    sign,
)
from pdlint.policy.exitcode import note_codes
from pdlint.settings.config import project_root, resolve_settings
from pdlint.source.discover import discover, would_walk
from pdlint.source.globs import PathGlob

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows: workers may each compute it)
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger("pdlint.flake8")

Row = tuple[int, int, str, str]  # line, 0-based column, code, message
Findings = dict[str, list[Row]]  # real path -> rows
CACHE_FORMAT = 2


def _real(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


class Analysis:
    """What the plugin analyses in one flake8 run, and its findings once known."""

    def __init__(self, filenames: list[str], stdin_name: str | None) -> None:
        self.stdin = filenames == ["-"]
        given = [f for f in filenames if f != "-" and os.path.exists(f)] or ["."]
        if self.stdin and stdin_name not in (None, "stdin"):  # flake8's name for stdin
            given = [str(stdin_name)]  # the file the buffer stands for
        settings = resolve_settings(given, None)
        excludes = settings.exclude + settings.extend_exclude
        # The project of each file, not just the files flake8 was given (found as
        # `pdlint check - --stdin-filename` finds it): the analysis is whole-program,
        # and a consumer's finding depends on its builder.
        roots = [r for r in dict.fromkeys(map(project_root, given)) if os.path.isdir(r)]
        self.paths = roots + [
            path
            for path in given
            if os.path.exists(path)
            and not any(_walks(root, path, excludes, settings.respect_gitignore) for root in roots)
        ]
        # Every code is reported: flake8's select, ignore and noqa decide.
        self.settings = replace(
            settings, select=None, extend_select=(), ignore=(), per_file_ignores=()
        )
        self.stdin_name = stdin_name
        self.findings: Findings | None = None

    def rows_for(self, filename: str, lines: list[str]) -> list[Row]:
        if self.findings is None:
            overlay = None
            if self.stdin:
                overlay = (self.stdin_name or "stdin", "".join(lines))
            self.findings = self._load_or_compute(overlay)
        return self.findings.get(_real(filename), [])

    def _compute(self, overlay: tuple[str, str] | None) -> Findings:
        started = time.perf_counter()
        paths = list(self.paths)
        stdin: bytes | None = None
        stdin_filename: str | None = None
        if overlay is not None:  # in place of the file it names
            name, text = overlay
            paths.append("-")
            stdin, stdin_filename = text.encode("utf-8"), name
        result = analyze(
            paths, self.settings, stdin=stdin, stdin_filename=stdin_filename, noqa=False
        )
        out: Findings = {}
        for f in result.findings:
            row = (f.location.line, f.location.column - 1, f.code, f.headline)
            out.setdefault(_real(f.location.path), []).append(row)
        log.info(
            "pdlint: analysed %d files for flake8 in %.2f s (pid %d)",
            result.files,
            time.perf_counter() - started,
            os.getpid(),
        )
        return out

    def _signature(self, overlay: tuple[str, str] | None) -> tuple[str, str]:
        """(name of the result file, fingerprint of every input it depends on)."""
        settings = self.settings
        name = json.dumps(
            [__version__, sorted(_real(p) for p in self.paths), repr(settings), self.stdin],
            sort_keys=True,
        )
        files, _ = discover(
            self.paths,
            settings.exclude + settings.extend_exclude,
            respect_gitignore=settings.respect_gitignore,
        )
        inputs: list[Any] = [overlay]
        extra = [settings.config_file] if settings.config_file else []
        extra += [os.path.join(settings.root, p) for p in settings.packs or ()]
        for path in [s.path for s in files] + extra:
            try:
                st = os.stat(path)
            except OSError:
                inputs.append([path, None])
                continue
            inputs.append([_real(path), st.st_size, st.st_mtime_ns, st.st_ino])
        digest = hashlib.sha256(json.dumps(inputs).encode("utf-8")).hexdigest()
        return hashlib.sha256(name.encode("utf-8")).hexdigest()[:16], digest

    def _load_or_compute(self, overlay: tuple[str, str] | None) -> Findings:
        if not self.settings.cache:
            return self._compute(overlay)
        name, signature = self._signature(overlay)
        try:
            directory = cache_location(self.settings.root, self.settings.cache_dir, None)
            folder = prepare_cache_dir(directory, "flake8")
        except (CacheDirError, OSError) as exc:
            log.warning("pdlint: %s; the analysis is not shared", exc)
            return self._compute(overlay)
        target = folder / f"{name}.json"
        with _locked(folder / f"{name}.lock"):
            cached = _read(target, signature)
            if cached is not None:
                log.info("pdlint: reused the analysis in %s (pid %d)", target, os.getpid())
                return cached
            findings = self._compute(overlay)
            _write(target, signature, findings)
            return findings


def _walks(root: str, path: str, excludes: tuple[PathGlob, ...], respect_gitignore: bool) -> bool:
    """Whether the walk of the folder ``root`` takes the file ``path`` (a folder
    below ``root`` is walked with it)."""
    real, base = os.path.realpath(path), os.path.realpath(root)
    if os.path.isdir(real):
        return real == base or real.startswith(base.rstrip(os.sep) + os.sep)
    return would_walk(real, base, excludes, respect_gitignore=respect_gitignore)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (other processes wait for the result)."""
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        handle = os.fdopen(fd, "r+b")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield


def _read(path: Path, signature: str) -> Findings | None:
    """The findings stored in ``path`` for ``signature``; None if absent or not valid."""
    try:
        blob = read_regular(path)
        if blob is None:
            return None
        data = json.loads(blob.decode("utf-8"))
        if data["format"] != CACHE_FORMAT or data["signature"] != signature:
            return None
        if not hmac.compare_digest(str(data["mac"]), _mac(data)):
            return None  # not written by this user's pdlint: recompute
        return {
            str(file): [(int(a), int(b), str(c), str(d)) for a, b, c, d in rows]
            for file, rows in data["findings"].items()
        }
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _mac(data: dict[str, object]) -> str:
    """Keyed digest of a result file's content (see :func:`pdlint.cache.store.sign`): a file
    planted in a repository's cache folder cannot hide findings."""
    body = {k: data[k] for k in ("format", "signature", "findings")}
    return sign(json.dumps(body, sort_keys=True).encode("utf-8"))


def _write(path: Path, signature: str, findings: Findings) -> None:
    data: dict[str, object] = {"format": CACHE_FORMAT, "signature": signature}
    data["findings"] = findings
    data["mac"] = _mac(data)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    except OSError:
        return
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


class Plugin:
    """flake8 entry point (``PDL``): reports pdlint's findings in the file being checked."""

    name = "pdlint"
    version = __version__
    _filenames: ClassVar[list[str]] = ["."]
    _stdin_name: ClassVar[str | None] = None
    _analysis: ClassVar[Analysis | None] = None

    def __init__(self, tree: ast.AST, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    @staticmethod
    def add_options(manager: Any) -> None:
        """Called by flake8 before it reads its options: the notes (PDL001, the support
        inventory) are off by default, as pdlint's notes never fail a run and flake8
        fails on every code it reports (``--extend-select PDL001`` shows them)."""
        manager.extend_default_ignore(list(note_codes()))

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        """Called by flake8 once per run (and in each worker it spawns)."""
        cls._filenames = list(getattr(options, "filenames", None) or ["."])
        cls._stdin_name = getattr(options, "stdin_display_name", None)
        cls._analysis = None

    def run(self) -> Iterator[tuple[int, int, str, type[Plugin]]]:
        cls = type(self)
        if cls._analysis is None:
            cls._analysis = Analysis(cls._filenames, cls._stdin_name)
        for line, column, code, message in cls._analysis.rows_for(self.filename, self.lines):
            yield line, column, f"{code} {message}", cls
