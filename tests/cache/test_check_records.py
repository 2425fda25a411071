"""PDL201's check, and the graph checks (relay and mode) together, each keep a run
record of their own in a lazy run: what they loaded and asked, their findings,
counts and warnings. A later run whose changes leave all of that as it was
reuses their findings instead of running them (an edit of a file only the other
checks read), moved along when only lines moved; any change to what they read
runs them again. Every run gives the findings of ``--no-cache``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture

from pdlint.api import Result, analyze
from pdlint.engine import schedule
from pdlint.settings.config import Settings

REUSED = "checks reused (nothing they depend on changed)"
GRAPH_ONLY = "relay_gap_engine/spec_utils.py"  # read by the relay check, not by PDL201
LAYOUT_FILE = "relay_regions/transport.py"  # where PDL201 reports


@pytest.fixture(params=[False, True], ids=["in-process", "forked"])
def both(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tree with a relay gap (PDL001, PDL101) and a handoff layout (PDL201), its
    PDL201 check run in this process or (forced on a small tree) in a forked one."""
    if request.param:
        monkeypatch.setattr(schedule, "ASIDE_MIN_FILES", 0)
    folder = tmp_path / "both"
    for name in ("relay_gap", "layout_helpers"):
        shutil.copytree(fixture(name), folder, dirs_exist_ok=True)
    return folder


def _run(folder: Path, cache: bool) -> Result:
    with chdir(folder):
        settings = Settings(root=str(folder), cache=cache)
        return analyze(["."], settings, lazy=True, cache_dir=str(folder.parent / "cache"))


def _check(folder: Path) -> Result:
    """A cached run, and that it finds what ``--no-cache`` finds."""
    result = _run(folder, cache=True)
    assert result.findings == _run(folder, cache=False).findings
    return result


def _insert(folder: Path, path: str, before: str, text: str) -> None:
    file = folder / path
    source = file.read_text()
    assert before in source
    file.write_text(source.replace(before, text + before, 1))


def test_an_edit_only_the_other_checks_read_reuses_pdl201(both: Path) -> None:
    cold = _check(both)
    assert sorted(f.code for f in cold.findings) == ["PDL001", "PDL101", "PDL201"]
    assert REUSED not in cold.stats
    assert GRAPH_ONLY in cold.loaded_files and LAYOUT_FILE in cold.loaded_files
    # a new fact, and every later line moves
    _insert(both, GRAPH_ONLY, "    if batch.algo.is_dflash():", "    print()\n")
    edited = _check(both)
    assert edited.stats[REUSED] == 1
    assert LAYOUT_FILE not in edited.loaded_files  # PDL201's files are not read
    assert edited.stats["handoff lists"] == cold.stats["handoff lists"]  # its counts kept
    # and the next run, an edit of what PDL201 read (and the graph checks did not),
    # runs it again and reuses theirs
    _insert(both, LAYOUT_FILE, "        ours = self.engine.mem_regions", "        print()\n")
    again = _check(both)
    assert LAYOUT_FILE in again.loaded_files
    assert GRAPH_ONLY not in again.loaded_files
    assert again.stats[REUSED] == 1


def test_an_edit_only_pdl201_reads_reuses_the_graph_checks(both: Path) -> None:
    cold = _check(both)
    _insert(both, LAYOUT_FILE, "        ours = self.engine.mem_regions", "        print()\n")
    edited = _check(both)
    assert edited.stats[REUSED] == 1
    assert GRAPH_ONLY not in edited.loaded_files  # the graph checks' files are not read
    for count in ("functions reachable", "entry points", "variants"):
        assert edited.stats[count] == cold.stats[count] > 0  # their counts kept
    # an edit of both checks' files runs both
    _insert(both, GRAPH_ONLY, "    if batch.algo.is_dflash():", "    print()\n")
    _insert(both, LAYOUT_FILE, "        half = len(ours)", "        print()\n")
    both_edited = _check(both)
    assert REUSED not in both_edited.stats


def test_reused_graph_checks_keep_their_warnings(tmp_path: Path) -> None:
    folder = tmp_path / "both"
    for name in ("relay_gap", "layout_helpers"):
        shutil.copytree(fixture(name), folder, dirs_exist_ok=True)
    settings = Settings(root=str(folder), entry_points=("nowhere.loop",))

    def run() -> Result:
        with chdir(folder):
            return analyze(["."], settings, lazy=True, cache_dir=str(tmp_path / "cache"))

    warning = "entry point 'nowhere.loop' matches no analysed function"
    assert warning in run().warnings
    _insert(folder, LAYOUT_FILE, "        ours = self.engine.mem_regions", "        print()\n")
    edited = run()
    assert edited.stats[REUSED] == 1 and GRAPH_ONLY not in edited.loaded_files
    assert warning in edited.warnings


def test_a_file_newly_selected_by_a_word_group_runs_the_graph_checks_again(both: Path) -> None:
    _check(both)
    # "raise" and "'decode'": a word group the relay check loads the files of
    _insert(both, LAYOUT_FILE, "@dataclass", "if __name__ == 'decode':\n    raise SystemExit\n\n\n")
    edited = _check(both)
    assert REUSED not in edited.stats
    assert GRAPH_ONLY in edited.loaded_files


def test_moved_lines_in_a_file_pdl201_read_move_its_findings(both: Path) -> None:
    cold = _check(both)
    (line,) = [f.location.line for f in cold.findings if f.code == "PDL201"]
    _insert(both, LAYOUT_FILE, '"""Prefill-side pusher', "# a comment line\n\n")
    moved = _check(both)  # its facts are the same, two lines down
    assert [f.location.line for f in moved.findings if f.code == "PDL201"] == [line + 2]


def test_a_file_newly_selected_by_a_query_of_pdl201_runs_it_again(both: Path) -> None:
    _check(both)
    # an identifier starting with a peer prefix: PDL201's first query selects the file
    _insert(both, GRAPH_ONLY, "def spec_prepare_decode", "remote_lens = [1, 2]\n\n\n")
    edited = _check(both)
    assert REUSED not in edited.stats


def test_a_file_pdl201_read_that_stops_parsing_gives_its_pdl900(both: Path) -> None:
    helper = "relay_regions/layout_math.py"  # PDL201 follows a call into it
    cold = _check(both)
    assert helper in cold.loaded_files and GRAPH_ONLY in cold.loaded_files
    (both / helper).write_text("def groups_of(:\n")
    broken = _check(both)
    assert [f.code for f in broken.findings if f.location.path == helper] == ["PDL900"]
    # and while it stays broken, an edit elsewhere reuses the record, PDL900 included
    _insert(both, GRAPH_ONLY, "    if batch.algo.is_dflash():", "    print()\n")
    edited = _check(both)
    assert edited.stats[REUSED] == 1
    assert [f.code for f in edited.findings if f.location.path == helper] == ["PDL900"]


def test_switching_back_gives_the_first_findings(both: Path) -> None:
    cold = _check(both)
    original = {p: (both / p).read_text() for p in (GRAPH_ONLY, LAYOUT_FILE)}
    _insert(both, GRAPH_ONLY, "    if batch.algo.is_dflash():", "    print()\n")
    _check(both)
    _insert(both, LAYOUT_FILE, "        ours = self.engine.mem_regions", "        print()\n")
    _check(both)
    for path, text in original.items():
        (both / path).write_text(text)
    assert _check(both).findings == cold.findings
