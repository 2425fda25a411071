"""PDL201 handoff-layout-asymmetry: what users see for each way the split is written or fixed."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from pdlint_helpers import FIXTURES, chdir, fixture, json_findings, run_pdlint, summary

from pdlint.api import analyze
from pdlint.settings.config import Settings

SETUP = """\
class Args:
    def __init__(self):
        self.kv_table = []


class RoleSetup:
    def __init__(self, pool, draft_pool, use_fp8_scales):
        self.pool = pool
        self.draft_pool = draft_pool
        self.use_fp8_scales = use_fp8_scales
        self.args = Args()
        self.init_args()

    def init_args(self):
        table = list(self.pool.ptrs)
        if {condition}:
            table += self.pool.extra_ptrs
        self.args.kv_table = table
"""

SENDER = """\
class Sender:
    def __init__(self, args, num_layers):
        self.args = args
        self.num_layers = num_layers
        self.peers = []

    def on_peer(self, peer):
        {handshake}
        self.peers.append(peer)

    def values(self, {peer}):
        {guard}
        half = len({peer}) // 2
        return {peer}[half:]
{sibling}"""

# another transfer path of the sender, checking the peer's list before its own split
CHECKED_SIBLING = """
    def layerwise(self, {peer}):
        if len({peer}) != len(self.args.kv_table):
            raise ValueError()
        half = len({peer}) // 2
        return {peer}[:half]
"""

DEFAULTS = {
    "condition": "self.draft_pool is not None",
    "handshake": "pass",
    "peer": "dst_kv_table",
    "guard": "pass",
    "sibling": "",
}


def package(root: Path, pack: str | None = None, **changes: str) -> Path:
    """A two-module transfer package in ``root`` (and a pack file when given)."""
    values = {**DEFAULTS, **changes}
    values["sibling"] = values["sibling"].format(**values)
    pkg = root / "kvpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "setup.py").write_text(SETUP.format(**values))
    (pkg / "sender.py").write_text(SENDER.format(**values))
    if pack is not None:
        (root / "pack.toml").write_text(textwrap.dedent(pack))
    return root


def findings(root: Path, *args: str) -> list[str]:
    return summary(json_findings("kvpkg", "--no-cache", *args, cwd=root))


SPLIT = ["PDL201 kvpkg/sender.py:14 kv_table"]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, SPLIT),
        # an agreement check before the split, in the same function
        ({"guard": "assert len(dst_kv_table) == len(self.args.kv_table)"}, []),
        ({"guard": "if len(dst_kv_table) // 2 != self.num_layers: raise ValueError()"}, []),
        # a check that does not fail when the peer's list grows is no agreement
        ({"guard": "if len(dst_kv_table) < 2: raise ValueError()"}, SPLIT),
        # the handshake rejects peers whose role-local setting differs
        ({"handshake": "if peer.draft_on != (self.draft_pool is not None): raise OSError()"}, []),
        # a setting both roles share is not role-local
        ({"condition": "self.use_fp8_scales"}, []),
        # speculative decoding switched on in this role's own configuration
        ({"condition": "self.spec_enabled"}, SPLIT),
        # a name that is no peer's copy
        ({"peer": "their_table"}, []),
        # a check on another transfer path guards that path, not this one
        ({"sibling": CHECKED_SIBLING}, SPLIT),
        # the handshake measures the list under its key in what the peer sent
        (
            {"handshake": 'if len(peer["kv_table"]) != len(self.args.kv_table): raise OSError()'},
            [],
        ),
        ({"handshake": 'if len(peer["names"]) != len(self.args.kv_table): raise OSError()'}, SPLIT),
    ],
    ids=[
        "halved",
        "assert",
        "raise-on-count",
        "raise-too-weak",
        "handshake",
        "shared",
        "spec-enabled",
        "unnamed",
        "checked-sibling",
        "handshake-payload-key",
        "handshake-other-key",
    ],
)
def test_split_and_its_fixes(tmp_path: Path, changes: dict[str, str], expected: list[str]) -> None:
    assert findings(package(tmp_path, **changes)) == expected


def test_pack_names_a_role_local_setting(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        condition="self.use_fp8_scales",
        pack="""\
        [layout]
        role-local = ["use_fp8_scales"]
        """,
    )
    assert findings(root) == []
    assert findings(root, "--packs", "pack.toml") == SPLIT


def test_pack_names_a_peer_copy(tmp_path: Path) -> None:
    root = package(
        tmp_path,
        peer="their_table",
        pack="""\
        [layout]
        peer-copies = { their_table = "kv_table" }
        """,
    )
    assert findings(root) == []
    found = json_findings("kvpkg", "--packs", "pack.toml", cwd=root)
    assert summary(found) == SPLIT
    assert "`their_table`, the peer's copy of `kv_table`" in found[0]["message"]


@pytest.mark.parametrize(
    ("peer", "pack"),
    [
        ("their_table", '[layout]\npeer-copies = { their_table = "kv_table" }\n'),
        ("target_kv_table", '[layout]\npeer-prefixes = ["target_"]\n'),
    ],
    ids=["copy", "prefix"],
)
def test_a_lazy_run_loads_what_a_pack_names(tmp_path: Path, peer: str, pack: str) -> None:
    """A lazy run (a large tree) loads the files naming a pack's peer copy or prefix:
    it missed the finding a full run makes, its first query holding only the built-in
    prefixes."""
    root = package(tmp_path, peer=peer, pack=pack)
    with chdir(root):
        settings = Settings(root=str(root), cache=False, packs=("pack.toml",))
        runs = [analyze(["kvpkg"], settings, lazy=lazy).findings for lazy in (False, True)]
    assert [f"{f.code} {f.location.path}:{f.location.line}" for f in runs[0]] == [
        "PDL201 kvpkg/sender.py:14"
    ]
    assert runs[1] == runs[0]


@pytest.mark.parametrize(
    ("pack", "line", "key", "problem"),
    [
        ('[layout]\nrole-local = "draft"\n', 2, "role-local", "expected a list of strings"),
        (
            '[layout]\n\nhandoff-lists = ["kv data"]\n',
            3,
            "handoff-lists",
            "not a Python identifier",
        ),
        ("[layout]\npeer-copies = { dst_x = 3 }\n", 2, "peer-copies", "name of a handoff list"),
        ('[layout]\npeer-prefixes = ["dst"]\n', 2, "peer-prefixes", "ends with '_'"),
        ('[pack]\nname = "p"\n\n[layout]\npeer_copies = []\n', 5, "peer_copies", "unknown key"),
    ],
    ids=["type", "identifier", "copy-target", "prefix", "unknown"],
)
def test_bad_layout_table_exits_2_naming_file_line_and_key(
    tmp_path: Path, pack: str, line: int, key: str, problem: str
) -> None:
    root = package(tmp_path, pack=pack)
    proc = run_pdlint("check", "kvpkg", "--packs", "pack.toml", cwd=root, timeout=600)
    assert proc.returncode == 2
    assert f"pack.toml:{line}: key '{key}' in [layout]" in proc.stderr
    assert problem in proc.stderr


def test_finding_names_list_condition_assumption_and_both_roles() -> None:
    found = json_findings(".", cwd=fixture("layout_halved"))
    assert summary(found) == ["PDL201 halved_engine/sender.py:18 buffer_addrs"]
    finding = found[0]
    assert finding["name"] == "handoff-layout-asymmetry" and finding["severity"] == "error"
    message = finding["message"]
    assert "`dst_buffer_addrs`, the peer's copy of `buffer_addrs`" in message
    assert "`peer_half = len(dst_buffer_addrs) // 2`" in message
    assert "`self.draft_pool is not None` holds on the peer's role" in message
    assert "send the count per group with the handoff" in message
    assert "reject mismatched configurations at the handshake" in message
    related = {(r["filename"], r["location"]["row"], r["message"]) for r in finding["related"]}
    assert (
        "halved_engine/sender.py",
        15,
        "`peer_half = len(dst_buffer_addrs) // 2` takes the group size from the peer's length",
    ) in related
    appends = {(path, row) for path, row, text in related if "appends" in text}
    assert appends == {("halved_engine/decode_side.py", 21), ("halved_engine/prefill_side.py", 18)}
    assert any("the decode side appends `draft_addrs`" in text for *_, text in related)


def test_finding_through_helpers_carries_the_call_path() -> None:
    found = json_findings(".", cwd=fixture("layout_helpers"))
    assert summary(found) == ["PDL201 relay_regions/transport.py:27 mem_regions"]
    finding = found[0]
    assert "(built from `layer_ptrs`)" in finding["message"]
    steps = [(s["filename"], s["location"]["row"], s["message"]) for s in finding["path"]]
    assert steps == [
        ("relay_regions/transport.py", 20, "calls `RegionPusher._pick` with the peer's copy"),
        ("relay_regions/transport.py", 27, "indexes the peer's copy"),
    ]
    rows = {(r["filename"], r["location"]["row"]) for r in finding["related"]}
    assert ("relay_regions/layout_math.py", 5) in rows  # the helper's len(table) // parts
    assert ("relay_regions/engine.py", 25) in rows  # the conditional extend


def test_sarif_for_pdl201_is_valid(tmp_path: Path) -> None:
    from sarif_checks import schema_errors

    proc = run_pdlint(
        "check", ".", "--output-format", "sarif", cwd=fixture("layout_helpers"), timeout=600
    )
    assert proc.returncode == 1, proc.stderr
    log = json.loads(proc.stdout)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["PDL201"]
    assert results[0]["level"] == "error"
    assert results[0]["codeFlows"] and results[0]["relatedLocations"]
    assert schema_errors(log) == []


def test_rule_explains_pdl201() -> None:
    proc = run_pdlint("rule", "PDL201", cwd=FIXTURES, timeout=600)
    assert proc.returncode == 0
    assert "handoff-layout-asymmetry" in proc.stdout
    assert "len(dst" in proc.stdout and "handshake" in proc.stdout


# SETUP without its draft pool: no built-in role-local word in the file, so only a
# pack's role-local setting can gate it in a lazy run
FP8_SETUP = """\
class Args:
    def __init__(self):
        self.kv_table = []


class RoleSetup:
    def __init__(self, pool, use_fp8_scales):
        self.pool = pool
        self.use_fp8_scales = use_fp8_scales
        self.args = Args()
        self.init_args()

    def init_args(self):
        table = list(self.pool.ptrs)
        if self.use_fp8_scales:
            table += self.pool.scale_ptrs
        self.args.kv_table = table
"""


@pytest.mark.parametrize("pack", [True, False], ids=["pack", "no-pack"])
def test_lazy_run_loads_growth_under_a_packs_setting(tmp_path: Path, pack: bool) -> None:
    """A lazy run loads the file growing the list under a pack's role-local setting
    (spelled in another case in the pack) and finds what a full run finds."""
    root = package(tmp_path)
    (root / "kvpkg" / "setup.py").write_text(FP8_SETUP)
    (root / "pack.toml").write_text('[layout]\nrole-local = ["Use_FP8_Scales"]\n')
    settings = Settings(root=str(root), cache=False, packs=(str(root / "pack.toml"),))
    with chdir(root):
        lazy = analyze(["kvpkg"], settings, lazy=True, use_packs=pack)
        full = analyze(["kvpkg"], settings, lazy=False, use_packs=pack)
    assert lazy.findings == full.findings
    assert [(f.code, f.location.path, f.location.line) for f in lazy.findings] == (
        [("PDL201", "kvpkg/sender.py", 14)] if pack else []
    )
    assert ("kvpkg/setup.py" in lazy.loaded_files) == pack
