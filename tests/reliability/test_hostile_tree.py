"""Every kind of hostile file of issue 35 at once, beside a healthy package.

A pull request can add any file, name, ``.pdlint_cache`` and ``[tool.pdlint]`` to
a repository. Here one tree holds a copy of fixtures/relay/relay_gap and, beside
it, each kind the issue names: special files, text that made the scan quadratic,
hostile globs in the configuration and in a pack, large and dense files, names
that are not UTF-8 or hold a newline, nesting near CPython's limit, and a shipped
cache folder (a link out of the project, then pdlint's own with its files
replaced by FIFOs, links to ``/dev/zero``, leftovers of killed runs and packs of
another key). The tree is large enough for a lazy run, and every file is parsed
(``check-syntax``). Each of the two runs must end within :data:`BOUND` seconds (before the
fixes of the issue, any one of these kinds hung it, ran out of memory or crashed
it), keep the healthy package's findings exactly, and write nothing outside the
project.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import pytest
from large_inputs import short_lines, small_functions
from pathological import text_scan_shapes
from pdlint_helpers import GAP_PDL001, GAP_PDL101, copy_relay_gap, run_pdlint

from pdlint.engine.run import LAZY_THRESHOLD
from pdlint.source.pieces import PIECEWISE_BYTES

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc")

PKG = "relay_gap_engine"
BOUND = 150  # seconds a run may take on two loaded cores; each kind alone took minutes
NO_CACHE_ENV = {"PDLINT_CACHE_DIR": ""}  # the project's own .pdlint_cache


def add(root: Path, name: bytes, text: str) -> None:
    path = os.path.join(os.fsencode(root), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def healthy_tree(root: Path) -> Path:
    """relay_gap and enough small modules for a lazy run."""
    copy_relay_gap(root)
    filler = root / "filler"
    filler.mkdir()
    for i in range(LAZY_THRESHOLD):
        (filler / f"small_{i}.py").write_text(f"def size_{i}(items):\n    return len(items)\n")
    return root


def add_hostile_files(root: Path) -> None:
    hostile = root / "hostile"
    hostile.mkdir()
    # point 3: special files in the tree
    (hostile / "pagemap.py").symlink_to("/proc/self/pagemap")  # stat says regular
    if os.geteuid() == 0:
        (hostile / "kmsg.py").symlink_to("/proc/kmsg")  # blocks
    os.mkfifo(hostile / "fifo.py")
    # point 4: text the scan read in quadratic time
    for name, text in text_scan_shapes().items():
        (hostile / f"scan_{name}.py").write_text(text)
    # point 6: large and dense files
    (hostile / "dense.py").write_text(small_functions(PIECEWISE_BYTES + 100_000))
    (hostile / "dense_broken.py").write_text(
        small_functions(PIECEWISE_BYTES + 100_000) + "def broken(:\n    pass\n"
    )
    (hostile / "short_lines.py").write_text(short_lines(200_000))
    # points 7 and 10: names
    add(root, b"hostile/caf\xe9.py", "def broken(:\n")
    add(root, b"hostile/evil\nname.py", "X = 1\n")
    # point 8: nesting near CPython's limit, either side
    for depth in (2900, 3100):
        (hostile / f"deep_{depth}.py").write_text("x = a" + "()" * depth + "\n")
    # point 5: globs that took fnmatch minutes, in the configuration and a pack
    (root / "hostile.toml").write_text(
        f'[pack]\nname = "hostile"\n[relay]\nentry-points = ["{"[a-" * 350_000}"]\n'
    )
    (root / "pyproject.toml").write_text(
        "[tool.pdlint]\ncheck-syntax = true\n"
        f'packs = ["hostile.toml"]\nentry-points = ["{"[" * 50_000}"]\n'
    )


def concise(root: Path) -> tuple[list[str], str, float]:
    start = time.monotonic()
    res = run_pdlint("check", ".", cwd=root, env=NO_CACHE_ENV, timeout=BOUND + 60)
    elapsed = time.monotonic() - start
    assert res.returncode == 1, res.stderr[-3000:]
    assert "Traceback" not in res.stderr and "internal error" not in res.stderr, res.stderr
    return res.stdout.splitlines(), res.stderr, elapsed


def of_the_package(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(f"{PKG}/")]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b""
        for p in sorted(folder.rglob("*"))
    }


def sabotage(cache: Path) -> None:
    """Make a cache pdlint wrote hostile: its files FIFOs and links to ``/dev/zero``
    (point 3), beside a leftover of a killed run and a pack no index names (17)."""
    files = [
        p
        for p in cache.glob("v*/**/*")
        if p.is_file() and p.name not in ("CACHEDIR.TAG", ".gitignore")
    ]
    assert files
    for number, path in enumerate(files):
        path.unlink()
        os.mkfifo(path) if number % 2 else path.symlink_to("/dev/zero")
    (facts,) = cache.glob("v*/facts")
    for name in ("index.1.2.tmp", f"{'b' * 32}.pack"):
        stale = facts / name
        stale.write_bytes(b"half written")
        os.utime(stale, (time.time() - 600, time.time() - 600))


def test_every_hostile_file_beside_a_healthy_package(tmp_path: Path):
    # the healthy package's findings, in a tree without the hostile files; its
    # cache, pdlint's own, is then shipped in the hostile tree and sabotaged
    healthy = healthy_tree(tmp_path / "healthy")
    (healthy / "pyproject.toml").write_text("[tool.pdlint]\ncheck-syntax = true\n")
    expected = of_the_package(concise(healthy)[0])
    assert any(line.startswith(GAP_PDL001) for line in expected)
    assert any(line.startswith(GAP_PDL101) for line in expected)
    root = healthy_tree(tmp_path / "hostile")
    add_hostile_files(root)

    # point 2: a shipped .pdlint_cache that links out of the project
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me\n")
    (root / ".pdlint_cache").symlink_to(outside)
    lines, err, elapsed = concise(root)
    assert snapshot(outside) == {"keep.txt": b"keep me\n"}
    assert "symbolic link" in err
    assert of_the_package(lines) == expected
    assert elapsed < BOUND
    # what each hostile file gets, where it gets a PDL900
    assert any(line.startswith("hostile/pagemap.py:1:1: PDL900 cannot read") for line in lines)
    assert any(
        line.startswith("hostile/dense.py:1:1: PDL900 cannot analyse: too large") for line in lines
    )
    assert any(
        line.startswith("hostile/dense_broken.py:") and "syntax error" in line for line in lines
    )
    assert any(line.startswith("hostile/caf\\xe9.py:1:12: PDL900 syntax error") for line in lines)
    assert any(line.startswith("hostile/deep_3100.py:1:1: PDL900") for line in lines)
    assert not any(line.startswith("hostile/deep_2900.py") for line in lines)
    assert not any(line.startswith("name.py") for line in lines)  # the newline is escaped

    # points 3 and 17: pdlint's own cache made hostile
    (root / ".pdlint_cache").unlink()
    shutil.copytree(healthy / ".pdlint_cache", root / ".pdlint_cache")
    sabotage(root / ".pdlint_cache")
    again, _, elapsed = concise(root)
    assert again == lines
    assert elapsed < BOUND
