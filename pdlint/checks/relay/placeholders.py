"""Idle placeholders: a None check of the relay state that installs a stand-in
(``if x.<state> is None: x.<state> = Factory.create_idle_input()``).

Right for an idle batch; for a member whose builder returned None it hides the gap
(PDL103), unless the member's request crashes before it gets there (a PDL101 on
every path), where it is a note of that finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pdlint.checks.relay.decode_tests import flatten
from pdlint.checks.relay.none_checks import none_check
from pdlint.facts.exprs import text
from pdlint.facts.types import Expr, Guards, Span
from pdlint.model.names import Model

PLACEHOLDER_WORDS = ("idle", "dummy", "placeholder")


@dataclass(frozen=True)
class Placeholder:
    """``if x.<state> is None: x.<state> = Factory.create_idle_input(...)``."""

    function: str
    span: Span
    factory: str
    state: str
    target: Expr
    guards: Guards


def is_placeholder(name: str, factories: tuple[str, ...]) -> bool:
    """Whether a factory called ``name`` makes a placeholder (a pack's or by its name)."""
    if name in factories:
        return True
    return any(word in name.lower() for word in PLACEHOLDER_WORDS)


def find_placeholders(
    model: Model, functions: Iterable[str], state: str, factories: tuple[str, ...]
) -> list[Placeholder]:
    """Assignments of an idle placeholder to the state under a None check of it."""
    out = []
    for qual in sorted(functions):
        fn = model.functions[qual]
        for store in fn.stores:
            if store.target[0] != "attr" or store.target[2] != state:
                continue
            if store.value[0] != "call" or not none_branch(store.guards, state):
                continue
            func = store.value[1]
            name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else ""
            if is_placeholder(name, factories):
                shown = text(func, brief=True)
                out.append(Placeholder(qual, store.span, shown, state, store.target, store.guards))
    return out


def none_branch(guards: Guards, state: str) -> bool:
    """Code under ``guards`` runs only when ``state`` is None (or falsy), tested alone
    or as a part of an ``and`` (``if algo.drafts() and batch.state is None:``)."""
    for expr, polarity in flatten(guards):
        if not none_check(expr, state):
            continue
        if expr[0] == "cmp" and expr[2][0] in ("is", "=="):
            return polarity
        if expr[0] == "cmp" and expr[2][0] in ("is not", "!="):
            return not polarity
        if expr[0] == "not":
            return polarity
        if expr[0] in ("attr", "name"):
            return not polarity
    return False
