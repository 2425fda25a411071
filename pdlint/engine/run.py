"""The engine's way in: a program made of the files read, eager or lazy loading,
the whole run's record reused or the checks run (:mod:`pdlint.engine.schedule`)."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pdlint import __version__
from pdlint.cache.records import Reading, RunRecord, previous_run, run_key, store_record
from pdlint.cache.store import SCHEMA, FactStore, make_key
from pdlint.checks.base import Check
from pdlint.engine.loading import FactsMemo
from pdlint.engine.program import Program
from pdlint.engine.schedule import analyse
from pdlint.findings import Finding
from pdlint.model.names import Model
from pdlint.settings.config import Settings
from pdlint.settings.packs import Pack
from pdlint.source.discover import SourceFile

# Trees with at least this many files are parsed lazily (only what the analysis
# needs); smaller ones are parsed whole, so every file gets its PDL900.
LAZY_THRESHOLD = 500

# The count, in a lazy run, of the readable files no check needed, so not parsed:
# their syntax errors are not reported (the summary says so).
UNPARSED = "files not parsed (no check needed them)"


@dataclass
class Outcome:
    """What the engine gives back: findings before policy and what the run read."""

    findings: list[Finding]
    stats: Counter[str]
    warnings: list[str]
    texts: dict[str, bytes]  # display path -> the bytes read
    digests: dict[str, str] = field(default_factory=dict)  # display path -> content hash
    timings: dict[str, float] = field(default_factory=dict)
    loaded: list[str] = field(default_factory=list)  # files parsed or read from cache


def scan_groups(
    running: Sequence[type[Check]], packs: Sequence[Pack]
) -> tuple[tuple[str, ...], ...]:
    """The word groups the text scan looks for: the checks' loading words, then
    their scanned words, then those they scan for the packs."""
    groups = tuple(g for check in running for g in check.loading.words)
    groups += tuple(g for check in running for g in check.loading.scanned)
    groups += tuple(g for check in running for g in check.scanned_for(packs))
    return groups


def execute(
    jobs: list[tuple[SourceFile, bytes | None]],
    paths: Sequence[str],
    settings: Settings,
    packs: list[Pack],
    store: FactStore,
    running: tuple[type[Check], ...],
    *,
    use_packs: bool,
    lazy: bool | None,
    progress: Callable[[str], None] | None,
    facts_memo: FactsMemo | None,
    keep: list[object] | None,
    start: float,
) -> Outcome:
    """Run ``running`` on the files of ``jobs`` (read or given); ``paths`` and the
    settings key the run's record. ``keep`` receives the facts instead of their
    being freed. ``start`` is when the run began (``time.perf_counter``)."""
    salt = make_key(__version__, SCHEMA, *sorted(p.digest for p in packs))
    groups = scan_groups(running, packs)
    if lazy is None:
        lazy = len(jobs) >= LAZY_THRESHOLD
    # a lazy analysis reads the text scan: the files read now are scanned meanwhile
    program = Program(
        jobs,
        store,
        salt,
        groups,
        progress,
        facts_memo,
        scan_ahead=lazy,
        namespaces=settings.namespace_packages,
    )
    timings = {"discover, read and hash": time.perf_counter() - start}
    names = [check.__name__ for check in running]
    if settings.explain_dropped:  # a run that lists the dropped calls keeps its own record
        names.append("dropped calls explained")
    check_syntax = lazy and settings.check_syntax
    record_key = run_key(
        salt, paths, settings.packs, settings.entry_points, use_packs, lazy, names, check_syntax
    )
    warnings: list[str] = []
    try:
        # a caller with a facts memo (the language server) analyses each edit
        # through the memo and keeps no run record
        record = previous_run(store, record_key, program) if facts_memo is None else None
        if record is not None:
            findings, stats = list(record.findings), Counter(record.stats)
            stats["files parsed"] = program.parsed
            stats.pop("files parsed ahead of their load", None)
            stats["files from the cache"] = 0
            stats["results reused (nothing they depend on changed)"] = 1
            warnings.extend(record.warnings)
            if record.refresh(program):  # an edit that left the facts as they were
                store_record(program, record_key, record)
        else:
            found: list[str] = []
            # the checks keep records of their own (see schedule.analyse)
            check_key = record_key if facts_memo is None else None
            findings, stats = analyse(
                program, packs, settings, lazy, running, timings, found, check_key
            )
            warnings.extend(found)
            if lazy:
                _other_files(program, findings, stats, check_syntax)
            if facts_memo is None:
                whole = not lazy or check_syntax
                record_data = RunRecord.of(program, findings, dict(stats), whole, tuple(found))
                store_record(program, record_key, record_data)
        if store.enabled:
            program.phase("writing the cache")
        program.save()
    finally:
        program.close()
        if keep is not None:
            keep.append(program.loaded)
        else:
            program.loaded.clear()  # free the facts by reference counting, before collecting
    texts = {e.source.display: e.raw for e in program.entries if e.raw is not None}
    digests = {e.source.display: e.digest for e in program.entries if e.digest}
    timings.update(program.timings)
    stats["files read"] = program.reads
    return Outcome(findings, stats, warnings, texts, digests, timings, sorted(program.done))


def _other_files(
    program: Program, findings: list[Finding], stats: Counter[str], check_syntax: bool
) -> None:
    """After a lazy analysis: parse the readable files no check needed, for their
    PDL900 (``check_syntax``), or count them (:data:`UNPARSED`)."""
    vouched = set(program.done)
    for record in program.reused:  # a check's findings taken from its own record
        vouched |= record.loaded
    rest = [e for e in program.entries if e.readable and e.source.display not in vouched]
    if not check_syntax:
        if rest:
            stats[UNPARSED] = len(rest)
        return
    program.phase("parsing the other files for their syntax errors")
    known = set(program.errors)
    program.load_entries(sorted(rest, key=lambda e: e.source.display))
    findings.extend(program.errors[d] for d in sorted(program.errors.keys() - known))
    stats["files parsed"] = program.parsed
    stats["files from the cache"] = len(program.done) - program.parsed
    stats["files with a PDL900"] += len(program.errors.keys() - known)


def lazy_model(files: Sequence[SourceFile], settings: Settings) -> tuple[Model, Program]:
    """A model of ``files`` that parses only what is asked of it, as a lazy check's
    (for a front end other than ``check``: ``pdlint graph`` finding its entry
    points); the caller closes the program when done."""
    program = Program(
        [(source, None) for source in files],
        FactStore(None),
        make_key(__version__, SCHEMA),
        namespaces=settings.namespace_packages,
    )
    return Model([], source=Reading(program)), program
