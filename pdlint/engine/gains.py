"""What a copy of the program, detached into a forked process, loaded and was asked,
and how the parent takes it in (see :mod:`pdlint.engine.fork`).

The child parses in its own process alone and keeps what it adds; the parent
merges it as if it had done it, so that its run record depends on the child's
queries and loaded files too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from pdlint.engine.loading import IndexOutcome
from pdlint.findings import Finding

if TYPE_CHECKING:
    from pdlint.engine.program import Program


@dataclass
class Gains:
    """What a copy of a program, detached into a forked process, loaded and was asked
    (see :func:`detach`); :func:`merge` takes it in."""

    done: set[str]
    parsed_files: list[str]
    looked_up: set[str]
    asked: dict[tuple[object, ...], tuple[object, ...]]
    fact_digests: dict[str, str]
    errors: dict[str, Finding]
    text_now: dict[tuple[object, ...], set[str]]
    timings: dict[str, float]
    stored: dict[str, tuple[bytes, str]]  # facts entries indexed there: key -> payload, slot
    memo: list[tuple[tuple[str, str, str], IndexOutcome]]  # indexed there (not cache reads)
    memo_used: list[tuple[str, str, str]]  # found in the memo (a long-lived one keeps them)
    modules: set[str]  # the modules it loaded
    parsed_ahead: int = 0  # of its parsed files, those parsed ahead of their load


@dataclass
class Baseline:
    """Where a detached copy's counts stood when it was detached."""

    parsed_files: int
    timings: dict[str, float]
    parsed_ahead: int


def detach(program: Program) -> Baseline:
    """Make ``program`` the copy of the program in a forked child: it parses in this
    process alone, reports no progress, reads the cache through its own files
    (an inherited file's offset is shared with the parent), and keeps what it
    adds for :func:`gains`."""
    loader = program.loader
    loader.detached = True
    program.workers.detached = True
    loader.progress = None
    program.store.reopen()
    return Baseline(len(loader.parsed_files), dict(program.timings), loader.parsed_ahead)


def gains(program: Program, base: Baseline) -> Gains:
    """What the detached ``program`` loaded and was asked since ``base`` (all of it:
    merging is a union)."""
    loader = program.loader
    return Gains(
        done=set(loader.done),
        parsed_files=loader.parsed_files[base.parsed_files :],
        looked_up=set(program.looked_up),
        asked=dict(program.asked),
        fact_digests=dict(loader.fact_digests),
        errors=dict(loader.errors),
        text_now=dict(program.index.text_now),
        timings={k: v - base.timings.get(k, 0.0) for k, v in program.timings.items()},
        stored=loader.stored,
        memo=loader.memo_new,
        memo_used=loader.memo_used,
        modules=set(loader.loaded),
        parsed_ahead=loader.parsed_ahead - base.parsed_ahead,
    )


def merge(program: Program, gains: Gains) -> None:
    """Take in what a detached copy did, as if ``program`` had done it: the run
    record then depends on its queries and loaded files too."""
    loader = program.loader
    loader.done |= gains.done
    known = set(loader.parsed_files)
    fresh = [d for d in gains.parsed_files if d not in known]
    loader.parsed += len(fresh)
    loader.parsed_files.extend(fresh)
    loader.parsed_ahead += gains.parsed_ahead
    program.looked_up |= gains.looked_up
    for query, answer in gains.asked.items():
        program.asked.setdefault(query, answer)
    for display, digest in gains.fact_digests.items():
        loader.fact_digests.setdefault(display, digest)
    for display, error in gains.errors.items():
        loader.errors.setdefault(display, error)
    text_now = program.index.text_now
    for query, passing in gains.text_now.items():
        text_now.setdefault(query, passing)
    for phase, seconds in gains.timings.items():
        if seconds:  # shown apart: they ran while this process ran its own
            program.timings[f"{phase} (forked process)"] += seconds
    for key, (payload, slot) in gains.stored.items():
        if not program.store.has(key):
            program.store.put(key, payload, slot=slot)
    if loader.memo is not None:
        for memo_key, outcome in gains.memo:
            loader.memo.setdefault(memo_key, outcome)
        for memo_key in gains.memo_used:
            loader.memo.get(memo_key)  # used by this run (see pdlint.server.RecentMemo)
    program.loaded_elsewhere |= gains.modules - loader.loaded.keys()
