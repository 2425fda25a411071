"""Configuration a repository can ship that used to end in "internal error" (issue 35).

Each fault exits 2 with a message naming the file, the line and (where there is
one) the key, never a traceback or "internal error".
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint

DEEP = 3000


def fails_with(res, expected: str) -> None:  # type: ignore[no-untyped-def]
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert res.stderr == f"pdlint: error: {expected}\n"
    assert res.stdout == ""


@pytest.mark.parametrize("verb", ["check", "clean"])
def test_a_nul_in_cache_dir(relay_gap: Path, verb: str):
    (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\ncache-dir = "a\\u0000b"\n')

    res = run_pdlint(verb, cwd=relay_gap)

    fails_with(
        res,
        f"{relay_gap}/pyproject.toml:2: key 'cache-dir' in [tool.pdlint]: "
        "a NUL character (\\u0000) cannot be part of a value",
    )


def test_a_nul_in_a_list_of_globs(relay_gap: Path):
    (relay_gap / "pyproject.toml").write_text(
        '[tool.pdlint]\nselect = ["PDL"]\nextend-exclude = ["ok", "x\\u0000"]\n'
    )

    fails_with(
        run_pdlint("check", ".", cwd=relay_gap),
        f"{relay_gap}/pyproject.toml:3: key 'extend-exclude' in [tool.pdlint]: "
        "a NUL character (\\u0000) cannot be part of a value",
    )


@pytest.mark.parametrize("how", ["pyproject", "--config"])
def test_a_deeply_nested_inline_table(relay_gap: Path, how: str):
    name = "pyproject.toml" if how == "pyproject" else "pdlint.toml"
    header = "[tool.pdlint]\n" if how == "pyproject" else ""
    deep = "{a=" * DEEP + "1" + "}" * DEEP
    (relay_gap / name).write_text(f'{header}select = ["PDL"]\nx = {deep}\n')

    args = ["check", "."] + (["--config", name] if how == "--config" else [])
    res = run_pdlint(*args, cwd=relay_gap)

    path = relay_gap / name if how == "pyproject" else name
    line = 3 if how == "pyproject" else 2
    fails_with(res, f"{path}:{line}: invalid TOML: arrays or inline tables nested too deeply")


def test_a_deeply_nested_baseline(relay_gap: Path):
    (relay_gap / "deep.json").write_text('{"version": 1,\n"entries": ' + "[" * 100_000)

    res = run_pdlint("check", "--baseline", "deep.json", ".", cwd=relay_gap)

    fails_with(res, "deep.json:2: baseline is not valid JSON: arrays or objects nested too deeply")


def test_a_pyproject_that_cannot_be_read_is_an_error(relay_gap: Path):
    # Read as UTF-8 it fails; as root, a mode of 000 would not stop the read.
    (relay_gap / "pyproject.toml").write_bytes(b'[tool.pdlint]\nignore = ["PDL101"]\n# \xff\n')

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 2, res.stderr
    assert res.stderr.startswith(
        f"pdlint: error: {relay_gap}/pyproject.toml: cannot read it to look for [tool.pdlint]: "
    )
    assert res.stderr.endswith("; make it readable, or name the configuration with --config\n")
    assert res.stdout == ""


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads it")
def test_a_pyproject_without_read_permission_is_an_error(relay_gap: Path):
    pyproject = relay_gap / "pyproject.toml"
    pyproject.write_text('[tool.pdlint]\nignore = ["PDL101"]\n')
    pyproject.chmod(0)
    try:
        res = run_pdlint("check", ".", cwd=relay_gap)
    finally:
        pyproject.chmod(0o644)

    assert res.returncode == 2, res.stderr
    assert "Permission denied" in res.stderr and "cannot read it" in res.stderr
