"""A tiny engine driven by a module-level entry point whose object parameter nothing
annotates and no analysed code passes (blind probe12 p87): the object is of the one
class defining every method the entry calls on it; a property read in an augmented
assignment to an attribute (``self.credit -= batch.draft_width``) runs its getter; an
idle placeholder under ``kind.uses_draft() and batch.draft is None`` is a placeholder.
Each finding is checked with CPython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import package_findings

FILES = {
    "cobble/__init__.py": "",
    "cobble/kinds.py": """
        from enum import Enum, auto


        class Draft(Enum):
            LINE = auto()
            BUSH = auto()
            SCAN = auto()
            SKIM = auto()
            OFF = auto()

            def uses_draft(self):
                return self is not Draft.OFF


        class Phase(Enum):
            RUN = auto()
            IDLE = auto()


        CHARGED = (Draft.LINE, Draft.SCAN)
        """,
    "cobble/state.py": """
        from cobble.kinds import Draft


        class LineState:
            def __init__(self, tokens):
                self.tokens = list(tokens)

            @classmethod
            def create_idle_input(cls):
                return cls([])


        class BushState(LineState):
            pass


        class StateMaker:
            TABLE = {
                Draft.LINE: lambda h: LineState(h["draft"]),
                Draft.BUSH: lambda h: BushState(h["draft"]),
            }

            def build(self, kind, handoff):
                fn = self.TABLE.get(kind)
                return fn(handoff) if fn is not None else None
        """,
    "cobble/batch.py": """
        class Batch:
            def __init__(self, phase, kind, rows, draft=None):
                self.phase = phase
                self.kind = kind
                self.rows = list(rows)
                self.draft = draft

            @property
            def draft_width(self):
                return len(self.draft.tokens)
        """,
    "cobble/engine.py": """
        from cobble.batch import Batch
        from cobble.kinds import CHARGED, Phase
        from cobble.state import LineState, StateMaker


        class Engine:
            def __init__(self, kind):
                self.kind = kind
                self.maker = StateMaker()
                self.credit = 100

            def accept(self, handoff):
                state = self.maker.build(handoff["kind"], handoff)
                return self.step(Batch(Phase.RUN, handoff["kind"], handoff["rows"], state))

            def tick_idle(self):
                return self.step(Batch(Phase.IDLE, self.kind, []))

            def step(self, batch):
                if batch.phase is not Phase.IDLE and batch.kind in CHARGED:
                    self.credit -= batch.draft_width
                if batch.kind.uses_draft() and batch.draft is None:
                    batch.draft = LineState.create_idle_input()
                if batch.kind.uses_draft():
                    return [t + 1 for t in batch.draft.tokens]
                return [r + 1 for r in batch.rows]
        """,
    "cobble/loop.py": """
        def run_disagg_decode(engine, handoffs):
            outs = [engine.accept(h) for h in handoffs]
            return outs or [engine.tick_idle()]
        """,
}

DRIVER = (
    "import sys\n"
    "from cobble.engine import Engine\n"
    "from cobble.kinds import Draft\n"
    "from cobble.loop import run_disagg_decode\n"
    "kind = Draft[sys.argv[1]]\n"
    "handoff = {'kind': kind, 'rows': [4], 'draft': [7, 8]}\n"
    "print(run_disagg_decode(Engine(kind), [handoff]))\n"
)
EXPECTED = [
    "PDL001 cobble/state.py:23 SCAN,SKIM,OFF",
    "PDL101 cobble/batch.py:10 SCAN",
    "PDL103 cobble/engine.py:23 SKIM",
]


def _run(root: Path, member: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, member], cwd=root, capture_output=True, text=True
    )


def test_the_entry_reaches_the_one_engine_class(tmp_path: Path) -> None:
    assert package_findings(tmp_path, FILES) == EXPECTED
    scan = _run(tmp_path, "SCAN")
    assert "'NoneType' object has no attribute 'tokens'" in scan.stderr
    assert 'batch.py", line 10' in scan.stderr
    # SKIM's real request gets the idle placeholder: no draft rows at all
    assert _run(tmp_path, "SKIM").stdout.strip() == "[[]]"
    assert _run(tmp_path, "LINE").stdout.strip() == "[[8, 9]]"
    for member in ("BUSH", "OFF"):
        assert _run(tmp_path, member).returncode == 0


@pytest.mark.parametrize(
    "spelled",
    [
        "self.credit = self.credit - batch.draft_width",
        "self.credit -= batch.draft_width",
    ],
)
def test_a_property_read_where_an_attribute_is_stored(tmp_path: Path, spelled: str) -> None:
    name = "cobble/engine.py"
    files = {**FILES, name: FILES[name].replace("self.credit -= batch.draft_width", spelled)}
    assert "PDL101 cobble/batch.py:10 SCAN" in package_findings(tmp_path, files)


def test_an_engine_two_classes_could_be_is_unknown(tmp_path: Path) -> None:
    """A second class defining ``accept`` and ``tick_idle``: the entry's object is
    unknown, and what it would reach is not reported."""
    files = {
        **FILES,
        "cobble/replay.py": """
            class ReplayEngine:
                def accept(self, handoff):
                    return handoff["rows"]

                def tick_idle(self):
                    return []
            """,
    }
    assert package_findings(tmp_path, files) == []


RUNNER = {
    "tern/__init__.py": "",
    "tern/cfg.py": """
        from dataclasses import dataclass
        from typing import Literal


        @dataclass
        class DraftConfig:
            method: Literal["tree", "chain", "chain_a", "chain_b"]
            draft_heads: int = 1

            def __post_init__(self):
                if self.method in ("chain_a", "chain_b"):
                    self.method = "chain"
        """,
    "tern/runner.py": """
        from tern.cfg import DraftConfig


        class Runner:
            def __init__(self, cfg: DraftConfig):
                self.heads = 0
                if cfg.method == "chain_b":
                    self.heads = cfg.draft_heads


        class DisaggDecodeRunner(Runner):
            def step(self):
                return self.heads
        """,
}


@pytest.mark.parametrize("annotated", [True, False])
def test_the_constructor_a_decode_class_inherits_runs_on_decode(
    tmp_path: Path, annotated: bool
) -> None:
    """``DisaggDecodeRunner`` has no ``__init__`` of its own: the base's runs when it is
    made, and its test of a value the config rewrites never holds (PDL108); with no
    annotation, the config is the one class declaring what the constructor reads."""
    files = dict(RUNNER)
    if not annotated:
        files["tern/runner.py"] = files["tern/runner.py"].replace("cfg: DraftConfig", "cfg")
    assert package_findings(tmp_path, files) == ["PDL108 tern/runner.py:7 chain_b"]
    driver = (
        "from tern.cfg import DraftConfig\n"
        "from tern.runner import DisaggDecodeRunner\n"
        "print(DisaggDecodeRunner(DraftConfig('chain_b', 3)).step())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", driver], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.strip() == "0", done.stderr
