"""PDL201's check in a forked process: the same findings, counts and run records.

A lazy analysis of a large tree runs the layout check in a forked child while it
runs the graph checks (see :mod:`pdlint.engine.fork`). Here the size floor is lowered
so that the fixtures take that path, and each run is compared with one that
runs every check in one process.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture, fixture_dirs, json_findings, run_pdlint, summary

from pdlint import api
from pdlint.checks.layout.loading_plan import LoadingPlan
from pdlint.engine import schedule
from pdlint.engine.fork import aside, can_fork
from pdlint.engine.run import LAZY_THRESHOLD
from pdlint.server import RecentMemo
from pdlint.settings.config import Settings

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="forks on Linux only")

CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())
FORKED = "checks run in a forked process"


def _fail() -> int:
    raise ValueError("in the child")


def test_aside_gives_the_childs_value_or_none() -> None:
    found = aside(lambda: {"findings": [1, 2]})
    assert found is not None and found.join() == {"findings": [1, 2]}
    failed = aside(_fail)
    assert failed is not None and failed.join() is None


def test_a_child_that_sent_its_value_is_reaped_later() -> None:
    """join returns as soon as the value is read (a large child takes tens of
    milliseconds to exit); the child is reaped by a later call, never left a zombie."""
    from pdlint.engine import fork as module

    found = aside(lambda: "value")
    assert found is not None and found.join() == "value"
    deadline = time.monotonic() + 10
    while module._exiting and time.monotonic() < deadline:
        time.sleep(0.01)
        module._reap()
    assert module._exiting == []


def test_a_cancelled_child_is_stopped() -> None:
    slow = aside(lambda: time.sleep(60))
    assert slow is not None
    start = time.monotonic()
    slow.cancel()
    assert time.monotonic() - start < 5


def test_the_child_dies_with_a_killed_run(tmp_path: Path) -> None:
    """The child holds the run's stdout too: killed with the run, or ``pdlint check . |
    cat`` waits for the end of the child's check (issue 35, point 12)."""
    import signal
    import subprocess

    pidfile = tmp_path / "child"
    program = (
        "import os, time\n"
        "from pdlint.engine.fork import aside\n"
        f"aside(lambda: (open({str(pidfile)!r}, 'w').write(str(os.getpid())), time.sleep(60)))\n"
        "time.sleep(60)\n"
    )
    run = subprocess.Popen([sys.executable, "-c", program])
    deadline = time.monotonic() + 30
    while not (pidfile.is_file() and pidfile.read_text()) and time.monotonic() < deadline:
        time.sleep(0.02)
    child = int(pidfile.read_text())
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=30)
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    gone = not _alive(child)
    if not gone:
        os.kill(child, signal.SIGKILL)
    assert gone


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_no_fork_while_another_thread_runs() -> None:
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not can_fork()
        assert aside(lambda: 1) is None
    finally:
        release.set()
        other.join()
    assert can_fork()


def _analyse(folder: Path, cache: Path | None, **kwargs: object) -> api.Result:
    with chdir(folder):
        settings = Settings(root=str(folder), cache=cache is not None)
        where = str(cache) if cache is not None else None
        return api.analyze(["."], settings, lazy=True, cache_dir=where, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", CASES)
def test_the_check_aside_gives_the_same_run(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = fixture(name)
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 10**9)
    alone = _analyse(folder, tmp_path / "alone")
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    forked = _analyse(folder, tmp_path / "forked")
    assert forked.stats.pop(FORKED) == 1
    assert FORKED not in alone.stats
    assert forked.findings == alone.findings
    assert forked.stats == alone.stats
    assert forked.loaded_files == alone.loaded_files


@pytest.mark.parametrize("name", [c for c in CASES if c.startswith("layout_")])
def test_a_late_fork_gives_the_same_run(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cold run whose worker processes parse: the check forks once the other
    checks built their tables, after loading its next query's files here (parsed
    ahead meanwhile, from the files its gate selects while the stems are found)."""
    monkeypatch.setenv("PDLINT_WORKERS", "3")  # forced on a small tree
    loads: list[int] = []  # the process each run loads the next query in
    load_next = LoadingPlan.load_next

    def spy(plan: LoadingPlan) -> set[str] | None:
        before = plan._next_fresh
        fresh = load_next(plan)
        if before is None and fresh is not None:
            loads.append(os.getpid())  # a forked child appends to its own copy
        return fresh

    monkeypatch.setattr(LoadingPlan, "load_next", spy)
    folder = fixture(name)
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 10**9)
    alone = _analyse(folder, tmp_path / "alone")
    alone_loads, loads[:] = list(loads), []
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    forked = _analyse(folder, tmp_path / "forked")
    assert forked.stats.pop(FORKED) == 1
    assert loads == alone_loads  # in this process (before the fork), when it has one
    if name != "layout_peer_count":  # its first query finds no stem
        assert loads == [os.getpid()]
    for stats in (alone.stats, forked.stats):  # as the worker processes go
        stats.pop("files parsed ahead of their load", None)
    assert forked.findings == alone.findings
    assert forked.stats == alone.stats
    assert forked.loaded_files == alone.loaded_files


def _with_peer_sizes(tmp_path: Path) -> tuple[Path, Path]:
    """layout_helpers and a file that only PDL201's first query loads."""
    folder = tmp_path / "tree"
    shutil.copytree(fixture("layout_helpers"), folder)
    sizes = folder / "peer_sizes.py"
    sizes.write_text("def size(dst_items):\n    return len(dst_items)\n")
    return folder, sizes


def _analysed_again(folder: Path, cache: Path) -> api.Result:
    """A run that does not reuse the last one's findings, and finds what a full run finds."""
    edited = _analyse(folder, cache)
    assert "results reused (nothing they depend on changed)" not in edited.stats
    with chdir(folder):
        full = api.analyze(["."], Settings(root=str(folder), cache=False), lazy=False)
    assert edited.findings == full.findings
    return edited


def test_a_file_only_the_forked_check_loaded_is_in_the_run_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record of a run depends on what the child loaded: editing that file (a
    new fact) analyses again, where a record without it would reuse stale findings."""
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    folder, sizes = _with_peer_sizes(tmp_path)
    cache = tmp_path / "cache"
    first = _analyse(folder, cache)
    assert first.stats[FORKED] == 1 and "peer_sizes.py" in first.loaded_files
    again = _analyse(folder, cache)
    assert again.stats["results reused (nothing they depend on changed)"] == 1
    sizes.write_text(sizes.read_text() + "\n\ndef other(dst_more):\n    return dst_more[0]\n")
    _analysed_again(folder, cache)


def test_a_query_only_the_forked_check_asked_is_in_the_run_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file that only the child's second query (a list of a copy's stem grown
    under a role-local condition) selects: the record holds that query, so the run
    analyses again, and finds what a full run finds."""
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    folder, _sizes = _with_peer_sizes(tmp_path)
    cache = tmp_path / "cache"
    assert _analyse(folder, cache).stats[FORKED] == 1
    (folder / "relay_regions" / "extra.py").write_text(
        "class Extra:\n"
        "    def __init__(self, config, engine):\n"
        "        if config.speculative_algorithm is not None:\n"
        "            engine.mem_regions.append((0, 256))\n"
    )
    assert "relay_regions/extra.py" in _analysed_again(folder, cache).loaded_files


def test_a_long_lived_memo_keeps_what_the_forked_check_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The language server's memo (no fact cache here) forgets, after each run, the
    facts no run used: those the child indexed or read count, so no later run
    parses a file again."""
    monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    folder, _sizes = _with_peer_sizes(tmp_path)
    memo = RecentMemo()
    runs = []
    for _ in range(3):
        runs.append(_analyse(folder, None, facts_memo=memo))
        memo.sweep()
    assert all(r.stats[FORKED] == 1 for r in runs)
    assert "peer_sizes.py" in runs[0].loaded_files and runs[0].stats["files parsed"] > 0
    assert [r.stats["files parsed"] for r in runs[1:]] == [0, 0]
    assert runs[2].findings == runs[0].findings


def test_the_command_line_forks_on_a_large_tree_after_an_edit(tmp_path: Path) -> None:
    """``pdlint check`` on a tree of over 500 files (lazy) with two worker processes:
    the cold run parses with them, then stops them once the other checks' tables
    are built (their executor runs threads, which rule a fork out) and runs PDL201's
    check in a forked process; after an edit that adds a fact (in a file both
    checks then read: the graph checks' record does not hold), the facts come from
    the cache and the check is forked before any other loads. Both print what
    ``--no-cache`` prints."""
    folder = tmp_path / "tree"
    shutil.copytree(fixture("layout_helpers"), folder)
    filler = folder / "filler"
    filler.mkdir()
    (filler / "__init__.py").write_text("")
    for i in range(LAZY_THRESHOLD):
        (filler / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    # a decode entry point: with none, the graph checks read no raise under a decode test
    (filler / "loop.py").write_text("def event_loop_disagg_decode():\n    pass\n")
    cache = str(tmp_path / "cache")
    workers = {"PDLINT_WORKERS": "2"}

    def verbose() -> dict[str, str]:
        proc = run_pdlint("check", ".", "-v", "--cache-dir", cache, cwd=folder, env=workers)
        assert proc.returncode == 1, proc.stderr
        lines = [ln[8:] for ln in proc.stderr.splitlines() if ln.startswith("pdlint: ")]
        return dict(ln.rsplit(": ", 1) for ln in lines if ": " in ln)

    cold = verbose()
    assert cold[FORKED] == "1" and int(cold["files parsed"]) > 1
    assert summary(json_findings(".", "--cache-dir", cache, cwd=folder)) == summary(
        json_findings(".", "--no-cache", cwd=folder)
    )
    transport = folder / "relay_regions" / "transport.py"
    # the relay check's words: a raise under a decode-mode test
    added = "\n\ndef added(mode):\n    if mode == 'decode':\n        raise ValueError(mode)\n"
    transport.write_text(transport.read_text() + added)
    edited = verbose()
    assert edited[FORKED] == "1" and edited["files parsed"] == "1"
    expected = summary(json_findings(".", "--no-cache", cwd=folder))
    assert summary(json_findings(".", "--cache-dir", cache, cwd=folder)) == expected
    assert expected == ["PDL201 relay_regions/transport.py:27 mem_regions"]


def test_a_detached_copy_sends_back_the_facts_it_indexed_not_those_it_read(
    tmp_path: Path,
) -> None:
    """A long-lived memo gets the facts the child indexed; those it read from the
    fact cache are not sent (on sglang 0.5.23, 35 MB pickled and unpickled cost the
    language server's first run 1.4 s; reading them again costs the next child
    0.15 s of its idle time)."""
    from pdlint.cache.store import FactStore
    from pdlint.engine.program import Program
    from pdlint.source.discover import discover

    folder = fixture("layout_helpers")
    files, _ = discover([str(folder)], ())
    jobs = [(f, None) for f in files]
    cache = tmp_path / "cache"
    warm = Program(jobs, FactStore(cache), "salt")
    warm.load(list(warm.by_module))
    warm.close()

    def sent(store: FactStore) -> int:
        program = Program(jobs, store, "salt", memo={})
        program.detach()
        program.load(list(program.by_module))
        return len(program.gains().memo)

    assert sent(FactStore(cache)) == 0
    assert sent(FactStore(None)) == len([f for f in files if f.path.endswith(".py")])
