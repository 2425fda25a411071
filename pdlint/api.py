"""The one way in: discover, index, model, analyse, apply policy.

The CLI, the language server, the flake8 plugin and the tests all call
:func:`analyze`.
"""

from __future__ import annotations

import functools
import gc
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from pdlint.cache.store import CacheDirError, FactStore, cache_location
from pdlint.checks.catalogue import checks
from pdlint.engine.loading import FactsMemo, IndexOutcome
from pdlint.engine.run import execute
from pdlint.engine.schedule import running_checks
from pdlint.engine.workers import worker_count
from pdlint.findings import Finding
from pdlint.policy.noqa_index import noqa_directives
from pdlint.policy.selection import UNUSED_NOQA, apply_policy, is_enabled
from pdlint.settings.config import Settings, project_root
from pdlint.settings.packs import load_packs
from pdlint.source.discover import SourceFile, discover, display_path, not_a_file
from pdlint.source.modules import forget_packages
from pdlint.source.read import decode_source, source_lines
from pdlint.source.regular import SOURCE_LIMIT, read_limited

__all__ = ["FactsMemo", "IndexOutcome", "Result", "analyze", "running_checks"]


@dataclass
class Result:
    """What a run found, after policy, with what is needed to render it."""

    findings: list[Finding]
    sources: dict[str, Sequence[str]]
    files: int
    warnings: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase
    notes: list[str] = field(default_factory=list)  # for --verbose (a cache not written...)
    loaded_files: list[str] = field(default_factory=list)  # files parsed or read from cache


P = ParamSpec("P")
R = TypeVar("R")


def _without_collection(func: Callable[P, R]) -> Callable[P, R]:
    """Run ``func`` with the cycle collector off: the facts are many small acyclic
    tuples, and collecting while they are built (or, in a long-lived caller, while
    they are kept) costs more than the whole analysis."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return wrapper


@_without_collection
def analyze(
    paths: list[str],
    settings: Settings,
    *,
    stdin: bytes | None = None,
    stdin_filename: str | None = None,
    overlays: Mapping[str, str] | None = None,
    use_packs: bool = True,
    cache_dir: str | None = None,
    lazy: bool | None = None,
    progress: Callable[[str], None] | None = None,
    facts_memo: FactsMemo | None = None,
    noqa: bool = True,
    keep: list[object] | None = None,
    alone: bool = False,
) -> Result:
    """Analyse ``paths`` (``-`` reads ``stdin``) and return the findings.

    ``stdin`` with a ``stdin_filename`` stands for that file: it replaces the
    file of that name on disk. Given alone (``paths`` is ``["-"]``), it is
    analysed within its project (:func:`~pdlint.settings.config.project_root`),
    the other files read from disk, and only its findings are reported, as
    ruff does (``alone=True``: the buffer is analysed by itself instead).
    ``overlays`` maps file paths to unsaved text (the editor's buffers).
    ``cache_dir`` overrides the fact cache's location (``settings.cache``
    false disables it). ``lazy`` forces (True) or forbids (False) parsing only
    the files the analysis needs; by default a tree of ``LAZY_THRESHOLD``
    files or more is analysed lazily, a smaller one parsed whole. ``progress``
    receives short status messages while the run goes on. ``facts_memo``
    reuses, in memory, the facts of files whose content was indexed before (a
    long-lived caller keeps one between runs). ``noqa=False`` leaves ``# noqa``
    comments to the caller (flake8 does its own). ``keep`` receives the facts
    instead of their being freed: a process about to end need not free them.
    Raises DiscoveryError for a missing path and ConfigError for a bad pack.
    """
    clock = time.perf_counter
    start = clock()
    worker_count()  # a bad PDLINT_WORKERS is a usage error before any work
    forget_packages()  # a long-lived caller (the server) sees packages made since
    excludes = settings.exclude + settings.extend_exclude
    disk_paths = [p for p in paths if p != "-"]
    within = None  # the buffer's display path, when only its findings are reported
    if stdin_filename is not None and paths and not disk_paths and not alone:
        root = project_root(stdin_filename)
        disk_paths = [root] if os.path.isdir(root) else []
        within = display_path(stdin_filename)
        paths = [*disk_paths, "-"]
    files, warnings = (
        discover(disk_paths, excludes, respect_gitignore=settings.respect_gitignore)
        if disk_paths
        else ([], [])
    )
    if within is not None:
        warnings = []  # about the project's other files, as their findings are not shown
    jobs: list[tuple[SourceFile, bytes | None]] = []
    for source, text in zip(files, _overlay_texts(files, overlays or {}), strict=True):
        jobs.append((source, text.encode("utf-8") if text is not None else None))
    if "-" in paths:
        _add_stdin(jobs, stdin or b"", stdin_filename)

    packs = load_packs(settings.packs, settings.root) if use_packs else []
    warnings.extend(w for pack in packs for w in pack.warnings)  # keys no longer read
    directory = None
    if settings.cache:
        try:
            directory = cache_location(settings.root, settings.cache_dir, cache_dir)
        except CacheDirError as exc:
            warnings.append(f"{exc}; running without the cache")
    store = FactStore(directory)
    running = running_checks(settings)
    outcome = execute(
        jobs,
        paths,
        settings,
        packs,
        store,
        running,
        use_packs=use_packs,
        lazy=lazy,
        progress=progress,
        facts_memo=facts_memo,
        keep=keep,
        start=start,
    )
    findings, stats = outcome.findings, outcome.stats
    warnings.extend(outcome.warnings)
    paths_on_disk = {source.display: source.path for source, _ in jobs}
    sources = _lines_of({f.location.path for f in findings}, outcome.texts, paths_on_disk)
    directives = None
    if noqa and is_enabled(UNUSED_NOQA, settings):
        directives = noqa_directives(outcome.digests, outcome.texts, paths_on_disk, store)
    # a noqa naming a code can be judged unused only when that code's check ran
    judged = {code for check in running for code in check.codes if is_enabled(code, settings)}
    kept = apply_policy(findings, settings, sources if noqa else {}, directives, judged)
    unread = {f.location.path for f in kept} - sources.keys()  # PDL902s, for ``full``
    sources.update(_lines_of(unread, outcome.texts, paths_on_disk))
    if within is not None:
        kept = [f for f in kept if f.location.path == within]
        sources = {within: sources[within]} if within in sources else {}
    notes = [
        f"not run: the check of {', '.join(check.codes)} (none of its codes is selected)"
        for check in checks()
        if check not in running
    ]
    return Result(
        kept,
        sources,
        len(jobs),
        warnings,
        stats,
        outcome.timings,
        [*notes, *store.notes],
        outcome.loaded,
    )


def _add_stdin(jobs: list[tuple[SourceFile, bytes | None]], data: bytes, name: str | None) -> None:
    """Add stdin's bytes to ``jobs``: in place of the file ``name`` names when it was
    found on disk (by any path to it), else as one more file (``-`` without a name)."""
    if name is None:
        jobs.append((SourceFile(path="-", display="-"), data))
        return
    display = display_path(name)
    try:
        found = os.stat(name)
    except OSError:
        found = None
    if found is not None:
        # the files of the same name first: they are the likely ones
        base = os.path.basename(name)
        order = sorted(range(len(jobs)), key=lambda i: os.path.basename(jobs[i][0].path) != base)
        for i in order:
            if _same_file(jobs[i][0].path, found):
                jobs[i] = (SourceFile(path=jobs[i][0].path, display=display), data)
                return
    jobs.append((SourceFile(path=name, display=display), data))


def _same_file(path: str, found: os.stat_result) -> bool:
    try:
        other = os.stat(path)
    except OSError:
        return False
    return (other.st_dev, other.st_ino) == (found.st_dev, found.st_ino)


def _overlay_texts(files: list[SourceFile], overlays: Mapping[str, str]) -> list[str | None]:
    """The unsaved text of each discovered file that an overlay names, by any path to
    the same file on disk (links followed: one ``stat`` per file, cheaper than
    resolving every path on each of the editor's runs)."""
    if not overlays:
        return [None] * len(files)
    by_file: dict[tuple[int, int], str] = {}
    for path, text in overlays.items():
        try:
            found = os.stat(path)
        except OSError:
            continue  # not on disk: no discovered file is it
        by_file[(found.st_dev, found.st_ino)] = text
    out: list[str | None] = []
    for source in files:
        try:
            found = os.stat(source.path)
        except OSError:
            out.append(None)
            continue
        out.append(by_file.get((found.st_dev, found.st_ino)))
    return out


def _lines_of(
    wanted: set[str], texts: Mapping[str, bytes], paths: Mapping[str, str]
) -> dict[str, Sequence[str]]:
    """Source lines of the files that have findings (for noqa and ``full``)."""
    out: dict[str, Sequence[str]] = {}
    for display in sorted(wanted):
        data = texts.get(display)
        if data is None and display in paths and not_a_file(paths[display]) is None:
            try:
                data = read_limited(paths[display], SOURCE_LIMIT)
            except OSError:
                data = b""
        try:
            out[display] = source_lines(decode_source(data or b""))
        except (SyntaxError, LookupError, UnicodeDecodeError):
            out[display] = []
    return out
