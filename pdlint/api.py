"""The one way in: discover, index, model, analyse, apply policy.

The CLI, the language server, the flake8 plugin and the tests all call
:func:`analyze`.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import Counter
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from pdlint.checks.layout import LayoutCheck
from pdlint.checks.modes import ModeCheck
from pdlint.checks.relay import RelayCheck
from pdlint.config import Settings
from pdlint.discover import SourceFile, discover, display_path
from pdlint.factories import ClassFactories
from pdlint.facts import ModuleFacts
from pdlint.findings import Finding
from pdlint.graph import CallGraph, heuristic_entries, match_entries
from pdlint.index import index_module
from pdlint.model import Model
from pdlint.packs import LayoutNames, Pack, load_packs
from pdlint.policy import apply_policy
from pdlint.source import decode_source, parse_error, parse_source, read_file
from pdlint.variants import Variants

PARALLEL_THRESHOLD = 200  # files; below this, workers cost more than they save


@dataclass
class Result:
    """What a run found, after policy, with what is needed to render it."""

    findings: list[Finding]
    sources: dict[str, list[str]]
    files: int
    warnings: list[str] = field(default_factory=list)
    stats: Counter[str] = field(default_factory=Counter)


def _active_packs(packs: list[Pack], modules: list[ModuleFacts], explicit: bool) -> list[Pack]:
    if explicit:
        return packs
    tops = {m.module.split(".")[0] for m in modules}
    return [p for p in packs if any(d.split(".")[0] in tops for d in p.detect)]


def analyze(
    paths: list[str],
    settings: Settings,
    *,
    stdin: bytes | None = None,
    stdin_filename: str | None = None,
    overlays: Mapping[str, str] | None = None,
    use_packs: bool = True,
) -> Result:
    """Analyse ``paths`` (``-`` reads ``stdin``) and return the findings.

    ``overlays`` maps file paths to unsaved text (the editor's buffers).
    Raises DiscoveryError for a missing path and ConfigError for a bad pack.
    """
    excludes = settings.exclude + settings.extend_exclude
    disk_paths = [p for p in paths if p != "-"]
    files, warnings = discover(disk_paths, excludes) if disk_paths else ([], [])
    overlay_text = {str(Path(k).resolve()): v for k, v in (overlays or {}).items()}
    jobs: list[tuple[SourceFile, bytes | None]] = []
    for source in files:
        text = overlay_text.get(str(Path(source.path).resolve()))
        jobs.append((source, text.encode("utf-8") if text is not None else None))
    if "-" in paths:
        name = stdin_filename or "-"
        source = SourceFile(path=name, display=display_path(name) if stdin_filename else "-")
        jobs.append((source, stdin or b""))

    findings: list[Finding] = []
    modules: list[ModuleFacts] = []
    stats: Counter[str] = Counter()
    for facts, error in _index_all(jobs):
        if error is not None:
            findings.append(error)
            stats["files not parsed"] += 1
        elif facts is not None:
            modules.append(facts)
    stats["files"] = len(jobs)
    stats["modules indexed"] = len(modules)

    packs = load_packs(settings.packs, settings.root) if use_packs else []
    active = _active_packs(packs, modules, explicit=settings.packs is not None)
    findings.extend(_relay_findings(modules, active, settings, stats))
    texts = {source.display: data for source, data in jobs if data is not None}
    paths_on_disk = {source.display: source.path for source, _ in jobs}
    sources = _lines_of({f.location.path for f in findings}, texts, paths_on_disk)
    return Result(apply_policy(findings, settings, sources), sources, len(jobs), warnings, stats)


def _index_one(
    job: tuple[SourceFile, bytes | None],
) -> tuple[ModuleFacts | None, Finding | None]:
    """Parse and index one file (runs in a worker process)."""
    source, data = job
    if data is None:
        parsed = read_file(source.path, source.display)
    else:
        parsed = parse_source(source.display, data)
    if parsed.error is not None or parsed.tree is None:
        return None, parsed.error
    try:
        return index_module(source.path, source.display, parsed.tree, parsed.text), None
    except RecursionError:
        return None, parse_error(source.display, "cannot index: too deeply nested")


def _index_all(
    jobs: list[tuple[SourceFile, bytes | None]],
) -> list[tuple[ModuleFacts | None, Finding | None]]:
    """Index every file, in worker processes when there are many."""
    workers = min(os.cpu_count() or 1, 8)
    if len(jobs) < PARALLEL_THRESHOLD or workers < 2:
        return [_index_one(job) for job in jobs]
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        return list(pool.map(_index_one, jobs, chunksize=16))


def _lines_of(
    wanted: set[str], texts: Mapping[str, bytes], paths: Mapping[str, str]
) -> dict[str, list[str]]:
    """Source lines of the files that have findings (for noqa and ``full``)."""
    out: dict[str, list[str]] = {}
    for display in sorted(wanted):
        data = texts.get(display)
        if data is None and display in paths:
            try:
                with open(paths[display], "rb") as handle:
                    data = handle.read()
            except OSError:
                data = b""
        try:
            out[display] = decode_source(data or b"").splitlines()
        except (SyntaxError, LookupError, UnicodeDecodeError):
            out[display] = []
    return out


def _relay_findings(
    modules: list[ModuleFacts],
    packs: list[Pack],
    settings: Settings,
    stats: Counter[str],
) -> list[Finding]:
    model = Model(modules)
    variants = Variants(model)
    patterns = [p for pack in packs for p in pack.entry_points] + list(settings.entry_points)
    entries = match_entries(model, patterns) if patterns else []
    if patterns and not entries:
        stats["entry-point patterns matching nothing"] += len(patterns)
    heuristic = not entries
    if heuristic:
        entries = heuristic_entries(model)
    factories = ClassFactories(model, variants)
    graph = CallGraph(model, entries, factories.targets)
    if heuristic:
        entries = graph.roots_only(entries)
    stats["entry points"] = len(entries)
    stats["variants"] = len(variants.by_name)
    validators = tuple(v for pack in packs for v in pack.startup_validators)
    check = RelayCheck(model, variants, graph, entries, validators)
    out = list(check.run())
    modes = ModeCheck(
        check,
        bypass_modes=tuple(m for pack in packs for m in pack.bypass_modes),
        placeholder_factories=tuple(f for pack in packs for f in pack.placeholder_factories),
    )
    out.extend(modes.run(check.found_relays(), entries))
    layout = LayoutNames()
    for pack in packs:
        layout = layout.merged(pack.layout)
    out.extend(LayoutCheck(model, layout).run())
    stats["functions reachable"] = graph.graph.number_of_nodes()
    stats["calls dropped (unresolved)"] = graph.dropped
    stats.update(model.stats)
    return out
