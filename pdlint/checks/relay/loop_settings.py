"""Settings a path tests, as literals: which event loop can take a path.

A decode server runs one of several event loops, chosen at startup by settings
(``if scheduler.enable_overlap: event_loop_overlap_disagg_decode() else:
event_loop_normal_disagg_decode()``), and a consumer may run only with one value of
such a setting (``if self.enable_overlap:``). Both read as literals ``(setting,
value)``: a setting is named by :meth:`Variants.setting_key`, and a flag stored from
an expression (``self.enable_overlap = not args.disable_overlap``) stands for the
literals of that expression too, so the loop's test and the consumer's meet on
``args.disable_overlap``. A path conflicts with a loop when they need a setting
both ways.
"""

from __future__ import annotations

from collections.abc import Iterable

from pdlint.checks.relay.fields import substituted
from pdlint.facts.types import Expr, FunctionFacts, Guards, Span
from pdlint.model.names import Model, assigned_values
from pdlint.model.variants import Variants

Literal = tuple[str, bool]
DEPTH = 4  # stored flags followed into the expressions they were stored from


def conflicts(literals: Iterable[Literal]) -> bool:
    """Whether the literals need one setting both ways."""
    seen: dict[str, bool] = {}
    for key, value in literals:
        if seen.setdefault(key, value) is not value:
            return True
    return False


class SettingLiterals:
    """The literals guards imply, and those a decode entry point's callers test."""

    def __init__(self, model: Model, variants: Variants) -> None:
        self.model = model
        self.variants = variants
        self._entries: dict[str, frozenset[Literal]] = {}
        self._stored: dict[tuple[str, str], list[tuple[FunctionFacts, Expr]]] = {}

    def of_guards(self, fn: FunctionFacts, guards: Guards, at: Span) -> frozenset[Literal]:
        """The literals code under ``guards`` at ``at`` in ``fn`` runs with (flags set
        earlier in ``fn`` read through)."""
        out: set[Literal] = set()
        for expr, polarity in guards:
            self._literals(fn, substituted(fn, expr, at), polarity, 0, out)
        return frozenset(out)

    def _literals(
        self, fn: FunctionFacts, expr: Expr, polarity: bool, depth: int, out: set[Literal]
    ) -> None:
        kind = expr[0]
        if kind == "not":
            self._literals(fn, expr[1], not polarity, depth, out)
            return
        if kind in ("and", "or"):
            if (kind == "and") is polarity:  # every part holds (or every part fails)
                for part in expr[1]:
                    self._literals(fn, part, polarity, depth, out)
            return
        if kind not in ("name", "attr", "call"):
            return
        key = self.variants.setting_key(fn, expr)
        if key is not None:
            out.add((key, polarity))
        if depth >= DEPTH:
            return
        for where, value in self._values(fn, expr):
            self._literals(where, value, polarity, depth + 1, out)

    def _values(self, fn: FunctionFacts, expr: Expr) -> list[tuple[FunctionFacts, Expr]]:
        """The one expression a flag was set from: a local assigned once, an attribute
        every store of its class sets from the same expression."""
        if expr[0] == "name":
            values = assigned_values(fn, expr[1])
            return [(fn, values[0])] if len(values) == 1 and values[0] != expr else []
        if expr[0] != "attr":
            return []
        cls = self.model.type_of(fn, expr[1])
        if cls is None:
            return []
        stored = self._stores(cls, expr[2])
        return stored if len({value for _, value in stored}) == 1 else []

    def _stores(self, cls: str, attr: str) -> list[tuple[FunctionFacts, Expr]]:
        key = (cls, attr)
        if key not in self._stored:
            model = self.model
            target = ("attr", ("name", "self"), attr)
            self._stored[key] = [
                (method, store.value)
                for klass in (*model.mro(cls), *model.descendants(cls)[:50])
                for method in model.methods_of.get(klass, ())
                for store in method.stores
                if store.target == target
            ]
        return self._stored[key]

    def of_entries(self, entries: list[str]) -> dict[str, frozenset[Literal]]:
        """For each entry point, the literals every call site that starts it runs under
        (none when no analysed code calls it)."""
        missing = [e for e in entries if e not in self._entries]
        if missing:
            names = {e.rsplit(".", 1)[-1] for e in missing}
            self.model.load_text(any_of=sorted(names))
            sites: dict[str, list[frozenset[Literal]]] = {e: [] for e in missing}
            for fn in list(self.model.functions.values()):
                for call in fn.calls:
                    func = call.func
                    name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else ""
                    if name not in names:
                        continue
                    for target in self.model.call_targets(fn, func):
                        if target in sites:
                            sites[target].append(self.of_guards(fn, call.guards, call.span))
            for entry, found in sites.items():
                self._entries[entry] = frozenset.intersection(*found) if found else frozenset()
        return {e: self._entries[e] for e in entries}
