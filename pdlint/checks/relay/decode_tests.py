"""Tests that the disaggregation mode is decode, as a startup validator writes them."""

from __future__ import annotations

from pdlint.facts.exprs import text
from pdlint.facts.types import Expr, Guards


def flatten(guards: Guards) -> Guards:
    """The guards with each positive ``and`` split into its parts, and each negated
    ``or`` (past ``if a is None or b is None: return``) into its negated parts."""
    out: list[tuple[Expr, bool]] = []
    for expr, polarity in guards:
        if polarity and expr[0] == "and":
            out.extend((e, True) for e in expr[1])
        elif not polarity and expr[0] == "or":
            out.extend((e, False) for e in expr[1])
        else:
            out.append((expr, polarity))
    return tuple(out)


# The decode role's names: "decode" (SGLang, vLLM, Dynamo), "generation" (TensorRT-LLM's
# generation-only server)
DECODE_ROLES = ("decode", "generation")
# What a flag naming the role ends with (``is_decode_server``); ``is_decode_or_idle`` is a
# batch's forward mode, not a role
ROLE_FLAGS = ("server", "worker", "instance", "node", "role")


def is_decode_test(expr: Expr) -> bool:
    """A test that this process serves the decode role: ``mode == "decode"``, a member of
    a disaggregation mode or of a role (``self.server_role is ServerRole.GENERATION``,
    ``Role.DECODE``), ``"generation"`` against a role, or a flag or a predicate naming
    it (``is_decode_server``, ``server_args.is_disagg_decode()``)."""
    if expr[0] == "cmp" and len(expr[2]) == 1 and expr[2][0] == "in" and expr[3][0][0] == "seq":
        # ``role in ("decode",)`` (a ``match`` case's pattern), ``mode in ("decode",
        # "both")``: true on a decode server when one of them names the role
        return any(is_decode_test(("cmp", expr[1], ("==",), (value,))) for value in expr[3][0][1])
    if expr[0] == "cmp" and len(expr[2]) == 1 and expr[2][0] in ("==", "is"):
        sides = (expr[1], expr[3][0])
        for side, other in (sides, sides[::-1]):
            if side[0] == "const" and isinstance(side[1], str):
                value = side[1].lower()
                if value == "decode" or (value in DECODE_ROLES and _holds_role(other)):
                    return True
            if side[0] == "attr" and side[2].lower() in DECODE_ROLES and _holds_role(side[1]):
                return True
        return False
    if expr[0] in ("call", "attr", "name"):
        named = expr[1] if expr[0] == "call" else expr
        if (
            named[0] == "attr"
            and any(role in named[2].lower() for role in DECODE_ROLES)
            and _holds_role(named[1])
        ):
            return True  # ``cfg.role.is_decode()``: a role's predicate
        shown = text(expr, brief=True).lower()
        return ("disagg" in shown and "decode" in shown) or any(
            f"decode_{flag}" in shown for flag in ROLE_FLAGS
        )
    return False


def _holds_role(expr: Expr) -> bool:
    """A disaggregation mode or a role (``ServerRole``, ``self.server_role``)."""
    shown = text(expr, brief=True).lower()
    return "disagg" in shown or shown.endswith("role")
