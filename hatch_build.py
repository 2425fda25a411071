"""Build hook: with ``PDLINT_COMPILE=1``, the wheel carries the indexer and the
analysis compiled with mypyc.

The default wheel is pure Python: it builds in seconds, needs no C compiler and
finds the same things. The compiled one runs faster (see docs/performance.md)
but takes minutes to build: the indexer (``pdlint/facts/indexer.py``, a large
part of a cold run's CPU) and the analysis (the model, the call graph, the
variant tables, the checks, most of an edit's run) are compiled as mypy and
black are: the same source, type-checked, turned into C extensions that Python
imports before the ``.py`` beside them (one per module, compiled side by side).

Only a regular wheel is compiled (``PDLINT_COMPILE=1 pip install .``); an
editable install runs the source. Asked for, the compiled build needs mypy and a
C compiler, and a failure fails the build: it never falls back to pure Python
unnoticed.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# The variable that asks for the compiled wheel (the README and bench/ name it).
COMPILE_VARIABLE = "PDLINT_COMPILE"

# The indexer, and the analysis: the program model, the call graph, the variant
# tables and the checks (each is a good part of a run's CPU; see docs/performance.md).
# What is compiled, by folder: a new module there is compiled with no edit here.
COMPILED_GLOBS = (
    "pdlint/facts/indexer.py",
    "pdlint/facts/exprs.py",
    "pdlint/model/*.py",
    "pdlint/checks/*/*.py",
)


def compiled_paths(root: Path) -> list[str]:
    """The modules :data:`COMPILED_GLOBS` names under ``root`` (package
    ``__init__`` files left out), as paths from ``root``."""
    found = {p for pattern in COMPILED_GLOBS for p in root.glob(pattern)}
    return sorted(p.relative_to(root).as_posix() for p in found if p.name != "__init__.py")


def compile_requested() -> bool:
    """Whether ``PDLINT_COMPILE`` asks for the compiled wheel (set, and not ``0``)."""
    return os.environ.get(COMPILE_VARIABLE, "").strip() not in ("", "0")


class CompileHook(BuildHookInterface):
    PLUGIN_NAME = "custom"
    _work: str | None = None  # the compiler's output, until the wheel is written

    def dependencies(self) -> list[str]:
        """What the build needs besides hatchling: mypy (mypyc) and setuptools (its
        extension builder) for the compiled wheel alone, so the default build
        installs nothing more."""
        return ["mypy>=1.8", "setuptools>=61"] if compile_requested() else []

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard" or not compile_requested():
            return
        modules = compiled_paths(Path(self.root))
        print(
            f"pdlint: {COMPILE_VARIABLE} is set: compiling {len(modules)} modules with mypyc "
            "(a few minutes)",
            file=sys.stderr,
            flush=True,
        )
        self._work = tempfile.mkdtemp(prefix="pdlint-mypyc-")
        try:
            built = _compile(Path(self.root), Path(self._work), modules)
        except Exception as exc:  # mypyc's or the C compiler's: the build fails, and why
            raise RuntimeError(
                f"pdlint: compiling with mypyc failed ({COMPILE_VARIABLE}=1 needs a C compiler "
                f"and Python's headers); without {COMPILE_VARIABLE} the wheel is pure Python"
            ) from exc
        for path, name in built:
            build_data["force_include"][str(path)] = name
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)


def _compile(root: Path, work: Path, modules: list[str]) -> list[tuple[Path, str]]:
    """Compile ``modules`` (paths from ``root``) into extension modules under
    ``work``; each with its path in the wheel."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    here = os.getcwd()
    os.chdir(root)  # mypyc names modules by their paths from here
    try:
        extensions = mypycify(
            ["--config-file", str(root / "pyproject.toml"), *modules],
            opt_level="3",
            target_dir=str(work / "c"),
            separate=True,  # one C file per module: compiled side by side
        )
        dist = Distribution({"name": "pdlint-native", "ext_modules": extensions})
        command: Any = dist.get_command_obj("build_ext")
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "temp")
        command.parallel = os.cpu_count() or 1
        dist.run_command("build_ext")
    finally:
        os.chdir(here)
    lib = work / "lib"
    built = [
        (p, p.relative_to(lib).as_posix())
        for p in sorted(lib.rglob("*"))
        if p.suffix in (".so", ".pyd")
    ]
    if not built:
        raise RuntimeError("mypyc built no extension module")
    return built
