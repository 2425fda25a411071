"""A/B benchmark of whole runs: pdlint at a git revision against this checkout.

Extracts ``--base`` (default ``main``, through ``git archive``) into a temporary
folder, byte-compiles both copies of ``pdlint/`` as ``pip install`` would, and on
a public SGLang release (``--version``, default 0.5.23, downloaded as
``bench/run.py`` does) runs, for ``--rounds`` rounds, each measurement with the
base (A) and with this checkout (B) back to back (which goes first flips each
round), each in its own process and with its own cache:

- cold (an empty cache), warm (nothing changed);
- new fact: ``print(N)`` inserted at the top of the first function of the relay
  file (as ``bench/run.py``'s "changed (loaded, new fact)"; ``--edit PATH``
  edits another file of the release), then the file put back and the cache
  brought back to it; "new fact CPU" is the CPU time the whole machine spent
  during that run (from ``/proc/stat``, Linux only: it counts the forked
  process of PDL201's check, which the run does not wait for);
- editor: the language server's analysis process analysing that edit as an
  unsaved buffer, with every file's facts in memory (the time of that run).

It prints the median wall time of A and B, and the median and range of the
per-round ratios B/A: ratios measured side by side in one run are what count on
a machine whose speed drifts. It exits 1 when a run fails or when the two give
different findings.

    python bench/ab.py --base HEAD~3 --rounds 6

``--python-a`` / ``--python-b`` measure, as A or B, the pdlint another interpreter
imports instead (a venv where ``PDLINT_COMPILE=1 pip install .`` put a compiled wheel:
compiled builds are compared this way):

    python bench/ab.py --python-a OLD/bin/python --python-b NEW/bin/python
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from run import EDITOR, LOADED_FILE, insert_statement, release_tree, run

REPO = Path(__file__).resolve().parent.parent
MEASURES = ("cold", "warm", "new fact", "new fact CPU", "editor")


def extract(rev: str, into: Path) -> Path:
    """``pdlint/`` and the bundled rule packs (``rules/``, which pdlint finds beside
    its folder) as they are at ``rev``, under ``into`` (the folder to put on
    PYTHONPATH). Without them the base would run without the sglang pack: its
    entry points found by name, not the pack's."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", rev, "pdlint", "rules"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def describe(side: tuple[str, Path | None]) -> str:
    """Which pdlint a side runs, and which of its modules are compiled."""
    python, folder = side
    env = {**os.environ, "PYTHONPATH": str(folder)} if folder is not None else None
    found = subprocess.run(
        [
            python,
            "-c",
            "import pdlint, pdlint.cli as c; print(pdlint.__file__,"
            " getattr(c, 'build', getattr(c, 'indexer_build', lambda: '')) ())",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    return found.stdout.strip() or found.stderr.strip()[-300:]


def command(python: str, cache: Path) -> list[str]:
    return [python, "-m", "pdlint", "check", "sglang", "--output-format", "json"] + [
        "--cache-dir",
        str(cache),
    ]


def busy_seconds() -> float:
    """CPU seconds the machine has spent busy since it booted (0 without ``/proc``)."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(t) for t in stat.readline().split()[1:]]
    except OSError:
        return 0.0
    idle = ticks[3] + ticks[4]  # idle and iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def one_round(
    tree: Path, side: tuple[str, Path | None], cache: Path, label: int, edited: str
) -> tuple[dict[str, float], list[str]]:
    """Every measurement once with the pdlint of ``side`` (an interpreter, and the
    folder to put on PYTHONPATH, or None for the pdlint it imports); the walls and
    the findings of each run (as ``code path:line member`` lines)."""
    python, folder = side
    env = {"PYTHONPATH": str(folder)} if folder is not None else {}
    walls: dict[str, float] = {}
    outputs: list[str] = []

    def check(name: str) -> None:
        wall, _rss, out = run(command(python, cache), tree, env, stdout=True)
        walls[name] = wall
        shown = [
            f"{f['code']} {f['filename']}:{f['location']['row']} {f.get('member', '')}"
            for f in json.loads(out)
        ]
        outputs.append(f"{name}: {'; '.join(shown)}")

    shutil.rmtree(cache, ignore_errors=True)
    check("cold")
    check("warm")
    path = tree / edited
    original = path.read_bytes()
    try:
        path.write_bytes(insert_statement(original, f"print({label})".encode()))
        busy = busy_seconds()
        check("new fact")
        walls["new fact CPU"] = busy_seconds() - busy
    finally:
        path.write_bytes(original)
    run(command(python, cache), tree, env, stdout=True)  # back to the unchanged state
    _wall, _rss, out = run(
        [python, "-c", EDITOR, edited, str(Path(__file__).parent)],
        tree,
        {**env, "PDLINT_CACHE_DIR": str(cache)},
        stdout=True,
    )
    walls["editor"] = float(out.split()[-1])
    return walls, outputs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", default="main", help="git revision measured as A")
    parser.add_argument("--version", default="0.5.23", help="the sglang release")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--edit", default=LOADED_FILE, help="the file of the release the new fact goes in"
    )
    parser.add_argument("--python-a", help="measure as A the pdlint this interpreter imports")
    parser.add_argument("--python-b", help="measure as B the pdlint this interpreter imports")
    args = parser.parse_args()
    tree = release_tree(args.version)
    walls: dict[str, dict[str, list[float]]] = {"A": {}, "B": {}}
    ratios: dict[str, list[float]] = {m: [] for m in MEASURES}
    failed = False
    with tempfile.TemporaryDirectory(prefix="pdlint-ab-") as tmp:
        sides: dict[str, tuple[str, Path | None]] = {}
        for side, python, source in (
            ("A", args.python_a, lambda: extract(args.base, Path(tmp) / "base")),
            ("B", args.python_b, lambda: REPO),
        ):
            if python is not None:
                sides[side] = (python, None)
            else:
                folder = source()
                subprocess.run([sys.executable, "-m", "compileall", "-q", str(folder / "pdlint")])
                sides[side] = (sys.executable, folder)
            print(f"{side}: {describe(sides[side])}")
        for number in range(args.rounds):
            order = ("A", "B") if number % 2 == 0 else ("B", "A")
            got: dict[str, dict[str, float]] = {}
            outputs: dict[str, list[str]] = {}
            for side in order:
                cache = Path(tmp) / f"cache-{side}"
                got[side], outputs[side] = one_round(tree, sides[side], cache, number, args.edit)
            if outputs["A"] != outputs["B"] and not failed:
                failed = True
                print("different findings:", file=sys.stderr)
                # (the two may give different numbers of findings)
                for line in sorted(set(outputs["A"]) - set(outputs["B"])):
                    print(f"  A only: {line}", file=sys.stderr)
                for line in sorted(set(outputs["B"]) - set(outputs["A"])):
                    print(f"  B only: {line}", file=sys.stderr)
            for name in MEASURES:
                for side in "AB":
                    walls[side].setdefault(name, []).append(got[side][name])
                ratios[name].append(got["B"][name] / (got["A"][name] or float("nan")))
            print(f"round {number + 1} of {args.rounds} done", file=sys.stderr, flush=True)
    print(f"sglang {args.version}, {args.rounds} rounds, the new fact in {args.edit}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'measurement':12} {'A s':>7} {'B s':>7} {'B/A':>6} {'B/A range':>12}")
    for name in MEASURES:
        a = statistics.median(walls["A"][name])
        b = statistics.median(walls["B"][name])
        r = ratios[name]
        spread = f"{min(r):.2f}-{max(r):.2f}"
        print(f"{name:12} {a:7.2f} {b:7.2f} {statistics.median(r):6.2f} {spread:>12}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
