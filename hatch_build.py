"""Build hook: the wheel carries the indexer and the analysis compiled with mypyc,
when it can.

The indexer (``pdlint/facts/indexer.py``) turns every parsed module into facts, a
large part of a cold run's CPU; the analysis (the model, the call graph, the
variant tables, the checks) is most of an edit's run. Both run faster compiled
(see docs/performance.md). Compiled as mypy and black are: the same source,
type-checked, turned into C extensions that Python imports before the ``.py``
beside them (one per module, compiled side by side).

Only a regular wheel is compiled (``pip install .``); an editable install runs the
source. Without a C compiler, or when compiling fails for any other reason, the
wheel is the pure-Python one and the build says why (``PDLINT_PURE=1`` asks for it).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

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


class CompileHook(BuildHookInterface):
    PLUGIN_NAME = "custom"
    _work: str | None = None  # the compiler's output, until the wheel is written

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return
        if os.environ.get("PDLINT_PURE", "").strip() not in ("", "0"):
            print("pdlint: PDLINT_PURE is set: a pure-Python wheel", file=sys.stderr)
            return
        self._work = tempfile.mkdtemp(prefix="pdlint-mypyc-")
        try:
            built = _compile(Path(self.root), Path(self._work))
        except Exception:  # any failure: the pure-Python wheel, and why
            print(
                "pdlint: compiling the indexer failed; building a pure-Python wheel:\n"
                + traceback.format_exc(limit=3),
                file=sys.stderr,
            )
            return
        for path, name in built:
            build_data["force_include"][str(path)] = name
        build_data["pure_python"] = False
        build_data["infer_tag"] = True

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._work is not None:
            shutil.rmtree(self._work, ignore_errors=True)


def _compile(root: Path, work: Path) -> list[tuple[Path, str]]:
    """Compile :func:`compiled_paths` into extension modules under ``work``; each with
    its path in the wheel."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    here = os.getcwd()
    os.chdir(root)  # mypyc names modules by their paths from here
    try:
        extensions = mypycify(
            ["--config-file", str(root / "pyproject.toml"), *compiled_paths(root)],
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
