"""The value-flow program of some paths: files found and named as ``pdlint check``
finds and names them (:mod:`pdlint.source.discover`, :mod:`pdlint.source.modules`),
extracted, solved."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from pdlint.facts.flow import ModuleFlow, extract
from pdlint.facts.indexer import index_module
from pdlint.facts.types import ModuleFacts
from pdlint.model.callgraph import CallGraph
from pdlint.model.entries import heuristic_entries
from pdlint.model.names import Model
from pdlint.model.valueflow import FlowGraph, solve
from pdlint.settings.config import Settings
from pdlint.source.discover import discover, display_path
from pdlint.source.globs import name_matches
from pdlint.source.modules import ModuleNames
from pdlint.source.read import parse_source, read_bytes


class FlowSource(NamedTuple):
    """One file to analyse and the module it is."""

    path: str
    module: str
    is_package: bool


class FlowProgram(NamedTuple):
    """The solved graph of some paths, and the files that could not be read."""

    graph: FlowGraph
    errors: tuple[tuple[str, str], ...]
    warnings: tuple[str, ...] = ()
    sources: tuple[FlowSource, ...] = ()


def flow_sources(
    paths: Sequence[str], settings: Settings | None = None
) -> tuple[list[FlowSource], list[str]]:
    """Every Python file under ``paths`` with its module name, as ``check`` finds and
    names them (its excludes, .gitignore and namespace packages); the discovery's
    warnings. A missing path raises DiscoveryError."""
    settings = settings or Settings()
    excludes = settings.exclude + settings.extend_exclude
    files, warnings = discover(list(paths), excludes, respect_gitignore=settings.respect_gitignore)
    datas: dict[str, bytes] = {}
    for source in files:
        try:
            datas[source.path] = read_bytes(source.path)
        except OSError:
            pass
    names = ModuleNames(settings.namespace_packages)

    def any_file(_slot: tuple[str, ...], test: Callable[[bytes], bool], within: str | None) -> bool:
        prefix = None if within is None else within.rstrip(os.sep) + os.sep
        return any(
            test(data)
            for path, data in datas.items()
            if prefix is None or os.path.abspath(path).startswith(prefix)
        )

    names.infer(sorted({os.path.dirname(os.path.abspath(f.path)) for f in files}), any_file)
    out: dict[str, FlowSource] = {}
    for source in files:  # sorted by display path: the first file of a module stands for it
        module = names.name(os.path.abspath(source.path))
        is_package = os.path.basename(source.path).startswith("__init__.")
        out.setdefault(module, FlowSource(source.path, module, is_package))
    return list(out.values()), warnings


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


def load_program(paths: Sequence[str], settings: Settings | None = None) -> FlowProgram:
    """Find, name, extract and solve every file under ``paths`` (as ``check`` does)."""
    sources, warnings = flow_sources(paths, settings)
    modules, errors = extract_sources(sources)
    return FlowProgram(solve(modules), tuple(errors), tuple(warnings), tuple(sources))


def named_entries(graph: FlowGraph, patterns: Sequence[str]) -> list[str]:
    """The functions of ``graph`` matching ``patterns`` (exact, glob or dotted suffix)."""
    return sorted({q for q in graph.functions for p in patterns if name_matches(p, q)})


def check_facts(sources: Iterable[FlowSource]) -> list[ModuleFacts]:
    """The check's facts of the files (those that parse), named as the graph names them."""
    out = []
    for source in sources:
        try:
            data = read_bytes(source.path)
        except OSError:
            continue
        parsed = parse_source(display_path(source.path), data)
        try:  # a large file's pieces are parsed as they are indexed
            facts = index_module(
                source.path, display_path(source.path), parsed.trees(), parsed.text, source.module
            )
        except RecursionError:
            continue
        if parsed.error is None:
            out.append(facts)
    return out


def decode_entries(sources: Sequence[FlowSource]) -> list[str]:
    """The decode entry points as ``check`` finds them when no pack or setting names
    one: its finder (by name and by interface, never test code) on its model of the
    files, the outermost of them (those no other entry point reaches)."""
    model = Model(check_facts(sources))
    entries = heuristic_entries(model)
    return CallGraph(model, entries).roots_only(entries) if entries else []


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
