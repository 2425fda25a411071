"""Pathological but valid code: each run completes within its bound, no traceback.

Every case is a copy of fixtures/relay/relay_gap with one dimension pushed to an
extreme (see ``pathological.py``), analysed by the real command line in a
subprocess. The relay gap must still be found, stderr must be empty (no
traceback, no RecursionError), and the run must end within the bound stated in
the README's "Guarantees" section. Bounds are about five times the time
measured on two shared cores.
"""

from __future__ import annotations

import ast
import json
import re
import time
import warnings
from pathlib import Path

import pathological
import pytest
from pathological import BOUNDS
from pdlint_helpers import GAP_PDL001, GAP_PDL101, REPO, run_pdlint


def timed_check(root: Path, *args: str) -> tuple[list[str], float]:
    """Run ``pdlint check . ARGS`` in ``root``: stdout lines and seconds taken.

    Asserts what every case shares: exit 1 (the relay gap), nothing on stderr but
    the summary.
    """
    start = time.monotonic()
    proc = run_pdlint("check", ".", *args, cwd=root)
    elapsed = time.monotonic() - start
    assert re.fullmatch(r"Found \d+ findings \(\d+ errors?\)\.\n", proc.stderr), proc.stderr[-2000:]
    assert proc.returncode == 1
    return proc.stdout.splitlines(), elapsed


def assert_gap_found(lines: list[str]) -> None:
    assert sum(line.startswith(GAP_PDL001) for line in lines) == 1
    assert any(line.startswith(GAP_PDL101) for line in lines)


def rejected_by_python(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    return False


def test_expressions_nested_5000_deep(tmp_path: Path):
    root = tmp_path / "proj"
    shapes = pathological.nested_expressions(root)
    pkg = root / pathological.PKG

    lines, elapsed = timed_check(root)

    assert elapsed < BOUNDS["nested"]
    assert_gap_found(lines)
    errors = {
        line.split(":", 1)[0].rsplit("/", 1)[-1]: line.split(" PDL900 ", 1)[1]
        for line in lines
        if " PDL900 " in line
    }
    rejected = {name for name in shapes if rejected_by_python((pkg / name).read_text())}
    # Most shapes exceed CPython's nesting limits; the two below them parse.
    assert len(rejected) == len(shapes) - 2
    assert set(errors) == rejected
    for name, message in errors.items():
        assert message.startswith(("syntax error: ", "cannot parse: ")), (name, message)


def test_a_20_megabyte_file(tmp_path: Path):
    root = tmp_path / "proj"
    path = pathological.huge_file(root)
    assert path.stat().st_size == 20_000_000

    lines, elapsed = timed_check(root, "--output-format", "concise")

    assert elapsed < BOUNDS["huge_file"]
    assert_gap_found(lines)
    assert not any(" PDL900 " in line for line in lines)


def test_an_enum_with_10000_members(tmp_path: Path):
    root = tmp_path / "proj"
    pathological.huge_enum(root)

    lines, elapsed = timed_check(root)

    assert elapsed < BOUNDS["huge_enum"]
    pdl101 = [line for line in lines if " PDL101 " in line]
    pdl001 = [line for line in lines if " PDL001 " in line]
    # DFLASH and the 9,996 extra members all reach the dereference.
    assert len(pdl101) == 9997
    assert all(line.startswith("relay_gap_engine/spec_utils.py:20:9: PDL101 ") for line in pdl101)
    assert {line.split(" PDL101 ")[1].split()[0] for line in pdl101} == {"DFLASH"} | {
        f"X{i}" for i in range(9996)
    }
    # The builder's def moved down by one line per extra member.
    assert len(pdl001) == 1
    assert pdl001[0].startswith("relay_gap_engine/spec_info.py:10044:5: PDL001 ")
    # the line stays short: two members, then how many more (all of them in JSON)
    assert pdl001[0].endswith("builds no `draft_input` for DFLASH, NONE and 9996 more")


def test_predicates_calling_each_other_in_cycles(tmp_path: Path):
    root = tmp_path / "proj"
    pathological.predicate_cycles(root)

    lines, elapsed = timed_check(root, "--output-format", "json")

    assert elapsed < BOUNDS["predicate_cycles"]
    found = sorted(
        f"{f['code']} {f['filename']}:{f['location']['row']} {f['member']}"
        for f in json.loads("\n".join(lines))
    )
    # The consumer guarded by a cyclic predicate is unknown: no finding there.
    assert found == [
        "PDL001 relay_gap_engine/spec_info.py:3048 DFLASH,NONE",  # 48 + 600 five-line methods
        "PDL101 relay_gap_engine/spec_utils.py:20 DFLASH",
    ]


def test_a_call_graph_full_of_cycles(tmp_path: Path):
    root = tmp_path / "proj"
    pathological.call_graph_cycles(root)

    lines, elapsed = timed_check(root, "--output-format", "full")

    assert elapsed < BOUNDS["call_graph_cycles"]
    assert_gap_found(lines)
    # The PDL101 path enters the ring at step_0 and leaves it from the last step.
    path = [line for line in lines[lines.index("    = call path:") + 1 :] if line]
    assert path[-1].endswith("dereferences `batch.draft_input`")
    assert any(step.endswith("calls `steps.step_0`") for step in path)
    assert path[-2].startswith("        relay_gap_engine/steps.py:")
    assert path[-2].endswith("calls `spec_utils.spec_prepare_decode`")


def test_a_class_with_100_mixins(tmp_path: Path):
    root = tmp_path / "proj"
    pathological.many_mixins(root)

    lines, elapsed = timed_check(root, "--output-format", "full")

    assert elapsed < BOUNDS["many_mixins"]
    assert_gap_found(lines)
    # The call path walks the mixin chain from Mixin0 to Mixin99.
    assert any("calls `Mixin99.step_99`" in line for line in lines)


@pytest.mark.parametrize(
    "case", ["huge_enum", "predicate_cycles", "call_graph_cycles", "many_mixins"]
)
def test_pathological_cases_are_valid_python(tmp_path: Path, case: str):
    root = tmp_path / "proj"
    getattr(pathological, case)(root)
    for path in sorted((root / pathological.PKG).glob("*.py")):
        compile(path.read_text(), str(path), "exec")


def test_the_readme_states_these_bounds_and_names_existing_tests():
    readme = (REPO / "README.md").read_text()
    section = readme.split("## Guarantees", 1)[1].split("\n## ", 1)[0]
    phrases = {
        "nested": "expressions nested 5,000 deep",
        "huge_file": "a 20 MB generated module",
        "huge_enum": "an enum of 10,000 members",
        "predicate_cycles": "600 predicates calling each other in cycles",
        "call_graph_cycles": "a call graph of 3,000 mutually recursive functions",
        "many_mixins": "a class with 100 mixins",
    }
    for case, phrase in phrases.items():
        assert f"{BOUNDS[case]} s for {phrase}" in section, case
    named = set(re.findall(r"`(test_\w+\.py)`", section))
    assert named >= {"test_fuzz.py", "test_pathological.py", "test_bad_files.py"}
    for name in named:
        assert any((REPO / "tests").rglob(name)), name
