"""A startup validator that converts the setting to the enum itself (``algo =
SpecAlgo.from_string(self.spec_name)``, ``kind = SpecAlgo(args.spec_name)``) and
rejects a member in the decode role: that member's gap is handled, so neither the
inventory nor the consumer reports it (blind probe10 p62, p68)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import package_findings

FILES = {
    "fen_engine/__init__.py": "",
    "fen_engine/spec.py": """
        from __future__ import annotations

        from enum import Enum
        from typing import Optional


        class SpecAlgo(Enum):
            CHAIN = "chain"
            HEADS = "heads"
            LOOKUP = "lookup"

            @classmethod
            def from_string(cls, name: str) -> "SpecAlgo":
                return cls[name.upper()]


        class Chain:
            def __init__(self, rows: list) -> None:
                self.rows = rows

            def width(self) -> int:
                return len(self.rows)


        def restore_chain(algo: SpecAlgo, handoff: dict) -> Optional[Chain]:
            if algo is SpecAlgo.CHAIN:
                return Chain(handoff["rows"])
            return None
        """,
    "fen_engine/args.py": """
        from __future__ import annotations

        from dataclasses import dataclass

        from .spec import SpecAlgo


        @dataclass
        class ServerArgs:
            spec_name: str = "chain"
            role: str = "mixed"

            def __post_init__(self) -> None:
                self._check_role()

            def _check_role(self) -> None:
                CONVERSION
                if self.role == "decode" and algo is SpecAlgo.HEADS:
                    raise ValueError("HEADS drafts are not handed off: serve it colocated")
        """,
    "fen_engine/worker.py": """
        from __future__ import annotations

        from .args import ServerArgs
        from .spec import SpecAlgo, restore_chain


        class Request:
            def __init__(self, rid: str) -> None:
                self.rid = rid
                self.chain = None


        class DecodeWorker:
            def __init__(self, args: ServerArgs) -> None:
                self.algo = SpecAlgo.from_string(args.spec_name)

            def event_loop_disagg_decode(self, handoffs: list) -> int:
                total = 0
                for handoff in handoffs:
                    req = Request(handoff["rid"])
                    req.chain = restore_chain(self.algo, handoff)
                    total += self.draft(req)
                return total

            def draft(self, req: Request) -> int:
                return req.chain.width()
        """,
}

DRIVER = """
import sys
from fen_engine.args import ServerArgs
from fen_engine.worker import DecodeWorker
try:
    args = ServerArgs(spec_name=sys.argv[1], role="decode")
except ValueError as exc:
    print("rejected:", exc)
    sys.exit(0)
DecodeWorker(args).event_loop_disagg_decode([{"rid": "r1", "rows": [1, 2]}])
print("ran")
"""


@pytest.mark.parametrize(
    "conversion",
    ["algo = SpecAlgo.from_string(self.spec_name)", "algo = SpecAlgo(self.spec_name)"],
)
def test_the_validator_converts_the_setting_itself(tmp_path: Path, conversion: str) -> None:
    files = {
        **FILES,
        "fen_engine/args.py": FILES["fen_engine/args.py"].replace("CONVERSION", conversion),
    }
    assert package_findings(tmp_path, files) == [
        "PDL001 fen_engine/spec.py:25 LOOKUP",
        "PDL101 fen_engine/worker.py:26 LOOKUP",
    ]
    # what CPython does: HEADS never starts a decode server, LOOKUP fails in draft()
    runs = {
        name: subprocess.run(
            [sys.executable, "-c", DRIVER, name], cwd=tmp_path, capture_output=True, text=True
        )
        for name in ("chain", "heads", "lookup")
    }
    assert runs["chain"].stdout.strip() == "ran"
    assert runs["heads"].stdout.startswith("rejected:")
    assert 'worker.py", line 26' in runs["lookup"].stderr


def test_a_validator_that_converts_another_setting_rejects_nothing(tmp_path: Path) -> None:
    """The converted value must be the setting: a constant converted is not."""
    files = {
        **FILES,
        "fen_engine/args.py": FILES["fen_engine/args.py"].replace(
            "CONVERSION", 'algo = SpecAlgo("heads")'
        ),
    }
    found = package_findings(tmp_path, files)
    assert "PDL101 fen_engine/worker.py:26 HEADS" in found


def test_a_validator_matching_the_role_and_the_member_together(tmp_path: Path) -> None:
    """``match (self.role, algo): case ("decode", SpecAlgo.HEADS): raise`` (blind
    probe11 p77): the tuple pattern tests the role and the member at once."""
    text = FILES["fen_engine/args.py"].replace(
        "CONVERSION", "algo = SpecAlgo.from_string(self.spec_name)"
    )
    written = (
        '                if self.role == "decode" and algo is SpecAlgo.HEADS:\n'
        "                    raise ValueError("
        '"HEADS drafts are not handed off: serve it colocated")\n'
    )
    assert written in text
    matched = (
        "                match (self.role, algo):\n"
        '                    case ("decode", SpecAlgo.HEADS):\n'
        '                        raise ValueError("HEADS drafts are not handed off")\n'
    )
    files = {**FILES, "fen_engine/args.py": text.replace(written, matched)}
    assert package_findings(tmp_path, files) == [
        "PDL001 fen_engine/spec.py:25 LOOKUP",
        "PDL101 fen_engine/worker.py:26 LOOKUP",
    ]
    run = subprocess.run(
        [sys.executable, "-c", DRIVER, "heads"], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.stdout.startswith("rejected:"), run.stderr
