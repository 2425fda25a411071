"""A lazy run on a public SGLang release (apart from test_lazy.py, so that a CI run's
two workers share the slow release runs)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from pdlint_helpers import chdir
from real_sglang import sglang_tree

from pdlint.api import analyze
from pdlint.settings.config import Settings

# --- the real release -------------------------------------------------------------


@pytest.fixture(scope="module")
def sglang_0_5_16() -> Path:
    return sglang_tree("0.5.16")


@pytest.mark.real
def test_lazy_equals_full_on_a_release() -> None:
    """A lazy run parses a quarter of the files or less, and finds what parsing
    every file finds. (On 0.5.23, the newest release, the lazy run's findings are
    pinned by test_real_sglang.py: an eager run of it costs CI minutes.)"""
    tree = sglang_tree("0.5.16")
    lazy = analyze_tree(tree, lazy=True)
    full = analyze_tree(tree, lazy=False)
    assert lazy.findings == full.findings
    assert {"PDL001", "PDL101"} <= {f.code for f in lazy.findings}
    assert lazy.stats["functions reachable"] == full.stats["functions reachable"]
    assert len(lazy.loaded_files) < len(full.loaded_files) / 3


def analyze_tree(tree: Path, *, lazy: bool):  # type: ignore[no-untyped-def]
    with chdir(tree):
        return analyze(["sglang"], Settings(root=str(tree), cache=False), lazy=lazy)


@pytest.mark.real
def test_progress_on_a_terminal_only_for_human_formats(sglang_0_5_16: Path, tmp_path: Path) -> None:
    """A cold run on the release takes over a second: progress on a tty, not in json."""
    import pty
    import subprocess
    import sys

    def stderr_on_tty(*args: str) -> tuple[str, str]:
        leader, follower = pty.openpty()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pdlint", "check", "sglang", *args],
            cwd=sglang_0_5_16,
            stdout=subprocess.PIPE,
            stderr=follower,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        out, _ = proc.communicate(timeout=600)
        os.close(leader)
        return out.decode(), b"".join(chunks).decode()

    out, err = stderr_on_tty("--no-cache")
    # a line is drawn as soon as the delay ends (the message of the moment, sent
    # before it), not when the next message comes
    first = re.match(r"\r\x1b\[Kpdlint: [^\r]* \((\d+\.\d) s\)", err)
    assert first is not None and float(first.group(1)) <= 1.5, err[:200]
    # the count reaches its total: the files that load, not every file of the tree
    counts = re.findall(r"loading (\d+) of (\d+) files", err)
    assert counts and counts[-1][0] == counts[-1][1] and int(counts[-1][1]) < 2000
    assert "pdlint: checking PDL201" in err  # the phases after loading are named
    # erased, then the summary, and how many files the lazy run did not parse
    assert re.search(
        r"\r\x1b\[KFound \d+ findings \(\d+ errors\)\.\r\n"
        r"\d+ of \d+ files were not parsed [^\r]*\r\n$",
        err,
    ), err[-300:]
    assert "\x1b" not in out and "PDL101" in out
    out, err = stderr_on_tty("--no-cache", "--output-format", "json")
    assert "\x1b" not in err and "pdlint:" not in err
    assert json.loads(out)
