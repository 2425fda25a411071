"""Module names as the code imports itself: namespace packages (no ``__init__.py`` at
the top), the ``namespace-packages`` setting, and a package folder run as a script's
folder; ``pdlint check`` and ``pdlint graph`` name files alike."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import fixture, run_pdlint

from pdlint.api import analyze
from pdlint.cache import stat_index
from pdlint.settings.config import Settings

ENTRY = "orbit.decode.worker.DecodeWorker.event_loop_disagg_decode"


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _concise(stdout: str) -> list[str]:
    return sorted(
        line.split(": ", 1)[1].split()[0] + " " + line.split(":")[0]
        for line in stdout.splitlines()
        if ": PDL" in line
    )


def test_a_namespace_package_the_code_imports_itself_through(tmp_path: Path) -> None:
    """orbit/ has no ``__init__.py``: its packages are ``orbit.spec``, ``orbit.decode``
    (their imports resolve, so the gap is found), the adapter package ``orbit.sglang``
    does not switch the bundled SGLang pack on, and ``--entry-point`` takes the
    full names."""
    root = shutil.copytree(fixture("namespace_relay"), tmp_path / "namespace-relay")
    proc = run_pdlint("check", ".", "--no-cache", "--entry-point", ENTRY, cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert _concise(proc.stdout) == [
        "PDL001 orbit/spec/drafting.py",
        "PDL101 orbit/spec/verify.py",
    ]
    assert "warning" not in proc.stderr, proc.stderr  # no pack, no unmatched entry point


def test_the_namespace_package_is_found_from_one_of_its_packages(tmp_path: Path) -> None:
    """Checking only ``orbit/decode``: its own imports say it is ``orbit.decode``."""
    root = shutil.copytree(fixture("namespace_relay"), tmp_path / "namespace-relay")
    proc = run_pdlint("check", "orbit/decode", "--no-cache", "--entry-point", ENTRY, cwd=root)
    assert "matches no analysed function" not in proc.stderr, proc.stderr


def test_graph_names_modules_as_check_does(tmp_path: Path) -> None:
    root = shutil.copytree(fixture("namespace_relay"), tmp_path / "namespace-relay")
    proc = run_pdlint("graph", ".", "--format", "pycg", cwd=root)
    assert proc.returncode == 0, proc.stderr
    graph = json.loads(proc.stdout)
    assert f"{ENTRY}" in graph
    assert "orbit.spec.verify.verify" in graph[ENTRY.rsplit(".", 1)[0] + ".step"]
    proc = run_pdlint("graph", ".", "--format", "pycg", "--entry-point", ENTRY, cwd=root)
    assert "warning" not in proc.stderr and ENTRY in json.loads(proc.stdout)


NOT_INFERRED = {
    # relative imports only: nothing tells that ``stack`` is a namespace package
    "stack/serve/__init__.py": "",
    "stack/serve/loop.py": (
        "from .steps import step\n\n\nclass Loop:\n    def run(self) -> None:\n        step()\n"
    ),
    "stack/serve/steps.py": "def step() -> None:\n    pass\n",
}


def test_namespace_packages_setting_names_what_cannot_be_inferred(tmp_path: Path) -> None:
    root = _write(tmp_path / "project", NOT_INFERRED)
    entry = "stack.serve.loop.Loop.run"
    proc = run_pdlint("check", ".", "--no-cache", "--entry-point", entry, cwd=root)
    assert f"entry point '{entry}' matches no analysed function" in proc.stderr
    (root / "pyproject.toml").write_text('[tool.pdlint]\nnamespace-packages = ["stack"]\n')
    proc = run_pdlint("check", ".", "--no-cache", "--entry-point", entry, cwd=root)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    proc = run_pdlint("graph", ".", "--entry-point", entry, cwd=root)
    assert json.loads(proc.stdout)[entry] == ["stack.serve.steps.step"]


def test_namespace_packages_setting_must_be_a_list(tmp_path: Path) -> None:
    root = _write(tmp_path / "project", NOT_INFERRED)
    (root / "pyproject.toml").write_text('[tool.pdlint]\nnamespace-packages = "stack"\n')
    proc = run_pdlint("check", ".", cwd=root)
    assert proc.returncode == 2
    assert "namespace-packages" in proc.stderr and "expected a list of folders" in proc.stderr


def test_a_package_folder_whose_scripts_import_their_siblings_is_a_root(tmp_path: Path) -> None:
    """``main.py`` beside an ``__init__.py`` imports ``helpers`` by its bare name (it
    runs as a script there) and nothing imports through the folder's name: the
    modules are ``main`` and ``helpers``, as Python names them."""
    root = _write(
        tmp_path / "tool",
        {
            "__init__.py": "",
            "main.py": "import helpers\n\n\ndef run() -> None:\n    helpers.go()\n",
            "helpers.py": "def go() -> None:\n    pass\n",
        },
    )
    proc = run_pdlint("graph", ".", "--all", cwd=root)
    assert json.loads(proc.stdout)["main.run"] == ["helpers.go"]


def test_a_script_importing_a_sibling_package_by_a_dotted_name_makes_a_root(
    tmp_path: Path,
) -> None:
    """``from nested.mod import f`` in ``main.py`` names ``nested`` by its bare name as
    much as ``from nested import mod`` does: the folder is a script's folder."""
    root = _write(
        tmp_path / "tool",
        {
            "__init__.py": "",
            "main.py": "from nested.mod import f\n\nf()\n",
            "nested/__init__.py": "",
            "nested/mod.py": "from .util import g\n\n\ndef f() -> None:\n    g()\n",
            "nested/util.py": "def g() -> None:\n    pass\n",
        },
    )
    proc = run_pdlint("graph", ".", "--all", cwd=root)
    graph = json.loads(proc.stdout)
    assert graph["main"] == ["nested.mod.f"]
    assert graph["nested.mod.f"] == ["nested.util.g"]


def test_a_warm_run_reads_no_file_to_name_the_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the files import is kept by their content hash: a second run with no file
    changed reads none (the names, and so the findings, stay)."""
    monkeypatch.setattr(stat_index, "RACY_NS", -(10**12))  # files just written are trusted
    root = shutil.copytree(fixture("namespace_relay"), tmp_path / "namespace-relay")
    monkeypatch.chdir(root)
    settings = Settings(root=str(root), cache=True)
    cold = analyze(["."], settings, cache_dir=str(tmp_path / "cache"))
    warm = analyze(["."], settings, cache_dir=str(tmp_path / "cache"))
    shown = [(f.code, f.location.path, f.location.line) for f in warm.findings]
    assert shown == [(f.code, f.location.path, f.location.line) for f in cold.findings]
    assert ("PDL101", "orbit/spec/verify.py", 9) in shown
    assert warm.stats["files read"] == 0


NO_INIT = {
    # no ``__init__.py`` at any level: the relative imports say ``wisp`` is the package
    "wisp/spec/state.py": (
        "from enum import Enum\n"
        "from typing import Optional\n\n\n"
        "class Method(Enum):\n"
        "    TREE = 'tree'\n"
        "    HEADS = 'heads'\n\n\n"
        "class Chain:\n"
        "    def __init__(self, rows: list) -> None:\n"
        "        self.rows = rows\n\n"
        "    def advance(self) -> int:\n"
        "        return len(self.rows)\n\n\n"
        "def restore(method: Method, handoff: dict) -> Optional[Chain]:\n"
        "    if method is Method.TREE:\n"
        "        return Chain(handoff['rows'])\n"
        "    return None\n"
    ),
    "wisp/worker/request.py": (
        "class Request:\n"
        "    def __init__(self, rid: str) -> None:\n"
        "        self.rid = rid\n"
        "        self.chain = None\n"
    ),
    "wisp/worker/runner.py": (
        "from ..spec.state import Method, restore\n"
        "from .request import Request\n\n\n"
        "class Runner:\n"
        "    def __init__(self, method: str) -> None:\n"
        "        self.method = Method(method)\n\n"
        "    def event_loop_disagg_decode(self, handoffs: list) -> int:\n"
        "        total = 0\n"
        "        for handoff in handoffs:\n"
        "            req = Request(handoff['rid'])\n"
        "            req.chain = restore(self.method, handoff)\n"
        "            total += self.step(req)\n"
        "        return total\n\n"
        "    def step(self, req: Request) -> int:\n"
        "        return req.chain.advance()\n"
    ),
}


def test_relative_imports_name_packages_that_have_no_init(tmp_path: Path) -> None:
    """``from ..spec.state import restore`` in ``wisp/worker/runner.py`` makes ``wisp``
    a package (PEP 420): the modules are ``wisp.worker.runner`` and
    ``wisp.spec.state``, the import resolves, and HEADS's gap is found where CPython
    fails."""
    root = _write(tmp_path / "no-init", NO_INIT)
    proc = run_pdlint("check", ".", "--no-cache", "--output-format", "concise", cwd=root)
    assert proc.returncode == 1, proc.stderr
    assert _concise(proc.stdout) == ["PDL001 wisp/spec/state.py", "PDL101 wisp/worker/runner.py"]
    assert "PDL101 HEADS" in proc.stdout and "runner.py:18:" in proc.stdout
    crash = subprocess.run(
        [
            sys.executable,
            "-c",
            "from wisp.worker.runner import Runner\n"
            "Runner('heads').event_loop_disagg_decode([{'rid': 'r'}])",
        ],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert 'runner.py", line 18' in crash.stderr and "AttributeError" in crash.stderr
    graph = json.loads(run_pdlint("graph", ".", "--all", "--format", "pycg", cwd=root).stdout)
    assert "wisp.spec.state.restore" in graph["wisp.worker.runner.Runner.event_loop_disagg_decode"]
