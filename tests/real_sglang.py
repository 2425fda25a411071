"""The public sglang wheels the real-code tests analyse (downloaded, never committed)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from compiled_build import clean_env
from pdlint_helpers import REPO, locked

CACHE = Path(os.environ.get("PDLINT_TEST_CACHE", Path.home() / ".cache" / "pdlint-test"))


def sglang_tree(version: str) -> Path:
    """Download (once) and unzip the sglang wheel; return the folder holding sglang/."""
    target = CACHE / f"sglang-{version}"
    if (target / "sglang").is_dir():
        return target
    with locked(CACHE / f".sglang-{version}.lock"):
        if not (target / "sglang").is_dir():
            _unpack_sglang(version, target)
    return target


def _unpack_sglang(version: str, target: Path) -> None:
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    found = sorted(wheels.glob(f"sglang-{version}-*.whl"))
    if not found:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                f"sglang=={version}",
                "-d",
                str(wheels),
            ],
            capture_output=True,
            text=True,
        )
        found = sorted(wheels.glob(f"sglang-{version}-*.whl"))
        if not found:
            if os.environ.get("CI"):
                pytest.fail(f"cannot download sglang=={version}: {proc.stderr[-2000:]}")
            pytest.skip(f"cannot download sglang=={version}")
    tmp = target.with_suffix(".partial")
    shutil.rmtree(tmp, ignore_errors=True)  # left by a run that was stopped
    with zipfile.ZipFile(found[0]) as wheel:
        members = [m for m in wheel.namelist() if m.startswith("sglang/")]
        wheel.extractall(tmp, members)
    tmp.rename(target)


@dataclasses.dataclass(frozen=True)
class ReleaseRun:
    """What one ``pdlint check`` printed on a release, and how long it took."""

    returncode: int
    stdout: str
    stderr: str
    seconds: float

    def findings(self) -> list[dict]:
        assert self.returncode in (0, 1), self.stderr
        return json.loads(self.stdout)


def release_check(version: str, *flags: str) -> ReleaseRun:
    """``pdlint check sglang --no-cache --output-format json FLAGS`` on the sglang
    release, by this checkout's source, in the environment of the compiled build's
    comparison. Several tests read the same run: it runs once per test session
    (``PDLINT_TEST_SESSION``, a folder the session's processes share), the second
    reader waiting for the first."""
    argv = ["check", "sglang", "--no-cache", "--output-format", "json", *flags]
    session = os.environ.get("PDLINT_TEST_SESSION")
    if not session:
        return _run_release(version, argv)
    key = hashlib.sha256(json.dumps([version, argv]).encode()).hexdigest()[:16]
    kept = Path(session) / f"release-{key}.json"
    with locked(kept.with_suffix(".lock")):
        if kept.is_file():
            return ReleaseRun(**json.loads(kept.read_text()))
        run = _run_release(version, argv)
        kept.write_text(json.dumps(dataclasses.asdict(run)))
    return run


def _run_release(version: str, argv: list[str]) -> ReleaseRun:
    tree = sglang_tree(version)
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pdlint", *argv],
        cwd=tree,
        env={**clean_env(), "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    return ReleaseRun(proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start)
