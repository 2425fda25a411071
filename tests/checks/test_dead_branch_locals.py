"""PDL108 when the setting is tested through a local holding its owner
(``spec = self.speculative_config``, then ``if spec.method == "deepseek_mtp":``), an
owner of no known class (the runner's configuration is not annotated): the local
reads the class its holder attribute is declared as, as ``self.speculative_config.method``
read directly does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import json_findings

CONFIG = """\
from dataclasses import dataclass
from typing import Optional


@dataclass
class SpecConfig:
    method: str = "eagle"
    num_tokens: int = 2

    def __post_init__(self) -> None:
        if self.method in ("deepseek_mtp", "glm_mtp"):
            self.method = "mtp"  # every MTP flavour runs one proposer


@dataclass
class EngineConfig:
    speculative_config: Optional[SpecConfig] = None
"""

RUNNER = """\
class DecodeRunner:
    def __init__(self, config):
        self.speculative_config = config.speculative_config

    def draft_layers(self) -> int:
{body}

    def event_loop_disagg_decode(self) -> int:
        return self.draft_layers()
"""

DIRECT = """\
        if self.speculative_config is None:
            return 0
        if self.speculative_config.method == "deepseek_mtp":
            return 3
        return 1"""

LOCAL = """\
        spec = self.speculative_config
        if spec is None:
            return 0
        if spec.method == "deepseek_mtp":
            return 3
        return 1"""


@pytest.mark.parametrize("body", [DIRECT, LOCAL], ids=["direct", "local"])
def test_a_rewritten_value_tested_through_a_local(tmp_path: Path, body: str) -> None:
    package = tmp_path / "mtp_engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text(CONFIG)
    (package / "runner.py").write_text(RUNNER.format(body=body))
    found = json_findings("mtp_engine", "--no-cache", "--select", "PDL108", cwd=tmp_path)
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("mtp_engine/runner.py", 9 if body is LOCAL else 8, "deepseek_mtp")
    ]


def test_a_rewrite_written_as_a_table_lookup(tmp_path: Path) -> None:
    """``self.method = _ALIASES.get(self.method, self.method)`` rewrites the aliases the
    table holds and keeps every other value (blind probe11 p72)."""
    package = tmp_path / "mtp_engine"
    package.mkdir()
    (package / "__init__.py").write_text("")
    rewrite = (
        '        if self.method in ("deepseek_mtp", "glm_mtp"):\n'
        '            self.method = "mtp"  # every MTP flavour runs one proposer\n'
    )
    assert rewrite in CONFIG
    config = CONFIG.replace(
        rewrite, "        self.method = _ALIASES.get(self.method, self.method)\n"
    )
    config = config.replace(
        "@dataclass\nclass SpecConfig:",
        'Method = Literal["eagle", "mtp", "deepseek_mtp", "glm_mtp"]\n'
        '_ALIASES = {"deepseek_mtp": "mtp", "glm_mtp": "mtp"}\n\n\n@dataclass\nclass SpecConfig:',
        1,
    )
    config = config.replace('    method: str = "eagle"', '    method: Method = "eagle"')
    config = config.replace("from typing import Optional", "from typing import Literal, Optional")
    (package / "config.py").write_text(config)
    (package / "runner.py").write_text(RUNNER.format(body=DIRECT))
    found = json_findings("mtp_engine", "--no-cache", "--select", "PDL108", cwd=tmp_path)
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("mtp_engine/runner.py", 8, "deepseek_mtp")
    ]
    probe = "from mtp_engine.config import SpecConfig\nprint(SpecConfig('deepseek_mtp').method)\n"
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert run.stdout.strip() == "mtp", run.stderr
