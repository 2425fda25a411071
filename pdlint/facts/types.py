"""Plain, picklable facts extracted from one module by the indexer.

Expressions are kept as small nested tuples (an "expression IR"):
``("name", id)``, ``("attr", base, attr)``, ``("const", value)``,
``("call", func, args, kwargs)``, ``("cmp", left, ops, comparators)``,
``("and", values)``, ``("or", values)``, ``("not", operand)``,
``("seq", elements)``, ``("subscript", base, index)``, ``("binop", op, left, right)``
(arithmetic; ``|`` is ``("union", left, right)``), ``("neg", operand)``,
``("slice", lower, upper, step)`` (a missing bound is ``("const", None)``),
``("comp", iterables, element)`` (a comprehension: what it iterates, what it gives;
a dict comprehension with no filter adds ``("seq", targets)`` and its key),
``("await", value)``, ``("fstr", pieces)`` (an f-string: constants and the values formatted),
``("ifexp", test, body, orelse)`` (``body if test else orelse``), ``("other",)``.
A guard is ``(expression, polarity)``: the event runs only where the expression
evaluated to ``polarity``.

Facts are named tuples: a module holds hundreds of thousands of them, and a
tuple is built and unpickled in C (a class instance with a ``__dict__`` costs
twice as much to load, and more memory). Each pickles as ``tuple.__new__(cls,
fields)``, which loading calls without running Python code (a named tuple's
own ``__new__`` is a Python function). Like tuples, two facts of different kinds
with equal fields compare equal; no code compares facts of different kinds.
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple, get_args, get_type_hints

Expr = tuple[Any, ...]
Guard = tuple[Expr, bool]
Guards = tuple[Guard, ...]
Span = tuple[int, int, int, int]  # line, column, end line, end column (1-based)

OTHER: Expr = ("other",)


class CallFact(NamedTuple):
    """A call site: what is called, with what, under which guards."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]
    span: Span
    guards: Guards
    target: str | None  # local name the result is assigned to
    # ``*x`` when it is the one starred argument and comes after every positional one,
    # and ``**m`` when it is the one (a function forwarding its ``*args``, ``**kwargs``)
    star: Expr | None = None
    double_star: Expr | None = None


class ReturnFact(NamedTuple):
    """A ``return`` (value None for a bare return) or the fall off the end."""

    value: Expr | None
    span: Span
    guards: Guards
    implicit: bool = False


class StoreFact(NamedTuple):
    """An assignment to an attribute: ``target = value``."""

    target: Expr
    value: Expr
    annotation: Expr | None
    span: Span
    guards: Guards


class DerefFact(NamedTuple):
    """A dereference of ``obj`` (an attribute expression ``X.attr``)."""

    attr: str
    obj: Expr
    kind: str  # "attribute", "call", "subscript", "len", "iteration"
    span: Span
    guards: Guards
    via: str = ""  # the local it is dereferenced through (``ctx = batch.ctx``), if any


class BindFact(NamedTuple):
    """An assignment to local names: ``a = value`` or ``a, b = value`` (names in order)."""

    names: tuple[str, ...]
    value: Expr
    span: Span
    guards: Guards


class IndexFact(NamedTuple):
    """A subscript ``base[index]`` with a computed index or slice (not a constant)."""

    base: Expr
    index: Expr  # type: ignore[assignment]  # shadows tuple.index
    span: Span
    guards: Guards


class GrowFact(NamedTuple):
    """Entries added to a list: ``x += y``, ``x.extend(y)``, ``x.append(y)``, ``x = x + y``.

    ``loops`` holds what the enclosing ``for`` loops iterate, innermost last.
    """

    target: Expr
    value: Expr
    span: Span
    guards: Guards
    loops: tuple[Expr, ...]


class FunctionFacts(NamedTuple):
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
    # the condition of each branch (``if``, ``elif``, ``while``, a ``case`` pattern, the
    # test of ``a if c else b``), where the condition is written, and the guards it runs under
    branches: tuple[tuple[Expr, Span, Guards], ...] = ()
    # a local assigned a condition (``limit = load_async and self.use_tree_head``):
    # (name, condition, span, guards)
    flags: tuple[tuple[str, Expr, Span, Guards], ...] = ()
    # what each ``yield`` gives (``("elem", x)`` for ``yield from x``)
    yields: tuple[Expr, ...] = ()
    # (container, key, value) of each ``container[key] = value``
    item_stores: tuple[tuple[Expr, Expr, Expr], ...] = ()
    # the names of its ``*args`` and ``**kwargs`` parameters ("" for none)
    var_params: tuple[str, str] = ("", "")
    # its decorators as written (``register("tree")``), outermost first
    decorator_exprs: tuple[Expr, ...] = ()
    # (parameter, default) of each parameter with a default value
    defaults: tuple[tuple[str, Expr], ...] = ()


def guards_at(fn: FunctionFacts, span: Span) -> Guards:
    """The conditions the event of ``fn`` at ``span`` (a call, store, assignment,
    subscript or return) runs under; none when no event is there."""
    for facts in (fn.calls, fn.stores, fn.binds, fn.indexes, fn.returns):
        for fact in facts:
            if fact.span == span:
                return fact.guards
    return ()


def before_return(span: Span, ret: ReturnFact) -> bool:
    """The event at ``span`` runs before the return ``ret``: written before it, or in
    the last statement of a function that falls off its end (which the implicit
    return's span covers)."""
    return span < ret.span or (ret.implicit and span[:2] < ret.span[2:])


class ClassFacts(NamedTuple):
    """A class: its bases, class-level assignments and annotated attributes."""

    qualname: str
    name: str
    span: Span
    bases: tuple[Expr, ...]
    assigns: tuple[tuple[str, Expr, Span], ...]
    annotations: tuple[tuple[str, Expr], ...]
    # its decorators as written (``register("tree")``), outermost first
    decorators: tuple[Expr, ...] = ()
    # the keywords of its class statement but ``metaclass`` (``class D(Base,
    # mode=Mode.MTP)``), which the bases' ``__init_subclass__`` receives
    keywords: tuple[tuple[str, Expr], ...] = ()


class ModuleFacts(NamedTuple):
    """Everything pdlint keeps of one module."""

    path: str
    module: str
    imports: tuple[tuple[str, str], ...]
    assigns: tuple[tuple[str, Expr, Span], ...]
    classes: tuple[ClassFacts, ...]
    functions: tuple[FunctionFacts, ...]
    # the calls made at import time, in the module's body (``Algo.register("X")``)
    calls: tuple[CallFact, ...] = ()
    # (container, key, value) of each ``container[key] = value`` in the module's body
    item_stores: tuple[tuple[Expr, Expr, Expr], ...] = ()


def _reduce(fact: tuple[Any, ...]) -> tuple[Any, ...]:
    return (tuple.__new__, (type(fact), tuple(fact)))


FACT_TYPES: tuple[type[tuple[Any, ...]], ...] = (
    CallFact,
    ReturnFact,
    StoreFact,
    DerefFact,
    BindFact,
    IndexFact,
    GrowFact,
    FunctionFacts,
    ClassFacts,
    ModuleFacts,
)
for _type in FACT_TYPES:
    _type.__reduce__ = _reduce  # type: ignore[assignment,method-assign]


# The facts' transport form, between the worker processes and the analysis and in
# the fact cache: the same values, each fact a plain tuple. A fact pickles through
# its ``__reduce__``, a Python function called once per fact; a plain tuple pickles
# in C, so turning the facts into this form first and pickling that is cheaper than
# pickling the facts; loading costs the same either way (turning the tuples back
# into facts runs in C: ``map`` over ``tuple.__new__``).
_new = tuple.__new__
# each field of a function's facts that holds facts (``tuple[CallFact, ...]`` and the
# like, read from the annotations: a field added later is packed too), by position,
# with what makes one of its facts
_HINTS = get_type_hints(FunctionFacts)
_NESTED: tuple[tuple[int, partial[Any]], ...] = tuple(
    (at, partial(_new, get_args(_HINTS[name])[0]))
    for at, name in enumerate(FunctionFacts._fields)
    if get_args(_HINTS[name])[:1] and get_args(_HINTS[name])[0] in FACT_TYPES
)
_function = partial(_new, FunctionFacts)
_class = partial(_new, ClassFacts)
_call = partial(_new, CallFact)
Packed = tuple[Any, ...]


def _packed_function(function: FunctionFacts) -> Packed:
    fields: list[Any] = list(function)
    for at, _ in _NESTED:
        if fields[at]:
            fields[at] = tuple(map(tuple, fields[at]))
    return tuple(fields)


def packed(facts: ModuleFacts) -> Packed:
    """``facts`` as plain tuples (see :func:`unpacked`)."""
    classes = tuple(map(tuple, facts.classes))
    calls = tuple(map(tuple, facts.calls))
    functions = tuple(map(_packed_function, facts.functions))
    return (*facts[:4], classes, functions, calls, facts.item_stores)


def _unpacked_function(packed_function: Packed) -> FunctionFacts:
    fields = list(packed_function)
    for at, make in _NESTED:
        if fields[at]:  # most functions have no facts of most kinds
            fields[at] = tuple(map(make, fields[at]))
    return _function(fields)


def unpacked(plain: Packed) -> ModuleFacts:
    """The facts :func:`packed` gave ``plain`` of (a wrong shape raises)."""
    path, module, imports, assigns, classes, functions, calls, item_stores = plain
    fields = (
        path,
        module,
        imports,
        assigns,
        tuple(map(_class, classes)),
        tuple(map(_unpacked_function, functions)),
        tuple(map(_call, calls)),
        item_stores,
    )
    return ModuleFacts._make(fields)
