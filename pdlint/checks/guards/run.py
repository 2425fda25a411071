"""The guard check's run: PDL107 on the code the entry points reach, PDL108 there and
in the files that test a value the variant can no longer hold."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from pdlint.checks.base import Context, Run
from pdlint.checks.guards.dead_branches import DeadBranches, branch_strings
from pdlint.checks.guards.narrower import NarrowGuards
from pdlint.checks.guards.pack import GuardPack
from pdlint.checks.guards.settings import Setting, Settings
from pdlint.checks.relay.graph import GraphRun
from pdlint.facts.exprs import nodes, text
from pdlint.facts.types import Expr, FunctionFacts
from pdlint.findings import Finding
from pdlint.model.locations import entry_steps
from pdlint.model.names import Model


class GuardRun(Run):
    """The guard check on the graph of the relay check's last run."""

    def __init__(self, context: Context, graph: Run) -> None:
        assert isinstance(graph, GraphRun)
        self.section: GuardPack = context.section
        self.graph = graph

    def run(self) -> Iterator[Finding]:
        graph = self.graph
        model = graph.model
        parents = graph.graph.reach(graph.roots, lambda fn, site: True)
        reached = [model.functions[q] for q in sorted(parents)]
        steps = {fn.qualname: partial(entry_steps, model, parents, fn.qualname) for fn in reached}
        names = self.section.variants
        out: list[Finding] = []
        narrow = NarrowGuards(model, graph.variants, Settings(model, graph.variants, names))
        # a first pass loads the classes the guards and resources are set in (a lazy
        # model), whose attributes' variants are read before the second
        for fn in reached:
            list(narrow.findings(fn, steps[fn.qualname]))
        graph.variants.learn_classes(narrow.classes_read)
        narrow = NarrowGuards(model, graph.variants, Settings(model, graph.variants, names))
        for fn in reached:
            out += narrow.findings(fn, steps[fn.qualname])
        # a string setting's values are the strings compared with it in any file: those
        # its construction compares it with are its values, loaded or not elsewhere
        variants = graph.variants
        settings = Settings(model, variants, names)
        for owner, attr in sorted(
            {
                owned
                for fn in reached
                for subject, _ in fn.string_compares
                if (owned := settings.rewritten_string(fn, subject)) is not None
            }
            | set(settings.named_owners())
        ):
            variants.with_construction_strings(owner, attr, settings.normaliser_names())
        dead = DeadBranches(model, variants, settings, names.rewrites)
        found: dict[str, Setting] = {}
        for setting in settings.named():
            found.setdefault(setting.variant.qualname, setting)
        for fn in reached:
            for cond, _, _ in fn.branches:
                for where, node in _tested(model, fn, cond):
                    compared = settings.of_attr(where, node)
                    if compared is not None and compared.owner is not None:
                        found.setdefault(compared.variant.qualname, compared)
        values = sorted({v for s in found.values() for v in dead.dead_values(s)})
        quoted = [f"{q}{v}{q}" for v in values for q in ("'", '"')]
        written = [setting for setting, _, _ in names.rewrites]
        model.load_text(any_of=[*quoted, *written])
        wanted = set(values)
        testing = [
            fn
            for fn in model.functions.values()
            if fn.branches
            and fn.qualname not in steps
            and (_compares_any(fn, wanted) or _mentions(fn, written))
        ]
        for fn in sorted(testing, key=lambda f: f.qualname) + reached:
            out += dead.findings(fn, steps.get(fn.qualname, list))
        return iter(out)


def _tested(model: Model, fn: FunctionFacts, cond: Expr) -> list[tuple[FunctionFacts, Expr]]:
    """(function, attribute read) for what a condition compares, itself or through the
    one function a call in it reaches (a predicate: ``cfg.use_eagle()``)."""
    out = []
    for node in nodes(cond):
        if node[0] == "cmp":
            out += [(fn, side) for side in (node[1], *node[3]) if side[0] == "attr"]
        elif node[0] == "call":
            targets = model.call_targets(fn, node[1])
            if len(targets) != 1:
                continue
            callee = model.functions[targets[0]]
            for ret in callee.returns:
                for inner in nodes(ret.value) if ret.value is not None else ():
                    if inner[0] == "cmp":
                        sides = (inner[1], *inner[3])
                        out += [(callee, side) for side in sides if side[0] == "attr"]
    return out


def _compares_any(fn: FunctionFacts, wanted: set[str]) -> bool:
    """Whether a branch of ``fn`` compares with one of the ``wanted`` strings."""
    # a string's repr is in the repr of every expression holding it: a test in C
    # before the walk of every condition
    shown = repr(fn.branches)
    return any(repr(v) in shown for v in wanted) and bool(branch_strings(fn) & wanted)


def _mentions(fn: FunctionFacts, written: list[str]) -> bool:
    """Whether a branch of ``fn`` reads a setting as a pack writes it (``a.b.method``)."""
    if not written:
        return False
    for cond, _, _ in fn.branches:
        for node in nodes(cond):
            if node[0] == "attr":
                shown = text(node, brief=True)
                if any(shown == w or shown.endswith(f".{w}") for w in written):
                    return True
    return False
