"""The public sglang wheels the real-code tests analyse (downloaded, never committed)."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("PDLINT_TEST_CACHE", Path.home() / ".cache" / "pdlint-test"))


def sglang_tree(version: str) -> Path:
    """Download (once) and unzip the sglang wheel; return the folder holding sglang/."""
    target = CACHE / f"sglang-{version}"
    if (target / "sglang").is_dir():
        return target
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
    with zipfile.ZipFile(found[0]) as wheel:
        members = [m for m in wheel.namelist() if m.startswith("sglang/")]
        wheel.extractall(tmp, members)
    tmp.rename(target)
    return target
