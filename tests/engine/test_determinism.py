"""Determinism: the same inputs give byte-identical output in every format.

The input is a copy of every fixture (hundreds of files, a lazy run, and
findings of all kinds, PDL900 included: ``--check-syntax`` parses the files the
analysis needs not). Output must not change across runs and hash seeds,
across the order in which the file system lists or created the files, and
across the number of worker processes that index them (``PDLINT_WORKERS``).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pdlint_helpers import FIXTURES, invoke

FORMATS = ("concise", "full", "json", "sarif", "github")


def copy_fixtures(dest: Path, order: str = "sorted") -> Path:
    """All fixtures under ``dest``, their files created in ``order``."""
    files = sorted(p for p in FIXTURES.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    if order == "reversed":
        files.reverse()
    elif order == "shuffled":
        random.Random(7).shuffle(files)
    for path in files:
        target = dest / path.relative_to(FIXTURES)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    (dest / "broken_a.py").write_text("def (\n")
    (dest / "broken_b.py").write_bytes(b"A = '\xff'\n")
    return dest


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_fixtures(tmp_path_factory.mktemp("determinism") / "proj")


def outputs(project: Path) -> dict[str, str]:
    """Output of ``pdlint check .`` in every format, run in this process."""
    out = {}
    for fmt in FORMATS:
        res = invoke("check", ".", "--check-syntax", "--output-format", fmt, cwd=project)
        assert res.returncode == 1, res.stderr
        out[fmt] = res.stdout
    return out


@pytest.fixture(scope="module")
def baseline(project: Path) -> dict[str, str]:
    out = outputs(project)
    assert out["concise"].count(" PDL900 ") == 2
    assert len(out["concise"].splitlines()) > 50
    return out


def test_same_bytes_across_runs_and_hash_seeds(project, baseline):
    for seed in ("1", "2"):
        for fmt in FORMATS:
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pdlint",
                    "check",
                    ".",
                    "--check-syntax",
                    "--output-format",
                    fmt,
                ],
                cwd=project,
                capture_output=True,
                env={**os.environ, "PYTHONHASHSEED": seed},
                timeout=120,
            )
            assert proc.returncode == 1
            assert proc.stdout.decode("utf-8") == baseline[fmt], (seed, fmt)


@pytest.mark.parametrize("workers", ["1", "2", "3"])
def test_same_bytes_across_worker_counts(project, baseline, monkeypatch, workers):
    monkeypatch.setenv("PDLINT_WORKERS", workers)
    assert outputs(project) == baseline


class _Listing:
    """``os.scandir``'s iterator with its entries in another order."""

    def __init__(self, entries: list[os.DirEntry[str]]) -> None:
        self._entries = iter(entries)

    def __iter__(self) -> Iterator[os.DirEntry[str]]:
        return self

    def __next__(self) -> os.DirEntry[str]:
        return next(self._entries)

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def close(self) -> None:
        return None


@pytest.mark.parametrize("order", ["reversed", "shuffled-1", "shuffled-2"])
def test_same_bytes_whatever_order_directories_are_listed_in(project, baseline, monkeypatch, order):
    real_scandir = os.scandir
    rng = random.Random(order)
    listed: list[str] = []

    def scandir(path: str = ".") -> _Listing:
        with real_scandir(path) as it:
            entries = list(it)
        entries.sort(key=lambda e: e.name, reverse=True)
        if order.startswith("shuffled"):
            rng.shuffle(entries)
        listed.extend(e.path for e in entries if e.name.endswith(".py"))
        return _Listing(entries)

    monkeypatch.setattr(os, "scandir", scandir)
    assert outputs(project) == baseline
    # The walk really met the files in another order than the sorted one.
    assert listed and listed != sorted(listed)


def test_same_bytes_whatever_order_files_were_created_in(tmp_path, baseline, project):
    for order in ("reversed", "shuffled"):
        # The same path as the baseline's project, so that absolute paths match.
        shutil.rmtree(project)
        copy_fixtures(project, order)
        assert outputs(project) == baseline, order
    shutil.rmtree(project)
    copy_fixtures(project)
