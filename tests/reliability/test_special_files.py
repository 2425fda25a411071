"""Special files never hang a run or exhaust its memory (issue 35, point 3).

A repository can ship links to devices and kernel files, FIFOs, and a cache
folder made of them: each source gets a PDL900 (a configuration, pack or
baseline an error naming it, exit 2), cache entries are misses, and the relay
gap in the healthy package is still found.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, run_pdlint

PKG = "relay_gap_engine"
ROOT = os.geteuid() == 0 if hasattr(os, "geteuid") else False
needs_root = pytest.mark.skipif(not ROOT, reason="/proc/kmsg is readable by root only")
linux = pytest.mark.skipif(not Path("/proc/self/pagemap").exists(), reason="Linux /proc")


def pdl900(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if " PDL900 " in line]


def assert_gap_found(stdout: str) -> None:
    lines = stdout.splitlines()
    assert sum(line.startswith(GAP_PDL001) for line in lines) == 1, stdout
    assert sum(line.startswith(GAP_PDL101) for line in lines) == 1, stdout


@linux
def test_a_link_to_a_never_ending_kernel_file_is_capped(relay_gap):
    # stat calls /proc/self/pagemap regular, and reading it never ends
    (relay_gap / PKG / "pagemap.py").symlink_to("/proc/self/pagemap")

    res = run_pdlint("check", ".", "--no-cache", cwd=relay_gap, timeout=60)

    assert res.returncode == 1, res.stderr
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [
        f"{PKG}/pagemap.py:1:1: PDL900 cannot read: larger than 64 MB, "
        "the most pdlint reads from a file"
    ]


@linux
@pytest.mark.parametrize("fmt", ["full", "sarif"])
def test_a_capped_file_is_not_read_again_for_its_lines(relay_gap, fmt):
    (relay_gap / PKG / "pagemap.py").symlink_to("/proc/self/pagemap")

    res = run_pdlint("check", ".", "--output-format", fmt, cwd=relay_gap, timeout=60)

    assert res.returncode == 1, res.stderr
    assert "pagemap.py" in res.stdout and "larger than 64 MB" in res.stdout


@needs_root
def test_a_link_to_a_blocking_kernel_file_in_the_tree(relay_gap):
    (relay_gap / PKG / "kmsg.py").symlink_to("/proc/kmsg")

    res = run_pdlint("check", ".", "--no-cache", cwd=relay_gap, timeout=60)

    assert res.returncode == 1, res.stderr
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [
        f"{PKG}/kmsg.py:1:1: PDL900 cannot read: reading it would block (not a file on disk)"
    ]


@linux
def test_devices_named_on_the_command_line(relay_gap):
    res = run_pdlint("check", ".", "/dev/zero", "/dev/urandom", cwd=relay_gap, timeout=60)

    assert res.returncode == 1, res.stderr
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [
        "/dev/urandom:1:1: PDL900 cannot read: a character device, not a regular file",
        "/dev/zero:1:1: PDL900 cannot read: a character device, not a regular file",
    ]


def test_a_fifo_named_on_the_command_line_that_nobody_writes(relay_gap):
    os.mkfifo(relay_gap / "silent.py")

    started = time.monotonic()
    res = run_pdlint("check", ".", "silent.py", cwd=relay_gap, timeout=60)

    assert time.monotonic() - started < 30
    assert res.returncode == 1, res.stderr
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [
        "silent.py:1:1: PDL900 cannot read: a FIFO that did not end within 5 s"
    ]


def test_a_fifo_as_the_configuration(relay_gap):
    os.mkfifo(relay_gap / "pdlint.toml")

    res = run_pdlint("check", ".", "--config", "pdlint.toml", cwd=relay_gap, timeout=30)

    assert res.returncode == 2
    assert "pdlint.toml: cannot read" in res.stderr and "a FIFO, not a regular file" in res.stderr


def test_a_fifo_as_the_baseline(relay_gap):
    os.mkfifo(relay_gap / "baseline.json")

    res = run_pdlint("check", ".", "--baseline", "baseline.json", cwd=relay_gap, timeout=30)

    assert res.returncode == 2
    assert "baseline.json: cannot read baseline" in res.stderr
    assert "a FIFO, not a regular file" in res.stderr


@needs_root
def test_a_pack_that_is_a_blocking_kernel_file(relay_gap):
    (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\npacks = ["/proc/kmsg"]\n')

    res = run_pdlint("check", ".", cwd=relay_gap, timeout=30)

    assert res.returncode == 2
    assert "/proc/kmsg: cannot read" in res.stderr and "would block" in res.stderr


@linux
@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_shipped_cache_of_special_files(relay_gap, kind):
    own = {"PDLINT_CACHE_DIR": ""}  # the project's .pdlint_cache, not the tests' folder
    first = run_pdlint("check", ".", cwd=relay_gap, env=own)
    assert first.returncode == 1
    # every file of the cache (index, packs, the file stats and run records)
    files = [
        path
        for path in (relay_gap / ".pdlint_cache").glob("v*/**/*")
        if path.is_file() and path.name not in ("CACHEDIR.TAG", ".gitignore")
    ]
    assert len(files) >= 3
    for path in files:
        path.unlink()
        os.mkfifo(path) if kind == "fifo" else path.symlink_to(kind)

    res = run_pdlint("check", ".", cwd=relay_gap, env=own, timeout=60)

    assert res.returncode == 1, res.stderr
    assert res.stdout == first.stdout


@linux
@pytest.mark.parametrize("role", ["configuration", "pack", "baseline", "pyproject.toml"])
def test_settings_that_never_end_are_capped(relay_gap, role):
    """A configuration, pack, baseline or pyproject.toml that is a link to a kernel
    file stat calls regular and that never ends: an error naming it, not a run that
    reads until memory runs out."""
    endless = "/proc/self/pagemap"
    args = []
    if role == "configuration":
        (relay_gap / "pdlint.toml").symlink_to(endless)
        args = ["--config", "pdlint.toml"]
    elif role == "pack":
        (relay_gap / "pack.toml").symlink_to(endless)
        (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\npacks = ["pack.toml"]\n')
    elif role == "baseline":
        (relay_gap / "baseline.json").symlink_to(endless)
        args = ["--baseline", "baseline.json"]
    else:
        (relay_gap / "pyproject.toml").symlink_to(endless)

    res = run_pdlint("check", ".", "--no-cache", *args, cwd=relay_gap, timeout=60)

    assert res.returncode == 2, res.stderr
    assert "larger than 64 MB" in res.stderr and "Traceback" not in res.stderr, res.stderr
