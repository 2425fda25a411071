"""The relay check's run: entry points, the variant tables and the call graph it
reads, built again while a lazy model loads the files it asks for."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence

from pdlint.checks.base import Context, Run
from pdlint.checks.relay.analysis import RelayAnalysis
from pdlint.facts.exprs import text
from pdlint.findings import Finding
from pdlint.model.callgraph import CallGraph, GraphMemo, match_entries
from pdlint.model.class_factories import ClassFactories
from pdlint.model.dropped import DROPPED_CALL, why_dropped
from pdlint.model.entries import heuristic_entries
from pdlint.model.locations import location
from pdlint.model.names import Model
from pdlint.model.variants import Variants
from pdlint.settings.packs import Pack, line_of, packs_dir


def unmatched_names(
    model: Model, packs: Sequence[Pack], entry_points: tuple[str, ...]
) -> list[str]:
    """Warnings for entry points and validators that name no analysed function.

    Every name a user gave (settings, a pack file of their own) is checked; a
    bundled pack is reported only when none of its names of a kind matches, as
    a release may lack some of them.
    """
    out = [
        f"entry point '{p}' matches no analysed function"
        for p in entry_points
        if not match_entries(model, [p])
    ]
    for pack in packs:
        own = os.path.realpath(os.path.dirname(pack.path)) != os.path.realpath(packs_dir())
        for key, names in (
            ("entry-points", pack.entry_points),
            ("idle-runs", pack.idle_runs),
            ("startup-validators", pack.startup_validators),
        ):
            missing = [n for n in names if not match_entries(model, [n])]
            if own:
                for n in missing:
                    line = line_of(pack, n)
                    where = f"{pack.path}:{line}" if line else pack.path
                    out.append(f"{where}: [relay] {key}: '{n}' matches no analysed function")
            elif names and len(missing) == len(names):
                out.append(
                    f"rule pack '{pack.name}': no [relay] {key} name matches an analysed function"
                )
    return out


class GraphRun(Run):
    """The relay check on the call graph from the entry points; the mode check
    reads its graph, roots and relays (see :mod:`pdlint.checks.modes.run`)."""

    def __init__(self, context: Context) -> None:
        model, settings, section = context.model, context.settings, context.section
        self.context = context
        self.model = model
        self.patterns = [*section.entry_points, *settings.entry_points]
        entries = match_entries(model, self.patterns) if self.patterns else []
        context.warnings.extend(unmatched_names(model, context.packs, settings.entry_points))
        if self.patterns and not entries:
            context.stats["entry-point patterns matching nothing"] += len(self.patterns)
        self.heuristic = not entries
        if self.heuristic:
            entries = heuristic_entries(model)
        self.entries = entries
        if entries:
            from pdlint.checks.relay.check import REJECTION_BRANCHES, REJECTION_WORDS

            model.load_text(gate=REJECTION_WORDS, branches=REJECTION_BRANCHES)
        self.memo = GraphMemo()
        if model.source is not None:
            # A lazy model: the variant tables are built from the loaded modules, so
            # load what the entry points reach first (a call graph without the
            # variant-chosen edges, which need those tables).
            CallGraph(model, entries, memo=self.memo)
        self.validators: tuple[str, ...] = section.startup_validators
        self.placeholders: tuple[str, ...] = section.placeholder_factories

    def run(self) -> Iterator[Finding]:
        model = self.model
        self.variants = Variants(model)
        self.context.settled()
        factories = ClassFactories(model, self.variants)
        self.graph = CallGraph(
            model,
            self.entries,
            factories.targets,
            self.memo,
            factories.receivers,
        )
        self.roots = self.graph.roots_only(self.entries) if self.heuristic else self.entries
        self.known = len(self.variants.by_name)  # before the checks look more up
        self.check = RelayAnalysis(
            model,
            self.variants,
            self.graph,
            self.roots,
            self.validators,
            self.placeholders,
            factories,
        )
        out = list(self.check.run())
        self.variant_stats = Counter(self.variants.stats)  # as they are before the mode check
        return iter(out)

    def wants(self) -> tuple[str, ...]:
        # A lazy model: the members of a class's string variant that a builder
        # dispatches on are the strings compared with that attribute in any file;
        # load the files naming it, and check again if that loaded any. (A string
        # variant of an attribute of no known class, by name alone, is left as the
        # loaded files give it: its name may be in most files.)
        if self.model.source is None:
            return ()
        return tuple(sorted(f".{a}" for a in self.check.string_builder_attributes()))

    def finish(self) -> None:
        stats = self.context.stats
        stats["entry points"] = len(self.roots)
        stats["variants"] = self.known
        stats.update(self.variant_stats)
        stats["functions reachable"] = len(self.graph)
        stats["calls resolved"] = self.graph.resolved
        stats["calls dropped (unresolved)"] = self.graph.dropped
        if self.context.settings.explain_dropped:
            model = self.model
            for caller, call in self.graph.dropped_sites:
                fn = model.functions[caller]
                where = location(model, caller, call.span)
                reason = why_dropped(model, fn, call.func)
                callee = text(call.func, brief=True)
                stats[f"{DROPPED_CALL}{where.path}:{where.line}: `{callee}`: {reason}"] += 1
        stats["builders found"] = self.check.builders_found()
        stats["relays found"] = len(self.check.found_relays())
