"""A factory handed the whole configuration picks the class by the setting it reads
inside (vLLM's ``create_proposer(vllm_config)``): through a table of classes, or
tests of the setting itself or of a local copy of it. The classes of the members
that inherit the base ``restore`` (None) are the builder's gaps, and the member
that reaches the state without it is reported where it crashes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import json_findings

CONFIG = """\
from dataclasses import dataclass
from typing import Literal, Optional

Method = Literal["tree", "heads", "lookup"]


@dataclass
class SpecConfig:
    method: Method


@dataclass
class EngineConfig:
    spec: Optional[SpecConfig] = None
"""

PROPOSERS = """\
import functools
from typing import Optional


class Proposer:
    def __init__(self, config):
        self.config = config

    def restore(self, handoff) -> Optional[list]:
        return None


class TreeProposer(Proposer):
    def restore(self, handoff) -> Optional[list]:
        return list(handoff["rows"])


class HeadsProposer(Proposer):
    pass


class LookupProposer(Proposer):
    pass


FACTORY
"""

FACTORIES = {
    "table": """\
_CLASSES = {"tree": TreeProposer, "heads": HeadsProposer, "lookup": LookupProposer}


def make_proposer(config):
    return _CLASSES[config.spec.method](config)
""",
    "partial-lambda": """\
_CLASSES = {
    "tree": functools.partial(TreeProposer),
    "heads": lambda config: HeadsProposer(config),
    "lookup": LookupProposer,
}


def make_proposer(config):
    return _CLASSES[config.spec.method](config)
""",
    "tests": """\
def make_proposer(config):
    if config.spec.method == "tree":
        return TreeProposer(config)
    if config.spec.method == "heads":
        return HeadsProposer(config)
    return LookupProposer(config)
""",
    "local-copy": """\
def make_proposer(config):
    method = config.spec.method
    if method == "tree":
        return TreeProposer(config)
    if method == "heads":
        return HeadsProposer(config)
    return LookupProposer(config)
""",
}

RUNNER = """\
from .proposers import make_proposer


class Request:
    def __init__(self, rows):
        self.rows = rows
        self.state = None


class DecodeRunner:
    def __init__(self, config):
        self.config = config
        self.proposer = make_proposer(config) if config.spec is not None else None

    def execute_disagg_decode(self, handoffs):
        out = []
        for handoff in handoffs:
            req = Request(handoff["rows"])
            state = self.proposer.restore(handoff) if self.proposer else None
            if state is not None:
                req.state = state
            if self.config.spec.method != "lookup":
                out.append(len(req.state))
        return out
"""


# runs the decode loop for the method named in argv[1]
DRIVER = (
    "import sys\n"
    "from cfgengine.config import EngineConfig, SpecConfig\n"
    "from cfgengine.runner import DecodeRunner\n"
    "DecodeRunner(EngineConfig(SpecConfig(sys.argv[1])))"
    ".execute_disagg_decode([{'rows': [1, 2]}])\n"
)


def _package(root: Path, factory: str) -> Path:
    pkg = root / "cfgengine"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "config.py").write_text(CONFIG)
    (pkg / "proposers.py").write_text(PROPOSERS.replace("FACTORY", FACTORIES[factory]))
    (pkg / "runner.py").write_text(RUNNER)
    return root


@pytest.mark.parametrize("factory", sorted(FACTORIES))
def test_a_factory_reading_the_setting_off_the_config(tmp_path: Path, factory: str) -> None:
    root = _package(tmp_path, factory)
    found = sorted(
        (f["code"], f["filename"], f["location"]["row"], f["member"])
        for f in json_findings("cfgengine", "--no-cache", cwd=root)
    )
    assert found == [
        ("PDL001", "cfgengine/proposers.py", 9, "heads,lookup"),
        ("PDL101", "cfgengine/runner.py", 23, "heads"),
    ]
    # and CPython fails there for heads, not for tree or lookup
    for method, fails in (("tree", False), ("lookup", False), ("heads", True)):
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, method],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert (done.returncode != 0) is fails, done.stderr
        if fails:
            assert 'runner.py", line 23' in done.stderr
            assert "object of type 'NoneType' has no len()" in done.stderr


def test_the_state_handed_to_the_members_own_object(tmp_path: Path) -> None:
    """``self.proposer.propose(req.state)``: each member reaches the ``propose`` of its
    own class only (blind probe11 p72: ngram was reported in the suffix proposer's)."""
    root = _package(tmp_path, "table")
    proposers = root / "cfgengine" / "proposers.py"
    text = proposers.read_text()
    methods = {
        "TreeProposer": "    def propose(self, state):\n        return len(state)\n",
        "HeadsProposer": "    def propose(self, state):\n"
        "        return 0 if state is None else len(state)\n",
        "LookupProposer": "    def propose(self, state):\n        return len(state)\n",
    }
    for cls, method in methods.items():
        head = f"class {cls}(Proposer):\n"
        assert head in text
        text = text.replace(head, head + method, 1)
    proposers.write_text(text.replace("    pass\n", ""))
    runner = root / "cfgengine" / "runner.py"
    consumer = """            if self.config.spec.method != "lookup":
                out.append(len(req.state))
"""
    assert consumer in runner.read_text()
    runner.write_text(
        runner.read_text().replace(
            consumer, "            out.append(self.proposer.propose(req.state))\n"
        )
    )
    found = sorted(
        (f["code"], f["filename"], f["location"]["row"], f["member"])
        for f in json_findings("cfgengine", "--no-cache", cwd=root)
    )
    assert [f for f in found if f[0] == "PDL101"] == [
        ("PDL101", "cfgengine/proposers.py", 27, "lookup")
    ]
    for method in ("tree", "heads", "lookup"):
        done = subprocess.run(
            [sys.executable, "-c", DRIVER, method], cwd=root, capture_output=True, text=True
        )
        assert (done.returncode != 0) is (method == "lookup"), done.stderr
    assert 'proposers.py", line 27' in done.stderr
