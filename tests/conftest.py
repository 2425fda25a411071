"""Fixtures shared by the CLI, config and policy tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import copy_relay_gap


@pytest.fixture
def relay_gap(tmp_path: Path) -> Path:
    """A fresh copy of the relay_gap fixture in tmp_path (``tmp_path/relay_gap``)."""
    return copy_relay_gap(tmp_path / "relay_gap")
