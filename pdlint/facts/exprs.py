"""Helpers over the expression IR of :mod:`pdlint.facts.types`: walk, names, text."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pdlint.facts.types import Expr

_WORD_RE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def words(identifier: str) -> list[str]:
    """Lower-case words of an identifier (``snake_case`` and ``CamelCase``)."""
    return [w.lower() for w in _WORD_RE.findall(identifier)]


def identifiers(expr: Expr) -> Iterator[str]:
    """Variable and attribute names occurring in ``expr``, in source order."""
    for node in nodes(expr):
        if node[0] == "name" and isinstance(node[1], str):
            yield node[1]
        elif node[0] == "attr" and isinstance(node[2], str):
            yield node[2]


def nodes(expr: Expr) -> Iterator[Expr]:
    """Sub-expressions in source order (pre-order, left to right)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if isinstance(node[0], str):
            yield node
            if node[0] == "call" and len(node) == 4:
                # keywords are (name, value) pairs: only their values are expressions
                stack.extend(reversed([node[1], *node[2], *(v for _, v in node[3])]))
            else:
                stack.extend(reversed([p for p in node[1:] if isinstance(p, tuple)]))
        else:
            stack.extend(reversed([p for p in node if isinstance(p, tuple)]))


def substituted(node: Expr, bound: dict[str, Expr]) -> Expr:
    """``node`` with the names of ``bound`` replaced by what they are bound to."""
    if len(node) == 2 and node[0] == "name" and isinstance(node[1], str):
        return bound.get(node[1], node)
    return tuple(substituted(x, bound) if isinstance(x, tuple) else x for x in node)


_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "//": 6}


def text(expr: Expr | None, outer: int = 0, *, brief: bool = False) -> str:
    """Source-like text of an expression IR, for messages; ``brief``: names and
    attributes only (a call's arguments are ``...``, any other expression ``...``)."""
    if expr is None:
        return ""
    kind = expr[0]
    if kind == "name":
        return str(expr[1])
    if kind == "attr":
        dot = "" if expr[2].startswith("[") else "."  # a dict's entry as a state
        return f"{text(expr[1], 9, brief=brief)}{dot}{expr[2]}"
    if brief:
        return f"{text(expr[1], 9, brief=True)}(...)" if kind == "call" else "..."
    if kind == "const":
        return repr(expr[1])
    if kind == "call":
        args = [text(a) for a in expr[2]] + [f"{k}={text(v)}" for k, v in expr[3]]
        return f"{text(expr[1], 9)}({', '.join(args)})"
    if kind == "subscript":
        return f"{text(expr[1], 9)}[{text(expr[2])}]"
    if kind == "slice":
        lo, hi = expr[1], expr[2]
        low = "" if lo == ("const", None) else text(lo)
        return f"{low}:{'' if hi == ('const', None) else text(hi)}"
    if kind == "seq":
        return ", ".join(text(e) for e in expr[1])
    if kind == "comp":
        return f"[... for ... in {', '.join(text(e) for e in expr[1])}]"
    if kind == "neg":
        return f"-{text(expr[1], 7)}"
    if kind == "binop":
        level = _PRECEDENCE.get(expr[1], 6)
        out = f"{text(expr[2], level)} {expr[1]} {text(expr[3], level + 1)}"
    elif kind == "cmp":
        level = _PRECEDENCE["cmp"]
        parts = [text(expr[1], level + 1)]
        for op, right in zip(expr[2], expr[3], strict=False):
            parts += [op, text(right, level + 1)]
        out = " ".join(parts)
    elif kind in ("and", "or"):
        level = _PRECEDENCE[kind]
        out = f" {kind} ".join(text(v, level + 1) for v in expr[1])
    elif kind == "not":
        level = _PRECEDENCE["not"]
        out = f"not {text(expr[1], level)}"
    else:
        return "..."
    return f"({out})" if level < outer else out


def holds(expr: Expr, polarity: bool) -> str:
    """The condition as it holds where the guarded code runs."""
    if polarity:
        return text(expr)
    if expr[0] == "cmp" and len(expr[2]) == 1:
        flip = {"is": "is not", "is not": "is", "==": "!=", "!=": "==", "in": "not in"}
        if expr[2][0] in flip:
            return text(("cmp", expr[1], (flip[expr[2][0]],), expr[3]))
    if expr[0] == "not":
        return text(expr[1])
    return f"not {text(expr, 3)}"


NEGATED_OP = {"==": "!=", "!=": "==", "<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def comparisons_with_sense(expr: Expr, sense: bool) -> Iterator[tuple[Expr, bool]]:
    """Single comparisons in a condition, with the truth that makes it hold (``not`` flips)."""
    kind = expr[0]
    if kind == "not":
        yield from comparisons_with_sense(expr[1], not sense)
    elif kind in ("and", "or"):
        for value in expr[1]:
            yield from comparisons_with_sense(value, sense)
    elif kind == "cmp" and len(expr[2]) == 1:
        yield expr, sense


def comparisons(expr: Expr) -> Iterator[Expr]:
    for node in nodes(expr):
        if node[0] == "cmp" and len(node[2]) == 1:
            yield node
