"""A check none of whose codes is selected does not run: it parses nothing, and
the findings are those of a run of every check with the unselected ones left out.

``--select`` / ``--ignore`` (and their configuration keys) decide which checks run;
a per-file ignore or a ``# noqa`` leaves a check running. The mode check (PDL102,
PDL103) reads the relay check's relays, so selecting either runs both.
"""

from __future__ import annotations

import functools
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture, fixture_dirs, run_pdlint

from pdlint.api import analyze, running_checks
from pdlint.findings import Finding
from pdlint.policy.selection import is_enabled
from pdlint.settings.config import Settings

CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())
# (select, ignore)
SELECTIONS = [
    (("PDL201",), ()),
    (("PDL1",), ()),
    (("PDL001",), ()),
    (("PDL102",), ()),
    (None, ("PDL201",)),
    (None, ("PDL0", "PDL1")),
    (("PDL",), ("PDL103",)),
]


def _ids(selection: tuple[tuple[str, ...] | None, tuple[str, ...]]) -> str:
    select, ignore = selection
    return f"select={','.join(select or ('-',))}-ignore={','.join(ignore or ('-',))}"


@pytest.fixture
def both(tmp_path: Path) -> Path:
    """A tree with a relay gap (PDL001, PDL101) and a handoff layout (PDL201)."""
    folder = tmp_path / "both"
    for name in ("relay_gap", "layout_helpers"):
        shutil.copytree(fixture(name), folder, dirs_exist_ok=True)
    return folder


def test_running_checks_follow_select_and_ignore() -> None:
    def names(**kwargs: object) -> list[str]:
        return [c.__name__ for c in running_checks(Settings(**kwargs))]  # type: ignore[arg-type]

    every = ["RelayCheck", "ModeCheck", "GuardCheck", "LayoutCheck", "HandoffCheck"]
    assert names() == every
    assert names(select=("PDL201",)) == ["LayoutCheck"]
    assert names(select=("PDL102",)) == ["RelayCheck", "ModeCheck"]  # it reads the relays
    assert names(select=("PDL001",)) == ["RelayCheck"]
    assert names(select=("PDL301",)) == ["RelayCheck", "HandoffCheck"]  # it reads the graph
    assert names(ignore=("PDL2",)) == ["RelayCheck", "ModeCheck", "GuardCheck", "HandoffCheck"]
    assert names(ignore=("PDL",)) == []
    assert names(select=("PDL1",), ignore=("PDL10",)) == []
    # a per-file ignore leaves the check running (other files may report)
    assert names(per_file_ignores=(("*.py", ("PDL201",)),)) == every
    assert [c.__name__ for c in running_checks(Settings())] == every


@pytest.mark.parametrize("lazy", [True, False], ids=["lazy", "full"])
@pytest.mark.parametrize("selection", SELECTIONS, ids=_ids)
@pytest.mark.parametrize("name", CASES)
def test_a_selection_finds_what_every_check_finds_filtered(
    name: str, selection: tuple[tuple[str, ...] | None, tuple[str, ...]], lazy: bool
) -> None:
    select, ignore = selection
    folder = fixture(name)
    chosen = replace(_settings(name), select=select, ignore=ignore)
    with chdir(folder):
        some = analyze(["."], chosen, lazy=lazy).findings
    assert some == [f for f in _every_check(name, lazy) if is_enabled(f.code, chosen)]


def _settings(name: str) -> Settings:
    return Settings(root=str(fixture(name)), cache=False)


@functools.cache
def _every_check(name: str, lazy: bool) -> tuple[Finding, ...]:
    """The findings of every check on a fixture (one run for all the selections)."""
    with chdir(fixture(name)):
        return tuple(analyze(["."], _settings(name), lazy=lazy).findings)


def test_an_unselected_check_parses_nothing(both: Path) -> None:
    with chdir(both):
        settings = Settings(root=str(both), cache=False)
        every = analyze(["."], settings, lazy=True)
        layout = analyze(["."], replace(settings, select=("PDL201",)), lazy=True)
        graph = analyze(["."], replace(settings, ignore=("PDL201",)), lazy=True)
    assert sorted(f.code for f in every.findings) == ["PDL001", "PDL101", "PDL201"]
    assert [f.code for f in layout.findings] == ["PDL201"]
    assert sorted(f.code for f in graph.findings) == ["PDL001", "PDL101"]
    # the relay check's files are not parsed for PDL201 alone, PDL201's not without it
    assert not any(f.startswith("relay_gap_engine/") for f in layout.loaded_files)
    assert not any(f.startswith("relay_regions/") for f in graph.loaded_files)
    assert set(layout.loaded_files) < set(every.loaded_files)
    assert set(graph.loaded_files) < set(every.loaded_files)


def test_verbose_names_the_checks_not_run(both: Path) -> None:
    proc = run_pdlint("check", "-v", "--no-cache", "--select", "PDL201", ".", cwd=both)
    assert proc.returncode == 1, proc.stderr
    notes = [line for line in proc.stderr.splitlines() if "not run" in line]
    assert notes == [
        "pdlint: note: not run: the check of PDL001, PDL101, PDL104, PDL105, "
        "PDL106 (none of its codes is selected)",
        "pdlint: note: not run: the check of PDL102, PDL103 (none of its codes is selected)",
        "pdlint: note: not run: the check of PDL107, PDL108 (none of its codes is selected)",
        "pdlint: note: not run: the check of PDL301 (none of its codes is selected)",
    ]
    every = run_pdlint("check", "-v", "--no-cache", ".", cwd=both)
    assert "not run" not in every.stderr


def test_a_cached_run_of_fewer_checks_is_not_reused_for_more(both: Path, tmp_path: Path) -> None:
    """The run record of a run without PDL201 does not stand for a run with it."""
    cache = tmp_path / "cache"

    def findings(*args: str) -> list[str]:
        proc = run_pdlint("check", "--output-format", "json", *args, ".", cwd=both)
        assert proc.returncode in (0, 1), proc.stderr
        found = json.loads(proc.stdout)
        return sorted(f"{f['code']} {f['filename']}:{f['location']['row']}" for f in found)

    fresh = findings("--no-cache")
    ignored = findings("--cache-dir", str(cache), "--ignore", "PDL201")
    assert ignored == [f for f in fresh if not f.startswith("PDL201")]
    assert findings("--cache-dir", str(cache)) == fresh  # every check again
    assert findings("--cache-dir", str(cache), "--select", "PDL201") == [
        f for f in fresh if f.startswith("PDL201")
    ]
    assert findings("--cache-dir", str(cache)) == fresh
