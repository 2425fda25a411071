"""The project's own call-graph cases (tests/model/cases, PyCG's format, written for
pdlint): the micro-benchmark's categories in other words, orders and combinations.
Each case's graph from ``pdlint graph --all --format pycg`` must be the expected one."""

from __future__ import annotations

from pathlib import Path

import pytest
from callgraph_cases import score_case

CASES = Path(__file__).resolve().parent / "cases"


def _cases() -> list[Path]:
    return sorted(p.parent for p in CASES.glob("*/*/callgraph.json"))


@pytest.mark.parametrize("case", _cases(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_graph(case: Path) -> None:
    expected, found = score_case(case)
    missing, extra = sorted(expected - found), sorted(found - expected)
    assert found == expected, f"missing {missing}, extra {extra}"


def test_every_category_has_cases() -> None:
    """The benchmark's 18 categories, each with cases of its own."""
    categories = {p.parent.name for p in _cases()}
    assert len(categories) == 18, sorted(categories)
    assert len(_cases()) >= 60
