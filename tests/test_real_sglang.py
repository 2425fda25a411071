"""Case 1 on real code: the public sglang 0.5.16 wheel (downloaded, never committed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from conftest import json_findings

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


@pytest.fixture(scope="module")
def sglang_0_5_16() -> Path:
    return sglang_tree("0.5.16")


@pytest.mark.real
@pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["sglang-pack", "no-packs"])
def test_dflash_gap_found(sglang_0_5_16: Path, packs: list[str]) -> None:
    start = time.monotonic()
    findings = json_findings("sglang", *packs, "--no-cache", cwd=sglang_0_5_16)
    elapsed = time.monotonic() - start
    print(f"\npdlint on sglang 0.5.16 ({'no packs' if packs else 'sglang pack'}): {elapsed:.1f} s")
    pdl101 = [f for f in findings if f["code"] == "PDL101"]
    at_837 = {
        f["member"]
        for f in pdl101
        if f["filename"] == "sglang/srt/speculative/spec_utils.py" and f["location"]["row"] == 837
    }
    assert {"DFLASH", "DSPARK"} <= at_837
    for finding in pdl101:
        assert finding["member"] not in ("EAGLE", "EAGLE3", "NONE")
        if finding["location"]["row"] == 837:
            first, last = finding["path"][0], finding["path"][-1]
            assert first["filename"] == "sglang/srt/disaggregation/decode.py"
            assert "disagg_decode" in first["function"] and "event_loop" in first["function"]
            assert any("spec_prepare_for_decode" in step["message"] for step in finding["path"])
            assert last["filename"] == "sglang/srt/speculative/spec_utils.py"
    pdl001 = [f for f in findings if f["code"] == "PDL001"]
    assert any(
        f["filename"] == "sglang/srt/speculative/spec_info.py" and "DFLASH" in f["member"]
        for f in pdl001
    )
    # Verdicts after reading the code (issue 4): the IDLE batches of 0.5.16 reach
    # no unguarded consumer of spec_info that pdlint can resolve, and no idle
    # placeholder is reachable (the spec workers are picked per algorithm by a
    # class registry, which pdlint does not resolve): no PDL102, no PDL103.
    assert not [f for f in findings if f["code"] in ("PDL102", "PDL103")]
    assert elapsed < 60
