"""The program's ``defining`` query (one search of all modules' joined names) against
``may_define`` on each module's scan, on generated packages."""

from __future__ import annotations

import pickle
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pdlint.cache.store import FactStore
from pdlint.engine import scan_index
from pdlint.engine.program import Program
from pdlint.engine.textscan import may_define
from pdlint.source.discover import discover

NAMES = st.text(alphabet="abcDE_x", min_size=1, max_size=8).filter(str.isidentifier)
MODULES = st.lists(st.lists(NAMES, max_size=4), min_size=1, max_size=6)


def _package_of(folder: Path, modules: list[list[str]], body: str) -> list:  # type: ignore[type-arg]
    """A package ``pkg_x`` with a module per list, defining its names (each function's
    body ``body``, ``{name}`` its name); its files as discovered."""
    package = folder / "pkg_x"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i, names in enumerate(modules):
        text = "".join(f"def {n}():\n    {body.format(name=n)}\n" for n in names)
        (package / f"mod_{i}.py").write_text(text)
    files, _ = discover([str(package)], ())
    return files


@settings(max_examples=80, deadline=None)
@given(MODULES, st.booleans(), st.data())
def test_defining_is_may_define_of_each_module(
    modules: list[list[str]], ignore_case: bool, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        files = _package_of(Path(folder), modules, "pass")
        program = Program([(f, None) for f in files], FactStore(None), "salt")
        scans = program.scans()
        # pieces cut from the modules' own names and defined names, and others
        words = [*scans, *(n for names in modules for n in names), "pkg", "zz"]
        piece = st.builds(
            lambda word, start, size: word[start : start + size],
            st.sampled_from(words),
            st.integers(0, 4),
            st.integers(0, 6),
        )
        for pieces in data.draw(st.lists(st.lists(piece, min_size=1, max_size=3), max_size=8)):
            expected = [
                m
                for m, scan in scans.items()
                if may_define(scan, m, pieces, ignore_case=ignore_case)
            ]
            assert program.defining(pieces, ignore_case=ignore_case) == expected


@pytest.mark.parametrize("few_files", [scan_index.FEW_FILES, 0], ids=["each-file", "token-index"])
def test_text_queries_are_the_test_of_each_file(few_files: int) -> None:
    """A text query's answer is the modules whose file passes the query's test, file
    by file: with the files tested one by one, and narrowed down first by the token
    index (a word's pieces found among the files' identifier tokens)."""
    before = scan_index.FEW_FILES
    scan_index.FEW_FILES = few_files
    try:
        _text_queries_are_the_test_of_each_file()
    finally:
        scan_index.FEW_FILES = before


@settings(max_examples=80, deadline=None)
@given(MODULES, st.data())
def _text_queries_are_the_test_of_each_file(modules: list[list[str]], data: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        files = _package_of(Path(folder), modules, "{name}(1)")
        program = Program([(f, None) for f in files], FactStore(None), "salt")
        texts = {
            f"pkg_x.{Path(f.path).stem}".removesuffix(".__init__"): Path(f.path).read_bytes()
            for f in files
        }
        # words cut from the defined names, after and before other characters or not
        words = [*(n for names in modules for n in names), "def", "zz"]
        word = st.builds(
            lambda before, w, start, size, after: before + w[start : start + size] + after,
            st.sampled_from(["", " ", "def ", "\n"]),
            st.sampled_from(words),
            st.integers(0, 3),
            st.integers(1, 6),
            st.sampled_from(["", "(", "():", "(1"]),
        )
        for _ in range(data.draw(st.integers(1, 6))):
            any_of = data.draw(st.lists(word, max_size=3))
            all_of = data.draw(st.lists(st.lists(word, min_size=1, max_size=3), max_size=3))
            expected = sorted(
                m
                for m, text in texts.items()
                if (not any_of or any(w.encode() in text for w in any_of))
                and (not all_of or any(all(w.encode() in text for w in g) for g in all_of))
            )
            query = {"any_of": any_of, "all_of": tuple(tuple(g) for g in all_of)}
            assert sorted(program.with_text(**query)) == expected  # type: ignore[arg-type]


def _scans(folder: Path, cache: Path) -> dict[str, object]:
    files, _ = discover([str(folder)], ())
    program = Program([(f, None) for f in files], FactStore(cache), "salt")
    scans = dict(program.scans())
    program.save()
    program.close()
    return scans


def test_an_edit_adds_its_scans_beside_the_scan_index(tmp_path: Path) -> None:
    """The scans of a few changed files are written beside the scan index (not the
    whole index again); the next run reads both, and reads the files' scans as a
    fresh scan makes them. Past SCAN_DELTA_MAX changed files, the index is written
    again (and the files beside it dropped)."""
    package = tmp_path / "pkg_x"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(10):
        (package / f"mod_{i}.py").write_text(f"def f{i}():\n    pass\n")
    cache = tmp_path / "cache"
    _scans(package, cache)
    versions = cache / next(p.name for p in cache.iterdir() if p.is_dir())
    probe = Program([], FactStore(None), "salt")
    index = versions / probe.index.key(scan_index.SCAN_INDEX)
    delta = versions / probe.index.key(scan_index.SCAN_DELTA)
    written = index.stat().st_mtime_ns
    assert not delta.exists()

    (package / "mod_3.py").write_text("def changed():\n    pass\n")
    scans = _scans(package, cache)
    assert delta.exists() and index.stat().st_mtime_ns == written  # the index untouched
    fresh = _scans(package, tmp_path / "fresh")
    assert scans == fresh and _scans(package, cache) == fresh
    assert "changed" in fresh["pkg_x.mod_3"].defs  # type: ignore[attr-defined]

    for i in range(scan_index.SCAN_DELTA_MAX + 1):
        (package / f"many_{i}.py").write_text(f"def g{i}():\n    pass\n")
    assert _scans(package, cache) == _scans(package, tmp_path / "fresh2")
    assert index.stat().st_mtime_ns != written  # written again, the delta emptied
    payload = FactStore(cache).get(probe.index.key(scan_index.SCAN_DELTA), kind="blob")
    assert payload is not None and pickle.loads(payload) == {}
    assert _scans(package, cache) == _scans(package, tmp_path / "fresh3")


def _package(tmp_path: Path, count: int) -> list:  # type: ignore[type-arg]
    package = tmp_path / "pkg_x"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for i in range(count):
        # sizes differ, so the queue's order (largest first) is known
        (package / f"mod_{i}.py").write_text(f"def f{i}(dst_x):\n    return dst_x\n" + "#\n" * i)
    files, _ = discover([str(package)], ())
    return files


def test_a_query_is_answered_once_per_run(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Asked again (by another model, or a forked check), a query takes the answer
    recorded; a query asked with record=False is answered but left out of the record."""
    program = Program([(f, None) for f in _package(tmp_path, 4)], FactStore(None), "salt")
    answered: list[tuple[object, ...]] = []
    answer = program._answer

    def spy(query: tuple[object, ...]) -> list[str]:
        answered.append(query)
        return answer(query)

    monkeypatch.setattr(program, "_answer", spy)
    first = program.with_text(any_of=["f1", "f2"])
    assert first == ["pkg_x.mod_1", "pkg_x.mod_2"]
    assert program.with_text(any_of=["f2", "f1"]) == first
    assert len(answered) == 1
    guess = program.with_text(any_of=["f3"], record=False)
    assert guess == ["pkg_x.mod_3"] and len(answered) == 2
    assert list(program.asked) == [answered[0]]


def test_each_prefetch_replaces_the_files_queued_before(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Files an earlier prefetch queued and no worker took are dropped by the next
    (what the analysis now expects to load); an empty one drops them all."""
    monkeypatch.setenv("PDLINT_WORKERS", "2")  # one worker parses ahead
    program = Program([(f, None) for f in _package(tmp_path, 8)], FactStore(None), "salt")
    mods = [f"pkg_x.mod_{i}" for i in range(8)]

    def queued() -> list[str]:
        return [e.module for e in program.workers.queue]

    def started() -> set[str]:
        return {
            m for m, e in program.by_module.items() if e.source.display in program.workers.ahead
        }

    try:
        program.prefetch(mods[:4])
        assert queued() == [m for m in reversed(mods[:4]) if m in queued()]  # largest first
        assert set(queued()) | started() == set(mods[:4])
        program.prefetch(mods[2:])
        assert set(queued()) | started() == set(mods[2:]) | started()
        assert not {mods[0], mods[1]} & set(queued())
        program.prefetch([])
        assert not queued()
        loaded = program.load(mods)
        assert [facts.module for facts in loaded] == mods
        program.prefetch(mods)  # all loaded: none queued
        assert not queued()
    finally:
        program.close()


def test_a_file_parsed_ahead_before_its_callback_is_added_does_not_deadlock(
    tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """A worker can finish a file before the future's callback is added: the callback
    then runs at once, in the thread that submitted it, and queues the next file."""
    import threading
    from concurrent.futures import Future

    class Done:  # an executor whose every job is done when submit returns
        def submit(self, func, *args):  # type: ignore[no-untyped-def]
            future: Future[bytes] = Future()
            future.set_result(func(*args))
            return future

        def shutdown(self, **_kwargs: object) -> None:
            pass

    program = Program([(f, None) for f in _package(tmp_path, 4)], FactStore(None), "salt")
    monkeypatch.setattr(program.workers, "pool_for", lambda size, count: Done())
    program.workers.pool = Done()  # type: ignore[assignment]
    program.workers.count = 2
    mods = [f"pkg_x.mod_{i}" for i in range(4)]
    worker = threading.Thread(target=program.prefetch, args=(mods,), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "prefetch deadlocked"
    assert not program.workers.queue and len(program.workers.ahead) == 4  # each queued the next
    assert [facts.module for facts in program.load(mods)] == mods
    assert program.parsed_ahead == 4
