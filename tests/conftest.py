"""Pytest fixtures shared by every test folder (helpers live in pdlint_helpers)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import compiled_build
import pytest
from pdlint_helpers import copy_relay_gap

_SESSION_DIR = pytest.StashKey[str]()


def _worker(config: pytest.Config) -> bool:
    """Whether this process is one of pytest-xdist's workers (not the controller)."""
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    """A folder the session's processes share (its workers inherit the variable)."""
    if not _worker(config) and "PDLINT_TEST_SESSION" not in os.environ:
        os.environ["PDLINT_TEST_SESSION"] = tempfile.mkdtemp(prefix="pdlint-session-")
        config.stash[_SESSION_DIR] = os.environ["PDLINT_TEST_SESSION"]


def pytest_unconfigure(config: pytest.Config) -> None:
    made = config.stash.get(_SESSION_DIR, None)
    if made is not None:
        shutil.rmtree(made, ignore_errors=True)
        del os.environ["PDLINT_TEST_SESSION"]


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's: without it, never called
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker per core, at most four (each runs pdlint's own pool)."""
    return max(1, min(4, len(os.sched_getaffinity(0))))


def _needs_compiled(item: pytest.Item) -> bool:
    return "compiled_install" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the files of the compiled build's tests go first: the worker
    that takes them builds for minutes while the others run the rest."""
    if not _worker(config):
        return
    first = {item.path for item in items if _needs_compiled(item)}
    items.sort(key=lambda item: item.path not in first)  # stable: same order otherwise


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the compiled build now if a selected test needs it, so its minutes of
    compiling on one core overlap the tests that run before that one (the first
    pytest-xdist worker to get here starts it, for all)."""
    config = session.config
    if config.option.collectonly or not compiled_build.has_c_compiler():
        return
    if any(_needs_compiled(item) for item in session.items):
        compiled_build.start_compiled()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldfail)
    compiled_build.finish_compiled(interrupted)


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_repository(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Runs in fixtures/ would put their cache there: point it to a temporary folder."""
    before = os.environ.get("PDLINT_CACHE_DIR")
    os.environ["PDLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("pdlint-cache"))
    yield
    if before is None:
        del os.environ["PDLINT_CACHE_DIR"]
    else:
        os.environ["PDLINT_CACHE_DIR"] = before


@pytest.fixture
def relay_gap(tmp_path: Path) -> Path:
    """A fresh copy of the relay_gap fixture in tmp_path (``tmp_path/relay_gap``)."""
    return copy_relay_gap(tmp_path / "relay_gap")
