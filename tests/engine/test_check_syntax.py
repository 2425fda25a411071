"""Syntax errors in a large tree: a lazy run says how many files it did not parse,
and ``--check-syntax`` (or ``check-syntax = true``) gives each broken file its PDL900.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL101, copy_relay_gap, run_pdlint

from pdlint.engine.run import LAZY_THRESHOLD

BROKEN = "filler/broken.py:2:12: PDL900 "
NOT_PARSED = re.compile(r"^(\d+) of (\d+) files were not parsed \(no check needed them\)", re.M)


def large_tree(folder: Path) -> Path:
    """relay_gap beside enough unrelated modules to be analysed lazily, one of them
    broken and needed by no check."""
    copy_relay_gap(folder)
    filler = folder / "filler"
    filler.mkdir()
    (filler / "__init__.py").write_text("")
    for i in range(LAZY_THRESHOLD):
        (filler / f"m{i}.py").write_text(f"def f{i}(x):\n    return x + {i}\n")
    (filler / "broken.py").write_text("def ok():\n    return (1,\n")
    return folder


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return large_tree(tmp_path_factory.mktemp("syntax") / "tree")


def test_a_lazy_run_says_how_many_files_it_did_not_parse(tree: Path) -> None:
    proc = run_pdlint("check", "--no-cache", ".", cwd=tree)
    assert proc.returncode == 1
    assert GAP_PDL101 in proc.stdout
    assert BROKEN not in proc.stdout
    found = NOT_PARSED.search(proc.stderr)
    assert found, proc.stderr
    files = len(list(tree.rglob("*.py")))
    not_parsed, total = int(found.group(1)), int(found.group(2))
    assert total == files
    # every filler module but none of the engine's files
    assert LAZY_THRESHOLD < not_parsed <= LAZY_THRESHOLD + 2
    assert "--check-syntax" in proc.stderr
    # the summary is for people: -q and machine formats keep stdout clean
    quiet = run_pdlint("check", "--no-cache", "-q", ".", cwd=tree)
    assert not NOT_PARSED.search(quiet.stderr)
    as_json = run_pdlint("check", "--no-cache", "--output-format", "json", ".", cwd=tree)
    json.loads(as_json.stdout)


@pytest.mark.parametrize("cache", [False, True], ids=["no-cache", "cached"])
def test_check_syntax_reports_every_broken_file(tmp_path: Path, cache: bool) -> None:
    tree = large_tree(tmp_path / "tree")
    flags = [] if cache else ["--no-cache"]
    for _ in range(2 if cache else 1):  # cold, then warm from the run record
        proc = run_pdlint("check", *flags, "--check-syntax", ".", cwd=tree)
        assert proc.returncode == 1
        assert BROKEN in proc.stdout
        assert GAP_PDL101 in proc.stdout
        assert not NOT_PARSED.search(proc.stderr)
    # the same findings as a run that parses every file
    full = run_pdlint("check", "--no-cache", "--output-format", "json", ".", cwd=tree)
    lazy = run_pdlint("check", *flags, "--check-syntax", "--output-format", "json", ".", cwd=tree)
    assert BROKEN.split(":")[0] in {f["filename"] for f in json.loads(lazy.stdout)}
    assert {f["code"] for f in json.loads(full.stdout)} <= {
        f["code"] for f in json.loads(lazy.stdout)
    }


def test_check_syntax_from_the_config(tmp_path: Path) -> None:
    tree = large_tree(tmp_path / "tree")
    (tree / "pyproject.toml").write_text("[tool.pdlint]\ncheck-syntax = true\n")
    proc = run_pdlint("check", "--no-cache", ".", cwd=tree)
    assert BROKEN in proc.stdout
    (tree / "pyproject.toml").write_text('[tool.pdlint]\ncheck-syntax = "yes"\n')
    bad = run_pdlint("check", "--no-cache", ".", cwd=tree)
    assert bad.returncode == 2
    assert "check-syntax" in bad.stderr


def test_an_edit_of_an_unneeded_file_is_seen_with_check_syntax(tmp_path: Path) -> None:
    """The run record of a --check-syntax run depends on every file."""
    tree = large_tree(tmp_path / "tree")
    first = run_pdlint("check", "--check-syntax", ".", cwd=tree)
    assert BROKEN in first.stdout
    (tree / "filler" / "broken.py").write_text("def ok():\n    return (1,)\n")
    fixed = run_pdlint("check", "--check-syntax", ".", cwd=tree)
    assert BROKEN not in fixed.stdout
    (tree / "filler" / "m7.py").write_text("def f7(:\n")
    broken = run_pdlint("check", "--check-syntax", ".", cwd=tree)
    assert "filler/m7.py:1:8: PDL900 " in broken.stdout


def test_a_small_tree_is_parsed_whole(tmp_path: Path) -> None:
    tree = copy_relay_gap(tmp_path / "small")
    (tree / "broken.py").write_text("def f(:\n")
    proc = run_pdlint("check", "--no-cache", ".", cwd=tree)
    assert "broken.py:1:7: PDL900 " in proc.stdout
    assert not NOT_PARSED.search(proc.stderr)
