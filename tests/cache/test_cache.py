"""The fact cache and run records never change results; faults degrade, never mislead.

Each cached run (cold, warm, after an edit) is compared with ``--no-cache`` on
the same files; the cache's own files are damaged and must be detected.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import FIXTURES, copy_relay_gap, fixture, fixture_dirs, invoke, run_pdlint

from pdlint.api import analyze
from pdlint.cache.store import CACHEDIR_TAG, FactStore
from pdlint.settings.config import Settings

CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())


def findings_json(folder: Path, *args: str) -> list[dict]:
    """The CLI's JSON findings (run in this process: the runs are many)."""
    proc = invoke("check", ".", "--output-format", "json", *args, cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def cached(folder: Path, cache: Path, *args: str) -> list[dict]:
    return findings_json(folder, "--cache-dir", str(cache), *args)


def uncached(folder: Path, *args: str) -> list[dict]:
    return findings_json(folder, "--no-cache", *args)


def run_without_cache_env(
    *args: object, cwd: Path, home: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m pdlint ARGS`` with no ``$PDLINT_CACHE_DIR`` (the default location),
    and ``$HOME`` set to ``home`` if given."""
    env = {k: v for k, v in os.environ.items() if k != "PDLINT_CACHE_DIR"}
    if home is not None:
        env["HOME"] = str(home)
    return subprocess.run(
        [sys.executable, "-m", "pdlint", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def entries(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.is_file() and "facts" in p.parts)


def verbose_stats(folder: Path, *args: str) -> dict[str, str]:
    proc = run_pdlint("check", ".", "-v", "--output-format", "json", *args, cwd=folder)
    out = {}
    for line in proc.stderr.splitlines():
        if line.startswith("pdlint: ") and ": " in line[8:]:
            key, value = line[8:].rsplit(": ", 1)
            out[key] = value
    return out


# --- cold, warm and after an edit give what --no-cache gives --------------------


@pytest.mark.parametrize("name", CASES)
def test_cached_runs_equal_uncached_on_every_fixture(name: str, tmp_path: Path) -> None:
    folder = tmp_path / name
    shutil.copytree(fixture(name), folder)
    cache = tmp_path / "cache"
    expected = uncached(folder)
    assert cached(folder, cache) == expected  # cold
    assert entries(cache), "the cold run stored no facts"
    assert cached(folder, cache) == expected  # warm
    # an edit that moves every finding of one file down a line
    target = sorted(folder.rglob("*.py"))[-1]
    target.write_text("# an added first line\n" + target.read_text())
    after = uncached(folder)
    assert cached(folder, cache) == after
    assert cached(folder, cache) == after  # warm again, after the edit


def test_warm_run_parses_nothing_and_reuses_results(relay_gap: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert cold["files parsed"] == "5"
    warm = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert warm["files parsed"] == "0"
    assert warm["results reused (nothing they depend on changed)"] == "1"


def test_an_edit_that_fixes_the_gap_is_seen(relay_gap: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = cached(relay_gap, cache)
    assert {f["code"] for f in before} == {"PDL001", "PDL101"}
    spec_info = relay_gap / "relay_gap_engine" / "spec_info.py"
    text = spec_info.read_text()
    fixed = text.replace("        if self.is_eagle():\n", "        if True:\n")
    assert fixed != text
    spec_info.write_text(fixed)
    assert cached(relay_gap, cache) == uncached(relay_gap) == []
    spec_info.write_text(text)  # and back: the old facts are still in the cache
    assert cached(relay_gap, cache) == before


def test_an_edit_that_leaves_the_facts_reuses_the_results(relay_gap: Path, tmp_path: Path) -> None:
    """A comment edit in a loaded file: its facts are indexed again and are the ones the
    last run read, so its findings are reused (and a new ``# noqa`` still applies)."""
    cache = tmp_path / "cache"
    assert {f["code"] for f in cached(relay_gap, cache)} == {"PDL001", "PDL101"}
    consumer = relay_gap / "relay_gap_engine" / "spec_utils.py"
    lines = consumer.read_text().splitlines(keepends=True)
    lines[19] = lines[19].rstrip("\n") + "  # noqa: PDL101\n"
    consumer.write_text("".join(lines) + "# a comment at the end\n")
    stats = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert stats["results reused (nothing they depend on changed)"] == "1"
    assert stats["files parsed"] == "1"
    after = cached(relay_gap, cache)
    assert after == uncached(relay_gap)
    assert [f["code"] for f in after] == ["PDL001"]
    # the record now holds the edited file: the next run parses nothing
    assert verbose_stats(relay_gap, "--cache-dir", str(cache))["files parsed"] == "0"


def test_an_edit_that_changes_the_facts_is_analysed_again(relay_gap: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    before = cached(relay_gap, cache)
    consumer = relay_gap / "relay_gap_engine" / "spec_utils.py"
    lines = consumer.read_text().splitlines(keepends=True)
    indent = lines[19][: len(lines[19]) - len(lines[19].lstrip())]
    lines.insert(19, f"{indent}unused = 1\n")  # a statement: every later line moves down
    consumer.write_text("".join(lines))
    stats = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert "results reused (nothing they depend on changed)" not in stats
    after = cached(relay_gap, cache)
    assert after == uncached(relay_gap)
    rows = {f["code"]: f["location"]["row"] for f in after}
    assert rows["PDL101"] == {f["code"]: f["location"]["row"] for f in before}["PDL101"] + 1


def test_an_edit_that_only_moves_lines_moves_the_findings(relay_gap: Path, tmp_path: Path) -> None:
    """Lines that give no facts (a comment, ``pass``) inserted above the consumer: the
    facts differ in their spans only, so the findings are reused, moved along."""
    cache = tmp_path / "cache"
    before = {f["code"]: f for f in cached(relay_gap, cache)}
    consumer = relay_gap / "relay_gap_engine" / "spec_utils.py"
    lines = consumer.read_text().splitlines(keepends=True)
    indent = lines[19][: len(lines[19]) - len(lines[19].lstrip())]
    lines[19:19] = [f"{indent}# two lines that give no facts\n", f"{indent}pass\n"]
    consumer.write_text("".join(lines))
    stats = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert stats["results reused (nothing they depend on changed)"] == "1"
    assert stats["files parsed"] == "1"
    after = cached(relay_gap, cache)
    assert after == uncached(relay_gap)
    moved = {f["code"]: f for f in after}
    assert moved["PDL101"]["location"]["row"] == before["PDL101"]["location"]["row"] + 2
    assert moved["PDL001"]["location"] == before["PDL001"]["location"]  # another file
    steps = [s["location"]["row"] for s in moved["PDL101"]["path"]]
    assert steps[-1] == moved["PDL101"]["location"]["row"]


ONE_MODULE_ENGINE = """\
from enum import Enum


class Algo(Enum):
    TREE = "tree"
    HEADS = "heads"


def build(algo, handoff):
    if algo is Algo.TREE:
        return list(handoff["rows"])
    return None


class Request:
    def __init__(self):
        self.rows = None


class DecodeLoop:
    def __init__(self, algo):
        self.algo = Algo(algo)

    def event_loop_disagg_decode(self, handoffs):
        for handoff in handoffs:
            req = Request()
            rows = build(self.algo, handoff)
            if rows is not None:
                req.rows = rows
            self.step(req)

    def step(self, req):
        return len(req.rows)
"""


def test_a_package_made_between_runs_of_one_process_is_seen(tmp_path: Path) -> None:
    """A long-lived process (the language server) analyses again after a folder lost
    and regained its ``__init__.py``: module names follow (the entry point named by
    its qualified name matches only while the folder is a package). The package is
    one module, importing nothing of its own: an import through the package's name,
    or a relative one, would make the folder a package without the ``__init__.py``."""
    package = tmp_path / "toggled"
    package.mkdir()
    (package / "engine.py").write_text(ONE_MODULE_ENGINE)
    init = package / "__init__.py"
    init.write_text("")
    entry = "toggled.engine.DecodeLoop.event_loop_disagg_decode"
    settings = Settings(root=str(tmp_path), cache=False, entry_points=(entry,))
    old = os.getcwd()
    os.chdir(tmp_path)
    try:

        def unmatched() -> bool:
            result = analyze(["."], settings)
            return any(entry in w and "matches no analysed" in w for w in result.warnings)

        assert not unmatched()
        init.unlink()
        assert unmatched()  # the module is ``engine`` now
        init.write_text("")
        assert not unmatched()
    finally:
        os.chdir(old)


def test_a_new_broken_file_is_reported_by_the_next_cached_run(
    relay_gap: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    assert {f["code"] for f in cached(relay_gap, cache)} == {"PDL001", "PDL101"}
    (relay_gap / "relay_gap_engine" / "zz_broken.py").write_text("def broken(:\n")
    after = cached(relay_gap, cache)
    assert after == uncached(relay_gap)
    assert [f["filename"] for f in after if f["code"] == "PDL900"] == [
        "relay_gap_engine/zz_broken.py"
    ]


def test_lazy_runs_with_the_cache_equal_a_full_run(tmp_path: Path) -> None:
    """The lazy loader (used on large trees) on a small one, through the API."""
    folder = tmp_path / "two_modules_away"
    shutil.copytree(fixture("two_modules_away"), folder)
    old = os.getcwd()
    os.chdir(folder)
    try:

        def run(lazy: bool, cache: bool) -> list[object]:
            settings = Settings(root=str(folder), cache=cache)
            result = analyze(["."], settings, lazy=lazy, cache_dir=str(tmp_path / "c"))
            return result.findings

        full = run(False, False)
        assert len(full) == len((folder / "expected.txt").read_text().splitlines())
        assert run(True, True) == full  # cold, lazy
        assert run(True, True) == full  # reused
        (folder / "unrelated.py").write_text("x = 1\n")  # a new file no query selects
        assert run(True, True) == full
        consumer = folder / full[-1].location.path  # type: ignore[attr-defined]
        consumer.write_text("\n" + consumer.read_text())  # a loaded file, lines moved
        assert run(True, True) == run(False, False) != full
    finally:
        os.chdir(old)


def test_a_file_entering_a_checks_text_query_is_not_missed(tmp_path: Path) -> None:
    """PDL201 loads in phases (text queries built from loaded facts): a run record
    is reused only while every new file stays out of those queries' answers."""
    folder = tmp_path / "layout_helpers"
    shutil.copytree(fixture("layout_helpers"), folder)
    old = os.getcwd()
    os.chdir(folder)
    try:

        def run(lazy: bool, cache: bool) -> tuple[list[object], bool]:
            settings = Settings(root=str(folder), cache=cache)
            result = analyze(["."], settings, lazy=lazy, cache_dir=str(tmp_path / "c"))
            reused = "results reused (nothing they depend on changed)" in result.stats
            return result.findings, reused

        full, _ = run(False, False)
        assert [f.code for f in full] == ["PDL201"]  # type: ignore[attr-defined]
        assert run(True, True) == (full, False)
        package = folder / "relay_regions"
        (package / "unrelated.py").write_text("def helper(x):\n    x.other_regions += [1]\n")
        assert run(True, True) == (full, True)  # no role-local word: no query selects it
        (package / "drafts.py").write_text(
            "def grow(x, draft):\n    if draft:\n        x.mem_regions += [1]\n"
        )
        found, reused = run(True, True)
        assert not reused
        assert found == run(False, False)[0]
    finally:
        os.chdir(old)


# --- faults ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: data[:-10] + bytes(b ^ 0xFF for b in data[-10:]),  # corrupt payload
        lambda data: data.replace(b"PDLINT-CACHE-1", b"PDLINT-CACHE-9", 1),  # other format
        lambda data: b"",  # empty
    ],
    ids=["truncated", "corrupt", "other-format", "empty"],
)
def test_damaged_entries_are_rebuilt_not_trusted(damage, relay_gap: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    expected = cached(relay_gap, cache)
    for entry in entries(cache):
        entry.write_bytes(damage(entry.read_bytes()))
    for blob in (cache / next(cache.glob("v*")).name).glob("*"):
        if blob.is_file():
            blob.write_bytes(damage(blob.read_bytes()))
    stats = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert stats["files parsed"] == "5"  # nothing damaged was used
    assert cached(relay_gap, cache) == expected
    assert verbose_stats(relay_gap, "--cache-dir", str(cache))["files parsed"] == "0"


def _index_of(cache: Path) -> tuple[Path, dict[str, tuple[str, int, int, str]]]:
    """The index file of the cache and the places it gives (pack, offset, size, slot)."""
    store = FactStore(cache)
    assert store.base is not None
    return store.base / "facts" / "index", store._read_index()


def test_an_entry_of_another_file_is_not_used(relay_gap: Path, tmp_path: Path) -> None:
    """An index that sends two keys to each other's entries (valid frames, wrong
    keys) is caught by the key check."""
    from pdlint.cache.store import _frame, _index_text

    cache = tmp_path / "cache"
    expected = cached(relay_gap, cache)
    path, places = _index_of(cache)
    first, second = sorted(places)[:2]
    places[first], places[second] = places[second], places[first]
    path.write_bytes(_frame("index", _index_text(places)))
    for blob in next(cache.glob("v*")).glob("*"):
        if blob.is_file():
            blob.unlink()  # no run record: the facts must be read
    stats = verbose_stats(relay_gap, "--cache-dir", str(cache))
    assert stats["files parsed"] == "2"  # the two swapped entries, indexed again
    assert cached(relay_gap, cache) == expected


def test_a_damaged_entry_in_a_pack_is_indexed_again(relay_gap: Path, tmp_path: Path) -> None:
    """One byte flipped in the middle of every entry, the index intact: every entry
    fails its check, the others of the pack are not needed to tell."""
    cache = tmp_path / "cache"
    expected = cached(relay_gap, cache)
    path, places = _index_of(cache)
    for pack, offset, size, _slot in places.values():
        target = path.parent / pack
        data = bytearray(target.read_bytes())
        data[offset + size // 2] ^= 0xFF
        target.write_bytes(bytes(data))
    for blob in next(cache.glob("v*")).glob("*"):
        if blob.is_file():
            blob.unlink()
    assert verbose_stats(relay_gap, "--cache-dir", str(cache))["files parsed"] == "5"
    assert cached(relay_gap, cache) == expected


def test_many_packs_are_compacted_into_one(tmp_path: Path, monkeypatch) -> None:
    """Each run that indexes something writes a pack; past MAX_PACKS, the live entries
    are rewritten into one pack and the others removed, every entry still readable."""
    monkeypatch.setattr("pdlint.cache.store.MAX_PACKS", 3)
    cache = tmp_path / "cache"
    for i in range(5):
        store = FactStore(cache)
        store.put(f"{i:040x}", f"payload {i}".encode())
        store.close()
    packs = sorted((next(cache.glob("v*")) / "facts").glob("*.pack"))
    assert len(packs) == 2  # compacted at the fourth, then one more
    store = FactStore(cache)
    assert [store.get(f"{i:040x}") for i in range(5)] == [f"payload {i}".encode() for i in range(5)]


def test_only_the_newest_versions_of_a_file_stay_cached(tmp_path: Path, monkeypatch) -> None:
    """Each version of a file is an entry in its slot: the index keeps the newest two
    of a slot; a pack nothing in the index names is removed, and a compaction drops
    the bytes of the versions dropped from packs that still hold other entries."""
    monkeypatch.setattr("pdlint.cache.store.MAX_PACKS", 4)
    cache = tmp_path / "cache"
    for i in range(1, 6):  # each run: a new version of one file, and a new other file
        store = FactStore(cache)
        store.put(f"{i:040x}", f"version {i} ".encode() * 1000, slot="e" * 40)
        store.put(f"{i + 100:040x}", f"other {i} ".encode() * 1000, slot=f"{i:040x}")
        store.close()
        if i == 4:  # each pack still holds an entry the index names
            assert len(list(cache.rglob("*.pack"))) == 4
    facts = next(cache.glob("v*")) / "facts"
    store = FactStore(cache)
    assert [store.get(f"{i:040x}") is not None for i in range(1, 6)] == [False] * 3 + [True] * 2
    assert all(store.get(f"{i + 100:040x}") == f"other {i} ".encode() * 1000 for i in range(1, 6))
    packs = list(facts.glob("*.pack"))
    assert len(packs) == 1  # compacted at the fifth run: seven entries of about 9 KB
    assert packs[0].stat().st_size < 7 * 10_000


def test_a_pack_of_old_versions_alone_is_removed(tmp_path: Path) -> None:
    """A pack whose entries all left the index goes at once (no compaction needed)."""
    cache = tmp_path / "cache"
    for i in range(1, 6):
        store = FactStore(cache)
        store.put(f"{i:040x}", f"version {i}".encode(), slot="e" * 40)
        store.close()
    assert len(list((next(cache.glob("v*")) / "facts").glob("*.pack"))) == 2


def test_an_index_without_slots_is_read(tmp_path: Path) -> None:
    """Index lines written before slots (four fields) still find their entries."""
    cache = tmp_path / "cache"
    store = FactStore(cache)
    store.put("a" * 40, b"payload", slot="b" * 40)
    store.close()
    path, places = _index_of(cache)
    old = "".join(f"{k} {p} {o} {n}\n" for k, (p, o, n, _s) in places.items())
    from pdlint.cache.store import _frame

    path.write_bytes(_frame("index", old.encode()))
    assert FactStore(cache).get("a" * 40) == b"payload"


def test_a_file_switched_back_is_read_from_the_cache(relay_gap: Path, tmp_path: Path) -> None:
    """A file edited, then back to its first version and forth again (a branch
    switched back and forth): both versions' facts stay cached, nothing is parsed."""
    cache = tmp_path / "cache"
    target = next(p for p in sorted(relay_gap.rglob("*.py")) if "def " in p.read_text())
    first = target.read_text()
    second = first + "\n\ndef added():\n    return 1\n"
    cached(relay_gap, cache)
    parsed = []
    for text in (second, first, second):
        target.write_text(text)
        parsed.append(verbose_stats(relay_gap, "--cache-dir", str(cache))["files parsed"])
        assert cached(relay_gap, cache) == uncached(relay_gap)
    assert parsed == ["1", "0", "0"]


def test_facts_wait_in_memory_until_flushed(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    store = FactStore(cache)
    store.put("a" * 40, b"payload")
    assert store.get("a" * 40) == b"payload"  # the same run reads what it wrote
    assert FactStore(cache).get("a" * 40) is None  # another run: not written yet
    store.close()
    assert FactStore(cache).get("a" * 40) == b"payload"


def test_other_pdlint_versions_use_their_own_directory(tmp_path: Path, monkeypatch) -> None:
    store = FactStore(tmp_path / "cache")
    store.put("k" * 40, b"payload")
    assert store.get("k" * 40) == b"payload"
    monkeypatch.setattr("pdlint.cache.store.__version__", "999.0")
    assert FactStore(tmp_path / "cache").get("k" * 40) is None


def test_unwritable_cache_degrades_to_no_cache_with_a_verbose_note(
    relay_gap: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    where = blocker / "cache"
    proc = run_pdlint(
        "check", ".", "-v", "--output-format", "json", "--cache-dir", where, cwd=relay_gap
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout) == uncached(relay_gap)
    notes = [line for line in proc.stderr.splitlines() if "note:" in line]
    assert notes == [
        f"pdlint: note: cache directory {where} is not writable (Not a directory); not cached"
    ]
    quiet = run_pdlint("check", ".", "--cache-dir", where, cwd=relay_gap)
    assert "note" not in quiet.stderr and "cache" not in quiet.stderr


# --- location, tags, pdlint clean ----------------------------------------------


def test_default_cache_is_tagged_in_the_project_root(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    copy_relay_gap(project)
    (project / "pyproject.toml").write_text('[tool.pdlint]\nselect = ["PDL"]\n')
    sub = project / "relay_gap_engine"
    proc = run_without_cache_env("check", ".", cwd=sub)
    assert proc.returncode == 1
    cache = project / ".pdlint_cache"
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (cache / "CACHEDIR.TAG").read_text() == CACHEDIR_TAG
    assert not (sub / ".pdlint_cache").exists()
    cleaned = run_without_cache_env("clean", cwd=project)
    assert cleaned.returncode == 0
    assert not cache.exists()
    again = run_without_cache_env("clean", cwd=project)
    assert again.returncode == 0 and "no cache" in again.stderr


def test_cache_dir_from_environment_and_config(relay_gap: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "from-env"
    proc = run_pdlint("check", ".", cwd=relay_gap, env={"PDLINT_CACHE_DIR": str(env_dir)})
    assert proc.returncode == 1 and (env_dir / "CACHEDIR.TAG").is_file()
    (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\ncache-dir = "here"\n')
    proc = run_without_cache_env("check", ".", cwd=relay_gap)
    assert proc.returncode == 1 and (relay_gap / "here" / "CACHEDIR.TAG").is_file()
    shutil.rmtree(relay_gap / "here")
    proc = run_without_cache_env("check", ".", "--no-cache", cwd=relay_gap)
    assert proc.returncode == 1 and not (relay_gap / "here").exists()


def test_clean_refuses_a_directory_pdlint_did_not_make(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "data.txt").write_text("keep me\n")
    proc = run_pdlint("clean", "--cache-dir", precious, cwd=tmp_path)
    assert proc.returncode == 2
    assert "not a pdlint cache" in proc.stderr
    assert (precious / "data.txt").read_text() == "keep me\n"


def snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every entry under ``folder``: a file's bytes, a link's target, a folder's name."""
    out: dict[str, bytes | str] = {}
    for path in sorted(folder.rglob("*")):
        name = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[name] = f"-> {os.readlink(path)}"
        elif path.is_file():
            out[name] = path.read_bytes()
        else:
            out[name] = "dir"
    return out


@pytest.mark.parametrize(
    ("config", "flag"),
    [('cache-dir = "."', None), (None, "."), ('cache-dir = ".."', None), (None, "..")],
    ids=["config-root", "flag-root", "config-parent", "flag-parent"],
)
def test_the_project_root_or_a_folder_above_is_never_a_cache(
    tmp_path: Path, config: str | None, flag: str | None
) -> None:
    """Data loss seen: ``cache-dir = "."`` (or ``--cache-dir .``) tagged the project,
    and ``pdlint clean`` then removed it."""
    project = copy_relay_gap(tmp_path / "proj")
    (project / "pyproject.toml").write_text(f"[tool.pdlint]\n{config or ''}\n")
    (project / ".gitignore").write_text("build/\n")
    before = snapshot(tmp_path)
    args = ["--cache-dir", flag] if flag else []
    check = run_without_cache_env("check", ".", *args, cwd=project)
    assert check.returncode == 1, check.stderr  # the run completes, uncached
    assert "PDL101" in check.stdout
    assert "is the project root, HOME or a folder above one" in check.stderr
    assert "running without the cache" in check.stderr
    assert snapshot(tmp_path) == before  # no tag, no .gitignore replaced
    clean = run_without_cache_env("clean", *args, cwd=project)
    assert clean.returncode == 2
    assert "is the project root, HOME or a folder above one" in clean.stderr
    assert "nothing removed" in clean.stderr
    assert snapshot(tmp_path) == before


def test_home_is_never_a_cache(tmp_path: Path) -> None:
    """``cache-dir = "~"`` tagged HOME, and ``pdlint clean`` removed it."""
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "todo.txt").write_text("keep me\n")
    project = copy_relay_gap(tmp_path / "proj")
    (project / "pyproject.toml").write_text('[tool.pdlint]\ncache-dir = "~"\n')
    before = snapshot(home)
    check = run_without_cache_env("check", ".", cwd=project, home=home)
    assert check.returncode == 1 and "HOME" in check.stderr
    clean = run_without_cache_env("clean", cwd=project, home=home)
    assert clean.returncode == 2 and "HOME" in clean.stderr
    assert snapshot(home) == before


def test_a_folder_holding_other_files_is_never_a_cache(tmp_path: Path) -> None:
    """A folder pdlint did not make is refused, even one an older pdlint tagged."""
    project = copy_relay_gap(tmp_path / "proj")
    data = tmp_path / "data"
    data.mkdir()
    (data / "results.csv").write_text("1,2\n")
    (data / ".gitignore").write_text("*.tmp\n")
    before = snapshot(data)
    check = run_without_cache_env("check", ".", "--cache-dir", data, cwd=project)
    assert check.returncode == 1
    assert "'results.csv'" in check.stderr and "did not write" in check.stderr
    assert snapshot(data) == before  # its .gitignore is not replaced
    # Tagged by a pdlint before this one: the tag alone does not make it pdlint's.
    (data / "CACHEDIR.TAG").write_text(CACHEDIR_TAG)
    before = snapshot(data)
    clean = run_without_cache_env("clean", "--cache-dir", data, cwd=project)
    assert clean.returncode == 2 and "'results.csv'" in clean.stderr
    assert snapshot(data) == before


def test_an_empty_folder_becomes_a_cache_and_clean_removes_only_it(tmp_path: Path) -> None:
    project = copy_relay_gap(tmp_path / "proj")
    cache = tmp_path / "cache"
    cache.mkdir()
    check = run_without_cache_env("check", ".", "--cache-dir", cache, cwd=project)
    assert check.returncode == 1 and "warning" not in check.stderr
    assert (cache / "CACHEDIR.TAG").read_text() == CACHEDIR_TAG
    assert (cache / ".gitignore").read_text().splitlines()[-1] == "*"
    clean = run_without_cache_env("clean", "--cache-dir", cache, cwd=project)
    assert clean.returncode == 0 and not cache.exists()
    assert (tmp_path / "proj" / "relay_gap_engine").is_dir()


@pytest.mark.parametrize("target", ["outside", "project"])
def test_a_shipped_cache_symlink_is_never_followed(tmp_path: Path, target: str) -> None:
    """A repository can ship ``.pdlint_cache`` as a link to any folder: pdlint
    neither writes there nor removes it."""
    project = copy_relay_gap(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me\n")
    (project / ".pdlint_cache").symlink_to(outside if target == "outside" else project)
    before = snapshot(tmp_path)
    check = run_without_cache_env("check", ".", cwd=project)
    assert check.returncode == 1 and "PDL101" in check.stdout
    assert "is a symbolic link; pdlint never follows one" in check.stderr
    clean = run_without_cache_env("clean", cwd=project)
    assert clean.returncode == 2 and "symbolic link" in clean.stderr
    assert snapshot(tmp_path) == before


def test_a_folder_reached_through_a_link_in_the_project_is_never_a_cache(
    tmp_path: Path,
) -> None:
    project = copy_relay_gap(tmp_path / "proj")
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "build").symlink_to(outside)
    (project / "pyproject.toml").write_text('[tool.pdlint]\ncache-dir = "build/cache"\n')
    check = run_without_cache_env("check", ".", cwd=project)
    assert check.returncode == 1 and "symbolic link in the project" in check.stderr
    assert list(outside.iterdir()) == []


def test_links_inside_a_cache_are_never_followed(tmp_path: Path) -> None:
    """Entries of a cache folder that are links (a version folder, its facts folder,
    the index) are neither written through nor removed through."""
    project = copy_relay_gap(tmp_path / "proj")
    cache = project / ".pdlint_cache"
    assert run_without_cache_env("check", ".", cwd=project).returncode == 1
    (version,) = [p for p in cache.iterdir() if p.is_dir()]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep me\n")
    shutil.rmtree(version / "facts")
    (version / "facts").symlink_to(outside)
    (project / "relay_gap_engine" / "new.py").write_text("X = 1\n")
    check = run_without_cache_env("check", ".", cwd=project)
    assert check.returncode == 1 and "PDL101" in check.stdout
    assert snapshot(outside) == {"keep.txt": b"keep me\n"}
    # A version folder that is a link makes the folder foreign: refused.
    shutil.rmtree(version)
    version.symlink_to(outside)
    check = run_without_cache_env("check", ".", cwd=project)
    assert check.returncode == 1 and "did not write" in check.stderr
    clean = run_without_cache_env("clean", cwd=project)
    assert clean.returncode == 2
    assert snapshot(outside) == {"keep.txt": b"keep me\n"}


def test_forged_entries_in_the_analysed_tree_are_never_unpickled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A repository may ship a crafted cache: entries not signed with this user's
    key (kept outside the tree) are rebuilt, never loaded."""
    import hashlib
    import pickle

    from pdlint.cache import store as cache_module

    folder = copy_relay_gap(tmp_path / "proj")
    cache = folder / ".pdlint_cache"
    clean = uncached(folder)
    marker = tmp_path / "pwned"

    class Boom:
        def __reduce__(self) -> tuple[object, ...]:
            return (open, (str(marker), "w"))

    forged = pickle.dumps(Boom())

    def forge() -> None:
        cached(folder, cache)
        written = [
            p
            for p in cache.rglob("*")
            if p.is_file() and p.read_bytes().startswith(cache_module.MAGIC)
        ]
        assert written
        for path in written:
            blob = path.read_bytes()
            head = blob[: blob.index(b"\n", len(cache_module.MAGIC)) + 1]
            # all an attacker who knows the format but not the key can compute
            digest = hashlib.blake2b(forged, digest_size=16).digest()
            path.write_bytes(head + len(forged).to_bytes(8, "little") + digest + forged)

    forge()
    assert cached(folder, cache) == clean
    assert not marker.exists()

    # The same forgery against an unkeyed check does run code: the test reaches
    # the unpickling it guards.
    shutil.rmtree(cache)
    monkeypatch.setattr(
        cache_module, "_sign", lambda payload: hashlib.blake2b(payload, digest_size=16).digest()
    )
    forge()
    try:
        cached(folder, cache)
    except Exception:
        pass
    assert marker.exists()


def test_processes_sharing_one_cold_cache_agree_with_no_cache(tmp_path: Path) -> None:
    """Three pdlint processes filling one cache at the same time, then a warm run,
    all print exactly what a --no-cache run prints; no temporary file is left."""
    folder = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, folder)
    cache = tmp_path / "shared-cache"
    expected = run_pdlint("check", ".", "--output-format", "json", "--no-cache", cwd=folder)
    args = [sys.executable, "-m", "pdlint", "check", ".", "--output-format", "json"]
    procs = [
        subprocess.Popen(
            [*args, "--cache-dir", str(cache)],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == expected.returncode, err
        assert out == expected.stdout
    warm = run_pdlint(
        "check", ".", "--output-format", "json", "--cache-dir", str(cache), cwd=folder
    )
    assert warm.stdout == expected.stdout
    leftovers = [p for p in cache.rglob("*") if p.is_file() and ".tmp" in p.name]
    assert not leftovers
