"""A large file is indexed a piece at a time, its facts pickled as they are made.

The facts of a file parsed in pieces travel (from a worker, to the cache) as one
pickle per piece; read back they are the facts of the file indexed whole. A file
over the piecewise size whose facts would take more than ``FACTS_PER_BYTE`` times
its size gets a PDL900 instead, unless it has a syntax error, which it gets as any
file does.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pdlint_helpers import FIXTURES, GAP_PDL001, copy_relay_gap, run_pdlint

from pdlint.engine.workers import FACTS_PER_BYTE, index_payload, index_result, result_of
from pdlint.facts.indexer import index_module
from pdlint.source.pieces import PIECEWISE_BYTES
from pdlint.source.read import _parse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "source"))
from test_pieces import fixture_sources  # noqa: E402


def source_over(size: int) -> str:
    """Our fixtures' code, repeated past ``size`` characters (real density)."""
    text = fixture_sources()
    return text * (size // len(text) + 1)


def small_functions(size: int) -> str:
    """Nothing but tiny functions: the densest facts per byte."""
    one = "def f{}(a, b):\n    x = a.b(b)\n    return x.c\n\n\n"
    return "".join(one.format(i) for i in range(size // 45))


def job(text: str) -> tuple[str, str, bytes, str]:
    return ("m.py", "m.py", text.encode(), "m")


def test_a_large_file_pickled_in_pieces_reads_back_as_indexed_whole():
    text = source_over(PIECEWISE_BYTES + 1)
    payload = index_payload(job(text))
    assert len(payload) <= FACTS_PER_BYTE * len(text)  # real code's density
    whole = ("facts", index_module("m.py", "m.py", _parse(text), text, "m"))
    assert result_of(payload) == whole
    assert index_result(job(text)) == whole
    # a payload cut short never reads as fewer facts
    assert result_of(payload[: len(payload) // 2]) is None


def test_a_dense_large_file_gets_a_pdl900():
    text = small_functions(PIECEWISE_BYTES + 50_000)
    result = index_result(job(text))
    assert result[0] == "error" and result[2:] == (1, 1)
    assert str(result[1]).startswith("cannot analyse: too large (")
    # the same file below the piecewise size is analysed
    assert index_result(job(small_functions(PIECEWISE_BYTES // 2)))[0] == "facts"


def test_a_dense_large_file_with_a_syntax_error_gets_that_error():
    text = small_functions(PIECEWISE_BYTES + 50_000)
    lines = text.count("\n")
    result = index_result(job(text + "def broken(:\n    pass\n"))
    assert result == ("error", "syntax error: invalid syntax", lines + 1, 12)


def test_the_command_line_reports_a_large_files_findings_cold_and_warm(tmp_path: Path):
    root = copy_relay_gap(tmp_path / "proj")
    large = root / "relay_gap_engine" / "large.py"
    large.write_text(source_over(PIECEWISE_BYTES + 1), encoding="utf-8")
    dense = root / "relay_gap_engine" / "dense.py"
    dense.write_text(small_functions(PIECEWISE_BYTES + 50_000), encoding="utf-8")
    runs = [run_pdlint("check", ".", "--output-format", "concise", cwd=root) for _ in range(2)]
    uncached = run_pdlint("check", ".", "--no-cache", "--output-format", "concise", cwd=root)
    assert runs[0].stdout == runs[1].stdout == uncached.stdout
    lines = runs[0].stdout.splitlines()
    assert sum(line.startswith(GAP_PDL001) for line in lines) == 1
    pdl900 = [line for line in lines if " PDL900 " in line]
    assert pdl900 == [
        next(line for line in lines if line.startswith("relay_gap_engine/dense.py:1:1: PDL900 "))
    ]
    assert "cannot analyse: too large" in pdl900[0]
    # the large file of real code is analysed: its copies of the fixtures' findings
    assert any(line.startswith("relay_gap_engine/large.py:") for line in lines)
    assert FIXTURES.is_dir()
