"""The one way in: discover, index, model, analyse, apply policy.

The CLI, the language server, the flake8 plugin and the tests all call
:func:`analyze`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pdlint.checks.relay import RelayCheck
from pdlint.config import Settings
from pdlint.discover import SourceFile, discover, display_path
from pdlint.facts import ModuleFacts
from pdlint.findings import Finding, Location
from pdlint.graph import CallGraph, heuristic_entries, match_entries
from pdlint.index import index_module
from pdlint.model import Model
from pdlint.packs import Pack, load_packs
from pdlint.policy import apply_policy
from pdlint.source import ParsedFile, parse_source, read_file
from pdlint.variants import Variants


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
    parsed: list[tuple[SourceFile, ParsedFile]] = []
    overlay_text = {str(Path(k).resolve()): v for k, v in (overlays or {}).items()}
    for source in files:
        text = overlay_text.get(str(Path(source.path).resolve()))
        if text is not None:
            parsed.append((source, parse_source(source.display, text.encode("utf-8"))))
        else:
            parsed.append((source, read_file(source.path, source.display)))
    if "-" in paths:
        name = stdin_filename or "-"
        source = SourceFile(path=name, display=display_path(name) if stdin_filename else "-")
        parsed.append((source, parse_source(source.display, stdin or b"")))

    findings: list[Finding] = []
    modules: list[ModuleFacts] = []
    sources: dict[str, list[str]] = {}
    stats: Counter[str] = Counter()
    for source, result in parsed:
        sources[source.display] = result.text.splitlines()
        if result.error is not None:
            findings.append(result.error)
            stats["files not parsed"] += 1
            continue
        assert result.tree is not None
        try:
            modules.append(index_module(source.path, source.display, result.tree, result.text))
        except RecursionError:
            findings.append(
                Finding(
                    "PDL900",
                    "cannot index: too deeply nested",
                    Location(source.display, 1, 1, 1, 1),
                    key=("PDL900", source.display),
                )
            )
    stats["files"] = len(parsed)
    stats["modules indexed"] = len(modules)

    packs = load_packs(settings.packs, settings.root) if use_packs else []
    active = _active_packs(packs, modules, explicit=settings.packs is not None)
    findings.extend(_relay_findings(modules, active, settings, stats))
    return Result(apply_policy(findings, settings, sources), sources, len(parsed), warnings, stats)


def _relay_findings(
    modules: list[ModuleFacts], packs: list[Pack], settings: Settings, stats: Counter[str]
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
    graph = CallGraph(model, entries)
    if heuristic:
        entries = graph.roots_only(entries)
    stats["entry points"] = len(entries)
    stats["variants"] = len(variants.by_name)
    validators = tuple(v for pack in packs for v in pack.startup_validators)
    check = RelayCheck(model, variants, graph, entries, validators)
    out = list(check.run())
    stats["functions reachable"] = graph.graph.number_of_nodes()
    stats["calls dropped (unresolved)"] = graph.dropped
    stats.update(model.stats)
    return out
