"""Cached runs on a public SGLang release equal uncached ones (a file of its own, so
that a CI run's two workers share the slow release runs)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint
from real_sglang import release_check, sglang_tree


@pytest.fixture(scope="module")
def sglang_0_5_16() -> Path:
    return sglang_tree("0.5.16")


@pytest.mark.real
def test_cached_runs_equal_uncached_on_sglang_0_5_16(sglang_0_5_16: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    shutil.copytree(sglang_0_5_16 / "sglang", tree / "sglang")
    cache = tmp_path / "cache"

    def findings(*args: str) -> list[dict]:
        proc = run_pdlint("check", "sglang", "--output-format", "json", *args, cwd=tree)
        assert proc.returncode == 1, proc.stderr
        return json.loads(proc.stdout)

    expected = release_check("0.5.16").findings()  # the same tree, no cache
    assert findings("--cache-dir", str(cache)) == expected  # cold
    assert findings("--cache-dir", str(cache)) == expected  # warm
    relay = tree / "sglang/srt/disaggregation/decode_schedule_batch_mixin.py"
    other = tree / "sglang/srt/models/llama.py"
    for edited in (other, relay):  # a file nothing loads, then the relay
        # a comment after the last line: new content, the same findings
        edited.write_text(edited.read_text() + "\n# edited\n")
        assert findings("--cache-dir", str(cache)) == expected
    consumer = tree / "sglang/srt/speculative/spec_utils.py"
    consumer.write_text("# a new first line\n" + consumer.read_text())
    moved = findings("--no-cache")
    assert moved != expected
    assert findings("--cache-dir", str(cache)) == moved
