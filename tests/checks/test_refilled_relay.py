"""A relay that replaces the builder's None with a carrier of its own before it
stores the result (``if plan is None: plan = Plan(ids)``) never stores None: the
members without a built plan get that carrier, whose given fields are there (blind
probe11 p75's two false PDL101s)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import package_findings

FILES = {
    "sluice_cache/__init__.py": "",
    "sluice_cache/plans.py": """
        from __future__ import annotations

        from dataclasses import dataclass, field
        from enum import Enum
        from typing import Optional


        class Link(Enum):
            RDMA = "rdma"
            TCP = "tcp"


        @dataclass
        class Plan:
            block_ids: list = field(default_factory=list)
            rkeys: Optional[list] = None


        def build_plan(link: Link, handoff: dict) -> Optional[Plan]:
            if link is Link.RDMA:
                return Plan(list(handoff["blocks"]), list(handoff["rkeys"]))
            return None


        EMPTY = Plan()
        """,
    "sluice_cache/disagg_decode.py": """
        from __future__ import annotations

        import dataclasses

        from .plans import EMPTY, Link, Plan, build_plan


        class DecodeReceiver:
            def __init__(self, link: str) -> None:
                self.link = Link(link)
                self.pending: dict[str, Plan] = {}

            def on_handoff(self, rid: str, handoff: dict) -> int:
                plan = build_plan(self.link, handoff)
                if plan is None:
                    plan = REFILL
                self.pending[rid] = plan
                return self.load()

            def load(self) -> int:
                loaded = 0
                for rid, plan in self.pending.items():
                    loaded += len(plan.block_ids)
                return loaded
        """,
}

DRIVER = (
    "import sys\n"
    "from sluice_cache.disagg_decode import DecodeReceiver\n"
    "r = DecodeReceiver(sys.argv[1])\n"
    "print(r.on_handoff('a', {'blocks': [1, 2], 'rkeys': [7, 8]}))\n"
)


def _files(refill: str) -> dict[str, str]:
    name = "sluice_cache/disagg_decode.py"
    return {**FILES, name: FILES[name].replace("REFILL", refill)}


@pytest.mark.parametrize(
    "refill",
    [
        'Plan(list(handoff["blocks"]))',
        'dataclasses.replace(EMPTY, block_ids=list(handoff["blocks"]))',
    ],
)
def test_the_refilled_plan_is_never_none(tmp_path: Path, refill: str) -> None:
    found = package_findings(tmp_path, _files(refill))
    assert found == ["PDL001 sluice_cache/plans.py:19 TCP"]
    for link in ("rdma", "tcp"):
        run = subprocess.run(
            [sys.executable, "-c", DRIVER, link], cwd=tmp_path, capture_output=True, text=True
        )
        assert run.stdout.strip() == "2", run.stderr


def test_a_refill_that_may_be_none_is_still_the_builders_gap(tmp_path: Path) -> None:
    """``plan = self.spare`` (None until set): the stored plan may be None for TCP."""
    found = package_findings(tmp_path, _files("self.spare"))
    assert "PDL101 sluice_cache/disagg_decode.py:23 TCP" in found
