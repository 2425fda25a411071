"""Plain, picklable facts extracted from one module by the indexer.

Expressions are kept as small nested tuples (an "expression IR"):
``("name", id)``, ``("attr", base, attr)``, ``("const", value)``,
``("call", func, args, kwargs)``, ``("cmp", left, ops, comparators)``,
``("and", values)``, ``("or", values)``, ``("not", operand)``,
``("seq", elements)``, ``("subscript", base, index)``, ``("binop", op, left, right)``
(arithmetic; ``|`` is ``("union", left, right)``), ``("neg", operand)``,
``("slice", lower, upper, step)`` (a missing bound is ``("const", None)``),
``("comp", iterables)`` (a comprehension, by what it iterates), ``("other",)``.
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
class BindFact:
    """An assignment to local names: ``a = value`` or ``a, b = value`` (names in order)."""

    names: tuple[str, ...]
    value: Expr
    span: Span
    guards: Guards


@dataclass(frozen=True)
class IndexFact:
    """A subscript ``base[index]`` with a computed index or slice (not a constant)."""

    base: Expr
    index: Expr
    span: Span
    guards: Guards


@dataclass(frozen=True)
class GrowFact:
    """Entries added to a list: ``x += y``, ``x.extend(y)``, ``x.append(y)``, ``x = x + y``.

    ``loops`` holds what the enclosing ``for`` loops iterate, innermost last.
    """

    target: Expr
    value: Expr
    span: Span
    guards: Guards
    loops: tuple[Expr, ...]


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
    binds: tuple[BindFact, ...] = ()
    indexes: tuple[IndexFact, ...] = ()
    grows: tuple[GrowFact, ...] = ()
    asserts: tuple[tuple[Expr, Span, Guards], ...] = ()  # (test, span, guards)


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
