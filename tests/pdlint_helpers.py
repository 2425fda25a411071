"""Helpers shared by the tests: run the real ``pdlint``, read its JSON, find fixtures.

Not a test module: test modules import from here (never from each other or from
conftest, which holds pytest fixtures only).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

from click.testing import CliRunner

from pdlint.cli import cli

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"


def fixture_dirs() -> list[Path]:
    """Every fixture's folder (``fixtures/<family>/<name>``), sorted by name."""
    families = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
    return sorted((p for f in families for p in f.iterdir() if p.is_dir()), key=lambda p: p.name)


def fixture(name: str) -> Path:
    """The folder of the fixture ``name``, whichever family folder holds it."""
    (found,) = [p for p in fixture_dirs() if p.name == name]
    return found


# What fixtures/relay/relay_gap/expected.txt promises, with the columns pdlint reports.
GAP_PDL001 = "relay_gap_engine/spec_info.py:48:5: PDL001 "
GAP_PDL101 = "relay_gap_engine/spec_utils.py:20:9: PDL101 "
CONSUMER = Path("relay_gap_engine/spec_utils.py")  # line 20 holds the dereference


def run_pdlint(
    *args: str | os.PathLike[str],
    cwd: str | os.PathLike[str] | None = None,
    stdin: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``python -m pdlint ARGS`` in ``cwd``; stdout and stderr captured as text.

    ``env`` is added to this process's environment; a ``str`` stdin is sent as UTF-8.
    """
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    proc = subprocess.run(
        [sys.executable, "-m", "pdlint", *map(str, args)],
        cwd=cwd,
        input=data,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
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


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (made if needed): test processes running side
    by side (pytest-xdist's workers) download, unpack or run one thing once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def json_findings(*args: str, cwd: Path | str | None = None) -> list[dict]:
    """Findings of a JSON run (exit 0 or 1 expected); runs on real trees take minutes."""
    proc = run_pdlint("check", "--output-format", "json", *args, cwd=cwd, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def summary(findings: list[dict]) -> list[str]:
    """``CODE path:line MEMBER`` lines, sorted (the expected.txt format)."""
    return sorted(
        f"{f['code']} {f['filename']}:{f['location']['row']} {f['member']}" for f in findings
    )


def write_package(root: Path, files: dict[str, str]) -> Path:
    """Write ``files`` (path -> source, dedented) under ``root``; return ``root``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


def package_findings(root: Path, files: dict[str, str] | None = None) -> list[str]:
    """``CODE path:line MEMBER`` of ``pdlint check`` on ``root`` (after writing ``files``)."""
    write_package(root, files or {})
    done = invoke("check", "--no-cache", "--output-format", "json", ".", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    return summary(json.loads(done.stdout))


def copy_relay_gap(dest: Path) -> Path:
    """Copy fixtures/relay/relay_gap (one PDL001, one PDL101) to ``dest``."""
    shutil.copytree(fixture("relay_gap"), dest)
    return dest
