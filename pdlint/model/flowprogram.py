"""The value-flow program of some paths: files named as modules, extracted, solved.

A directory given is a source root, as an entry of ``sys.path``: its files are
named by their path below it, so namespace packages (no ``__init__.py`` at
the top) get their full names. A directory that is itself a package (it holds
an ``__init__.py``) is named under its parent, unless it is the current one.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from pdlint.facts.flow import ModuleFlow, extract
from pdlint.facts.indexer import module_name
from pdlint.model.valueflow import FlowGraph, solve
from pdlint.source.globs import name_matches
from pdlint.source.read import read_bytes

_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages"})


class FlowSource(NamedTuple):
    """One file to analyse and the module it is."""

    path: str
    module: str
    is_package: bool


class FlowProgram(NamedTuple):
    """The solved graph of some paths, and the files that could not be read."""

    graph: FlowGraph
    errors: tuple[tuple[str, str], ...]


def flow_sources(paths: Sequence[str]) -> list[FlowSource]:
    """Every Python file under ``paths`` with its module name (missing paths raise)."""
    out: dict[str, FlowSource] = {}
    for path in paths:
        if not os.path.exists(path):
            raise FileNotFoundError(path)
        if os.path.isfile(path):
            is_package = os.path.basename(path) == "__init__.py"
            out[path] = FlowSource(path, module_name(path), is_package)
            continue
        root = os.path.abspath(path)
        if os.path.isfile(os.path.join(root, "__init__.py")) and root != os.getcwd():
            root = os.path.dirname(root)
        for directory, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
            for name in sorted(files):
                if not name.endswith(".py"):
                    continue
                full = os.path.join(directory, name)
                rel = os.path.relpath(os.path.abspath(full), root)
                parts = rel[:-3].split(os.sep)
                is_package = parts[-1] == "__init__"
                if is_package:
                    parts = parts[:-1]
                if not parts or not all(p.isidentifier() for p in parts):
                    continue
                out[full] = FlowSource(full, ".".join(parts), is_package)
    return list(out.values())


def extract_sources(
    sources: Iterable[FlowSource],
) -> tuple[list[ModuleFlow], list[tuple[str, str]]]:
    """The IR of each readable, parseable file; the others with why."""
    modules: list[ModuleFlow] = []
    errors: list[tuple[str, str]] = []
    for source in sources:
        try:
            text = read_bytes(source.path).decode("utf-8-sig", errors="replace")
            modules.append(extract(text, source.module, source.is_package))
        except (OSError, SyntaxError, ValueError, RecursionError) as exc:
            errors.append((source.path, str(exc) or type(exc).__name__))
    return modules, errors


def load_program(paths: Sequence[str]) -> FlowProgram:
    """Name, extract and solve every file under ``paths``."""
    modules, errors = extract_sources(flow_sources(paths))
    return FlowProgram(solve(modules), tuple(errors))


def decode_entries(graph: FlowGraph, patterns: Sequence[str] = ()) -> list[str]:
    """The roots as ``check`` finds them: functions matching ``patterns`` (exact,
    glob or dotted suffix), else those named with both ``disagg`` and ``decode``."""
    if patterns:
        return sorted(q for q in graph.functions for p in patterns if name_matches(p, q))
    return sorted(q for q in graph.functions if "disagg" in q.lower() and "decode" in q.lower())


def reachable(graph: FlowGraph, roots: Iterable[str]) -> dict[str, set[str]]:
    """The edges of ``graph`` reachable from ``roots`` (every root a node)."""
    out: dict[str, set[str]] = {}
    todo = list(roots)
    while todo:
        node = todo.pop()
        if node in out:
            continue
        out[node] = set(graph.edges.get(node, ()))
        todo.extend(out[node])
    return out


def whole_program(graph: FlowGraph) -> dict[str, set[str]]:
    """Every module's top level and every function, with their edges."""
    roots = [*graph.modules, *graph.functions]
    return reachable(graph, roots)
