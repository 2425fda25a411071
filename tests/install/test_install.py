"""``pip install .`` into a fresh virtualenv gives a working ``pdlint`` with its packs.

One venv for the whole module (about 1 to 3 min: it builds the wheel, compiling the
indexer and the analysis with mypyc where a C compiler is, see hatch_build.py); it
runs in CI with the rest of the suite.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pathological
import pytest
from pathological import BOUNDS
from pdlint_helpers import REPO, fixture, fixture_dirs
from real_sglang import sglang_tree

import pdlint

BIN = "Scripts" if os.name == "nt" else "bin"


def clean_env() -> dict[str, str]:
    """The environment without anything that could point back at the source tree."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}
    }
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with ``pip install <repo>`` (not editable); returns its root."""
    root = tmp_path_factory.mktemp("install")
    venv = root / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], cwd=root)
    assert made.returncode == 0, made.stderr
    python = venv / BIN / "python"
    pip = run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", str(REPO)],
        cwd=root,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    return venv


@pytest.fixture(scope="module")
def elsewhere(installed: Path) -> Path:
    """A working directory far from the source tree."""
    cwd = installed.parent / "elsewhere"
    cwd.mkdir()
    return cwd


def site_packages(venv: Path, cwd: Path) -> Path:
    res = run(
        [
            str(venv / BIN / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        cwd=cwd,
    )
    assert res.returncode == 0, res.stderr
    return Path(res.stdout.strip()).resolve()


def test_installed_package_is_not_the_source_tree(installed, elsewhere):
    res = run(
        [
            str(installed / BIN / "python"),
            "-c",
            "import pdlint; print(pdlint.__file__)",
        ],
        cwd=elsewhere,
    )

    assert res.returncode == 0, res.stderr
    location = Path(res.stdout.strip()).resolve()
    assert location.is_relative_to(site_packages(installed, elsewhere))
    assert not location.is_relative_to(REPO)


def test_installed_pdlint_finds_the_relay_gap(installed, elsewhere):
    target = fixture("relay_gap")

    res = run(
        [
            str(installed / BIN / "pdlint"),
            "check",
            str(target),
            "--output-format",
            "json",
        ],
        cwd=elsewhere,
    )

    assert res.returncode == 1, res.stderr
    findings = json.loads(res.stdout)
    gaps = [f for f in findings if f["code"] == "PDL101"]
    assert len(gaps) == 1
    consumer = target.resolve() / "relay_gap_engine" / "spec_utils.py"
    assert gaps[0]["filename"] == consumer.as_posix()
    assert gaps[0]["location"] == {"row": 20, "column": 9}
    assert gaps[0]["name"] == "relay-state-missing"


def test_installed_pdlint_ships_the_sglang_pack(installed, elsewhere):
    code = (
        "from pdlint.settings.packs import bundled; b = bundled(); "
        "print(sorted(b)); print(b['sglang'])"
    )

    res = run([str(installed / BIN / "python"), "-c", code], cwd=elsewhere)

    assert res.returncode == 0, res.stderr
    names, path = res.stdout.splitlines()
    assert names == "['sglang']"
    pack = Path(path).resolve()
    assert pack.is_relative_to(site_packages(installed, elsewhere))
    assert pack.read_bytes() == (REPO / "rules" / "sglang.toml").read_bytes()


@pytest.mark.parametrize("argv", [["pdlint"], ["python", "-m", "pdlint"]])
def test_installed_version(installed, elsewhere, argv):
    exe = [str(installed / BIN / argv[0]), *argv[1:]]

    res = run([*exe, "--version"], cwd=elsewhere)

    assert res.returncode == 0, res.stderr
    assert res.stdout == f"pdlint, version {pdlint.__version__}\n"


def _has_c_compiler() -> bool:
    """Whether an extension module can be built here: a C compiler and Python's headers."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(cc) and shutil.which(cc[0]) is not None and headers.is_file()


def compiled_modules() -> list[str]:
    """The modules hatch_build.py compiles (its globs), as ``pdlint check -v`` names them."""
    tree = ast.parse((REPO / "hatch_build.py").read_text(encoding="utf-8"))
    patterns = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "COMPILED_GLOBS"
    )
    paths = {p for pattern in patterns for p in REPO.glob(pattern) if p.name != "__init__.py"}
    return sorted(
        p.relative_to(REPO / "pdlint").with_suffix("").as_posix().replace("/", ".") for p in paths
    )


def needs_compiled() -> None:
    """Skip a test comparing the installed build with its source where they are one."""
    if not _has_c_compiler():
        pytest.skip("no C compiler or no Python headers: the installed pdlint is its source")


def with_optional_dependencies(installed: Path, cwd: Path) -> None:
    """Install into the venv what the dev extra adds to the source's runs: libcst,
    for the newer-Python hint of a syntax error (a ``pip install .`` leaves it out)."""
    pip = run(
        [str(installed / BIN / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
        + ["-q", f"libcst=={importlib.metadata.version('libcst')}"],
        cwd=cwd,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]


def run_source(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``pdlint ARGV`` from this checkout's source (what the compiled build must match)."""
    env = {**clean_env(), "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pdlint", *argv], cwd=cwd, env=env, capture_output=True, text=True
    )


def test_installed_pdlint_is_compiled_where_a_c_compiler_is(installed, elsewhere):
    res = run(
        [str(installed / BIN / "pdlint"), "check", str(fixture("relay_gap")), "-v"],
        cwd=elsewhere,
    )

    assert res.returncode == 1, res.stderr
    if _has_c_compiler():
        build = "compiled with mypyc: " + ", ".join(compiled_modules())
        assert "index" in build and "model" in build
    else:
        build = "pure Python"
    assert f"pdlint: build: {build}\n" in res.stderr


@pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["packs", "no-packs"])
def test_the_compiled_analysis_finds_what_its_source_finds(installed, elsewhere, packs):
    """On a real release, with and without packs: the installed (compiled) pdlint's
    JSON is byte for byte the source's."""
    needs_compiled()
    tree = sglang_tree("0.5.16")
    argv = ["check", "--no-cache", "--output-format", "json", *packs, "sglang"]

    source = run_source(argv, tree)
    compiled = run([str(installed / BIN / "pdlint"), *argv], cwd=tree)

    assert source.returncode == compiled.returncode == 1, source.stderr + compiled.stderr
    assert json.loads(source.stdout)  # it finds something
    assert compiled.stdout == source.stdout


def test_the_compiled_analysis_finds_what_its_source_finds_on_every_fixture(installed, elsewhere):
    """Each fixture (analysed whole, not lazily: a small tree): the installed
    (compiled) pdlint's JSON is byte for byte the source's."""
    needs_compiled()
    folders = fixture_dirs()
    found = 0
    for folder in folders:
        argv = ["check", "--no-cache", "--output-format", "json", str(folder)]
        source = run_source(argv, elsewhere)
        compiled = run([str(installed / BIN / "pdlint"), *argv], cwd=elsewhere)
        assert source.returncode in (0, 1), source.stderr
        assert (compiled.returncode, compiled.stdout) == (source.returncode, source.stdout), folder
        found += len(json.loads(source.stdout))
    assert len(folders) > 20 and found > 20


PATHOLOGICAL = {  # test_pathological.py's cases: its bound of each, by generator
    "nested_expressions": "nested",
    "huge_file": "huge_file",
    "huge_enum": "huge_enum",
    "predicate_cycles": "predicate_cycles",
    "call_graph_cycles": "call_graph_cycles",
    "many_mixins": "many_mixins",
}


@pytest.mark.parametrize("case", sorted(PATHOLOGICAL))
def test_the_compiled_pdlint_on_pathological_code(installed, tmp_path, case):
    """Compiled code has no instance dict and no interpreter frames: each
    pathological case of test_pathological.py, run by the installed pdlint, ends
    within the same bound, with no traceback, and finds what the source finds."""
    needs_compiled()
    with_optional_dependencies(installed, tmp_path)  # a syntax error's hint, as the source's
    root = tmp_path / "proj"
    getattr(pathological, case)(root)
    argv = ["check", "--no-cache", "--output-format", "json", "."]

    start = time.monotonic()
    compiled = run([str(installed / BIN / "pdlint"), *argv], cwd=root)
    elapsed = time.monotonic() - start
    source = run_source(argv, root)

    assert (compiled.returncode, compiled.stderr) == (1, ""), compiled.stderr[-2000:]
    assert elapsed < BOUNDS[PATHOLOGICAL[case]]
    assert compiled.stdout == source.stdout


# Test files run again with the installed (compiled) pdlint imported, in process
# and by ``python -m pdlint``: the lazy model's and the cache's equivalences, and
# determinism, where compiled code could differ from its source (mypyc gives a dict
# subclass dict's own operations; a compiled class has no instance dict).
COMPILED_SUITE = ("engine/test_lazy.py", "cache/test_cache.py", "engine/test_determinism.py")


def test_the_compiled_pdlint_passes_the_lazy_cache_and_determinism_tests(installed, elsewhere):
    needs_compiled()
    import hypothesis

    python = str(installed / BIN / "python")
    pip = run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        + [f"pytest=={pytest.__version__}", f"hypothesis=={hypothesis.__version__}"],
        cwd=elsewhere,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    where = run([python, "-c", "import pdlint.model.names as m; print(m.__file__)"], cwd=elsewhere)
    assert not where.stdout.strip().endswith(".py"), where.stdout + where.stderr

    res = run(
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        + ["--basetemp", str(elsewhere / "suite-tmp")]
        + [str(REPO / "tests" / name) for name in COMPILED_SUITE],
        cwd=elsewhere,
        timeout=1200,
    )

    assert res.returncode == 0, res.stdout[-5000:] + res.stderr[-3000:]
    assert " passed" in res.stdout


# Run by the installed interpreter: the compiled indexer and its own source (the
# indexer.py installed beside it, loaded under another name) index every file of
# the folders given; prints how many, or the first file whose facts differ.
SAME_FACTS = """
import importlib.util, pathlib, sys
import pdlint.facts.indexer as compiled
from pdlint.source.read import parse_source
source = pathlib.Path(compiled.__file__).with_name("indexer.py")
spec = importlib.util.spec_from_file_location("pdlint_index_source", source)
pure = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pure)
assert not compiled.__file__.endswith(".py"), compiled.__file__
def facts(indexer, path, parsed):
    try:
        return repr(indexer.index_module(str(path), str(path), parsed.tree, parsed.text))
    except RecursionError as exc:
        return type(exc).__name__
count = 0
for folder in sys.argv[1:]:
    for path in sorted(pathlib.Path(folder).rglob("*.py")):
        parsed = parse_source(str(path), path.read_bytes())
        if parsed.tree is None:
            continue
        if facts(compiled, path, parsed) != facts(pure, path, parsed):
            sys.exit(f"different facts: {path}")
        count += 1
print(count)
"""


def test_the_compiled_indexer_gives_the_facts_of_its_source(installed, elsewhere):
    needs_compiled()
    real = sglang_tree("0.5.16") / "sglang" / "srt"
    folders = [REPO / "fixtures", REPO / "tests", real]

    res = run(
        [str(installed / BIN / "python"), "-c", SAME_FACTS, *map(str, folders)],
        cwd=elsewhere,
    )

    assert res.returncode == 0, res.stdout + res.stderr
    assert int(res.stdout) > 1500  # sglang 0.5.16's srt alone has 1,499 files
