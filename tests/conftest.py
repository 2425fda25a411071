"""Pytest fixtures shared by every test folder (helpers live in pdlint_helpers)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import compiled_build
import pytest
from pdlint_helpers import copy_relay_gap


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the compiled build now if a selected test needs it, so its minutes of
    compiling on one core overlap the tests that run before that one."""
    if session.config.option.collectonly or not compiled_build.has_c_compiler():
        return
    if any("compiled_install" in getattr(item, "fixturenames", ()) for item in session.items):
        compiled_build.start_compiled()


def pytest_sessionfinish(session: pytest.Session) -> None:
    compiled_build.discard_compiled()


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
