"""The value-flow program of some paths: files found and named as ``pdlint check``
finds and names them (:mod:`pdlint.source.discover`, :mod:`pdlint.source.modules`),
extracted, solved."""

from __future__ import annotations

import os
import re
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
from pdlint.source.modules import ModuleNames, in_folder
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

    def any_file(
        slot: tuple[str, ...],
        test: Callable[[bytes], bool],
        within: str | None,
        directly: bool = False,
    ) -> bool:
        return any(test(data) for path, data in datas.items() if in_folder(path, within, directly))

    names.infer(sorted({os.path.dirname(os.path.abspath(f.path)) for f in files}), any_file)
    out: dict[str, FlowSource] = {}
    for source in files:  # sorted by display path: the first file of a module stands for it
        module = names.name(os.path.abspath(source.path))
        is_package = os.path.basename(source.path).startswith("__init__.")
        out.setdefault(module, FlowSource(source.path, module, is_package))
    return list(out.values()), warnings


class ModuleReader:
    """The IR of the sources' modules, extracted when asked for; the files that could
    not be read, with why."""

    def __init__(self, sources: Iterable[FlowSource]) -> None:
        self.sources = {source.module: source for source in sources}
        self.errors: list[tuple[str, str]] = []
        self.read: dict[str, ModuleFlow | None] = {}

    def __call__(self, module: str) -> ModuleFlow | None:
        if module in self.read:
            return self.read[module]
        source = self.sources.get(module)
        if source is None:
            return None
        flow = None
        try:
            text = read_bytes(source.path).decode("utf-8-sig", errors="replace")
            flow = extract(text, source.module, source.is_package)
        except (OSError, SyntaxError, ValueError, RecursionError) as exc:
            self.errors.append((source.path, str(exc) or type(exc).__name__))
        self.read[module] = flow
        return flow

    def read_all(self) -> list[ModuleFlow]:
        return [m for m in map(self, self.sources) if m is not None]


def load_program(paths: Sequence[str], settings: Settings | None = None) -> FlowProgram:
    """Find, name, extract and solve every file under ``paths`` (as ``check`` does)."""
    sources, warnings = flow_sources(paths, settings)
    reader = ModuleReader(sources)
    graph = solve(reader.read_all())
    return FlowProgram(graph, tuple(reader.errors), tuple(warnings), tuple(sources))


def load_reachable(
    reader: ModuleReader, warnings: Sequence[str], roots: Sequence[str]
) -> FlowProgram:
    """The graph of what ``roots`` reach, solved on demand: a module is extracted
    once something imports it, a function's body run once something calls it."""
    first = sorted({_module_of(r, reader.sources) for r in roots})
    modules = [m for m in map(reader, first) if m is not None]
    graph = solve(modules, roots, reader, set(reader.sources) - set(first))
    sources = tuple(reader.sources.values())
    return FlowProgram(graph, tuple(reader.errors), tuple(warnings), sources)


def _module_of(qualname: str, modules: Iterable[str]) -> str:
    """The longest module name that prefixes ``qualname``."""
    known = set(modules)
    parts = qualname.split(".")
    for end in range(len(parts) - 1, 0, -1):
        name = ".".join(parts[:end])
        if name in known:
            return name
    return qualname


_DEF = re.compile(rb"\bdef\s+(\w+)")


def defining(reader: ModuleReader, patterns: Sequence[str]) -> list[str]:
    """The functions the files define whose qualified names ``patterns`` pick (exact,
    glob or dotted suffix); only the files whose text defines a function of the name
    a pattern ends with are extracted (a pattern ending in a glob reads every file)."""
    names: set[bytes] = set()
    for pattern in patterns:
        last = pattern.rsplit(".", 1)[-1]
        if not last.isidentifier():
            names = set()
            break
        names.add(last.encode())
    found: set[str] = set()
    for source in reader.sources.values():
        if names:
            try:
                data = read_bytes(source.path)
            except OSError:
                continue
            if not names & set(_DEF.findall(data)):
                continue
        module = reader(source.module)
        if module is not None:
            found |= {
                f.qualname
                for f in module.functions
                if any(name_matches(p, f.qualname) for p in patterns)
            }
    return sorted(found)


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


def decode_entries(model: Model) -> list[str]:
    """The decode entry points as ``check`` finds them when no pack or setting names
    one: its finder (by name and by interface, never test code) on its model of the
    files (a lazy one loads what the finder asks for), the outermost of them (those
    no other entry point reaches)."""
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
