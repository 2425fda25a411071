"""Run records: a run's (or one check's) findings kept under a key made of what
they depend on, and reused while nothing they read changed."""

from __future__ import annotations

import os
import pickle
from collections.abc import Sequence

from pdlint.cache.store import CODE, FactStore, make_key
from pdlint.engine.program import Program, RunRecord

__all__ = ["RunRecord", "check_key", "previous_run", "run_key", "store_record"]


def run_key(
    salt: str,
    paths: Sequence[str],
    packs: object,
    entry_points: object,
    use_packs: bool,
    lazy: bool,
    checks: Sequence[str],
) -> str:
    """The key of a whole run's record: the inputs, the settings read by the checks,
    how the run loads, and the checks that run (by name)."""
    inputs = [os.getcwd(), *(os.path.abspath(p) for p in paths if p != "-")]
    return make_key(
        "run",
        salt,
        CODE,
        repr(inputs),
        repr(packs),
        repr(entry_points),
        str(use_packs),
        str(lazy),
        ",".join(checks),
    )


def check_key(run: str, check: str) -> str:
    """The key of one check's own record within the run keyed ``run``."""
    return make_key(run, check)


def previous_run(store: FactStore, key: str, program: Program) -> RunRecord | None:
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


def store_record(program: Program, key: str, record: RunRecord) -> None:
    """Keep ``record`` under ``key`` in the program's store."""
    program.store.put(key, pickle.dumps(record, 5), kind="blob")
