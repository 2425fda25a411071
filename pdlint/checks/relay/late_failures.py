"""Late failures: a consumer that raises (or asserts) when the relay state is None.

Such a check fails every request of the member at its first decode step, after the
handoff moved its KV: loud, but still the gap (only a startup rejection, the
builder's own raise or the relay's raise at handoff handle it). A check reached only
by bypass batches (idle, dummy, warm-up) is a mode's business, not a gap.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import NamedTuple

from pdlint.checks.relay.decode_tests import flatten
from pdlint.checks.relay.state_types import StateReads
from pdlint.facts.exprs import nodes, text
from pdlint.facts.types import Expr, FunctionFacts, Guards, Span

BYPASS_WORDS = ("idle", "dummy", "warmup", "warm_up")


class LateFailure(NamedTuple):
    """A raise (or a failing assert) in ``fn`` that fires when ``obj`` is None."""

    obj: Expr  # the state expression tested (``batch.spec_info``)
    span: Span  # the raise or the assert
    guards: Guards  # the other conditions the failure runs under


Aliases = dict[str, Expr]  # a local bound once to the state -> the state expression


def value_if_none(expr: Expr, names: frozenset[str], aliases: Aliases | None = None) -> bool | None:
    """What ``expr`` evaluates to (as a condition) when the state is None; None if unknown."""
    kind = expr[0]
    aliases = aliases or {}
    if _state(expr, names, aliases):
        return False
    if kind == "not":
        inner = value_if_none(expr[1], names, aliases)
        return None if inner is None else not inner
    if kind in ("and", "or"):
        values = [value_if_none(v, names, aliases) for v in expr[1]]
        decisive = kind == "or"  # the value that settles the whole expression
        if decisive in values:
            return decisive
        return None if None in values else not decisive
    if kind == "cmp" and len(expr[2]) == 1 and expr[2][0] in ("is", "is not", "==", "!="):
        left, right = expr[1], expr[3][0]
        if (right == ("const", None) and _state(left, names, aliases)) or (
            left == ("const", None) and _state(right, names, aliases)
        ):
            return expr[2][0] in ("is", "==")
        return None
    if kind == "call" and expr[1] in (("name", "isinstance"), ("name", "hasattr")) and expr[2]:
        return False if _state(expr[2][0], names, aliases) else None
    return None


def _state(expr: Expr, names: frozenset[str], aliases: Aliases) -> bool:
    return (expr[0] == "attr" and expr[2] in names) or (expr[0] == "name" and expr[1] in aliases)


def _tested(expr: Expr, names: frozenset[str], aliases: Aliases) -> Expr | None:
    """The state expression a condition tests (the first one found; for a local
    bound to the state, what it was bound to)."""
    for node in nodes(expr):
        if _state(node, names, aliases):
            return aliases[node[1]] if node[0] == "name" else node
    return None


def _aliases(reads: StateReads, at: Span, guards: Guards) -> Aliases:
    """The locals bound to the state on every path to ``at`` (``s = batch.state``)."""
    out: Aliases = {}
    for local in sorted(reads.aliases()):
        value = reads.state(("name", local), at, guards)
        if value is not None:
            out[local] = value
    return out


def is_mode_variant(members: tuple[str, ...]) -> bool:
    """A batch mode (it has bypass members: IDLE, DUMMY...), not a per-request variant."""
    return any(word in name.lower() for name in members for word in BYPASS_WORDS)


def bypass_only(guards: Guards) -> bool:
    """Whether a guard that holds only for a bypass batch (``batch.forward_mode.is_idle()``)."""
    return any(polarity and _names_bypass(expr) for expr, polarity in guards)


def _names_bypass(expr: Expr) -> bool:
    try:
        return _names_bypass_kept(expr)
    except TypeError:  # an expression holding a list: not hashable, so not kept
        return _brief_names_bypass(expr)


def _brief_names_bypass(expr: Expr) -> bool:
    brief = text(expr, brief=True).lower()
    return any(word in brief for word in BYPASS_WORDS)


# the same guards are asked again for every path through them
_names_bypass_kept = functools.lru_cache(maxsize=1 << 14)(_brief_names_bypass)


def late_failures(fn: FunctionFacts, names: frozenset[str]) -> Iterator[LateFailure]:
    """The raises and asserts of ``fn`` that fire when the state (any of ``names``) is None
    and are not reached only by bypass batches."""
    reads = StateReads(fn, names)
    for span, guards in fn.raises:
        aliases = _aliases(reads, span, guards)
        flat = flatten(guards)
        for at, (expr, polarity) in enumerate(flat):
            if value_if_none(expr, names, aliases) is not polarity:
                continue
            obj = _tested(expr, names, aliases)
            rest = flat[:at] + flat[at + 1 :]
            if obj is not None and not bypass_only(rest):
                yield LateFailure(obj, span, rest)
            break
    for test, span, guards in fn.asserts:
        aliases = _aliases(reads, span, guards)
        if value_if_none(test, names, aliases) is False and not bypass_only(flatten(guards)):
            obj = _tested(test, names, aliases)
            if obj is not None:
                yield LateFailure(obj, span, guards)
