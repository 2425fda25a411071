"""Helpers for the CLI tests: run the real ``pdlint`` on packages in tmp_path."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from pdlint.cli import cli

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"

# What fixtures/relay_gap/expected.txt promises, with the columns pdlint reports.
GAP_PDL001 = "relay_gap_engine/spec_info.py:48:5: PDL001 "
GAP_PDL101 = "relay_gap_engine/spec_utils.py:20:9: PDL101 "
CONSUMER = Path("relay_gap_engine/spec_utils.py")  # line 20 holds the dereference


def run_pdlint(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str],
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``python -m pdlint ARGS`` in ``cwd``; stdout and stderr captured as text."""
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "pdlint", *map(str, args)],
        cwd=cwd,
        input=data,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8"),
        proc.stderr.decode("utf-8"),
    )


@contextlib.contextmanager
def chdir(path: str | os.PathLike[str]) -> Iterator[None]:
    """``contextlib.chdir`` for Python 3.10."""
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def invoke(
    *args: str | os.PathLike[str], cwd: str | os.PathLike[str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The same CLI in this process (click's CliRunner): for the large tables.

    Returns what :func:`run_pdlint` returns, so a test reads the same either way.
    """
    with chdir(cwd):
        result = CliRunner().invoke(cli, [str(a) for a in args], input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(
        ["pdlint", *map(str, args)], result.exit_code, result.stdout, result.stderr
    )


def copy_relay_gap(dest: Path) -> Path:
    """Copy fixtures/relay_gap (one PDL001, one PDL101) to ``dest``."""
    shutil.copytree(FIXTURES / "relay_gap", dest)
    return dest
