"""Pieces of PDL201's messages: what a growth adds, which role a function plays."""

from __future__ import annotations

from pdlint.facts.exprs import text
from pdlint.facts.types import Expr
from pdlint.model.locations import short_name


def entries(added: Expr) -> str:
    """What a growth adds, as the message shows it."""
    shown = text(added)
    return "entries" if "..." in shown else f"`{shown}`"


def role_of(qual: str) -> str:
    """The role a function plays, by its name (its short name when neither)."""
    low = qual.lower()
    if "prefill" in low and "decode" not in low:
        return "the prefill side"
    if "decode" in low and "prefill" not in low:
        return "the decode side"
    return f"`{short_name(qual)}`"
