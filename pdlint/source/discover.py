"""Find the Python files to analyse under the given paths."""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pdlint.source.gitignore import MARKERS, IgnoreFiles
from pdlint.source.globs import PathGlob, path_matches, posix


class DiscoveryError(Exception):
    """A path given by the user does not exist or cannot be listed."""


@dataclass(frozen=True)
class SourceFile:
    """A file to analyse: where it is on disk and how it is shown to the user."""

    path: str  # filesystem path
    display: str  # relative to the current directory when below it, posix


def display_path(path: str | Path, cwd: Path | None = None) -> str:
    """Path relative to ``cwd`` when below it, else absolute; posix separators."""
    base = os.path.abspath(cwd or Path.cwd())
    absolute = os.path.abspath(path)
    if absolute == base:
        return "."
    prefix = base if base.endswith(os.sep) else base + os.sep
    if absolute.startswith(prefix):
        absolute = absolute[len(prefix) :]
    return absolute.replace(os.sep, "/") if os.sep != "/" else absolute


def not_a_file(path: str) -> str | None:
    """Why ``path`` is not a regular file to read (None when it is one).

    A walk skips such entries with a warning: reading a FIFO would block the
    run, a symlink loop or a dangling link has nothing to read.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
        if os.path.islink(path):
            return "broken symbolic link"
        return exc.strerror or str(exc)
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO, not a regular file"
    if stat.S_ISSOCK(mode):
        return "a socket, not a regular file"
    return "not a regular file"


def _is_virtualenv(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "pyvenv.cfg"))


def discover(
    paths: list[str],
    exclude: tuple[PathGlob, ...],
    cwd: Path | None = None,
    *,
    respect_gitignore: bool = False,
) -> tuple[list[SourceFile], list[str]]:
    """Python files under ``paths``, sorted, and warnings for skipped entries.

    Files named explicitly are always included (a FIFO too: the user asked for
    it). Directories are walked without following symlinked directories (so a
    symlink loop cannot trap the walk); entries that are not regular files
    (FIFOs, sockets, dangling links, link loops) are skipped with a warning.
    ``exclude`` globs are matched as :func:`path_matches` says; with
    ``respect_gitignore``, what git ignores is skipped too (see :mod:`gitignore`).
    """
    cwd = cwd or Path.cwd()
    found: dict[str, SourceFile] = {}
    warnings: list[str] = []
    ignores = IgnoreFiles() if respect_gitignore else None
    for given in paths:
        if not os.path.lexists(given):
            raise DiscoveryError(f"{given}: No such file or directory")
        if not os.path.isdir(given):
            if not os.path.exists(given):
                warnings.append(f"{given}: {not_a_file(given)}, skipped")
                continue
            found.setdefault(os.path.abspath(given), _source(given, cwd))
            continue
        walk = _Walk(exclude, cwd, ignores, found, warnings)
        walk.run(os.path.abspath(given), given)
    if ignores is not None:
        warnings.extend(ignores.warnings)
    return sorted(found.values(), key=lambda s: s.display), warnings


@dataclass
class _Walk:
    """One walk of a directory: what it skips and where it puts what it finds."""

    exclude: tuple[PathGlob, ...]
    cwd: Path
    ignores: IgnoreFiles | None
    found: dict[str, SourceFile]
    warnings: list[str]

    def run(self, base: str, given: str) -> None:
        """The Python files below the directory ``base``, as ``os.walk`` (top down, by
        name) visits them, without following symlinked directories. A regular file is
        told by its directory entry, with no ``stat`` of its own."""
        cwd, exclude = self.cwd, self.exclude
        real_base = posix(os.path.realpath(base))
        rules = self.ignores.start(real_base) if self.ignores is not None else None
        # (directory, its real path, its display path, the ignore rules above it)
        stack = [(base, real_base, display_path(base, cwd), rules)]
        first = True
        while stack:
            root, real_root, shown, rules = stack.pop()
            try:
                with os.scandir(root) as listing:
                    entries = sorted(listing, key=lambda e: e.name)
            except OSError as err:
                self.warnings.append(f"{display_path(err.filename or given, cwd)}: {err.strerror}")
                continue
            if rules is not None and not first and self.ignores is not None:
                markers = {e.name for e in entries if e.name in MARKERS}
                rules = self.ignores.enter(rules, real_root, markers)
            first = False
            prefix = "" if shown == "." else shown + "/"
            real_prefix = real_root if real_root.endswith("/") else real_root + "/"
            below = []
            for entry in entries:
                name = entry.name
                real = real_prefix + name
                if _entry_test(entry.is_dir):
                    if path_matches(exclude, real, cwd) or _is_virtualenv(entry.path):
                        continue
                    if rules is not None and rules.ignored(real, is_dir=True):
                        continue
                    if not _entry_test(entry.is_symlink):
                        below.append((entry.path, real, prefix + name, rules))
                    continue
                if not (name.endswith(".py") or name.endswith(".pyi")):
                    continue
                if path_matches(exclude, real, cwd):
                    continue
                if rules is not None and rules.ignored(real, is_dir=False):
                    continue
                full = entry.path
                if not _entry_test(functools.partial(entry.is_file, follow_symlinks=False)):
                    reason = not_a_file(full)
                    if reason is not None:
                        self.warnings.append(f"{prefix + name}: {reason}, skipped")
                        continue
                self.found.setdefault(full, SourceFile(path=full, display=prefix + name))
            stack.extend(reversed(below))


def would_walk(
    path: str, base: str, exclude: tuple[PathGlob, ...], *, respect_gitignore: bool = False
) -> bool:
    """True if a walk of the directory ``base`` would take ``path`` (a file that need
    not exist, as an editor's unsaved buffer): a Python file below ``base``, under
    no excluded or git-ignored folder or virtual environment, not excluded itself."""
    relative = os.path.relpath(path, base)
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return False
    parts = relative.split(os.sep)
    if not parts[-1].endswith((".py", ".pyi")):
        return False
    real_base = posix(os.path.realpath(base))
    ignores = IgnoreFiles() if respect_gitignore else None
    rules = ignores.start(real_base) if ignores is not None else None
    for depth in range(1, len(parts)):
        real = real_base.rstrip("/") + "/" + "/".join(parts[:depth])
        if path_matches(exclude, real):
            return False
        if _is_virtualenv(os.path.join(base, *parts[:depth])):
            return False
        if rules is not None and ignores is not None:
            if rules.ignored(real, is_dir=True):
                return False
            folder = os.path.join(base, *parts[:depth])
            markers = {m for m in MARKERS if os.path.lexists(os.path.join(folder, m))}
            rules = ignores.enter(rules, real, markers)
    real = real_base.rstrip("/") + "/" + "/".join(parts)
    if rules is not None and rules.ignored(real, is_dir=False):
        return False
    return not path_matches(exclude, real)


def _entry_test(test: Callable[[], bool]) -> bool:
    """A directory entry's test; False when it cannot be told (as ``os.walk`` does)."""
    try:
        return test()
    except OSError:
        return False


def _source(path: str, cwd: Path) -> SourceFile:
    return SourceFile(path=path, display=display_path(path, cwd))
