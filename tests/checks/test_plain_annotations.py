"""A parameter annotated with a plain ``str`` holds what its callers pass, as one with no
annotation does: a builder written ``def build_state(draft: str, handoff)`` and called
with a setting of a ``Literal`` alias is that variant's builder. The gap is run with
CPython: the reported member crashes on the reported line, the others run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import package_findings

FILES = {
    "routes/__init__.py": "",
    "routes/settings.py": """
        from dataclasses import dataclass
        from typing import Literal

        Draft = Literal["tree", "chain", "off"]


        @dataclass
        class Settings:
            draft: Draft = "tree"
        """,
    "routes/state.py": """
        class TreeState:
            def __init__(self, tokens):
                self.tokens = list(tokens)


        def build_state(draft: str, handoff: dict):
            if draft == "tree":
                return TreeState(handoff["tokens"])
            return None
        """,
    "routes/worker.py": """
        from routes.settings import Settings
        from routes.state import build_state


        class Seq:
            def __init__(self, tokens):
                self.tokens = tokens
                self.state = None


        class DecodeWorker:
            def __init__(self, settings: Settings):
                self.settings = settings

            def serve_disagg_decode(self, handoff: dict) -> int:
                seq = Seq(handoff["tokens"])
                seq.state = build_state(self.settings.draft, handoff)
                return self._step(seq)

            def _step(self, seq: Seq) -> int:
                if self.settings.draft in ("tree", "chain"):
                    return len(seq.state.tokens)
                return 0
        """,
}

DRIVER = (
    "import sys\n"
    "from routes.settings import Settings\n"
    "from routes.worker import DecodeWorker\n"
    "print(DecodeWorker(Settings(sys.argv[1])).serve_disagg_decode({'tokens': [1, 2]}))\n"
)


def test_a_builder_parameter_annotated_str_is_the_variant(tmp_path: Path) -> None:
    assert package_findings(tmp_path, FILES) == [
        "PDL001 routes/state.py:6 chain,off",
        "PDL101 routes/worker.py:22 chain",
    ]


@pytest.mark.parametrize(("member", "crashes"), [("tree", False), ("chain", True), ("off", False)])
def test_the_member_reported_crashes_there(tmp_path: Path, member: str, crashes: bool) -> None:
    package_findings(tmp_path, FILES)
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, member],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode != 0) is crashes, done.stderr
    if crashes:
        assert 'routes/worker.py", line 22' in done.stderr
        assert "'NoneType' object has no attribute 'tokens'" in done.stderr
