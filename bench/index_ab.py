"""A/B benchmark of the indexer: a git revision's ``pdlint/facts/indexer.py`` against this tree's.

Loads ``pdlint/facts/indexer.py`` as it is at ``--base`` (default ``main``, through
``git show``) under another module name (A) and this checkout's
``pdlint.facts.indexer`` (B), parses every file once with
:func:`pdlint.source.read.parse_source`, then runs A and B on each file back to
back, over all files, for ``--rounds`` rounds (which goes first flips each
round), with the collector off as in a pdlint run. It prints the CPU time
(``time.process_time``) of indexing and of pickling the facts (packed, as the
worker processes send them: ``pdlint.facts.types.packed``), for A and B, and
their ratio B/A per round (then the median and range of those ratios), and the
size of the pickled facts of both. Ratios measured side by side in one run are
what count on a shared machine. It exits 1 (naming the file) when B's
``ModuleFacts`` differ from A's for any file, or when B's pickle is larger.

The files: ``--files LIST.json`` (a JSON list of paths relative to ``--root``,
e.g. ``AnalysisResult.loaded_files`` of a run), else every ``*.py`` file below
``--root``::

    python bench/index_ab.py --root ~/.cache/pdlint-bench/sglang-0.5.23 \\
        --files /tmp/idx-files.json --rounds 5
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import pickle
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path

from pdlint.facts import indexer as index_b
from pdlint.facts.types import ModuleFacts, packed
from pdlint.source.read import parse_source

REPO = Path(__file__).resolve().parent.parent


def load_base(revision: str) -> types.ModuleType:
    """``pdlint/facts/indexer.py`` at ``revision``, imported as ``pdlint_index_base``."""
    source = subprocess.run(
        ["git", "show", f"{revision}:pdlint/facts/indexer.py"],
        cwd=REPO,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = "pdlint_index_base"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(source, f"{revision}:pdlint/facts/indexer.py", "exec"), module.__dict__)
    return module


def file_list(root: Path, listing: Path | None) -> list[str]:
    if listing is not None:
        return list(json.loads(listing.read_text()))
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))


Indexer = Callable[..., ModuleFacts]
Job = tuple[str, str, object, str]  # path, display path, tree, text


def one_round(runners: dict[str, Indexer], jobs: list[Job], totals: dict[str, list[float]]) -> None:
    """Index and pickle every file with each runner in turn (A and B on a file back to
    back, so that load from other processes hits both alike); add the CPU seconds
    to ``totals[name]`` (index, pickle)."""
    gc.collect()
    gc.disable()  # as pdlint's analysis runs (see api.analyze), workers included
    clock = time.process_time
    for path, display, tree, text in jobs:
        for name, index_module in runners.items():
            start = clock()
            facts = index_module(path, display, tree, text)
            indexed = clock()
            pickle.dumps(packed(facts), pickle.HIGHEST_PROTOCOL)
            done = clock()
            totals[name][0] += indexed - start
            totals[name][1] += done - indexed
    gc.enable()


def outcome(index_module: Indexer, job: Job) -> ModuleFacts | str:
    """The facts of a file, or the error pdlint turns into PDL900."""
    try:
        return index_module(*job)
    except RecursionError:
        return "RecursionError"


def round_ratio(times: dict[str, list[float]], round_: int) -> float:
    """B/A of one round (NaN when A took no measurable time)."""
    a, b = times["A"][round_], times["B"][round_]
    return b / a if a else math.nan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", type=Path, required=True, help="folder the paths are below")
    parser.add_argument("--files", type=Path, help="JSON list of paths relative to --root")
    parser.add_argument("--base", default="main", help="git revision of A (default: main)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    base = load_base(args.base)
    root = args.root.resolve()
    jobs: list[Job] = []
    start = time.process_time()
    gc.disable()  # many trees stay alive: collecting while they pile up costs minutes
    for rel in file_list(root, args.files):
        path = str(root / rel)
        parsed = parse_source(rel, Path(path).read_bytes())
        if parsed.tree is not None:
            jobs.append((path, rel, parsed.tree, parsed.text))
    print(f"{len(jobs)} files parsed in {time.process_time() - start:.2f} s CPU", flush=True)
    gc.freeze()  # the trees stay alive for the whole run: never scan them again
    gc.enable()

    size_a = size_b = 0
    indexable: list[Job] = []
    for job in jobs:
        a, b = outcome(base.index_module, job), outcome(index_b.index_module, job)
        if a != b:
            print(f"FAIL: facts differ for {job[1]}", file=sys.stderr)
            return 1
        if not isinstance(a, ModuleFacts):
            continue  # pdlint reports it as PDL900; nothing to time
        indexable.append(job)
        size_a += len(pickle.dumps(packed(a), pickle.HIGHEST_PROTOCOL))
        size_b += len(pickle.dumps(packed(b), pickle.HIGHEST_PROTOCOL))
    print(f"facts equal for all {len(jobs)} files ({len(jobs) - len(indexable)} too deep)")
    jobs = indexable

    index_times: dict[str, list[float]] = {"A": [], "B": []}
    pickle_times: dict[str, list[float]] = {"A": [], "B": []}
    for number in range(args.rounds):
        runners = {"A": base.index_module, "B": index_b.index_module}
        if number % 2:
            runners = {"B": runners["B"], "A": runners["A"]}
        totals = {"A": [0.0, 0.0], "B": [0.0, 0.0]}
        one_round(runners, jobs, totals)
        for name, (indexing, pickling) in totals.items():
            index_times[name].append(indexing)
            pickle_times[name].append(pickling)
        print(
            f"round {number + 1}: index A {index_times['A'][-1]:.2f} s  B "
            f"{index_times['B'][-1]:.2f} s  B/A {round_ratio(index_times, -1):.3f}; pickle A "
            f"{pickle_times['A'][-1]:.2f} s  B {pickle_times['B'][-1]:.2f} s  B/A "
            f"{round_ratio(pickle_times, -1):.3f}",
            flush=True,
        )
    for label, times in (("index CPU", index_times), ("pickle CPU", pickle_times)):
        ratios = [round_ratio(times, i) for i in range(args.rounds)]
        print(
            f"{label}: A median {statistics.median(times['A']):.2f} s, B median "
            f"{statistics.median(times['B']):.2f} s; B/A of a round: median "
            f"{statistics.median(ratios):.3f}, range {min(ratios):.3f}-{max(ratios):.3f}"
        )
    ratio = f"{size_b / size_a:.4f}" if size_a else "-"
    print(f"pickle: A {size_a / 1e6:.2f} MB  B {size_b / 1e6:.2f} MB  B/A {ratio}")
    if size_b > size_a:
        print("FAIL: B's pickle is larger", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
