"""``pip install .`` into a fresh virtualenv gives a working ``pdlint`` with its packs.

Two venvs, one per build: the default wheel, pure Python (seconds), and the
opt-in compiled one, ``PDLINT_COMPILE=1 pip install .`` (minutes: mypyc compiles
the indexer and the analysis, see hatch_build.py). The tests of the compiled
build are marked ``slow``; the build starts in the background when the session
selects one of them (tests/compiled_build.py), and they announce on the terminal
that they wait for it.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import time
from pathlib import Path

import pathological
import pytest
from compiled_build import BIN, Install, clean_env, has_c_compiler, start_compiled
from pathological import BOUNDS
from pdlint_helpers import REPO, fixture, fixture_dirs
from real_sglang import release_check, sglang_tree

import pdlint


def run(argv: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout
    )


def pip_install(root: Path, env: dict[str, str] | None = None) -> Path:
    """A fresh venv under ``root`` with ``pip install <repo>`` (not editable);
    returns its root."""
    return installed_venv(Install(root, env))


def installed_venv(install: Install) -> Path:
    """The venv of ``install``, once pip has ended (a failure with pip's output)."""
    code, output = install.wait()
    assert code == 0, output
    return install.venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default install: ``pip install <repo>``, a pure-Python wheel."""
    return pip_install(tmp_path_factory.mktemp("install"))


@pytest.fixture(scope="module")
def compiled_install(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Path:
    """The opt-in compiled install: ``PDLINT_COMPILE=1 pip install <repo>``.
    Said on the terminal first, as it builds for minutes with no other output."""
    if not has_c_compiler():
        pytest.skip("no C compiler or no Python headers: the compiled build cannot be made")
    announce(request, "waiting for the mypyc-compiled wheel (PDLINT_COMPILE=1 pip install .)")
    return installed_venv(start_compiled())


def announce(request: pytest.FixtureRequest, what: str) -> None:
    """Write ``what`` and that it takes minutes on the terminal, past output capture."""
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    capture = request.config.pluginmanager.getplugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line(f"\n{request.node.nodeid}: {what}, a few minutes...")


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


def test_installed_pdlint_ships_the_bundled_packs(installed, elsewhere):
    code = (
        "from pdlint.settings.packs import bundled; b = bundled(); "
        "print(sorted(b)); print(b['sglang'])"
    )

    res = run([str(installed / BIN / "python"), "-c", code], cwd=elsewhere)

    assert res.returncode == 0, res.stderr
    names, path = res.stdout.splitlines()
    assert names == "['dynamo', 'lmcache', 'sglang', 'vllm']"
    pack = Path(path).resolve()
    assert pack.is_relative_to(site_packages(installed, elsewhere))
    assert pack.read_bytes() == (REPO / "rules" / "sglang.toml").read_bytes()


@pytest.mark.parametrize("argv", [["pdlint"], ["python", "-m", "pdlint"]])
def test_installed_version(installed, elsewhere, argv):
    exe = [str(installed / BIN / argv[0]), *argv[1:]]

    res = run([*exe, "--version"], cwd=elsewhere)

    assert res.returncode == 0, res.stderr
    assert res.stdout == f"pdlint, version {pdlint.__version__}\n"


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


def run_source(
    argv: list[str], cwd: Path, *, module: bool = True
) -> subprocess.CompletedProcess[str]:
    """``pdlint ARGV`` (``python ARGV`` with ``module=False``) from this checkout's
    source: what the compiled build must match."""
    env = {**clean_env(), "PYTHONPATH": str(REPO)}
    command = [sys.executable, *(["-m", "pdlint"] if module else []), *argv]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)


def wheel_tags(venv: Path, cwd: Path) -> list[str]:
    """The tags of the wheel pip installed in ``venv`` (its ``WHEEL`` file)."""
    code = "import importlib.metadata as m; print(m.distribution('pdlint').read_text('WHEEL'))"
    res = run([str(venv / BIN / "python"), "-c", code], cwd=cwd)
    assert res.returncode == 0, res.stderr
    return [line.split(": ", 1)[1] for line in res.stdout.splitlines() if line.startswith("Tag: ")]


def test_the_default_install_is_pure_python(installed, elsewhere):
    res = run(
        [str(installed / BIN / "pdlint"), "check", str(fixture("relay_gap")), "-v"],
        cwd=elsewhere,
    )

    assert res.returncode == 1, res.stderr
    assert "pdlint: build: pure Python\n" in res.stderr
    assert wheel_tags(installed, elsewhere) == ["py3-none-any"]
    package = site_packages(installed, elsewhere) / "pdlint"
    assert [p.name for p in package.rglob("*") if p.suffix in (".so", ".pyd")] == []


def test_the_installed_wheel_carries_the_apache_license(installed, elsewhere):
    code = (
        "import importlib.metadata as m; d = m.distribution('pdlint'); "
        "print(d.metadata['License-Expression']); print(d.read_text('licenses/LICENSE'), end='')"
    )

    res = run([str(installed / BIN / "python"), "-c", code], cwd=elsewhere)

    assert res.returncode == 0, res.stderr
    expression, text = res.stdout.split("\n", 1)
    assert expression == "Apache-2.0"
    assert text == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License\n" in text and "Version 2.0, January 2004" in text


# Run by the installed interpreter: ``pdlint check`` in process, then which of
# the dependencies only other features use it imported (none is the answer).
IMPORTED = """
import importlib.util, sys
from pdlint.cli import cli
try:
    cli.main(["check", "--no-cache", sys.argv[1]], prog_name="pdlint")
except SystemExit as exc:
    print("exit", exc.code)
for name in ("networkx", "libcst"):
    print(name, importlib.util.find_spec(name) is not None, name in sys.modules)
"""


def test_a_check_run_does_not_import_the_dependencies_of_other_features(installed, elsewhere):
    res = run(
        [str(installed / BIN / "python"), "-c", IMPORTED, str(fixture("relay_gap"))],
        cwd=elsewhere,
    )

    assert res.returncode == 0, res.stderr
    # installed, not imported
    assert res.stdout.splitlines()[-3:] == ["exit 1", "networkx True False", "libcst True False"]


@pytest.mark.parametrize("fmt", ["dot", "graphml"])
def test_pdlint_graph_writes_dot_and_graphml_from_the_default_install(installed, elsewhere, fmt):
    res = run(
        [str(installed / BIN / "pdlint"), "graph", "--format", fmt, str(fixture("relay_gap"))],
        cwd=elsewhere,
    )

    assert res.returncode == 0, res.stderr
    assert "event_loop_disagg_decode" in res.stdout
    assert res.stdout.startswith("digraph" if fmt == "dot" else "<graphml")


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the statement is valid here")
def test_the_default_install_hints_at_syntax_of_a_newer_python(installed, tmp_path):
    (tmp_path / "modern.py").write_text("A = 1\ntype Vector = list[float]\n", encoding="utf-8")

    res = run([str(installed / BIN / "pdlint"), "check", "--no-cache", "."], cwd=tmp_path)

    assert res.returncode == 1, res.stderr
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert res.stdout.startswith("modern.py:2:")
    assert f"(valid in a newer Python than {running}; run pdlint on it there)" in res.stdout


# --- the opt-in compiled build (PDLINT_COMPILE=1) --------------------------------


@pytest.mark.slow
def test_the_opt_in_build_is_compiled(compiled_install, elsewhere):
    res = run(
        [str(compiled_install / BIN / "pdlint"), "check", str(fixture("relay_gap")), "-v"],
        cwd=elsewhere,
    )

    assert res.returncode == 1, res.stderr
    build = "compiled with mypyc: " + ", ".join(compiled_modules())
    assert "index" in build and "model" in build
    assert f"pdlint: build: {build}\n" in res.stderr
    (tag,) = wheel_tags(compiled_install, elsewhere)
    python = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert tag.startswith(f"{python}-{python}-")  # for this interpreter, not py3-none-any


@pytest.mark.slow
@pytest.mark.real
@pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["packs", "no-packs"])
def test_the_compiled_analysis_finds_what_its_source_finds(compiled_install, elsewhere, packs):
    """On a real release, with and without packs: the installed (compiled) pdlint's
    JSON is byte for byte the source's."""
    source = release_check("0.5.16", *packs)  # the run the source's tests read
    argv = ["check", "sglang", "--no-cache", "--output-format", "json", *packs]
    compiled = run([str(compiled_install / BIN / "pdlint"), *argv], cwd=sglang_tree("0.5.16"))

    assert source.returncode == compiled.returncode == 1, source.stderr + compiled.stderr
    assert json.loads(source.stdout)  # it finds something
    assert compiled.stdout == source.stdout


# Run by an interpreter: ``pdlint check`` in process on each folder given, one
# after the other; prints each one's exit code and JSON output.
EVERY_FOLDER = """
import contextlib, io, json, sys
from pdlint.cli import cli
runs = []
for folder in sys.argv[1:]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            cli.main(["check", "--no-cache", "--output-format", "json", folder], prog_name="pdlint")
        except SystemExit as exc:
            runs.append([folder, exc.code, out.getvalue()])
print(json.dumps(runs))
"""


@pytest.mark.slow
def test_the_compiled_analysis_finds_what_its_source_finds_on_every_fixture(
    compiled_install, elsewhere
):
    """Each fixture (analysed whole, not lazily: a small tree): the installed
    (compiled) pdlint's JSON is byte for byte the source's."""
    folders = [str(folder) for folder in fixture_dirs()]
    source = run_source(["-c", EVERY_FOLDER, *folders], elsewhere, module=False)
    compiled = run(
        [str(compiled_install / BIN / "python"), "-c", EVERY_FOLDER, *folders], elsewhere
    )

    assert source.returncode == compiled.returncode == 0, source.stderr + compiled.stderr
    expected, got = json.loads(source.stdout), json.loads(compiled.stdout)
    assert [run[0] for run in expected] == folders
    for want, have in zip(expected, got, strict=True):
        assert want[1] in (0, 1), want
        assert have == want, want[0]
    assert len(folders) > 20 and sum(len(json.loads(run[2])) for run in expected) > 20


PATHOLOGICAL = {  # test_pathological.py's cases: its bound of each, by generator
    "nested_expressions": "nested",
    "huge_file": "huge_file",
    "huge_enum": "huge_enum",
    "predicate_cycles": "predicate_cycles",
    "call_graph_cycles": "call_graph_cycles",
    "many_mixins": "many_mixins",
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(PATHOLOGICAL))
def test_the_compiled_pdlint_on_pathological_code(compiled_install, tmp_path, case):
    """Compiled code has no instance dict and no interpreter frames: each
    pathological case of test_pathological.py, run by the installed pdlint, ends
    within the same bound, with no traceback, and finds what the source finds."""
    root = tmp_path / "proj"
    getattr(pathological, case)(root)
    argv = ["check", "--no-cache", "--output-format", "json", "."]

    start = time.monotonic()
    compiled = run([str(compiled_install / BIN / "pdlint"), *argv], cwd=root)
    elapsed = time.monotonic() - start
    source = run_source(argv, root)

    # no traceback: stderr holds the run's summary alone
    assert compiled.returncode == 1, compiled.stderr[-2000:]
    assert compiled.stderr.startswith("Found ") and compiled.stderr.count("\n") == 1
    assert elapsed < BOUNDS[PATHOLOGICAL[case]]
    assert compiled.stdout == source.stdout


# Test files run again with the installed (compiled) pdlint imported, in process
# and by ``python -m pdlint``: the lazy model's and the cache's equivalences, and
# determinism, where compiled code could differ from its source (mypyc gives a dict
# subclass dict's own operations; a compiled class has no instance dict).
COMPILED_SUITE = ("engine/test_lazy.py", "cache/test_cache.py", "engine/test_determinism.py")


@pytest.mark.slow
def test_the_compiled_pdlint_passes_the_lazy_cache_and_determinism_tests(
    compiled_install, elsewhere, request
):
    import hypothesis

    announce(request, f"running {', '.join(COMPILED_SUITE)} with the compiled pdlint")

    python = str(compiled_install / BIN / "python")
    pip = run(
        [python, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
        + [f"pytest=={pytest.__version__}", f"hypothesis=={hypothesis.__version__}"],
        cwd=elsewhere,
    )
    assert pip.returncode == 0, pip.stdout[-3000:] + pip.stderr[-3000:]
    where = run([python, "-c", "import pdlint.model.names as m; print(m.__file__)"], cwd=elsewhere)
    assert not where.stdout.strip().endswith(".py"), where.stdout + where.stderr

    res = run(
        # the files' release-level tests stay out: the compiled analysis of a release
        # is compared with its source's above; no worker processes (not installed there)
        [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", "-m", "not real"]
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


@pytest.mark.slow
@pytest.mark.real
def test_the_compiled_indexer_gives_the_facts_of_its_source(compiled_install, elsewhere):
    real = sglang_tree("0.5.16") / "sglang" / "srt"
    folders = [REPO / "fixtures", REPO / "tests", real]

    res = run(
        [str(compiled_install / BIN / "python"), "-c", SAME_FACTS, *map(str, folders)],
        cwd=elsewhere,
    )

    assert res.returncode == 0, res.stdout + res.stderr
    assert int(res.stdout) > 1500  # sglang 0.5.16's srt alone has 1,499 files
