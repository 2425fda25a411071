"""The one way in: discover, index, model, analyse, apply policy.

The CLI, the language server, the flake8 plugin and the tests all call
:func:`analyze`.
"""

from __future__ import annotations

import functools
import gc
import os
import pickle
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import ParamSpec, TypeVar

from pdlint import __version__
from pdlint.cache.store import CODE, SCHEMA, CacheDirError, FactStore, cache_location, make_key
from pdlint.checks.layout.check import LayoutCheck
from pdlint.checks.modes.check import ModeCheck
from pdlint.checks.relay.check import RelayCheck
from pdlint.engine.fork import Aside, aside
from pdlint.engine.program import (
    FactsMemo,
    Gains,
    IndexOutcome,
    Program,
    Reading,
    Reads,
    RunRecord,
    worker_count,
)
from pdlint.facts.indexer import forget_packages
from pdlint.findings import Finding
from pdlint.model.callgraph import CallGraph, PassedMemo, heuristic_entries, match_entries
from pdlint.model.class_factories import ClassFactories
from pdlint.model.names import Model
from pdlint.model.variants import Variants
from pdlint.policy.selection import apply_policy, is_enabled
from pdlint.settings.config import Settings
from pdlint.settings.packs import LayoutNames, Pack, line_of, load_packs, packs_dir
from pdlint.source.discover import SourceFile, discover, display_path, not_a_file
from pdlint.source.read import decode_source, split_lines

# Trees with at least this many files are parsed lazily (only what the analysis
# needs); smaller ones are parsed whole, so every file gets its PDL900.
LAZY_THRESHOLD = 500
# A lazy analysis of at least this many files runs PDL201's check in a forked
# process while this one runs the others (see _layout_aside).
ASIDE_MIN_FILES = LAZY_THRESHOLD
CHECKS = (RelayCheck, ModeCheck, LayoutCheck)

__all__ = ["FactsMemo", "IndexOutcome", "Result", "analyze"]


@dataclass
class Result:
    """What a run found, after policy, with what is needed to render it."""

    findings: list[Finding]
    sources: dict[str, list[str]]
    files: int
    warnings: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)
    timings: dict[str, float] = field(default_factory=dict)  # seconds per phase
    notes: list[str] = field(default_factory=list)  # for --verbose (a cache not written...)
    loaded_files: list[str] = field(default_factory=list)  # files parsed or read from cache


def running_checks(settings: Settings) -> tuple[type[RelayCheck | ModeCheck | LayoutCheck], ...]:
    """The checks that run: those with a code the settings select (``select``,
    ``ignore``; a per-file ignore or a ``# noqa`` leaves a check running). The mode
    check reads the relay check's relays, so either runs both. A check none of
    whose findings could be reported loads and parses nothing."""
    wanted = {c for c in CHECKS if any(is_enabled(code, settings) for code in c.codes)}
    if ModeCheck in wanted:
        wanted.add(RelayCheck)
    return tuple(c for c in CHECKS if c in wanted)


def _active_packs(packs: list[Pack], modules: Iterable[str], explicit: bool) -> list[Pack]:
    if explicit:
        return packs
    tops = {m.split(".")[0] for m in modules}
    return [p for p in packs if any(d.split(".")[0] in tops for d in p.detect)]


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
) -> Result:
    """Analyse ``paths`` (``-`` reads ``stdin``) and return the findings.

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
    files, warnings = discover(disk_paths, excludes) if disk_paths else ([], [])
    jobs: list[tuple[SourceFile, bytes | None]] = []
    for source, text in zip(files, _overlay_texts(files, overlays or {}), strict=True):
        jobs.append((source, text.encode("utf-8") if text is not None else None))
    if "-" in paths:
        name = stdin_filename or "-"
        source = SourceFile(path=name, display=display_path(name) if stdin_filename else "-")
        jobs.append((source, stdin or b""))

    packs = load_packs(settings.packs, settings.root) if use_packs else []
    warnings.extend(w for pack in packs for w in pack.warnings)  # keys no longer read
    directory = None
    if settings.cache:
        try:
            directory = cache_location(settings.root, settings.cache_dir, cache_dir)
        except CacheDirError as exc:
            warnings.append(f"{exc}; running without the cache")
    store = FactStore(directory)
    salt = make_key(__version__, SCHEMA, *sorted(p.digest for p in packs))
    running = running_checks(settings)
    groups = tuple(g for check in running for g in getattr(check, "relevant_words", ()))
    groups += tuple(g for check in running for g in getattr(check, "scanned_words", ()))
    if LayoutCheck in running:
        groups += LayoutCheck.pack_scanned_words(p.layout for p in packs)
    if progress is not None:
        progress(f"reading {len(jobs)} files")
    if lazy is None:
        lazy = len(jobs) >= LAZY_THRESHOLD
    # a lazy analysis reads the text scan: the files read now are scanned meanwhile
    program = Program(jobs, store, salt, groups, progress, facts_memo, scan_ahead=lazy)
    timings = {"discover, read and hash": clock() - start}
    inputs = [os.getcwd(), *(os.path.abspath(p) for p in paths if p != "-")]
    record_key = make_key(
        "run",
        salt,
        CODE,
        repr(inputs),
        repr(settings.packs),
        repr(settings.entry_points),
        str(use_packs),
        str(lazy),
        ",".join(check.__name__ for check in running),
    )
    try:
        # a caller with a facts memo (the language server) analyses each edit
        # through the memo and keeps no run record
        record = _previous_run(store, record_key, program) if facts_memo is None else None
        if record is not None:
            findings, stats = list(record.findings), Counter(record.stats)
            stats["files parsed"] = program.parsed
            stats.pop("files parsed ahead of their load", None)
            stats["files from the cache"] = 0
            stats["results reused (nothing they depend on changed)"] = 1
            warnings.extend(record.warnings)
            if record.refresh(program):  # an edit that left the facts as they were
                _store_record(program, record_key, record)
        else:
            found: list[str] = []
            # the checks keep records of their own (see _analyse)
            check_key = record_key if facts_memo is None else None
            findings, stats = _analyse(
                program, packs, settings, lazy, running, timings, found, check_key
            )
            warnings.extend(found)
            if facts_memo is None:
                record_data = RunRecord.of(program, findings, dict(stats), not lazy, tuple(found))
                _store_record(program, record_key, record_data)
        program.save()
    finally:
        program.close()
        if keep is not None:
            keep.append(program.loaded)
        else:
            program.loaded.clear()  # free the facts by reference counting, before collecting
    texts = {e.source.display: e.raw for e in program.entries if e.raw is not None}
    paths_on_disk = {source.display: source.path for source, _ in jobs}
    sources = _lines_of({f.location.path for f in findings}, texts, paths_on_disk)
    timings.update(program.timings)
    stats["files read"] = program.reads
    kept = apply_policy(findings, settings, sources if noqa else {})
    loaded = sorted(program.done)
    notes = [
        f"not run: the check of {', '.join(check.codes)} (none of its codes is selected)"
        for check in CHECKS
        if check not in running
    ]
    return Result(
        kept, sources, len(jobs), warnings, stats, timings, [*notes, *store.notes], loaded
    )


def _overlay_texts(files: list[SourceFile], overlays: Mapping[str, str]) -> list[str | None]:
    """The unsaved text of each discovered file that an overlay names, by any path to
    the same file on disk (links followed: one ``stat`` per file, where resolving
    every path cost the editor's runs on sglang 0.5.23 0.1 s)."""
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


def _previous_run(store: FactStore, key: str, program: Program) -> RunRecord | None:
    """The last run's record, if its findings still hold for ``program``."""
    payload = store.get(key, kind="blob")
    if payload is None:
        return None
    try:
        record = pickle.loads(payload)
    except Exception:
        return None
    if isinstance(record, RunRecord) and record.holds_for(program):
        return record
    return None


def _analyse(
    program: Program,
    packs: list[Pack],
    settings: Settings,
    lazy: bool,
    running: tuple[type[RelayCheck | ModeCheck | LayoutCheck], ...],
    timings: dict[str, float],
    warnings: list[str],
    check_key: str | None = None,
) -> tuple[list[Finding], Counter[str]]:
    """Run the checks on the program; findings before policy, and counts.

    In a lazy run, PDL201's check and the graph checks (relay and mode) each keep
    a record of their own under keys made from ``check_key`` (what they loaded
    and asked, their findings): a later run whose changes leave all of that as it
    was takes their findings from there instead of running them (an edit of a
    file the other checks read and they did not).
    """
    stats: Counter[str] = Counter()
    # a full run parses every file anyway; with one of the two running, the whole
    # run's record is the check's
    both = RelayCheck in running and LayoutCheck in running
    lazy_key = check_key if lazy and both else None
    layout_key = make_key(lazy_key, LayoutCheck.__name__) if lazy_key is not None else None
    graph_key = make_key(lazy_key, RelayCheck.__name__) if lazy_key is not None else None
    graph_reading = Reading(program)
    model = Model([], source=graph_reading) if lazy else Model(program.load_all())
    active = _active_packs(packs, program.tops(), explicit=settings.packs is not None)
    layout = LayoutNames()
    for pack in active:
        layout = layout.merged(pack.layout)
    on_graph = RelayCheck in running  # the relay and mode checks
    kept_graph: RunRecord | None = None  # their record, when their findings still hold
    if on_graph and graph_key is not None:
        kept_graph = _previous_run(program.store, graph_key, program)
        on_graph = kept_graph is None
    # PDL201's check reads a model of its own in a lazy run: it loads what it needs,
    # and gives the same findings whatever the other checks loaded (so it can run
    # at any point, or in a forked process)
    reading = Reading(program)
    layout_model = Model([], source=reading) if lazy else model
    layout_check = LayoutCheck(layout_model, layout) if LayoutCheck in running else None
    kept: RunRecord | None = None  # PDL201's record, when its findings still hold
    if layout_check is not None and layout_key is not None:
        kept = _previous_run(program.store, layout_key, program)
        if kept is not None:
            layout_check = None
    # in a forked process, before the other checks' files are loaded (it needs none
    # of them); the scan first, as its worker processes rule a fork out
    parallel = (
        _layout_aside(layout_model, program, layout_check, reading.reads)
        if layout_check is not None and on_graph and lazy and program.scans()
        else None
    )
    start = time.perf_counter()
    late: list[Aside[LayoutResult] | None] = []
    try:
        if lazy:
            if parallel is None:  # parsed ahead while the relevant words' files load
                for check in running:
                    if check is LayoutCheck and layout_check is None:
                        continue  # its findings are reused
                    gate, starts = getattr(check, "loaded_later", ((), ()))
                    if gate or starts:
                        program.prefetch(program.with_text(gate=gate, starts=starts))
            if on_graph:
                for check in running:
                    words = getattr(check, "relevant_words", ())
                    branches = getattr(check, "relevant_branches", ((), ()))
                    if words:
                        model.load_modules(graph_reading.with_text(gate=words, branches=branches))
            if parallel is None and layout_check is not None:
                # its first query now: the files of the next are parsed ahead while
                # the other checks run
                layout_check.first_phase(program.prefetch)

        def fork_late() -> None:
            """Once the other checks' tables are built (their loading mostly done):
            PDL201's check in a forked process, the files of its next query loaded
            first (decoded here as the worker processes finish parsing them ahead,
            not after the fork, when this process and the child are all that run)."""
            if (
                layout_check is not None
                and parallel is None
                and lazy
                and program.workers_running
                and _may_fork(program)
            ):
                layout_check.load_next()
                program.stop_workers()
                late.append(_layout_aside(layout_model, program, layout_check, reading.reads))

        graph_stats: Counter[str] = Counter()
        graph_warnings: list[str] = []
        findings = (
            _graph_findings(model, active, settings, graph_stats, graph_warnings, fork_late)
            if on_graph
            else []
        )
        if late:
            parallel = late[0]
    except BaseException:
        for child in (parallel, *late):
            if child is not None:
                child.cancel()
        raise
    graph_found = list(findings)
    done = parallel.join() if parallel is not None else None
    if done is not None:
        found, gains, counts, reads = done
        findings.extend(found)
        program.merge(gains)
        layout_model.stats.update(counts)
        stats["checks run in a forked process"] += 1
    elif layout_check is not None:
        before = Counter(layout_model.stats)
        found = list(layout_check.run())
        findings.extend(found)
        counts, reads = layout_model.stats - before, reading.reads
    if kept is not None and layout_key is not None:
        _reuse(program, layout_key, kept, findings, stats, warnings)
    elif layout_check is not None and layout_key is not None:
        _store_record(program, layout_key, RunRecord.of_reads(program, reads, found, dict(counts)))
    stats.update(graph_stats)
    warnings.extend(graph_warnings)
    if kept_graph is not None and graph_key is not None:
        _reuse(program, graph_key, kept_graph, findings, stats, warnings)
    elif on_graph and graph_key is not None:
        counts = graph_stats + model.stats
        reads, warned = graph_reading.reads, tuple(graph_warnings)
        record = RunRecord.of_reads(program, reads, graph_found, dict(counts), warned)
        _store_record(program, graph_key, record)
    stats.update(model.stats)
    if layout_model is not model:
        stats.update(layout_model.stats)
    timings["analysis (with loading)"] = time.perf_counter() - start
    errors = program.read_errors() + list(program.errors.values())
    findings.extend(errors)
    stats["files"] = len(program.entries)
    stats["files not parsed"] = len(errors)
    indexed = model.modules.keys() | layout_model.modules.keys() | program.loaded_elsewhere
    stats["modules indexed"] = len(indexed)
    stats["files parsed"] = program.parsed
    if program.parsed_ahead:
        stats["files parsed ahead of their load"] = program.parsed_ahead
    stats["files from the cache"] = len(program.done) - program.parsed
    if program.duplicates:
        stats["duplicate module names"] += program.duplicates
    return findings, stats


def _reuse(
    program: Program,
    key: str,
    kept: RunRecord,
    findings: list[Finding],
    stats: Counter[str],
    warnings: list[str],
) -> None:
    """Take a check's findings, counts and warnings from its record ``kept``
    (stored under ``key``, moved along when only lines moved)."""
    findings.extend(kept.findings)
    stats.update(kept.stats)
    warnings.extend(kept.warnings)
    stats["checks reused (nothing they depend on changed)"] += 1
    program.reused.append(kept)
    if kept.refresh(program):
        _store_record(program, key, kept)


def _store_record(program: Program, key: str, record: RunRecord) -> None:
    program.store.put(key, pickle.dumps(record, 5), kind="blob")


def _nothing() -> None:
    pass


def unmatched_names(model: Model, packs: list[Pack], entry_points: tuple[str, ...]) -> list[str]:
    """Warnings for entry points and validators that name no analysed function.

    Every name a user gave (settings, a pack file of their own) is checked; a
    bundled pack is reported only when none of its names of a kind matches, as
    a release may lack some of them.
    """
    out = [
        f"entry point '{p}' matches no analysed function"
        for p in entry_points
        if not match_entries(model, [p])
    ]
    for pack in packs:
        own = os.path.realpath(os.path.dirname(pack.path)) != os.path.realpath(packs_dir())
        for key, names in (
            ("entry-points", pack.entry_points),
            ("startup-validators", pack.startup_validators),
        ):
            missing = [n for n in names if not match_entries(model, [n])]
            if own:
                for n in missing:
                    line = line_of(pack, n)
                    where = f"{pack.path}:{line}" if line else pack.path
                    out.append(f"{where}: [relay] {key}: '{n}' matches no analysed function")
            elif names and len(missing) == len(names):
                out.append(
                    f"rule pack '{pack.name}': no [relay] {key} name matches an analysed function"
                )
    return out


def _lines_of(
    wanted: set[str], texts: Mapping[str, bytes], paths: Mapping[str, str]
) -> dict[str, list[str]]:
    """Source lines of the files that have findings (for noqa and ``full``)."""
    out: dict[str, list[str]] = {}
    for display in sorted(wanted):
        data = texts.get(display)
        if data is None and display in paths and not_a_file(paths[display]) is None:
            try:
                with open(paths[display], "rb") as handle:
                    data = handle.read()
            except OSError:
                data = b""
        try:
            out[display] = split_lines(decode_source(data or b""))
        except (SyntaxError, LookupError, UnicodeDecodeError):
            out[display] = []
    return out


def _may_fork(program: Program) -> bool:
    """Whether PDL201's check may run in a forked process (a large tree, and more
    than one process allowed)."""
    return worker_count() != 1 and len(program.entries) >= ASIDE_MIN_FILES


LayoutResult = tuple[list[Finding], Gains, Counter[str], Reads]


def _layout_aside(
    model: Model, program: Program, check: LayoutCheck, reads: Reads
) -> Aside[LayoutResult] | None:
    """PDL201's check started in a forked process, when the model is lazy and large
    and no worker process parses (see :mod:`pdlint.engine.fork`); None otherwise.

    The check reads the model alone and loads what it needs, so it gives the same
    findings on a copy of the model taken before the others run. Its findings, what
    it loaded and asked (:class:`Gains`), its counts and ``reads`` (what its
    :class:`Reading` recorded, in the child) come back.
    """
    if not _may_fork(program):
        return None

    def work() -> LayoutResult:
        program.detach()
        before = Counter(model.stats)
        found = list(check.run())
        return found, program.gains(), model.stats - before, reads  # as the child left it

    return aside(work)


def _graph_findings(
    model: Model,
    packs: list[Pack],
    settings: Settings,
    stats: Counter[str],
    warnings: list[str],
    tables_built: Callable[[], None] = lambda: None,
) -> list[Finding]:
    """The findings of the checks on the call graph (the relay and mode checks);
    ``tables_built`` is called once the variant tables are first built."""
    patterns = [p for pack in packs for p in pack.entry_points] + list(settings.entry_points)
    entries = match_entries(model, patterns) if patterns else []
    warnings.extend(unmatched_names(model, packs, settings.entry_points))
    if patterns and not entries:
        stats["entry-point patterns matching nothing"] += len(patterns)
    heuristic = not entries
    if heuristic:
        entries = heuristic_entries(model)
    passed: PassedMemo = {}
    prefetched: set[str] = set()
    if model.source is not None:
        # A lazy model: the variant tables are built from the loaded modules, so
        # load what the entry points reach first (a call graph without the
        # variant-chosen edges, which need those tables).
        CallGraph(model, entries, passed=passed, prefetched=prefetched)
    validators = tuple(v for pack in packs for v in pack.startup_validators)
    while True:
        variants = Variants(model)
        tables_built()
        tables_built = _nothing
        factories = ClassFactories(model, variants)
        graph = CallGraph(model, entries, factories.targets, passed, prefetched)
        roots = graph.roots_only(entries) if heuristic else entries
        known = len(variants.by_name)  # before the checks look more up
        check = RelayCheck(model, variants, graph, roots, validators)
        out = list(check.run())
        # A lazy model: the members of a class's string variant that a builder
        # dispatches on are the strings compared with that attribute in any file;
        # load the files naming it, and check again if that loaded any. (A string
        # variant of an attribute of no known class, by name alone, is left as the
        # loaded files give it: its name may be in most files.)
        attributes = check.string_builder_attributes() if model.source is not None else set()
        before = len(model.modules)
        model.load_text(any_of=sorted(f".{a}" for a in attributes))
        if len(model.modules) == before:
            break
    entries = roots
    stats["entry points"] = len(entries)
    stats["variants"] = known
    stats.update(variants.stats)
    modes = ModeCheck(
        check,
        bypass_modes=tuple(m for pack in packs for m in pack.bypass_modes),
        placeholder_factories=tuple(f for pack in packs for f in pack.placeholder_factories),
    )
    out.extend(modes.run(check.found_relays(), entries))
    stats["functions reachable"] = len(graph)
    stats["calls dropped (unresolved)"] = graph.dropped
    return out
