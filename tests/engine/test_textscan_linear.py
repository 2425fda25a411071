"""The text scan is linear: one hostile file in a lazy tree (500+ files) costs about
what reading it costs, and changes no finding elsewhere.

Each shape made a text scan quadratic (issue 35, point 4): continuation lines after
a branch keyword, brackets opened on many lines and closed on as many, ``import``
inside a longer word before an unclosed list, an identifier of repeated ``disagg``
searched for ``disagg*decode``, class headers that never close, and many
``assert`` statements after semicolons on one line.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pathological import text_scan_shapes as shapes
from pdlint_helpers import copy_relay_gap, run_pdlint

from pdlint.engine.run import LAZY_THRESHOLD
from pdlint.engine.textscan import in_condition, scan_source

PKG = "relay_gap_engine"
HOSTILE = f"{PKG}/hostile.py"


SHAPES = shapes()


@pytest.fixture(scope="module")
def lazy_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """relay_gap plus enough small modules for pdlint to go lazy."""
    root = copy_relay_gap(tmp_path_factory.mktemp("lazy") / "tree")
    for i in range(LAZY_THRESHOLD):
        (root / PKG / f"small_{i}.py").write_text(f"def size_{i}(items):\n    return len(items)\n")
    return root


def timed_findings(root: Path, timeout: float = 120) -> tuple[list[dict], float]:
    """The findings of ``pdlint check --no-cache .`` in ``root`` and seconds taken."""
    start = time.monotonic()
    proc = run_pdlint(
        "check", "--no-cache", "--output-format", "json", ".", cwd=root, timeout=timeout
    )
    elapsed = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr[-2000:]
    return json.loads(proc.stdout), elapsed


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_hostile_file_costs_about_what_reading_it_costs(lazy_tree: Path, shape: str) -> None:
    """The run with the hostile file takes at most a few times the run without it,
    plus a small constant (before: minutes), and finds the same elsewhere."""
    healthy, base = timed_findings(lazy_tree)
    budget = 4 * base + 8
    hostile = lazy_tree / HOSTILE
    hostile.write_text(SHAPES[shape])
    try:
        found, elapsed = timed_findings(lazy_tree, timeout=budget + 30)
    finally:
        hostile.unlink()
    assert elapsed < budget, (shape, elapsed, base)
    assert [f for f in found if f["filename"] != HOSTILE] == healthy


ROLE = (b"draft", b"'decode'", b"disagg*decode", b"decode*disagg")
GROUPS = (("raise", "'decode'"), ("raise", "disagg*decode"), ("decode*disagg",))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_scan_is_linear_in_the_text(shape: str) -> None:
    """Twice the text costs about twice the time (a quadratic scan: four times).
    Measured in this process's CPU time, which other processes of a parallel test run
    do not lengthen (its wall time, they can)."""

    def seconds(data: bytes) -> float:
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            scan_source(data, GROUPS)
            in_condition(data.lower(), ROLE, (b"raise", b"append"))
            best = min(best, time.process_time() - start)
        return best

    half = seconds(shapes(0.5)[shape].encode())
    assert seconds(SHAPES[shape].encode()) < 3 * half + 0.05, shape


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (b"x = 1; assert a  # ; assert (\nm = 'decode'\nraise\n", True),  # a superset
        (b"x = 1  # c\\\nif a; assert (b,\n 'decode')\nraise\n", True),
        (b"if a)\\\nif (b\n 'decode')\nraise\n", True),  # the second outlives the first
        (b"disaggx.y_decode = 1\nif disagg.zdecode:\n raise\n", True),
        (b"if disagg-decode:\n raise\n", False),
    ],
)
def test_overlapping_conditions_are_read_as_before(source: bytes, expected: bool) -> None:
    assert in_condition(source, ROLE, (b"raise",)) is expected
