"""Files whose stamps vouch for their content are not read again; any write is seen.

See :mod:`pdlint.cache.stat_index`: a warm run takes the content hash of a file whose
device, inode, size, modification and change times are the recorded ones, and
reads its bytes only when something needs them.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from pdlint_helpers import fixture, fixture_dirs

from pdlint.api import analyze
from pdlint.cache import stat_index as filestat
from pdlint.cache.stat_index import RACY_NS, StatIndex
from pdlint.cache.store import FactStore, content_hash
from pdlint.engine.program import Program
from pdlint.settings.config import Settings
from pdlint.source.discover import SourceFile
from pdlint.source.read import read_bytes


def run(folder: Path, cache: Path):
    os.chdir(folder)
    return analyze(["."], Settings(root=str(folder), cache=True), cache_dir=str(cache))


def shown(result) -> list[tuple[str, str, int]]:
    return [(f.code, f.location.path, f.location.line) for f in result.findings]


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test a moment ago are taken on trust (no racy window)."""
    monkeypatch.setattr(filestat, "RACY_NS", -(10**12))


def test_a_warm_run_reads_no_file(relay_gap: Path, tmp_path: Path, trusting) -> None:
    cache = tmp_path / "cache"
    cold = run(relay_gap, cache)
    assert cold.stats["files read"] == 5
    warm = run(relay_gap, cache)
    assert warm.stats["files read"] == 0
    assert shown(warm) == shown(cold) and {c for c, _, _ in shown(cold)} == {"PDL001", "PDL101"}


def test_a_write_that_keeps_size_and_mtime_is_seen(
    relay_gap: Path, tmp_path: Path, trusting
) -> None:
    """As ``cp -p`` of a same-sized file: only the change time tells."""
    cache = tmp_path / "cache"
    assert {c for c, _, _ in shown(run(relay_gap, cache))} == {"PDL001", "PDL101"}
    spec_info = relay_gap / "relay_gap_engine" / "spec_info.py"
    before = os.stat(spec_info)
    text = spec_info.read_text()
    fixed = text.replace("if self.is_eagle():", "if True:           ")  # as many bytes
    assert fixed != text and len(fixed) == len(text)
    time.sleep(0.01)
    spec_info.write_text(fixed)
    os.utime(spec_info, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(spec_info)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    result = run(relay_gap, cache)
    assert result.stats["files read"] == 1
    assert shown(result) == []


def test_a_file_that_vanishes_before_its_bytes_are_read_gets_a_parse_error(
    relay_gap: Path, tmp_path: Path, trusting
) -> None:
    cache = tmp_path / "cache"
    run(relay_gap, cache)
    path = relay_gap / "relay_gap_engine" / "spec_utils.py"
    source = SourceFile(path=str(path), display="relay_gap_engine/spec_utils.py")
    program = Program([(source, None)], FactStore(cache), salt="s")
    (entry,) = program.entries
    assert entry.raw is None and entry.digest  # vouched for by its stamp, not read
    path.unlink()
    assert entry.data is None
    (error,) = program.read_errors()
    assert error.code == "PDL900" and error.message.startswith("cannot read")
    assert program.reads == 1


def stamped(when_ns: int) -> tuple[int, int, int, int, int]:
    return (1, 2, 3, when_ns, when_ns)


def test_the_index_trusts_only_equal_stamps_recorded_well_after_the_last_change(
    tmp_path: Path,
) -> None:
    store = FactStore(tmp_path / "cache")
    old = time.time_ns() - 10 * RACY_NS
    first = StatIndex(store)
    first.record("/a", stamped(old), "digest-a")
    first.record("/racy", stamped(first.started - RACY_NS // 2), "digest-racy")
    first.save()
    later = StatIndex(FactStore(tmp_path / "cache"))
    assert later.digest("/a", stamped(old)) == "digest-a"
    for changed in range(5):  # any of device, inode, size, mtime, ctime
        stamp = list(stamped(old))
        stamp[changed] += 1
        assert later.digest("/a", tuple(stamp)) is None  # type: ignore[arg-type]
    assert later.digest("/racy", stamped(first.started - RACY_NS // 2)) is None
    assert later.digest("/unknown", stamped(old)) is None


def test_a_damaged_index_is_ignored(tmp_path: Path) -> None:
    store = FactStore(tmp_path / "cache")
    index = StatIndex(store)
    index.record("/a", stamped(0), "digest-a")
    index.save()
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file() and path.name == filestat.KEY:
            path.write_bytes(path.read_bytes()[:-3] + b"xyz")
    assert StatIndex(FactStore(tmp_path / "cache")).digest("/a", stamped(0)) is None


def test_a_stamp_vouching_for_other_bytes_is_corrected_when_read(
    relay_gap: Path, tmp_path: Path, trusting
) -> None:
    """Bytes read after all are hashed: facts are never stored under another digest."""
    cache = tmp_path / "cache"
    expected = shown(run(relay_gap, cache))
    path = relay_gap / "relay_gap_engine" / "spec_info.py"
    index = StatIndex(FactStore(cache))
    index.record(os.path.abspath(path), filestat.stamp(os.stat(path)), "0" * 32)
    index.save()
    source = SourceFile(path=str(path), display="relay_gap_engine/spec_info.py")
    program = Program([(source, None)], FactStore(cache), salt="s")
    (entry,) = program.entries
    # naming the modules reads it at once here (no run recorded what bytes of that
    # content hash import), and the hash is corrected then
    assert entry.data == path.read_bytes()
    assert entry.digest == content_hash(path.read_bytes())
    program.save()  # the wrong stamp is not kept: the next run reads the file
    (again,) = Program([(source, None)], FactStore(cache), salt="s").entries
    assert again.raw == path.read_bytes() and again.digest == content_hash(again.raw)
    shutil.rmtree(cache)
    assert shown(run(relay_gap, cache)) == expected


CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())


@pytest.mark.parametrize("name", CASES)
def test_runs_trusting_stamps_equal_uncached_on_every_fixture(
    name: str, tmp_path: Path, trusting
) -> None:
    folder = tmp_path / name
    shutil.copytree(fixture(name), folder)
    cache = tmp_path / "cache"
    os.chdir(folder)
    settings = Settings(root=str(folder), cache=False)
    expected = shown(analyze(["."], settings))
    assert shown(run(folder, cache)) == expected  # cold
    warm = run(folder, cache)
    assert shown(warm) == expected and warm.stats["files read"] == 0
    target = sorted(folder.rglob("*.py"))[-1]
    target.write_text("# an added first line\n" + target.read_text())
    os.chdir(folder)
    after = shown(analyze(["."], settings))
    edited = run(folder, cache)
    assert shown(edited) == after and edited.stats["files read"] == 1
    assert shown(run(folder, cache)) == after  # warm again, after the edit


def test_stamps_no_run_looked_at_for_a_month_are_dropped(tmp_path: Path) -> None:
    store = FactStore(tmp_path / "cache")
    first = StatIndex(store)
    first.started -= filestat.KEEP_NS + 1  # as if recorded over a month ago
    old = first.started - 10 * RACY_NS  # files written well before
    for path in ("/kept", "/gone"):
        first.record(path, stamped(old), f"digest{path}")
    first.save()
    later = StatIndex(FactStore(tmp_path / "cache"))
    assert later.digest("/kept", stamped(old)) == "digest/kept"  # looked at in this run
    later.record("/new", stamped(old), "digest/new")
    later.save()
    last = StatIndex(FactStore(tmp_path / "cache"))
    assert last.digest("/kept", stamped(old)) == "digest/kept"
    assert last.digest("/new", stamped(old)) == "digest/new"
    assert last.digest("/gone", stamped(old)) is None


@pytest.mark.parametrize("size", [0, 100, 200_000, 300_000])
def test_read_bytes_reads_the_whole_file_whatever_size_stat_gave(tmp_path: Path, size: int) -> None:
    # the size a stat gave may be stale: the file grew (100) or shrank (300,000)
    path = tmp_path / "big.py"
    data = bytes(range(256)) * 800  # 204,800 bytes, more than one read's buffer
    path.write_bytes(data)
    assert read_bytes(str(path), size) == data
    (tmp_path / "empty.py").write_bytes(b"")
    assert read_bytes(str(tmp_path / "empty.py"), size) == b""
    with pytest.raises(OSError):
        read_bytes(str(tmp_path / "missing.py"), size)
    with pytest.raises(OSError):
        read_bytes(str(tmp_path), size)  # a folder
