"""Shared helpers and fixtures: run the real CLI, read its JSON output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pdlint_helpers import copy_relay_gap

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Runs in fixtures/ would put their cache there: point it to a temporary folder."""
    before = os.environ.get("PDLINT_CACHE_DIR")
    os.environ["PDLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("pdlint-cache"))
    yield
    if before is None:
        del os.environ["PDLINT_CACHE_DIR"]
    else:
        os.environ["PDLINT_CACHE_DIR"] = before


def run_pdlint(
    *args: str, cwd: Path | str | None = None, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``python -m pdlint ARGS`` and return the completed process (text)."""
    return subprocess.run(
        [sys.executable, "-m", "pdlint", *args],
        cwd=cwd,
        input=stdin.decode("latin-1") if stdin is not None else None,
        capture_output=True,
        text=True,
        timeout=600,
    )


def json_findings(*args: str, cwd: Path | str | None = None) -> list[dict]:
    """Findings of a JSON run (exit 0 or 1 expected)."""
    proc = run_pdlint("check", "--output-format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def summary(findings: list[dict]) -> list[str]:
    """``CODE path:line MEMBER`` lines, sorted (the expected.txt format)."""
    return sorted(
        f"{f['code']} {f['filename']}:{f['location']['row']} {f['member']}" for f in findings
    )


@pytest.fixture
def relay_gap(tmp_path: Path) -> Path:
    """A fresh copy of the relay_gap fixture in tmp_path (``tmp_path/relay_gap``)."""
    return copy_relay_gap(tmp_path / "relay_gap")
