"""The cache does not grow with runs it cannot serve (issue 35, point 17).

A CI job restoring ``.pdlint_cache`` without the signing key runs cold every time
and wrote a pack each run, never removed; a run killed with ``kill -9`` left its
temporary files for good. What no index names, and temporary files, go once
older than a minute (a run writing now is well within that).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from pdlint_helpers import GAP_PDL001, run_pdlint


def facts_folder(project: Path) -> Path:
    (version,) = (project / "cache").glob("v*")
    return version / "facts"


def age(path: Path, seconds: float = 120) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


def run_with_key(project: Path, home: Path) -> str:
    res = run_pdlint(
        "check",
        ".",
        cwd=project,
        env={"XDG_CACHE_HOME": str(home), "PDLINT_CACHE_DIR": str(project / "cache")},
    )
    assert res.returncode == 1 and GAP_PDL001 in res.stdout, res.stderr
    return res.stdout


def test_packs_of_another_key_are_dropped(relay_gap, tmp_path):
    outputs = set()
    for run in range(4):  # the key changes every run, as in CI without it
        for pack in facts_folder(relay_gap).glob("*.pack") if run else ():
            age(pack)
        outputs.add(run_with_key(relay_gap, tmp_path / f"key{run}"))

    assert len(outputs) == 1
    index = (facts_folder(relay_gap) / "index").read_bytes()
    packs = sorted(p.name for p in facts_folder(relay_gap).glob("*.pack"))
    assert len(packs) == 1 and packs[0].encode() in index


def test_temporary_files_of_a_killed_run_are_removed(relay_gap, tmp_path):
    run_with_key(relay_gap, tmp_path / "key")
    facts = facts_folder(relay_gap)
    old = [facts / f"index.{os.getpid()}.1.tmp", facts.parent / "record.1.2.tmp"]
    fresh = facts / f"{'a' * 32}.pack.{os.getpid()}.2.tmp"  # a run writing it now
    for path in [*old, fresh]:
        path.write_bytes(b"half written")
    for path in old:
        age(path)
    (relay_gap / "relay_gap_engine" / "new_module.py").write_text("A = 1\n")

    run_with_key(relay_gap, tmp_path / "key")

    assert [p for p in old if p.exists()] == []
    assert fresh.exists()
