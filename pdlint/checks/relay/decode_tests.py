"""Tests that the disaggregation mode is decode, as a startup validator writes them."""

from __future__ import annotations

from pdlint.facts.exprs import text
from pdlint.facts.types import Expr, Guards


def flatten(guards: Guards) -> Guards:
    """The guards with each positive ``and`` split into its parts."""
    out: list[tuple[Expr, bool]] = []
    for expr, polarity in guards:
        if polarity and expr[0] == "and":
            out.extend((e, True) for e in expr[1])
        else:
            out.append((expr, polarity))
    return tuple(out)


def is_decode_test(expr: Expr) -> bool:
    """A test that the disaggregation mode is decode (``mode == "decode"``...)."""
    if expr[0] == "cmp" and len(expr[2]) == 1 and expr[2][0] in ("==", "is"):
        sides = (expr[1], expr[3][0])
        for side in sides:
            if side[0] == "const" and isinstance(side[1], str) and side[1].lower() == "decode":
                return True
            if (
                side[0] == "attr"
                and side[2].upper() == "DECODE"
                and "disagg" in text(side[1], brief=True).lower()
            ):
                return True
        return False
    if expr[0] in ("call", "attr", "name"):
        shown = text(expr, brief=True).lower()
        return "disagg" in shown and "decode" in shown
    return False
