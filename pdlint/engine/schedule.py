"""The schedule of the checks on one program: what is loaded before a check runs
and parsed ahead, which check runs in a forked process, which check records are
kept and reused, and when a check runs again because it asked for more files (see
:mod:`pdlint.checks.base` for what a check declares)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pdlint.cache.records import Reading, Reads, RunRecord, check_key, previous_run, store_record
from pdlint.checks.base import Check, Context, Run
from pdlint.checks.catalogue import checks
from pdlint.engine.fork import Aside, aside
from pdlint.engine.gains import Gains
from pdlint.engine.program import Program
from pdlint.engine.workers import worker_count
from pdlint.findings import Finding
from pdlint.model.names import Model
from pdlint.policy.selection import is_enabled
from pdlint.settings.config import Settings
from pdlint.settings.packs import Pack

# A lazy analysis of at least this many files runs an isolated check in a forked
# process while this one runs the others (see _aside); as many as parse lazily.
ASIDE_MIN_FILES = 500

IsolatedResult = tuple[list[Finding], Gains, Counter[str], Reads]


def running_checks(settings: Settings) -> tuple[type[Check], ...]:
    """The checks that run: those with a code the settings select (``select``,
    ``ignore``; a per-file ignore or a ``# noqa`` leaves a check running), and the
    checks they require. A check none of whose findings could be reported loads and
    parses nothing."""
    known = checks()
    wanted = {c for c in known if any(is_enabled(code, settings) for code in c.codes)}
    for check in list(wanted):
        wanted.update(check.requires)
    return tuple(c for c in known if c in wanted)


def _on_shared_model(running: Sequence[type[Check]]) -> list[type[Check]]:
    """The checks that run on the shared model: the running ones that are not
    isolated, and every check whose requirements all run there (they read those
    runs, and what they load is part of the shared model's record)."""
    shared = [c for c in running if not c.isolated]
    return [
        c
        for c in checks()
        if c in shared or (c.requires and not c.isolated and all(r in shared for r in c.requires))
    ]


def active_packs(packs: list[Pack], modules: set[str], explicit: bool) -> list[Pack]:
    """The packs that apply: all of them when named explicitly, otherwise those
    detecting one of the program's top-level packages."""
    if explicit:
        return packs
    tops = {m.split(".")[0] for m in modules}
    return [p for p in packs if any(d.split(".")[0] in tops for d in p.detect)]


@dataclass
class Isolated:
    """An isolated check in one run: its own model and reading, its run (None when its
    record is reused), its record's key and kept record, its forked process."""

    check: type[Check]
    reading: Reading
    model: Model
    run: Run | None
    key: str | None = None
    kept: RunRecord | None = None
    forked: Aside[IsolatedResult] | None = None


def analyse(
    program: Program,
    packs: list[Pack],
    settings: Settings,
    lazy: bool,
    running: tuple[type[Check], ...],
    timings: dict[str, float],
    warnings: list[str],
    record_key: str | None = None,
) -> tuple[list[Finding], Counter[str]]:
    """Run the checks on the program; findings before policy, and counts.

    In a lazy run, each isolated check and the checks on the shared model each keep
    a record of their own under keys made from ``record_key`` (what they loaded and
    asked, their findings): a later run whose changes leave all of that as it was
    takes their findings from there instead of running them (an edit of a file the
    other checks read and they did not).
    """
    stats: Counter[str] = Counter()
    shared = _on_shared_model(running)
    # a full run parses every file anyway; with one of the two kinds running, the
    # whole run's record is theirs
    both = bool(shared) and any(c.isolated for c in running)
    lazy_key = record_key if lazy and both else None
    shared_key = check_key(lazy_key, shared[0].__name__) if lazy_key is not None else None
    shared_reading = Reading(program)
    model = Model([], source=shared_reading) if lazy else Model(program.load_all(), texts=program)
    active = active_packs(packs, program.tops(), explicit=settings.packs is not None)
    on_shared = bool(shared)
    kept_shared: RunRecord | None = None  # their record, when their findings still hold
    if on_shared and shared_key is not None:
        kept_shared = previous_run(program.store, shared_key, program)
        on_shared = kept_shared is None
    # an isolated check reads a model of its own in a lazy run: it loads what it
    # needs, and gives the same findings whatever the other checks loaded (so it
    # can run at any point, or in a forked process)
    isolated: list[Isolated] = []
    for check in running:
        if not check.isolated:
            continue
        reading = Reading(program)
        own = Model([], source=reading) if lazy else model
        context = Context(own, check.read_packs(active), active, settings)
        state = Isolated(check, reading, own, check.begin(context))
        if lazy_key is not None:
            state.key = check_key(lazy_key, check.__name__)
            state.kept = previous_run(program.store, state.key, program)
            if state.kept is not None:
                state.run = None
        isolated.append(state)
    # in a forked process, before the other checks' files are loaded (it needs none
    # of them); the scan first, as its worker processes rule a fork out
    for state in isolated:
        if state.run is not None and on_shared and lazy and program.scans():
            state.forked = _aside(state, program)
    forked = any(s.forked is not None for s in isolated)
    start = time.perf_counter()
    try:
        if lazy:
            if not forked:  # parsed ahead while the relevant words' files load
                for check in running:
                    if check.isolated and not any(
                        s.check is check and s.run is not None for s in isolated
                    ):
                        continue  # its findings are reused
                    gate, starts = check.loading.later
                    if gate or starts:
                        program.prefetch(program.with_text(gate=gate, starts=starts))
            if on_shared:
                for check in running:
                    loading = check.loading
                    if loading.words:
                        found = shared_reading.with_text(
                            gate=loading.words, branches=loading.branches
                        )
                        model.load_modules(found)
            for state in isolated:
                if state.forked is None and state.run is not None:
                    # its first query now: the files of the next are parsed ahead
                    # while the other checks run
                    state.run.first_phase(program.prefetch)

        settled_once: list[bool] = []

        def settled() -> None:
            """Once the shared checks' loading is mostly done: each isolated check in
            a forked process, the files of its next query loaded first (decoded here
            as the worker processes finish parsing them ahead, not after the fork,
            when this process and the child are all that run)."""
            if settled_once:
                return
            settled_once.append(True)
            for state in isolated:
                if (
                    state.run is not None
                    and state.forked is None
                    and lazy
                    and program.workers_running
                    and _may_fork(program)
                ):
                    state.run.load_next()
                    program.stop_workers()
                    state.forked = _aside(state, program)

        shared_stats: Counter[str] = Counter()
        shared_warnings: list[str] = []
        findings = (
            _run_shared(
                model,
                shared,
                active,
                settings,
                shared_stats,
                shared_warnings,
                settled,
                program.phase,
            )
            if on_shared
            else []
        )
    except BaseException:
        for state in isolated:
            if state.forked is not None:
                state.forked.cancel()
        raise
    shared_found = list(findings)
    for state in isolated:
        _finish_isolated(state, program, findings, stats, warnings)
    stats.update(shared_stats)
    warnings.extend(shared_warnings)
    if kept_shared is not None and shared_key is not None:
        _reuse(program, shared_key, kept_shared, findings, stats, warnings)
    elif on_shared and shared_key is not None:
        counts = shared_stats + model.stats
        reads, warned = shared_reading.reads, tuple(shared_warnings)
        record = RunRecord.of_reads(program, reads, shared_found, dict(counts), warned)
        store_record(program, shared_key, record)
    stats.update(model.stats)
    for state in isolated:
        if state.model is not model:
            stats.update(state.model.stats)
    timings["analysis (with loading)"] = time.perf_counter() - start
    errors = program.read_errors() + list(program.errors.values())
    findings.extend(errors)
    stats["files"] = len(program.entries)
    stats["files with a PDL900"] = len(errors)
    indexed = set(model.modules.keys())
    for state in isolated:
        indexed |= state.model.modules.keys()
    indexed |= program.loaded_elsewhere
    stats["modules indexed"] = len(indexed)
    stats["files parsed"] = program.parsed
    if program.parsed_ahead:
        stats["files parsed ahead of their load"] = program.parsed_ahead
    stats["files from the cache"] = len(program.done) - program.parsed
    if program.duplicates:
        stats["duplicate module names"] += program.duplicates
    return findings, stats


def _finish_isolated(
    state: Isolated,
    program: Program,
    findings: list[Finding],
    stats: Counter[str],
    warnings: list[str],
) -> None:
    """An isolated check's findings (from its fork, or run here now), its record kept
    or reused."""
    model = state.model
    if state.forked is not None or state.run is not None:
        program.phase(_checking(state.check))
    done = state.forked.join() if state.forked is not None else None
    if done is not None:
        found, gains, counts, reads = done
        findings.extend(found)
        program.merge(gains)
        model.stats.update(counts)
        stats["checks run in a forked process"] += 1
    elif state.run is not None:
        before = Counter(model.stats)
        found = list(state.run.run())
        findings.extend(found)
        counts, reads = model.stats - before, state.reading.reads
    if state.kept is not None and state.key is not None:
        _reuse(program, state.key, state.kept, findings, stats, warnings)
    elif state.run is not None and state.key is not None:
        record = RunRecord.of_reads(program, reads, found, dict(counts))
        store_record(program, state.key, record)


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
        store_record(program, key, kept)


def _checking(check: type[Check]) -> str:
    """The progress line's name for a check's phase."""
    return f"checking {', '.join(check.codes)}"


def _may_fork(program: Program) -> bool:
    """Whether an isolated check may run in a forked process (a large tree, and more
    than one process allowed)."""
    return worker_count() != 1 and len(program.entries) >= ASIDE_MIN_FILES


def _aside(state: Isolated, program: Program) -> Aside[IsolatedResult] | None:
    """An isolated check started in a forked process, when the model is lazy and
    large and no worker process parses (see :mod:`pdlint.engine.fork`); None
    otherwise.

    The check reads its model alone and loads what it needs, so it gives the same
    findings on a copy of the model taken before the others run. Its findings, what
    it loaded and asked (:class:`Gains`), its counts and its reads (what its
    :class:`Reading` recorded, in the child) come back.
    """
    if not _may_fork(program):
        return None
    run, model, reads = state.run, state.model, state.reading.reads
    assert run is not None

    def work() -> IsolatedResult:
        program.detach()
        before = Counter(model.stats)
        found = list(run.run())
        return found, program.gains(), model.stats - before, reads  # as the child left it

    return aside(work)


def _run_shared(
    model: Model,
    shared: Sequence[type[Check]],
    packs: list[Pack],
    settings: Settings,
    stats: Counter[str],
    warnings: list[str],
    settled: Callable[[], None],
    phase: Callable[[str], None],
) -> list[Finding]:
    """The findings of the checks on the shared model, in order; each runs again
    while the files it wants loaded add modules, then each finishes. ``phase``
    names each check as it runs (the progress line)."""
    runs: dict[type[Check], Run] = {}
    out: list[Finding] = []
    for check in shared:
        phase(_checking(check))
        required = {r: runs[r] for r in check.requires}
        context = Context(
            model, check.read_packs(packs), packs, settings, stats, warnings, required, settled
        )
        run = check.begin(context)
        while True:
            found = list(run.run())
            before = len(model.modules)
            model.load_text(any_of=list(run.wants()))
            if len(model.modules) == before:
                break
        runs[check] = run
        out.extend(found)
    for run in runs.values():
        run.finish()
    return out
