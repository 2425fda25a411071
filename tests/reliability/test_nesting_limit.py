"""A PDL900 for deep nesting exactly where CPython cannot compile the file, the same
in every process: with or without worker processes, cached or not.

CPython's nesting limits count the frames already on its caller's stack, so pdlint
judges a file at the base of a new thread; the oracle is ``compile`` called from
the module-level code of a fresh interpreter (one for every file, so it is fast).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pdlint_helpers import GAP_PDL001, GAP_PDL101, copy_relay_gap, run_pdlint

PKG = "relay_gap_engine"
SHAPES = {
    "unary": lambda d: "x = " + "-" * d + "1",
    "nots": lambda d: "x = " + "not " * d + "a",
    "sums": lambda d: "x = " + "a + " * d + "b",
    "ternaries": lambda d: "x = " + "a if b else " * d + "c",
    "attributes": lambda d: "x = a" + ".b" * d,
    "calls": lambda d: "x = a" + "()" * d,
    "powers": lambda d: "x = " + "a ** " * d + "b",
    "method": lambda d: "class C:\n    def f(self):\n        return self" + ".b" * d,
}
# Depths either side of CPython's limits (about 2,980 to 2,996 for these shapes).
DEPTHS = (2850, 2900, 2950, 2970, 2980, 2985, 2990, 2993, 2996, 3000, 3010, 3100)
# Within a few levels of the limit CPython's own verdict depends on how compile is
# called (Python 3.11 counts a frame more or less once a call site is specialised):
# there a PDL900 must still be a file CPython refuses, but may be missing.
AT_THE_LIMIT = range(2991, 2997)

ORACLE = """
import sys, warnings
warnings.simplefilter("ignore")
for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        compile(text, path, "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        print(path)
"""


def write_nested(root: Path) -> dict[str, int]:
    """relay_gap plus one module per shape and depth; file name -> depth."""
    pkg = copy_relay_gap(root) / PKG
    depths = {}
    for shape, make in SHAPES.items():
        for depth in DEPTHS:
            name = f"deep_{shape}_{depth}.py"
            (pkg / name).write_text(f"# {shape} nested {depth} deep\n{make(depth)}\n")
            depths[name] = depth
    return depths


def refused_by_cpython(pkg: Path, names: list[str]) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", ORACLE, *(str(pkg / n) for n in names)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {Path(line).name for line in out.splitlines()}


def pdl900s(root: Path, *args: str, workers: str) -> tuple[set[str], str]:
    proc = run_pdlint(
        "check", ".", "--output-format", "json", *args, cwd=root, env={"PDLINT_WORKERS": workers}
    )
    assert proc.returncode == 1, proc.stderr[-2000:]
    found = json.loads(proc.stdout)
    # the relay gap's findings are kept beside the deep files
    where = {
        f"{f['filename']}:{f['location']['row']}:{f['location']['column']}: {f['code']} "
        for f in found
    }
    assert {GAP_PDL001, GAP_PDL101} <= where
    errors = {Path(f["filename"]).name for f in found if f["code"] == "PDL900"}
    for f in found:
        if f["code"] == "PDL900":
            assert f["message"].startswith(("cannot parse: ", "syntax error: ")), f["message"]
    return errors, proc.stdout


def test_deep_nesting_is_refused_where_cpython_refuses_it_in_every_process(tmp_path: Path):
    root = tmp_path / "proj"
    depths = write_nested(root)
    pkg = root / PKG
    refused = refused_by_cpython(pkg, sorted(depths))
    # the oracle accepts some files near the limit and refuses others
    assert {depths[n] for n in refused} >= {3000, 3010, 3100}
    assert set(depths) - refused >= {n for n, d in depths.items() if d <= 2970}

    runs = {
        "one process": pdl900s(root, "--no-cache", workers="1"),
        "two workers": pdl900s(root, "--no-cache", workers="2"),
        "cold cache, one process": pdl900s(root, workers="1"),
    }
    for name in depths:  # a comment edit: a cached run of new bytes in every file
        path = pkg / name
        path.write_text(path.read_text().replace(" deep\n", " deep, edited\n", 1))
    runs["edited, cached, two workers"] = pdl900s(root, workers="2")
    runs["warm cache, one process"] = pdl900s(root, workers="1")

    outputs = {output for _, output in runs.values()}
    assert len(outputs) == 1, "the output depends on the process or the cache"
    errors = runs["one process"][0]
    assert errors <= refused  # never a PDL900 for a file CPython compiles
    missing = {n for n in refused - errors if depths[n] not in AT_THE_LIMIT}
    assert not missing
