"""Public wheels of other engines (vLLM, Dynamo, LMCache) the real-code tests analyse.

Downloaded once into $PDLINT_TEST_CACHE (never committed) and unpacked with their
``.py`` files only: the compiled extensions are hundreds of megabytes pdlint never reads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from pdlint_helpers import locked
from real_sglang import CACHE


def wheel_tree(project: str, version: str, top: str) -> Path:
    """Download (once) the wheel of ``project==version`` and unpack the ``.py`` files
    under ``top/``; return the folder holding ``top/``."""
    target = CACHE / f"{project}-{version}-py"
    if (target / top).is_dir():
        return target
    with locked(CACHE / f".{project}-{version}.lock"):
        if not (target / top).is_dir():
            _unpack(project, version, top, target)
    return target


def _unpack(project: str, version: str, top: str, target: Path) -> None:
    wheels = CACHE / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    stem = project.replace("-", "_")
    pattern = f"{stem}-{version}-*.whl"
    found = sorted(wheels.glob(pattern))
    if not found:
        proc = subprocess.run(
            [
                *(sys.executable, "-m", "pip", "download", "--no-deps"),
                *("--only-binary", ":all:", f"{project}=={version}", "-d", str(wheels)),
            ],
            capture_output=True,
            text=True,
        )
        found = sorted(wheels.glob(pattern))
        if not found:
            if os.environ.get("CI"):
                pytest.fail(f"cannot download {project}=={version}: {proc.stderr[-2000:]}")
            pytest.skip(f"cannot download {project}=={version}")
    tmp = target.with_suffix(".partial")
    shutil.rmtree(tmp, ignore_errors=True)  # left by a run that was stopped
    with zipfile.ZipFile(found[0]) as wheel:
        members = [m for m in wheel.namelist() if m.startswith(f"{top}/") and m.endswith(".py")]
        wheel.extractall(tmp, members)
    tmp.rename(target)
