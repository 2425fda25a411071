"""A batch of a bypass mode made in one branch does not reach code that runs only
when that branch is not taken (``if batch is None: ... return self.idle_batch()``,
then ``self.forward(batch)`` below it): blind probe10 p62's two false PDL102s. The
idle_bypass fixture, its loop rewritten that way."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from pdlint_helpers import fixture, package_findings

LOOP = """    def event_loop_disagg_decode(self) -> None:
        while True:
            batch = self.next_batch()
            if batch is None and self.peers_busy:
                batch = self.idle_batch()
            if batch is not None:
                self.forward(batch)
"""

STEP = """    def step(self) -> Optional[Batch]:
        batch = self.next_batch()
        if batch is None:
            if self.peers_busy:
                return self.idle_batch()
            return None
        FORWARD
        return batch

    def event_loop_disagg_decode(self) -> None:
        while self.step() is not None:
            pass
"""


def _engine(tmp_path: Path, forward: str) -> Path:
    root = shutil.copytree(fixture("idle_bypass"), tmp_path / "engine")
    scheduler = root / "idle_engine" / "scheduler.py"
    text = scheduler.read_text()
    assert LOOP in text
    scheduler.write_text(text.replace(LOOP, STEP.replace("FORWARD", forward)))
    return root


def test_the_branch_that_returns_the_idle_batch_skips_the_forward(tmp_path: Path) -> None:
    root = _engine(tmp_path, "self.forward(batch)")
    assert package_findings(root) == ["PDL001 idle_engine/spec.py:32 OFF"]
    # CPython: the idle step returns its batch without a forward
    probe = (
        "from idle_engine.scheduler import DisaggDecodeScheduler\n"
        "from idle_engine.spec import Speculation\n"
        "s = DisaggDecodeScheduler(list(Speculation)[0])\n"
        "print(s.step().mode.name)\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], cwd=root, capture_output=True, text=True)
    assert run.stdout.strip() == "IDLE", run.stderr


def test_a_forward_of_the_idle_batch_in_that_branch_is_reported(tmp_path: Path) -> None:
    """The same forward on the path the idle batch takes still reaches the state."""
    root = _engine(tmp_path, "self.forward(batch)")
    scheduler = root / "idle_engine" / "scheduler.py"
    text = scheduler.read_text().replace(
        "                return self.idle_batch()",
        "                idle = self.idle_batch()\n                self.forward(idle)\n"
        "                return idle",
    )
    scheduler.write_text(text)
    found = package_findings(root)
    assert [f for f in found if f.startswith("PDL102")] == [
        "PDL102 idle_engine/scheduler.py:33 IDLE"
    ]


def test_a_state_rebuilt_past_an_early_return_of_the_function_that_makes_the_batch(
    tmp_path: Path,
) -> None:
    """``if not requests: return None`` before ``batch.penalties = ...; return batch``:
    every batch the function hands out has the penalties, and the IDLE batch made
    elsewhere still has none (blind probe10 p66's missed PDL102)."""
    root = shutil.copytree(fixture("rebuilt_for_every_batch"), tmp_path / "engine")
    scheduler = root / "ward_engine" / "scheduler.py"
    text = scheduler.read_text()
    made = "        batch = StepBatch(StepPhase.DECODE, requests)\n"
    assert made in text
    scheduler.write_text(
        text.replace(made, "        if not requests:\n            return None\n" + made)
    )
    assert package_findings(root) == ["PDL102 ward_engine/runner.py:9 IDLE"]


def test_a_none_test_of_a_local_holding_the_state_guards_it(tmp_path: Path) -> None:
    """``held = batch.draft`` then ``if held is not None: held.advance()``: the IDLE
    batch never dereferences its None draft; without the test it does."""
    root = shutil.copytree(fixture("idle_bypass"), tmp_path / "engine")
    scheduler = root / "idle_engine" / "scheduler.py"
    text = scheduler.read_text()
    read = "            batch.draft.advance()\n"
    assert read in text
    guarded = (
        "            held = batch.draft\n            if held is not None:\n    "
        + read.replace("batch.draft", "held")
    )
    scheduler.write_text(text.replace(read, guarded))
    assert [f for f in package_findings(root) if f.startswith("PDL102")] == []
    bare = "            held = batch.draft\n" + read.replace("batch.draft", "held")
    scheduler.write_text(text.replace(read, bare))
    assert [f for f in package_findings(root) if f.startswith("PDL102")] == [
        "PDL102 idle_engine/scheduler.py:34 IDLE"
    ]


MIXIN_ENGINE = {
    "kiln_engine/__init__.py": "",
    "kiln_engine/modes.py": """
        from enum import Enum


        class Mode(Enum):
            DECODE = 1
            IDLE = 2


        class Draft(Enum):
            CHAIN = "chain"
            OFF = "off"

            def build(self, reqs):
                if self is Draft.CHAIN:
                    return [r * 2 for r in reqs]
                return None
        """,
    "kiln_engine/handoff.py": """
        class Sampling:
            def __init__(self, temps):
                self.temps = temps

            @classmethod
            def from_reqs(cls, reqs):
                return cls([1.0 for _ in reqs])


        class BatchHandoffMixin:
            def process_handoff(self):
                self.sampling = Sampling.from_reqs(self.reqs)
                draft = self.draft_kind.build(self.reqs)
                if draft is not None:
                    self.draft = draft
        """,
    "kiln_engine/batch.py": """
        from .handoff import BatchHandoffMixin
        from .modes import Mode


        class Batch(BatchHandoffMixin):
            def __init__(self, reqs, draft_kind, mode=Mode.DECODE):
                self.reqs = reqs
                self.draft_kind = draft_kind
                self.mode = mode
                self.sampling = None
                self.draft = None
        """,
    "kiln_engine/scheduler.py": """
        from .batch import Batch
        from .modes import Draft, Mode


        def sample(batch):
            return [t * 2 for t in batch.sampling.temps]


        class DecodeScheduler:
            def __init__(self, kind):
                self.kind = Draft(kind)

            def event_loop_disagg_decode(self, arrivals):
                if arrivals:
                    batch = Batch(arrivals, self.kind)
                    batch.process_handoff()
                else:
                    batch = Batch([], self.kind, Mode.IDLE)
                return sample(batch)
        """,
}


def test_a_state_the_batch_relay_rebuilds_beside_the_relayed_one(tmp_path: Path) -> None:
    """The batch's own relay method (a mixin's ``process_handoff``) rebuilds the sampling
    state for every batch handed over, beside the per-variant draft: the IDLE batch,
    made elsewhere, has none (blind probe10 p62)."""
    found = package_findings(tmp_path, MIXIN_ENGINE)
    assert [f for f in found if f.startswith("PDL102")] == [
        "PDL102 kiln_engine/scheduler.py:6 IDLE"
    ]
    probe = (
        "from kiln_engine.scheduler import DecodeScheduler\n"
        "print(DecodeScheduler('chain').event_loop_disagg_decode([1]))\n"
        "DecodeScheduler('chain').event_loop_disagg_decode([])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.stdout.strip() == "[2.0]"
    assert 'scheduler.py", line 6' in run.stderr and "NoneType" in run.stderr
