"""``pdlint graph`` as a user runs it: the files ``check`` finds (excludes,
.gitignore), its entry points (packs, settings, ``--entry-point``), and ``--member``
keeping the edges one variant member takes, in every output format."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx
import pytest
from pdlint_helpers import fixture, run_pdlint

LOOP = "orbit.decode.worker.DecodeWorker"
STEP_TO_VERIFY = (f"{LOOP}.step", "orbit.spec.verify.verify")


def _pycg(*args: str, cwd: Path) -> dict[str, list[str]]:
    proc = run_pdlint("graph", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _json(*args: str, cwd: Path) -> nx.DiGraph:
    """``--format json`` read back by networkx (node-link JSON)."""
    proc = run_pdlint("graph", "--format", "json", *args, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return nx.node_link_graph(json.loads(proc.stdout), directed=True, multigraph=False)


def _pairs(graph: dict[str, list[str]]) -> set[tuple[str, str]]:
    return {(a, b) for a, bs in graph.items() for b in bs}


def _copy(name: str, tmp_path: Path) -> Path:
    return shutil.copytree(fixture(name), tmp_path / name.replace("_", "-"))


def test_graph_skips_what_check_excludes(tmp_path: Path) -> None:
    root = _copy("namespace_relay", tmp_path)
    assert "orbit.sglang.adapter.to_handoff" in _pycg("--all", cwd=root)
    (root / "pyproject.toml").write_text('[tool.pdlint]\nextend-exclude = ["orbit/sglang"]\n')
    assert not [n for n in _pycg("--all", cwd=root) if n.startswith("orbit.sglang")]
    (root / "pyproject.toml").unlink()
    (root / ".ignore").write_text("orbit/sglang/\n")
    assert not [n for n in _pycg("--all", cwd=root) if n.startswith("orbit.sglang")]
    # a check of the same tree reads the same files
    proc = run_pdlint("check", ".", "-v", "--no-cache", cwd=root)
    assert "pdlint: files: 7" in proc.stderr, proc.stderr


def test_graph_roots_are_checks_entry_points(tmp_path: Path) -> None:
    """By default the entry points the names tell (as check); a pack of the project's
    own, the settings and ``--entry-point`` name others, and a name matching nothing
    is a warning, as in check."""
    root = _copy("namespace_relay", tmp_path)
    assert _json(cwd=root).graph["roots"] == [f"{LOOP}.event_loop_disagg_decode"]
    (root / "pack.toml").write_text(
        f'[pack]\nname = "orbit"\ndetect = ["orbit"]\n[relay]\nentry-points = ["{LOOP}.step"]\n'
    )
    (root / "pyproject.toml").write_text('[tool.pdlint]\npacks = ["pack.toml"]\n')
    doc = _json(cwd=root)
    assert doc.graph["roots"] == [f"{LOOP}.step"]
    assert f"{LOOP}.event_loop_disagg_decode" not in doc
    proc = run_pdlint("graph", "--format", "json", "--entry-point", "nowhere.loop", cwd=root)
    assert "entry point 'nowhere.loop' matches no analysed function" in proc.stderr
    assert json.loads(proc.stdout)["graph"]["roots"] == [f"{LOOP}.step"]


def test_graph_roots_found_by_interface_as_check_finds_them(tmp_path: Path) -> None:
    """connector_entry's decode side has no ``disagg``/``decode`` name: its entry
    points are a KV connector's receiving method and the handler of a decode-mode
    dispatch, as check finds them (the outermost: ``start_load_kv`` is reached from
    ``receive``); the test module calling the consumer is never one."""
    root = _copy("connector_entry", tmp_path)
    doc = _json(cwd=root)
    connector = "lane_connector.connector.LaneConnector"
    assert doc.graph["roots"] == [
        f"{connector}.get_num_new_matched_tokens",
        "lane_connector.worker.Worker.receive",
    ]
    assert doc.has_edge("lane_connector.worker.Worker.receive", f"{connector}.start_load_kv")
    assert doc.has_edge(f"{connector}.start_load_kv", "lane_connector.connector.Lane.step")
    # the builder, on a parameter annotated DraftMethod (no value flows into it)
    rebuild = "lane_connector.drafts.DraftMethod.rebuild"
    assert doc.has_edge(f"{connector}.start_load_kv", rebuild)
    assert not [n for n in doc if ".tests." in n or "run_locally" in n]
    proc = run_pdlint("check", ".", "-v", "--no-cache", cwd=root)
    assert "pdlint: entry points: 2" in proc.stderr, proc.stderr


def test_member_keeps_the_edges_its_guards_let_it_take(tmp_path: Path) -> None:
    """``step`` calls ``verify`` under ``uses_draft()`` (TREE and LOOKUP), and
    ``draft_for`` builds a DraftState under ``self is Proposer.TREE``: TREE's graph
    is the whole one, LOOKUP's lacks the build, OFF's lacks both and what only
    ``verify`` reaches."""
    root = _copy("namespace_relay", tmp_path)
    everything = _pairs(_pycg(cwd=root))
    build = ("orbit.spec.drafting.Proposer.draft_for", "orbit.spec.state.DraftState.__init__")
    assert STEP_TO_VERIFY in everything and build in everything
    for member in ("TREE", "orbit.spec.drafting.Proposer.TREE"):
        assert _pairs(_pycg("--member", member, cwd=root)) == everything
    for member in ("LOOKUP", "Proposer.LOOKUP"):
        assert _pairs(_pycg("--member", member, cwd=root)) == everything - {build}
    off = _pycg("--member", "OFF", cwd=root)
    assert _pairs(off) == _reached(
        everything - {STEP_TO_VERIFY, build}, f"{LOOP}.event_loop_disagg_decode"
    )
    assert "orbit.spec.verify.verify" not in off


def _reached(edges: set[tuple[str, str]], root: str) -> set[tuple[str, str]]:
    seen, todo, out = {root}, [root], set()
    while todo:
        node = todo.pop()
        for a, b in edges:
            if a == node:
                out.add((a, b))
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
    return out


def test_member_takes_only_the_class_its_variant_picks(tmp_path: Path) -> None:
    """worker_registry's loop calls ``self.model_worker.forward``: the target worker
    only when speculation is off (the class ``create_worker()`` picks otherwise)."""
    root = _copy("worker_registry", tmp_path)
    edge = ("regeng.scheduler.Scheduler.disagg_decode_loop", "regeng.target.TargetWorker.forward")
    assert edge in _pairs(_pycg(cwd=root))
    assert edge in _pairs(_pycg("--member", "OFF", cwd=root))
    for member in ("MEDUSA", "EAGLE", "LOOKAHEAD"):
        assert edge not in _pairs(_pycg("--member", member, cwd=root))


def test_member_filters_every_format(tmp_path: Path) -> None:
    root = _copy("namespace_relay", tmp_path)
    caller, callee = STEP_TO_VERIFY
    arrow = f'"{caller}" -> "{callee}";'
    for member, present in (("LOOKUP", True), ("OFF", False)):
        assert _json("--member", member, cwd=root).has_edge(caller, callee) is present
        dot = run_pdlint("graph", "--format", "dot", "--member", member, cwd=root).stdout
        assert (arrow in dot) is present
        out = tmp_path / f"{member}.graphml"
        proc = run_pdlint(
            "graph", "--format", "graphml", "--member", member, "--output", str(out), cwd=root
        )
        assert proc.returncode == 0 and proc.stdout == ""
        ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
        edges = {
            (e.get("source"), e.get("target"))
            for e in ET.parse(out).getroot().iterfind(".//g:edge", ns)
        }
        assert ((caller, callee) in edges) is present


def test_every_format_is_read_by_its_consumer(tmp_path: Path) -> None:
    """The same edges in each format, as its own reader gives them back: PyCG's
    shape (every callee a key), networkx's node-link and GraphML readers, and
    Graphviz's dot (whose canonical output lists the edges)."""
    root = _copy("namespace_relay", tmp_path)
    pycg = _pycg("--all", cwd=root)
    assert all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in pycg.values())
    assert {c for cs in pycg.values() for c in cs} <= set(pycg)
    edges = _pairs(pycg)
    assert STEP_TO_VERIFY in edges
    node_link = _json("--all", cwd=root)
    assert set(node_link.edges) == edges and set(node_link) == set(pycg)
    assert node_link.graph["roots"] == [] and node_link.graph["calls"] >= len(edges)
    out = tmp_path / "graph.graphml"
    proc = run_pdlint("graph", "--all", "--format", "graphml", "--output", str(out), cwd=root)
    assert proc.returncode == 0 and proc.stdout == ""
    graphml = nx.read_graphml(out)
    assert graphml.is_directed() and set(graphml.edges) == edges
    dot = shutil.which("dot")
    if dot is None:
        if os.environ.get("CI"):
            pytest.fail("Graphviz's dot is missing (.ci/run installs it)")
        pytest.skip("Graphviz's dot is not installed")
    text = run_pdlint("graph", "--all", "--format", "dot", cwd=root).stdout
    canon = subprocess.run(
        [dot, "-Tcanon"], input=text, capture_output=True, text=True, check=True
    ).stdout
    arrows = re.findall(r'^\s*"?([^"\s]+)"?\s*->\s*"?([^"\s;\[]+)"?', canon, re.MULTILINE)
    assert set(arrows) == edges


def test_a_member_no_variant_has_is_a_usage_error(tmp_path: Path) -> None:
    root = _copy("namespace_relay", tmp_path)
    proc = run_pdlint("graph", "--member", "HYDRA", cwd=root)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--member HYDRA: no variant of the analysed code has it" in proc.stderr


_DEMAND = {
    "relay/__init__.py": "",
    "relay/loop.py": (
        "from relay.kernels import Fast, Slow\n\n\n"
        "class DecodeLoop:\n"
        "    def __init__(self):\n"
        "        self.kernel = Fast()\n\n"
        "    def step(self):\n"
        "        self.kernel.run()\n\n\n"
        "def reconfigure(loop: DecodeLoop):\n"
        "    loop.kernel = Slow()\n"
    ),
    "relay/kernels.py": (
        "class Fast:\n    def run(self):\n        pass\n\n\n"
        "class Slow:\n    def run(self):\n        pass\n"
    ),
    "relay/tools.py": "def broken(:\n",
}


def test_graph_from_entry_points_is_solved_on_demand(tmp_path: Path) -> None:
    """From entry points, what runs is what they call: ``reconfigure`` is called by
    nothing, so the Slow kernel it stores never reaches ``step`` (the whole program
    has it), and the constructor of the loop's class runs, as an object's methods run
    once it is made. A module nothing imports is not read (its syntax error is not
    reported), and one the whole program reads is."""
    for name, text in _DEMAND.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    step = "relay.loop.DecodeLoop.step"
    proc = run_pdlint("graph", "--entry-point", step, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert _pairs(json.loads(proc.stdout)) == {(step, "relay.kernels.Fast.run")}
    assert "tools.py" not in proc.stderr
    whole = run_pdlint("graph", "--all", cwd=tmp_path)
    assert whole.returncode == 0, whole.stderr
    assert {(step, "relay.kernels.Fast.run"), (step, "relay.kernels.Slow.run")} <= _pairs(
        json.loads(whole.stdout)
    )
    assert "relay/tools.py: skipped" in whole.stderr
