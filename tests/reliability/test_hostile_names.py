"""File names an attacker or an unlucky user can put in a tree (issue 35).

A name that is not UTF-8, or that holds a newline or another control character,
is reported like any other file: the run completes with every other finding,
in every output format, and no name forges a line of text output.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, run_pdlint

pytestmark = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="names that are not UTF-8 need a POSIX file system"
)

PKG = "relay_gap_engine"
FORMATS = ["concise", "full", "json", "sarif", "github"]
UTF8 = {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8:strict"}  # a user's terminal


def add(root: Path, name: bytes, text: str) -> None:
    path = os.path.join(os.fsencode(root), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)


@pytest.fixture
def undecodable(relay_gap: Path) -> Path:
    """relay_gap, plus files and a folder whose names are not UTF-8."""
    add(relay_gap, PKG.encode() + b"/bad\xff.py", "def broken(:\n")
    add(relay_gap, PKG.encode() + b"/ok\xfe.py", "X = 1\n")
    add(relay_gap, b"sub\xfd/m.py", "def f(:\n")
    return relay_gap


@pytest.mark.parametrize("cache", ["--no-cache", "cached"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_name_that_is_not_utf8_keeps_the_run(undecodable: Path, fmt: str, cache: str):
    args = ["check", "--output-format", fmt, "."] + ([cache] if cache != "cached" else [])
    for _ in range(2 if cache == "cached" else 1):  # cold, then warm
        res = run_pdlint(*args, cwd=undecodable, env=UTF8)
        assert res.returncode == 1, res.stderr
        assert "internal error" not in res.stderr and "Traceback" not in res.stderr
        out = res.stdout
        if fmt in ("concise", "full"):
            lines = out.splitlines()
            assert sum(line.startswith(GAP_PDL001) for line in lines) == 1, out
            assert sum(line.startswith(GAP_PDL101) for line in lines) == 1, out
            assert f"{PKG}/bad\\xff.py:1:12: PDL900 syntax error: invalid syntax" in lines
            assert "sub\\xfd/m.py:1:7: PDL900 syntax error: invalid syntax" in lines
        elif fmt == "json":
            found = {(f["code"], f["filename"]) for f in json.loads(out)}
            assert ("PDL900", f"{PKG}/bad\udcff.py") in found
            assert ("PDL900", "sub\udcfd/m.py") in found
            assert {"PDL001", "PDL101"} <= {code for code, _ in found}
        elif fmt == "sarif":
            results = json.loads(out)["runs"][0]["results"]
            uris = {
                (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                for r in results
            }
            assert ("PDL900", f"{PKG}/bad%FF.py") in uris
            assert ("PDL900", "sub%FD/m.py") in uris
            assert ("PDL101", f"{PKG}/spec_utils.py") in uris
        else:
            assert f"file={PKG}/bad\\xff.py,line=1" in out
            assert out.count("::") == 2 * 4  # four annotations, one line each
            assert len(out.splitlines()) == 4


FORGED = b"bad\n" + b"x.py:1:1: PDL101 forged\r\x1b[2K\x85\xe2\x80\xa8.py"


@pytest.mark.parametrize("fmt", ["concise", "full"])
def test_a_newline_in_a_name_forges_no_line(relay_gap: Path, fmt: str):
    add(relay_gap, PKG.encode() + b"/" + FORGED, "def broken(:\n")

    res = run_pdlint("check", "--no-cache", "--output-format", fmt, ".", cwd=relay_gap, env=UTF8)

    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert not any("forged" in line and "PDL900" not in line for line in lines), lines
    shown = f"{PKG}/bad\\nx.py:1:1: PDL101 forged\\r\\x1b[2K\\x85\\u2028.py:1:12: PDL900 "
    assert sum(line.startswith(shown) for line in lines) == 1, lines
    if fmt == "concise":
        assert len(lines) == 3
