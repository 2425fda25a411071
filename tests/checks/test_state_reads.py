"""How the relay state is read, beyond ``batch.state.x``: a startup validator that
returns early when the object it reads the member from is None, a consumer behind a
loud failure of the same member, and a state stored from a local that a method was
called on first. One small engine, each case a variation of it, each expectation
checked with CPython."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pdlint_helpers import package_findings

ALGO = """
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Optional


class Algo(Enum):
    TREE = "tree"
    HEADS = "heads"
    LOOKUP = "lookup"


class Plan:
    def __init__(self, rows: list) -> None:
        self.rows = rows

    def ready(self) -> bool:
        return bool(self.rows)


@dataclass
class SpecConfig:
    algo: Algo


def rebuild(algo: Algo, handoff: dict) -> Optional[Plan]:
    if algo is Algo.TREE:
        return Plan(handoff["rows"])
    return None
"""

CONFIG = """
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .algo import Algo, SpecConfig


@dataclass
class ServerConfig:
    role: str = "mixed"
    spec: Optional[SpecConfig] = None

    def __post_init__(self) -> None:
        self._check()

    def _check(self) -> None:
        CHECK
"""

WORKER = """
from __future__ import annotations

from .algo import Algo, Plan, rebuild
from .config import ServerConfig


class Batch:
    def __init__(self, rows: list) -> None:
        self.rows = rows
        self.plan = None


class Drafter:
    def draft(self, batch: Batch) -> Plan:
        return Plan(list(batch.rows))


class Worker:
    def __init__(self, config: ServerConfig) -> None:
        self.algo = config.spec.algo
        self.drafter = make_drafter()

    def event_loop_disagg_decode(self, handoffs: list) -> int:
        total = 0
        for handoff in handoffs:
            batch = Batch(handoff["rows"])
            batch.plan = rebuild(self.algo, handoff)
            total += self.step(batch)
        return total

    def step(self, batch: Batch) -> int:
        STEP

    def verify(self, batch: Batch) -> int:
        return len(batch.plan.rows)

    def prepare(self, batch: Batch) -> None:
        if self.algo is not Algo.TREE and batch.plan is None:
            raise RuntimeError("no plan was handed off")


def make_drafter():
    return globals()["Drafter"]()
"""

DRIVER = """
import sys
from eddy_engine.algo import Algo, SpecConfig
from eddy_engine.config import ServerConfig
from eddy_engine.worker import Worker
try:
    config = ServerConfig(role="decode", spec=SpecConfig(Algo[sys.argv[1]]))
except ValueError as exc:
    print("rejected:", exc)
    sys.exit(0)
print(Worker(config).event_loop_disagg_decode([{"rows": [1, 2]}]))
"""

PLAIN_STEP = "return self.verify(batch)"


def _engine(tmp_path: Path, check: str = "pass", step: str = PLAIN_STEP) -> tuple[Path, list]:
    files = {
        "eddy_engine/__init__.py": "",
        "eddy_engine/algo.py": ALGO,
        "eddy_engine/config.py": CONFIG.replace("CHECK", check),
        "eddy_engine/worker.py": WORKER.replace("STEP", step),
    }
    found = package_findings(tmp_path, files)
    return tmp_path, found


def _run(root: Path, member: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, member], cwd=root, capture_output=True, text=True
    )


def test_the_unchecked_engine(tmp_path: Path) -> None:
    root, found = _engine(tmp_path)
    assert found == [
        "PDL001 eddy_engine/algo.py:27 HEADS,LOOKUP",
        "PDL101 eddy_engine/worker.py:35 HEADS",
        "PDL101 eddy_engine/worker.py:35 LOOKUP",
    ]
    assert 'worker.py", line 35' in _run(root, "HEADS").stderr


VALIDATOR = """if self.spec is None:
            return
        algo = self.spec.algo
        if self.role == "decode" and algo is Algo.HEADS:
            raise ValueError("HEADS is not handed off")"""


def test_a_validator_past_a_none_test_of_the_config_rejects(tmp_path: Path) -> None:
    """``if self.spec is None: return`` first: a request of any member has the spec
    its member is read from, so the validator rejects HEADS (probe7 p33)."""
    root, found = _engine(tmp_path, check=VALIDATOR)
    assert found == [
        "PDL001 eddy_engine/algo.py:27 LOOKUP",
        "PDL101 eddy_engine/worker.py:35 LOOKUP",
    ]
    assert _run(root, "HEADS").stdout.startswith("rejected:")


LOUD_STEP = """self.prepare(batch)
        return self.verify(batch)"""


def test_a_consumer_after_a_loud_failure_is_its_note(tmp_path: Path) -> None:
    """The request raises in ``prepare`` before it gets to ``verify``: one finding,
    at the raise, with the consumer it would reach next as a note."""
    root, found = _engine(tmp_path, step=LOUD_STEP)
    assert found == [
        "PDL001 eddy_engine/algo.py:27 HEADS,LOOKUP",
        "PDL101 eddy_engine/worker.py:40 HEADS",
        "PDL101 eddy_engine/worker.py:40 LOOKUP",
    ]
    crash = _run(root, "HEADS").stderr
    assert "RuntimeError: no plan" in crash and 'worker.py", line 40' in crash
    proc = subprocess.run(
        [sys.executable, "-m", "pdlint", "check", "--no-cache", "--output-format", "json", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    notes = [r["message"] for f in json.loads(proc.stdout) for r in f["related"]]
    assert any("would fail here next" in n for n in notes), notes


STORED_STEP = """if not batch.rows:
            return 0
        fresh = self.drafter.draft(batch)
        assert fresh.ready()
        batch.plan = fresh
        return self.verify(batch)"""


def test_a_state_stored_from_a_local_a_method_was_called_on(tmp_path: Path) -> None:
    """``fresh.ready()`` ran before ``batch.plan = fresh`` on every path there (under
    the same condition): ``verify`` sees a plan, for every member."""
    root, found = _engine(tmp_path, step=STORED_STEP)
    assert found == ["PDL001 eddy_engine/algo.py:27 HEADS,LOOKUP"]
    for member in ("TREE", "HEADS", "LOOKUP"):
        assert _run(root, member).returncode == 0


BRANCH_STEP = """if self.drafter is None:
            self.prepare(batch)
            return 0
        return self.verify(batch)"""


def test_a_loud_failure_in_another_branch_hides_nothing(tmp_path: Path) -> None:
    """``prepare`` raises in the branch that returns; ``verify`` runs in the other one,
    so it is a finding of its own (where CPython fails)."""
    root, found = _engine(tmp_path, step=BRANCH_STEP)
    assert found == [
        "PDL001 eddy_engine/algo.py:27 HEADS,LOOKUP",
        "PDL101 eddy_engine/worker.py:38 HEADS",
        "PDL101 eddy_engine/worker.py:38 LOOKUP",
        "PDL101 eddy_engine/worker.py:42 HEADS",
        "PDL101 eddy_engine/worker.py:42 LOOKUP",
    ]
    assert 'worker.py", line 38' in _run(root, "HEADS").stderr


PLACEHOLDER_STEP = """if batch.plan is None:
            batch.plan = Plan([])
        return self.verify(batch)"""


def test_a_placeholder_stored_before_the_call_is_what_the_callee_reads(tmp_path: Path) -> None:
    """``if batch.plan is None: batch.plan = Plan([])`` sets the plan on both branches:
    ``verify`` reads a plan."""
    root, found = _engine(tmp_path, step=PLACEHOLDER_STEP)
    assert found == ["PDL001 eddy_engine/algo.py:27 HEADS,LOOKUP"]
    for member in ("TREE", "HEADS", "LOOKUP"):
        assert _run(root, member).returncode == 0
