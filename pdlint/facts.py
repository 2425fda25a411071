"""Plain, picklable facts extracted from one module by the indexer.

Expressions are kept as small nested tuples (an "expression IR"):
``("name", id)``, ``("attr", base, attr)``, ``("const", value)``,
``("call", func, args, kwargs)``, ``("cmp", left, ops, comparators)``,
``("and", values)``, ``("or", values)``, ``("not", operand)``,
``("seq", elements)``, ``("subscript", base, index)``, ``("other",)``.
A guard is ``(expression, polarity)``: the event runs only where the expression
evaluated to ``polarity``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

Expr = tuple[Any, ...]
Guard = tuple[Expr, bool]
Guards = tuple[Guard, ...]
Span = tuple[int, int, int, int]  # line, column, end line, end column (1-based)

OTHER: Expr = ("other",)


@dataclass(frozen=True)
class CallFact:
    """A call site: what is called, with what, under which guards."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    span: Span
    guards: Guards
    target: str | None  # local name the result is assigned to


@dataclass(frozen=True)
class ReturnFact:
    """A ``return`` (value None for a bare return) or the fall off the end."""

    value: Expr | None
    span: Span
    guards: Guards
    implicit: bool = False


@dataclass(frozen=True)
class StoreFact:
    """An assignment to an attribute: ``target = value``."""

    target: Expr
    value: Expr
    annotation: Expr | None
    span: Span
    guards: Guards


@dataclass(frozen=True)
class DerefFact:
    """A dereference of ``obj`` (an attribute expression ``X.attr``)."""

    attr: str
    obj: Expr
    kind: str  # "attribute", "call", "subscript", "len", "iteration"
    span: Span
    guards: Guards


@dataclass(frozen=True)
class FunctionFacts:
    """One function or method and the events in its body."""

    qualname: str
    name: str
    cls: str | None
    span: Span
    params: tuple[tuple[str, Expr | None], ...]
    returns_annotation: Expr | None
    decorators: tuple[str, ...]
    imports: tuple[tuple[str, str], ...]
    local_defs: tuple[tuple[str, str], ...]
    assigns: tuple[tuple[str, Expr], ...]
    calls: tuple[CallFact, ...]
    returns: tuple[ReturnFact, ...]
    raises: tuple[tuple[Span, Guards], ...]
    stores: tuple[StoreFact, ...]
    derefs: tuple[DerefFact, ...]
    # (subject, strings) of each comparison of a name or attribute with string constants
    string_compares: tuple[tuple[Expr, tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class ClassFacts:
    """A class: its bases, class-level assignments and annotated attributes."""

    qualname: str
    name: str
    span: Span
    bases: tuple[Expr, ...]
    assigns: tuple[tuple[str, Expr, Span], ...]
    annotations: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class ModuleFacts:
    """Everything pdlint keeps of one module."""

    path: str
    module: str
    imports: tuple[tuple[str, str], ...]
    assigns: tuple[tuple[str, Expr, Span], ...]
    classes: tuple[ClassFacts, ...]
    functions: tuple[FunctionFacts, ...]
