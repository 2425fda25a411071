"""The bundled packs of vLLM, Dynamo and LMCache, and the pack keys they brought
(``[relay] idle-runs``, ``[variants]``, ``[handoff]``): faults name the file, the
line and the key; an idle run is an entry point (issue 33, point 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import copy_relay_gap, invoke

from pdlint.settings.packs import bundled, load_pack

HEAD = '[pack]\nname = "mine"\ndetect = ["relay_gap_engine"]\n\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_relay_gap(tmp_path / "proj")


def test_the_bundled_packs_detect_their_framework() -> None:
    packs = {name: load_pack(path) for name, path in bundled().items()}
    assert sorted(packs) == ["dynamo", "lmcache", "sglang", "vllm"]
    for name, pack in packs.items():
        assert pack.detect == (name,)
    assert packs["vllm"].variants.settings == ("vllm.config.speculative.SpeculativeConfig.method",)
    assert packs["vllm"].idle_runs
    assert packs["lmcache"].variants.rewrites == (("speculative_config.method", "*_mtp", "mtp"),)
    assert "prefill_result" in packs["dynamo"].handoff.payloads


@pytest.mark.parametrize(
    ("body", "line", "where", "complaint"),
    [
        ('[variants]\nsettings = ["Config"]\n', 6, "settings' in [variants]", "pkg.Class.attr"),
        ("[variants]\nsettings = 3\n", 6, "settings' in [variants]", "a list of strings"),
        ("[variants]\nrewrites = 3\n", 6, "rewrites' in [variants]", "expected a table"),
        (
            '[variants]\nrewrites = { "a b" = { "x" = "y" } }\n',
            6,
            "rewrites' in [variants]",
            "a setting as code reads it",
        ),
        (
            '[variants]\nrewrites = { "cfg.method" = { "x" = 1 } }\n',
            6,
            "rewrites' in [variants]",
            "'x' is rewritten to a string",
        ),
        ("[handoff]\npayloads = [1]\n", 6, "payloads' in [handoff]", "a list of strings"),
        ("[handoff]\nrequire = []\n", 6, "require' in [handoff]", "unknown key"),
        ("[relay]\nidle-runs = 2\n", 6, "idle-runs' in [relay]", "a list of strings"),
    ],
)
def test_malformed_keys_name_file_line_and_key(
    project: Path, body: str, line: int, where: str, complaint: str
) -> None:
    pack = project / "mine.toml"
    pack.write_text(HEAD + body)
    res = invoke("check", ".", "--packs", "mine.toml", cwd=project)
    assert res.returncode == 2, res.stderr
    expected = f"pdlint: error: {pack.resolve()}:{line}: key '{where}"
    assert res.stderr.startswith(expected), res.stderr
    assert complaint in res.stderr


def test_an_idle_run_is_an_entry_point(project: Path) -> None:
    """A pack naming only an idle run: the decode loop reached from it is analysed,
    and an idle run matching nothing is warned about as an entry point is."""
    (project / "mine.toml").write_text(
        HEAD + '[relay]\nidle-runs = ["*.event_loop_disagg_decode", "relay_gap_engine.gone"]\n'
    )
    res = invoke("check", ".", "--packs", "mine.toml", "-v", "--select", "PDL1", cwd=project)
    assert res.returncode == 1, res.stderr
    assert "pdlint: entry points: 1" in res.stderr
    assert "PDL101" in res.stdout
    assert (
        f"{(project / 'mine.toml').resolve()}:6: [relay] idle-runs: 'relay_gap_engine.gone' "
        "matches no analysed function"
    ) in res.stderr
