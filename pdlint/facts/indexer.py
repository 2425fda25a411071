"""The indexer: one pass over a module's syntax tree turns it into facts.

Statements are walked with the guards (branch conditions, early exits,
``assert``, short-circuit operands) under which each event runs, so later stages
never need the tree again.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Generator, Iterable
from itertools import chain
from typing import Any, TypeVar

from pdlint.facts.types import (
    OTHER,
    BindFact,
    CallFact,
    ClassFacts,
    DerefFact,
    Expr,
    FunctionFacts,
    GrowFact,
    Guards,
    IndexFact,
    ModuleFacts,
    ReturnFact,
    Span,
    StoreFact,
)
from pdlint.source.modules import module_name
from pdlint.source.read import source_lines

_TRY_NODES: tuple[type, ...] = (ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar") else []))
MAX_DEPTH = 150  # expressions nested deeper are kept as OTHER

_CMP = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}
_BINOP = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.FloorDiv: "//",
    ast.Div: "/",
    ast.Mod: "%",
    ast.RShift: ">>",
    ast.LShift: "<<",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitXor: "^",
}
_GROW_METHODS = frozenset({"append", "extend", "insert"})
_NOT_COUNTS = frozenset({"other", "dict", "cmp", "and", "or", "not", "union"})
_CONDITIONS = frozenset({"cmp", "and", "or", "not"})  # a local assigned one is a flag


_F = TypeVar("_F", bound=tuple[Any, ...])
_tuple_new = tuple.__new__


# ``_fact(cls, fields)``: ``cls(*fields)`` for a fact given every field, in order,
# built in C (a named tuple's own ``__new__`` is a Python function; facts are most
# of what indexing makes, and building from a dict of fields by name is slower). The same
# fact: tests/test_index.py checks the facts of a module field by field.
_fact: Callable[[type[_F], tuple[Any, ...]], _F] = _tuple_new


def resolve_relative(module: str, is_package: bool, level: int, name: str | None) -> str:
    """Absolute module named by ``from <dots><name> import ...`` inside ``module``."""
    if level == 0:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[: len(parts) - (level - 1)] if level - 1 <= len(parts) else []
    if name:
        parts.append(name)
    return ".".join(parts)


def _positions(node: ast.AST) -> tuple[int, int, int, int]:
    """Line, byte column, end line, end byte column (ast's numbering)."""
    line = getattr(node, "lineno", 1)  # a node made by hand may lack some
    end_line = getattr(node, "end_lineno", None) or line
    col = getattr(node, "col_offset", 0)
    return line, col, end_line, getattr(node, "end_col_offset", None) or 0


def _ascii_span(node: ast.AST) -> Span:
    """The span of ``node`` in a text where every character is one byte."""
    try:
        line: int = node.lineno  # type: ignore[attr-defined]
        end_col: int = node.end_col_offset or 0  # type: ignore[attr-defined]
        return (line, node.col_offset + 1, node.end_lineno or line, end_col + 1)  # type: ignore[attr-defined]
    except AttributeError:
        line, col, end_line, end_col = _positions(node)
        return (line, col + 1, end_line, end_col + 1)


class _Lines:
    """Converts ast's UTF-8 byte columns to 1-based character columns, and the line
    numbers of a piece's tree to the file's (see :mod:`pdlint.source.pieces`)."""

    def __init__(self, text: str) -> None:
        # Only lines with non-ASCII characters need converting (most files have none).
        self.wide: dict[int, str] = {}
        if not text.isascii():
            for number, line in enumerate(source_lines(text), start=1):
                if not line.isascii():
                    self.wide[number] = line
        self.span: Callable[[ast.AST], Span] = self._wide_span if self.wide else _ascii_span
        self.before = 0  # lines of the file before the tree being indexed

    def shift(self, before: int) -> None:
        """Index a piece's tree, whose line 1 is the file's line ``before + 1``."""
        self.before = before
        if before:
            self.span = self._shifted_span
        else:
            self.span = self._wide_span if self.wide else _ascii_span

    def _shifted_span(self, node: ast.AST) -> Span:
        line, col, end_line, end_col = _ascii_span(node)
        line, end_line = line + self.before, end_line + self.before
        if line in self.wide or end_line in self.wide:
            return (line, self.col(line, col - 1), end_line, self.col(end_line, end_col - 1))
        return (line, col, end_line, end_col)

    def col(self, line: int, byte_col: int) -> int:
        text = self.wide.get(line)
        if text is not None:
            return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace")) + 1
        return byte_col + 1

    def _wide_span(self, node: ast.AST) -> Span:
        span = _ascii_span(node)
        line, col, end_line, end_col = span
        if line in self.wide or end_line in self.wide:
            return (line, self.col(line, col - 1), end_line, self.col(end_line, end_col - 1))
        return span


# While a module is indexed (``_indexing``), each node converted -> its IR. The
# same sub-expression is converted once however many facts hold it (an attribute
# chain is dereferenced at every level), and the facts share one tuple, which
# pickles once. (Nodes hash by identity; the dict keeps them alive meanwhile.)
# Names are shared by identifier: one ``("name", id)`` per module.
_indexing = False
_memo: dict[ast.AST, Expr] = {}
_names: dict[str, Expr] = {}
CallParts = tuple[Expr, tuple[Expr, ...], tuple[tuple[str, Expr], ...]]
# And each call node -> its callee, arguments and keywords, held by its CallFact
# and by its call IR alike: converted at any depth up to MAX_DEPTH they are the
# same tuples (what they hold is memoized), so they are converted once.
_calls: dict[ast.Call, CallParts] = {}
# The lines of the file before the piece being indexed (see pdlint.source.pieces).
_before = 0


def to_expr(node: ast.AST | None, depth: int = 0) -> Expr:
    """The expression IR of ``node`` (see :mod:`pdlint.facts.types`)."""
    if _indexing:
        return _ir(node, depth)
    _start_module()
    try:
        return _ir(node, depth)
    finally:
        _end_module()


def _ir(node: ast.AST | None, depth: int) -> Expr:
    """:func:`to_expr` while a module is indexed (the memo is in place)."""
    if node is None or depth > MAX_DEPTH:
        return OTHER
    if type(node) is ast.Name:
        found = _names.get(node.id)
        if found is None:
            found = _names[node.id] = ("name", node.id)
        return found
    memo = _memo
    found = memo.get(node)
    if found is None:
        if type(node) is ast.Attribute:  # the commonest by far, then constants
            found = ("attr", _ir(node.value, depth + 1), node.attr)
        elif type(node) is ast.Constant:
            value = node.value
            found = (
                ("const", value) if value is None or value.__class__ in _CONSTANT_TYPES else OTHER
            )
        else:
            convert = _CONVERTERS.get(node.__class__)
            found = OTHER if convert is None else convert(node, depth + 1)
        memo[node] = found
    return found


def _start_module() -> None:
    """Put empty memos in place (they only hold within one module)."""
    global _indexing, _memo, _names, _calls, _before
    _indexing, _memo, _names, _calls, _before = True, {}, {}, {}, 0


def _end_module() -> None:
    global _indexing, _memo, _names, _calls, _before
    _indexing, _memo, _names, _calls, _before = False, {}, {}, {}, 0


def _call(node: ast.Call, d: int) -> Expr:
    return ("call", *_call_parts(node, d))


def _call_parts(node: ast.Call, d: int) -> CallParts:
    """Callee, arguments (but ``*args``) and keyword arguments (but ``**kwargs``)."""
    if d <= MAX_DEPTH:
        found = _calls.get(node)
        if found is not None:
            return found
    # (without a comprehension for none or one argument: most calls)
    args = node.args
    if len(args) > 1:
        args_ir = tuple([_ir(a, d) for a in args if a.__class__ is not ast.Starred])
    elif args and args[0].__class__ is not ast.Starred:
        args_ir = (_ir(args[0], d),)
    else:
        args_ir = ()
    keywords = node.keywords
    if len(keywords) > 1:
        kwargs_ir = tuple([(k.arg, _ir(k.value, d)) for k in keywords if k.arg])
    elif keywords and keywords[0].arg:
        kwargs_ir = ((keywords[0].arg, _ir(keywords[0].value, d)),)
    else:
        kwargs_ir = ()
    found = (_ir(node.func, d), args_ir, kwargs_ir)
    if d <= MAX_DEPTH:
        _calls[node] = found
    return found


def _forwarded(node: ast.Call) -> tuple[Expr | None, Expr | None]:
    """A call's ``*x`` when it is its one starred argument and the last positional
    one, and its ``**m`` when it is the one (what :func:`_call_parts` leaves out)."""
    star: Expr | None = None
    double_star: Expr | None = None
    args = node.args
    if args and args[-1].__class__ is ast.Starred:
        if sum(1 for a in args if a.__class__ is ast.Starred) == 1:
            star = _ir(args[-1].value, 0)
    if node.keywords:
        spread = [k.value for k in node.keywords if k.arg is None]
        if len(spread) == 1:
            double_star = _ir(spread[0], 0)
    return star, double_star


def _compare(node: ast.Compare, d: int) -> Expr:
    if len(node.ops) == 1:  # without comprehensions: most comparisons
        op = _CMP.get(node.ops[0].__class__, "?")
        return ("cmp", _ir(node.left, d), (op,), (_ir(node.comparators[0], d),))
    ops = tuple([_CMP.get(op.__class__, "?") for op in node.ops])
    left = _ir(node.left, d)
    return ("cmp", left, ops, tuple([_ir(c, d) for c in node.comparators]))


def _boolop(node: ast.BoolOp, d: int) -> Expr:
    kind = "and" if node.op.__class__ is ast.And else "or"
    return (kind, tuple([_ir(v, d) for v in node.values]))


def _unaryop(node: ast.UnaryOp, d: int) -> Expr:
    op = node.op.__class__
    if op is ast.Not:
        return ("not", _ir(node.operand, d))
    if op is ast.USub:
        return ("neg", _ir(node.operand, d))
    if op is ast.UAdd:
        return _ir(node.operand, d)
    return OTHER


def _sequence(node: ast.Tuple | ast.List | ast.Set, d: int) -> Expr:
    return ("seq", tuple([_ir(e, d) for e in node.elts]))


def _subscript(node: ast.Subscript, d: int) -> Expr:
    return ("subscript", _ir(node.value, d), _ir(node.slice, d))


def _dict(node: ast.Dict, d: int) -> Expr:
    keys = tuple([_ir(k, d) if k is not None else OTHER for k in node.keys])
    return ("dict", keys, tuple([_ir(v, d) for v in node.values]))


def _binop(node: ast.BinOp, d: int) -> Expr:
    op = node.op.__class__
    if op is ast.BitOr:
        return ("union", _ir(node.left, d), _ir(node.right, d))
    name = _BINOP.get(op)
    if name is not None:
        return ("binop", name, _ir(node.left, d), _ir(node.right, d))
    return OTHER


_NO_BOUND: Expr = ("const", None)


def _slice(node: ast.Slice, d: int) -> Expr:
    return (
        "slice",
        _ir(node.lower, d) if node.lower is not None else _NO_BOUND,
        _ir(node.upper, d) if node.upper is not None else _NO_BOUND,
        _ir(node.step, d) if node.step is not None else _NO_BOUND,
    )


def _comprehension(node: ast.ListComp | ast.GeneratorExp | ast.SetComp, d: int) -> Expr:
    return ("comp", tuple([_ir(g.iter, d) for g in node.generators]), _ir(node.elt, d))


def _dict_comprehension(node: ast.DictComp, d: int) -> Expr:
    # a mapping's elements are its values, as for a dict literal; with no filter, its
    # targets and key too, from which its entries can be read (Model.entries)
    iters = tuple([_ir(g.iter, d) for g in node.generators])
    if any(g.ifs or g.is_async for g in node.generators):
        return ("comp", iters, _ir(node.value, d))
    targets = ("seq", tuple([_ir(g.target, d) for g in node.generators]))
    return ("comp", iters, _ir(node.value, d), targets, _ir(node.key, d))


def _named(node: ast.NamedExpr, d: int) -> Expr:
    return _ir(node.value, d)


def _await(node: ast.Await, d: int) -> Expr:
    return ("await", _ir(node.value, d))


def _ifexp(node: ast.IfExp, d: int) -> Expr:
    return ("ifexp", _ir(node.test, d), _ir(node.body, d), _ir(node.orelse, d))


def _joined(node: ast.JoinedStr, d: int) -> Expr:
    """An f-string: its pieces, a literal piece as a constant; a formatted one with a
    conversion or a format spec (``{x!r}``, ``{n:>4}``) is another expression."""
    parts: list[Expr] = []
    for piece in node.values:
        if piece.__class__ is ast.Constant:
            parts.append(_ir(piece, d))
        elif (
            piece.__class__ is ast.FormattedValue
            and piece.conversion == -1
            and not piece.format_spec
        ):
            parts.append(_ir(piece.value, d))
        else:
            parts.append(OTHER)
    return ("fstr", tuple(parts))


def keyed_state(node: ast.Subscript) -> Expr | None:
    """``record["draft"]`` as the state it holds: ``("attr", record, "['draft']")``, an
    attribute whose name no attribute can have (a request kept as a dict carries its
    state under a constant key); an entry of a container attribute under a key that is
    no constant (``self.pending[rid]``) as the entries' state (see :func:`held_entry`);
    None for any other subscript."""
    key = node.slice
    if key.__class__ is ast.Constant:
        if not isinstance(key.value, str) or node.value.__class__ not in _NAME_OR_ATTRIBUTE:
            return None
        return ("attr", _ir(node.value, 0), keyed_name(key.value))
    held = node.value
    if held.__class__ is not ast.Attribute or key.__class__ is ast.Slice:
        return None
    if key.__class__ is ast.UnaryOp and key.operand.__class__ is ast.Constant:
        return None  # ``slots[-1]``: a place, not a key
    return ("attr", _ir(held.value, 0), entry_name(held.attr))


def keyed_name(key: str) -> str:
    """The state name of the entry ``key`` of a dict (see :func:`keyed_state`)."""
    return f"[{key!r}]"


def entry_name(container: str) -> str:
    """The state name of the entries of the container attribute ``container``, each
    under its own key (a dict of per-request state keyed by request id)."""
    return f"{container}[...]"


# The calls on a container that give one of its entries (``pending.get(rid)``).
_ENTRY_READS = frozenset({"get", "pop"})


def held_entry(value: Expr) -> Expr | None:
    """The entry state a value is, as ``("attr", holder, "pending[...]")``: an entry of
    a container held as an attribute (``holder.pending``) under a key that is no
    constant: ``holder.pending[rid]``, ``holder.pending.get(rid)`` or ``.pop(rid)``, the
    value ``.items()`` or ``.values()`` gives an iteration (the IR of a loop's target,
    ``("item", ("elem", pending.items()), 1)``); None for any other value."""
    kind = value[0]
    if kind == "subscript":
        container, key = value[1], value[2]
    elif kind == "call" and value[1][0] == "attr" and value[1][2] in _ENTRY_READS and value[2]:
        container, key = value[1][1], value[2][0]
    elif kind == "item" and value[2] == 1 and value[1][0] == "elem":
        container, key = _view(value[1][1], "items"), OTHER
    elif kind == "elem":
        container, key = _view(value[1], "values"), OTHER
    else:
        return None
    if container is None or container[0] != "attr" or key[0] in ("const", "slice"):
        return None
    if key[0] == "neg" and key[1][0] == "const":
        return None
    return ("attr", container[1], entry_name(container[2]))


# Calls that give the elements of their one argument, in some order (``list(d.items())``).
_REORDERED = frozenset({"list", "tuple", "sorted", "reversed"})


def _view(call: Expr, method: str) -> Expr | None:
    """The container of ``container.<method>()`` (or of a list or sorted copy of it)."""
    if call[0] != "call":
        return None
    if call[1][0] == "name" and call[1][1] in _REORDERED and len(call[2]) == 1:
        return _view(call[2][0], method)
    if call[1][0] == "attr" and call[1][2] == method and not call[2]:
        return call[1][1]
    return None


def lambda_name(line: int, col: int) -> str:
    """The name a lambda's function facts have (in the scope that writes it): by
    where it is, as ``("lambda", line, col)`` in the IR (byte column)."""
    return f"<lambda:{line}:{col}>"


def _lambda(node: ast.Lambda, d: int) -> Expr:
    return ("lambda", node.lineno + _before, node.col_offset)


_CONSTANT_TYPES = frozenset({str, int, float, bool})
# Exact node classes (a parsed tree holds no subclasses) -> their conversion.
_CONVERTERS: dict[type, Any] = {
    ast.Call: _call,
    ast.Compare: _compare,
    ast.BoolOp: _boolop,
    ast.UnaryOp: _unaryop,
    ast.Tuple: _sequence,
    ast.List: _sequence,
    ast.Set: _sequence,
    ast.Subscript: _subscript,
    ast.Dict: _dict,
    ast.BinOp: _binop,
    ast.Slice: _slice,
    ast.ListComp: _comprehension,
    ast.GeneratorExp: _comprehension,
    ast.SetComp: _comprehension,
    ast.DictComp: _dict_comprehension,
    ast.NamedExpr: _named,
    ast.Await: _await,
    ast.IfExp: _ifexp,
    ast.Lambda: _lambda,
    ast.JoinedStr: _joined,
}


def _defaults(args: ast.arguments) -> tuple[tuple[str, Expr], ...]:
    """(parameter, default) of each parameter given a default value."""
    positional = [*args.posonlyargs, *args.args]
    first = len(positional) - len(args.defaults)
    pairs = list(zip(positional[first:], args.defaults, strict=True))
    keywords = zip(args.kwonlyargs, args.kw_defaults, strict=True)
    pairs += [(a, d) for a, d in keywords if d is not None]
    return tuple([(a.arg, _ir(d, 0)) for a, d in pairs])


def annotation_expr(node: ast.AST | None) -> Expr | None:
    """Annotation IR; string annotations are parsed."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return None
        return _unshifted(node)  # its lines are the string's, in any piece
    return to_expr(node)


def _unshifted(node: ast.AST) -> Expr:
    """:func:`to_expr` of a tree of its own (not a piece's: no lines before it)."""
    global _before
    before, _before = _before, 0
    try:
        return to_expr(node)
    finally:
        _before = before


def string_annotation_expr(source: str) -> Expr | None:
    """Annotation IR of an annotation written as a string (a forward reference)."""
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return annotation_expr(node)


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _FunctionWalker:
    """Walks one function body, recording events with their guards."""

    def __init__(self, indexer: _ModuleIndexer, qualname: str, cls: str | None) -> None:
        self.ix = indexer
        self.span = indexer.lines.span
        self.qualname = qualname
        self.cls = cls
        self.params: set[str] = set()
        self.imports: list[tuple[str, str]] = []
        self.local_defs: list[tuple[str, str]] = []
        self.assigns: list[tuple[str, Expr]] = []
        self.calls: list[CallFact] = []
        self.returns: list[ReturnFact] = []
        self.raises: list[tuple[Span, Guards]] = []
        self.stores: list[StoreFact] = []
        self.derefs: list[DerefFact] = []
        self.string_compares: list[tuple[Expr, tuple[str, ...]]] = []
        self.binds: list[BindFact] = []
        self.indexes: list[IndexFact] = []
        self.grows: list[GrowFact] = []
        self.asserts: list[tuple[Expr, Span, Guards]] = []
        self.branches: list[tuple[Expr, Span, Guards]] = []
        self.flags: list[tuple[str, Expr, Span, Guards]] = []
        self.yields: list[Expr] = []
        self.item_stores: list[tuple[Expr, Expr, Expr]] = []
        self.loops: list[Expr] = []
        # locals holding an entry of a keyed container, by name -> the entries' state
        # (see held_entry): their dereferences are the state's
        self.entry_locals: dict[str, Expr] = {}

    # statements -----------------------------------------------------------
    def block(self, stmts: list[ast.stmt], guards: Guards) -> tuple[bool, Guards]:
        """Walk statements; return (all paths terminate, guards after the block)."""
        statements = _STATEMENTS
        for stmt in stmts:
            walk = statements.get(stmt.__class__)
            if walk is None:
                walk = _FunctionWalker.other
            done, guards = walk(self, stmt, guards)
            if done:
                return True, guards
        return False, guards

    def other(self, node: ast.stmt, guards: Guards) -> tuple[bool, Guards]:
        """Any other statement: the events in its expressions."""
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.events(child, guards)
        return False, guards

    def expression(self, node: ast.Expr, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.value, guards)
        return False, guards

    def return_(self, node: ast.Return, guards: Guards) -> tuple[bool, Guards]:
        value = node.value
        if value is not None:
            self.events(value, guards)
        if value.__class__ is ast.IfExp:
            branches = _return_branches(value, guards)
        else:
            branches = [(None if value is None else _ir(value, 0), guards)]
        for value_ir, branch in branches:
            self.returns.append(_fact(ReturnFact, (value_ir, self.span(node), branch, False)))
        return True, guards

    def raise_(self, node: ast.Raise, guards: Guards) -> tuple[bool, Guards]:
        if node.exc is not None:
            self.events(node.exc, guards)
        self.raises.append((self.span(node), guards))
        return True, guards

    def jump(self, node: ast.Continue | ast.Break, guards: Guards) -> tuple[bool, Guards]:
        return True, guards

    def if_(self, node: ast.If, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.test, guards)
        cond = _ir(node.test, 0)
        self.branches.append((cond, self.span(node.test), guards))
        holds, fails = (*guards, (cond, True)), (*guards, (cond, False))
        body_done, _ = self.block(node.body, holds)
        else_done, _ = self.block(node.orelse, fails)
        if body_done and else_done:
            return True, guards
        if body_done:
            return False, fails
        if else_done:
            return False, holds
        return False, guards

    def assert_(self, node: ast.Assert, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.test, guards)
        test = _ir(node.test, 0)
        self.asserts.append((test, self.span(node), guards))
        return False, (*guards, (test, True))

    def for_(self, node: ast.For | ast.AsyncFor, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.iter, guards)
        self.deref_of(node.iter, "iteration", guards)
        iterated = _ir(node.iter, 0)
        self.target(node.target, None, guards)
        self.element_names(node.target, ("elem", iterated))
        self.loops.append(iterated)
        self.block(node.body, guards)
        self.loops.pop()
        self.block(node.orelse, guards)
        return False, guards

    def while_(self, node: ast.While, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.test, guards)
        cond = _ir(node.test, 0)
        self.branches.append((cond, self.span(node.test), guards))
        self.block(node.body, (*guards, (cond, True)))
        self.block(node.orelse, guards)
        return False, guards

    def with_(self, node: ast.With | ast.AsyncWith, guards: Guards) -> tuple[bool, Guards]:
        for item in node.items:
            self.events(item.context_expr, guards)
            if item.optional_vars is not None:
                # ``with m as x``: x is what ``m.__enter__()`` returns
                manager = _ir(item.context_expr, 0)
                entered: Expr = ("call", ("attr", manager, "__enter__"), (), ())
                if node.__class__ is ast.AsyncWith:
                    entered = ("await", ("call", ("attr", manager, "__aenter__"), (), ()))
                self.target(item.optional_vars, None, guards)
                self.element_names(item.optional_vars, entered)
        return self.block(node.body, guards)

    def try_(self, node: ast.Try, guards: Guards) -> tuple[bool, Guards]:
        body_done, _ = self.block(node.body, guards)
        handlers_done = True
        for handler in node.handlers:
            done, _ = self.block(handler.body, guards)
            handlers_done = handlers_done and done
        if not body_done:
            self.block(node.orelse, guards)
        self.block(node.finalbody, guards)
        return body_done and handlers_done, guards

    def def_(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, guards: Guards
    ) -> tuple[bool, Guards]:
        inner = f"{self.qualname}.{node.name}"
        self.local_defs.append((node.name, inner))
        self.ix.function(node, inner, self.cls)
        return False, guards

    def class_(self, node: ast.ClassDef, guards: Guards) -> tuple[bool, Guards]:
        return False, guards

    def import_(self, node: ast.Import | ast.ImportFrom, guards: Guards) -> tuple[bool, Guards]:
        self.imports.extend(self.ix.import_pairs(node))
        return False, guards

    def assign(self, node: ast.Assign, guards: Guards) -> tuple[bool, Guards]:
        result = None  # the local name a call's result is left in (the last target)
        if node.value.__class__ in _RESULT_HOLDERS:
            for tgt in node.targets:
                if type(tgt) is ast.Name:
                    result = tgt.id
        self.events(node.value, guards, result)
        value = _ir(node.value, 0)
        for tgt in node.targets:
            self.target(tgt, node.value, guards, value_ir=value)
            self.bind(tgt, node.value, guards, value)
        return False, guards

    def annotated_assign(self, node: ast.AnnAssign, guards: Guards) -> tuple[bool, Guards]:
        if node.value is not None:
            result = None
            if node.value.__class__ in _RESULT_HOLDERS and type(node.target) is ast.Name:
                result = node.target.id
            self.events(node.value, guards, result)
            value = _ir(node.value, 0)
            self.bind(node.target, node.value, guards, value)
            self.target(node.target, node.value, guards, node.annotation, value)
        elif type(node.target) is ast.Name:
            # ``batch: Batch`` alone declares what a later loop or branch binds
            self.target(node.target, None, guards, node.annotation)
        return False, guards

    def augmented_assign(self, node: ast.AugAssign, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.value, guards)
        if node.target.__class__ is ast.Attribute:
            # ``self.budget -= batch.draft_len`` stores ``self.budget - batch.draft_len``
            # (what it reads is read, a property's getter runs)
            op = _BINOP.get(node.op.__class__)
            target = _ir(node.target, 0)
            value = OTHER if op is None else ("binop", op, target, _ir(node.value, 0))
            self.target(node.target, None, guards, value_ir=value)
        else:
            self.events(node.target, guards)
        if node.op.__class__ is ast.Add and node.target.__class__ in _NAME_OR_ATTRIBUTE:
            self.grow(_ir(node.target, 0), node.value, node, guards)
        return False, guards

    def match(self, node: ast.Match, guards: Guards) -> tuple[bool, Guards]:
        self.events(node.subject, guards)
        subject = _ir(node.subject, 0)
        previous: list[Expr] = []
        all_done, exhaustive = True, False
        for case in node.cases:
            cond = _pattern_expr(subject, case.pattern)
            if cond is not None and cond[0] == "cmp" and subject[0] in ("attr", "name"):
                strings = tuple(
                    v[1] for v in cond[3][0][1] if v[0] == "const" and isinstance(v[1], str)
                )
                if strings:
                    self.string_compares.append((subject, strings))
            case_guards = (*guards, *((p, False) for p in previous))
            if cond is not None:
                self.branches.append((cond, self.span(case.pattern), case_guards))
                case_guards = (*case_guards, (cond, True))
            if case.guard is not None:
                case_guards = (*case_guards, (_ir(case.guard, 0), True))
            done, _ = self.block(case.body, case_guards)
            all_done = all_done and done
            if cond is None and case.guard is None:
                exhaustive = True
                break
            if cond is not None and case.guard is None:
                previous.append(cond)
        if all_done and exhaustive:
            return True, guards
        if all_done:
            return False, (*guards, *((p, False) for p in previous))
        return False, guards

    def target(
        self,
        tgt: ast.expr,
        value: ast.expr | None,
        guards: Guards,
        annotation: ast.expr | None = None,
        value_ir: Expr | None = None,
    ) -> None:
        if value_ir is None and value is not None:
            value_ir = _ir(value, 0)
        if type(tgt) is ast.Name:
            self.local_bound(tgt.id, value_ir if value is not None else None)
            if value is not None and value_ir is not None:
                self.assigns.append((tgt.id, value_ir))
            if annotation is not None:
                ann = annotation_expr(annotation)
                if ann is not None:
                    self.assigns.append((tgt.id, ("annotated", ann)))
        elif type(tgt) is ast.Attribute:
            self.events(tgt.value, guards)
            self.stores.append(
                _fact(
                    StoreFact,
                    (
                        _ir(tgt, 0),
                        value_ir if value_ir is not None else OTHER,
                        annotation_expr(annotation),
                        self.span(tgt),
                        guards,
                    ),
                )
            )
        elif type(tgt) is ast.Tuple or type(tgt) is ast.List:
            for elt in tgt.elts:
                self.target(elt, None, guards)
            if value_ir is not None:
                self.element_names(tgt, value_ir)
        else:
            self.events(tgt, guards)
            if type(tgt) is ast.Subscript and value_ir is not None:
                self.item_stores.append((_ir(tgt.value, 0), _ir(tgt.slice, 0), value_ir))
                keyed = keyed_state(tgt)
                if keyed is not None:  # ``req["draft"] = ...``: a state, as ``req.draft``
                    fact = (keyed, value_ir, None, self.span(tgt), guards)
                    self.stores.append(_fact(StoreFact, fact))

    def element_names(self, tgt: ast.expr, value: Expr) -> None:
        """Bind the names of a target to the parts of ``value`` they take:
        ``("elem", x)`` is an element of ``x``, ``("item", x, i)`` its i-th item
        (a starred name takes a list of the rest: nothing is bound for it)."""
        if type(tgt) is ast.Name:
            self.local_bound(tgt.id, value)
            self.assigns.append((tgt.id, value))
        elif type(tgt) is ast.Tuple or type(tgt) is ast.List:
            for i, elt in enumerate(tgt.elts):
                if elt.__class__ is ast.Starred:
                    break
                self.element_names(elt, ("item", value, i))

    def local_bound(self, name: str, value: Expr | None) -> None:
        """Keep track of whether the local ``name``, bound to ``value`` (None: to
        something unknown), holds an entry of a keyed container from here on."""
        entry = held_entry(value) if value is not None else None
        if entry is None and value is not None and value[0] == "attr" and value[1][0] == "name":
            # an alias of an attribute (``ctx = batch.draft_ctx``): dereferencing the
            # local dereferences the attribute
            entry = value
        if entry is not None:
            self.entry_locals[name] = entry
        elif self.entry_locals:
            self.entry_locals.pop(name, None)

    def bind(self, tgt: ast.expr, value: ast.expr, guards: Guards, value_ir: Expr) -> None:
        """Record an assignment to local names (and ``x = x + y`` as growth)."""
        if type(tgt) is ast.Name:
            names: tuple[str, ...] = (tgt.id,)
            if (
                type(value) is ast.BinOp
                and value.op.__class__ is ast.Add
                and type(value.left) is ast.Name
                and value.left.id == tgt.id
            ):
                self.grow(_ir(tgt, 0), value.right, value, guards)
        elif type(tgt) is ast.Tuple or type(tgt) is ast.List:
            elts = tgt.elts
            if not all(e.__class__ is ast.Name for e in elts):
                return
            names = tuple([e.id for e in elts])  # type: ignore[attr-defined]
        else:
            return
        kind = value_ir[0]
        if kind in _CONDITIONS and len(names) == 1:
            self.flags.append((names[0], value_ir, self.span(value), guards))
        if kind in _NOT_COUNTS or (kind == "const" and not isinstance(value_ir[1], int)):
            return  # never a count, an offset or a list
        self.binds.append(_fact(BindFact, (names, value_ir, self.span(value), guards)))

    def grow(self, target: Expr, value: ast.expr, node: ast.AST, guards: Guards) -> None:
        """Record growth of a list; unguarded growth outside loops never matters."""
        if guards or self.loops:
            span = self.span(node)
            self.grows.append(GrowFact(target, _ir(value, 0), span, guards, tuple(self.loops)))

    def string_compare(self, node: ast.Compare) -> None:
        """Record ``x.attr == "s"`` / ``name in ("a", "b")``: string variants are made of these."""
        if len(node.ops) != 1 or node.ops[0].__class__ not in _STRING_OPS:
            return
        for subject, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
            if subject.__class__ in _NAME_OR_ATTRIBUTE:
                strings = _string_constants(other)
                if strings:
                    self.string_compares.append((_ir(subject, 0), strings))

    # expressions ----------------------------------------------------------
    def deref_of(self, node: ast.expr, kind: str, guards: Guards) -> Expr | None:
        """Record a dereference of ``node``; return its IR when it was computed."""
        if type(node) is ast.Attribute:
            obj = _ir(node, 0)
            self.derefs.append(
                _fact(DerefFact, (node.attr, obj, kind, self.span(node), guards, ""))
            )
            return obj
        if type(node) is ast.Subscript:
            keyed = keyed_state(node)
            if keyed is not None:
                fact = (keyed[2], keyed, kind, self.span(node), guards, "")
                self.derefs.append(_fact(DerefFact, fact))
            return None
        if type(node) is ast.Name and node.id in self.entry_locals:
            # a local holding an entry of a keyed container: the entries' state
            entry = self.entry_locals[node.id]
            fact = (entry[2], entry, kind, self.span(node), guards, node.id)
            self.derefs.append(_fact(DerefFact, fact))
            return None
        if type(node) is ast.Name and node.id in self.params:
            # a parameter dereferenced: callers passing relay state reach it (attr "")
            self.derefs.append(
                _fact(DerefFact, ("", _ir(node, 0), kind, self.span(node), guards, ""))
            )
        return None

    def call(self, node: ast.Call, guards: Guards, result: str | None) -> None:
        """Record a call (and the dereference of its receiver, list growth, ``len``);
        ``result`` is the local name its value is assigned to."""
        span = self.span(node)
        func_ir, args, kwargs = _call_parts(node, 0)
        star, double_star = _forwarded(node)
        self.calls.append(
            _fact(CallFact, (func_ir, args, kwargs, span, guards, result, star, double_star))
        )
        func = node.func
        if type(func) is ast.Attribute:
            receiver = func.value
            obj = None
            if type(receiver) is ast.Attribute or (
                type(receiver) is ast.Name
                and (receiver.id in self.params or receiver.id in self.entry_locals)
            ):
                obj = self.deref_of(receiver, "call", guards)
            if (
                func.attr in _GROW_METHODS
                and node.args
                and not node.keywords
                and (guards or self.loops)
                and receiver.__class__ in _NAME_OR_ATTRIBUTE
            ):
                self.grow(obj or _ir(receiver, 0), node.args[-1], node, guards)
        elif type(func) is ast.Name and func.id == "len" and node.args:
            self.deref_of(node.args[0], "len", guards)

    def subscript(self, node: ast.Subscript, guards: Guards) -> None:
        """Record the dereference of a subscripted value, and a computed index into it."""
        value = node.value
        if value.__class__ not in _NAME_OR_ATTRIBUTE:
            return  # no dereference of a name or an attribute, no index into one
        base = self.deref_of(value, "subscript", guards)
        if node.slice.__class__ is not ast.Constant:
            self.indexes.append(
                _fact(
                    IndexFact, (base or _ir(value, 0), _ir(node.slice, 0), self.span(node), guards)
                )
            )

    def events(self, root: ast.expr, guards: Guards, result: str | None = None) -> None:
        """Record calls and dereferences in an expression (``result``: the local
        name the value of ``root`` is assigned to, given to the calls whose result
        that is: ``root`` itself, awaited, or a side of a conditional expression).

        Iterative, depth-first, the last child first; nodes that cannot hold an
        event (names, constants) are not visited.
        """
        walked = _WALKED
        if root.__class__ not in walked:
            return
        holding = _result_calls(root) if result is not None else ()
        params, entries = self.params, self.entry_locals
        stack: list[tuple[Any, Guards, int]] = []  # AST nodes still to visit
        push = stack.append
        node: Any = root
        g, depth = guards, 0
        while True:
            if depth <= MAX_DEPTH:
                d = depth + 1
                kind = node.__class__  # exact classes: this loop runs for every node
                if kind is ast.Attribute:
                    value = node.value
                    if node.ctx.__class__ is not ast.Store:
                        held = value.__class__
                        if (
                            held is ast.Attribute
                            or (held is ast.Name and (value.id in params or value.id in entries))
                            or held is ast.Subscript  # ``req["draft"].tokens``: a state's
                        ):
                            self.deref_of(value, "attribute", g)
                    if value.__class__ in walked:  # its only child: visit it now
                        node, depth = value, d
                        continue
                elif kind is ast.Call:
                    self.call(node, g, result if node in holding else None)
                    if node.func.__class__ in walked:
                        push((node.func, g, d))
                    for arg in node.args:
                        if arg.__class__ in walked:
                            push((arg, g, d))
                    for keyword in node.keywords:  # a keyword node records nothing: its value
                        if keyword.value.__class__ in walked:
                            push((keyword.value, g, d + 1))
                elif kind is ast.BoolOp:
                    want = node.op.__class__ is not ast.And
                    prior: Guards = ()
                    for value in node.values:
                        if value.__class__ in walked:
                            push((value, (*g, *prior), d))
                        prior = (*prior, (_ir(value, 0), not want))
                elif kind is ast.IfExp:
                    cond = _ir(node.test, 0)
                    self.branches.append((cond, self.span(node.test), g))
                    if node.test.__class__ in walked:
                        push((node.test, g, d))
                    if node.body.__class__ in walked:
                        push((node.body, (*g, (cond, True)), d))
                    if node.orelse.__class__ in walked:
                        push((node.orelse, (*g, (cond, False)), d))
                elif kind is ast.NamedExpr:  # ``(x := value)`` assigns x
                    target = node.target
                    self.local_bound(target.id, _ir(node.value, 0))
                    self.assigns.append((target.id, _ir(node.value, 0)))
                    if node.value.__class__ is ast.Call:
                        self.events(node.value, g, target.id)
                    elif node.value.__class__ in walked:
                        push((node.value, g, d))
                elif kind is ast.Lambda:  # a function of its own (its body runs when called)
                    self.ix.lambda_(node, self.qualname, self.cls)
                elif kind is not ast.FunctionDef:
                    if kind is ast.Subscript:
                        self.subscript(node, g)
                    elif kind is ast.Compare and node.ops[0].__class__ in _STRING_OPS:
                        self.string_compare(node)
                    elif kind is ast.comprehension:
                        self.deref_of(node.iter, "iteration", g)
                        # its target takes the elements (a name of the function's:
                        # comprehensions rarely reuse a local's name for another value)
                        self.element_names(node.target, ("elem", _ir(node.iter, 0)))
                    elif kind is ast.Yield:
                        if node.value is not None:
                            self.yields.append(_ir(node.value, 0))
                    elif kind is ast.YieldFrom:
                        self.yields.append(("elem", _ir(node.value, 0)))
                    fields = _CHILD_FIELDS.get(kind)
                    for field in node._fields if fields is None else fields:
                        child: Any = getattr(node, field, None)
                        if child.__class__ is list:
                            for item in child:
                                if item.__class__ in walked:
                                    push((item, g, d))
                        elif child.__class__ in walked:
                            push((child, g, d))
            if not stack:
                return
            node, g, depth = stack.pop()


_STATEMENTS: dict[type, Any] = {
    ast.Expr: _FunctionWalker.expression,
    ast.Return: _FunctionWalker.return_,
    ast.Raise: _FunctionWalker.raise_,
    ast.Continue: _FunctionWalker.jump,
    ast.Break: _FunctionWalker.jump,
    ast.If: _FunctionWalker.if_,
    ast.Match: _FunctionWalker.match,
    ast.Assert: _FunctionWalker.assert_,
    ast.For: _FunctionWalker.for_,
    ast.AsyncFor: _FunctionWalker.for_,
    ast.While: _FunctionWalker.while_,
    ast.With: _FunctionWalker.with_,
    ast.AsyncWith: _FunctionWalker.with_,
    **{cls: _FunctionWalker.try_ for cls in _TRY_NODES},  # TryStar has Try's fields
    ast.FunctionDef: _FunctionWalker.def_,
    ast.AsyncFunctionDef: _FunctionWalker.def_,
    ast.ClassDef: _FunctionWalker.class_,
    ast.Import: _FunctionWalker.import_,
    ast.ImportFrom: _FunctionWalker.import_,
    ast.Assign: _FunctionWalker.assign,
    ast.AnnAssign: _FunctionWalker.annotated_assign,
    ast.AugAssign: _FunctionWalker.augmented_assign,
}
_NAME_OR_ATTRIBUTE = frozenset({ast.Name, ast.Attribute})


# the values whose calls leave their result in the assigned name
_RESULT_HOLDERS = (ast.Call, ast.Await, ast.IfExp)


def _result_calls(node: ast.expr) -> list[ast.Call]:
    """The calls whose result ``node`` is: itself, the call it awaits, or those of either
    side of a conditional expression (``make(c) if c else None``)."""
    if isinstance(node, ast.Call):
        return [node]
    if isinstance(node, ast.Await):
        return _result_calls(node.value)
    if isinstance(node, ast.IfExp):
        return [*_result_calls(node.body), *_result_calls(node.orelse)]
    return []


def _node_classes(cls: type) -> set[type]:
    out = {cls}
    sub: type
    for sub in cls.__subclasses__():
        out |= _node_classes(sub)
    return out


# Node classes whose subtree can record an event (not names, constants, contexts, operators).
_WALKED = frozenset(
    c
    for c in _node_classes(ast.AST)
    if not issubclass(
        c,
        (
            ast.Name,
            ast.Constant,
            ast.expr_context,
            ast.operator,
            ast.boolop,
            ast.unaryop,
            ast.cmpop,
        ),
    )
)


# Fields of expression nodes that never hold a node (names, operators, flags).
_LEAF_FIELDS = frozenset(
    {"ctx", "op", "ops", "id", "attr", "arg", "conversion", "is_async", "kind"}
)
# Expression node class -> the fields that can hold a node, in order.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    cls: tuple(f for f in cls._fields if f not in _LEAF_FIELDS)
    for cls in _WALKED
    if issubclass(cls, (ast.expr, ast.comprehension, ast.keyword))
}
_STRING_OPS = frozenset({ast.Eq, ast.NotEq, ast.In, ast.NotIn})


def _string_constants(node: ast.expr) -> tuple[str, ...]:
    """The strings of a str constant or a tuple/list/set of them (else empty)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)) and node.elts:
        items = [
            e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        if len(items) == len(node.elts):
            return tuple(items)
    return ()


def _return_branches(node: ast.expr | None, guards: Guards) -> list[tuple[Expr | None, Guards]]:
    """A returned value, split on conditional expressions (``a if c else None``)."""
    out: list[tuple[Expr | None, Guards]] = []
    stack: list[tuple[ast.expr | None, Guards]] = [(node, guards)]
    while stack:
        value, g = stack.pop()
        if isinstance(value, ast.IfExp) and len(out) + len(stack) < 16:
            cond = _ir(value.test, 0)
            stack.append((value.orelse, (*g, (cond, False))))
            stack.append((value.body, (*g, (cond, True))))
        else:
            out.append((None if value is None else _ir(value, 0), g))
    return out


def _pattern_expr(subject: Expr, pattern: ast.pattern) -> Expr | None:
    """Guard IR for a ``case`` pattern; None for a wildcard or capture."""
    if isinstance(pattern, ast.MatchAs) and pattern.pattern is None:
        return None
    if (
        isinstance(pattern, ast.MatchSequence)
        and subject[0] == "seq"
        and len(subject[1]) == len(pattern.patterns)
        and not any(isinstance(p, ast.MatchStar) for p in pattern.patterns)
    ):
        # ``match (role, algo): case ("decode", Algo.X):``: each element's pattern
        parts = [
            part
            for element, inner in zip(subject[1], pattern.patterns, strict=True)
            if (part := _pattern_expr(element, inner)) is not None
        ]
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else ("and", tuple(parts))
    values = _pattern_values(pattern)
    if values is None:
        return OTHER
    return ("cmp", subject, ("in",), (("seq", tuple(values)),))


def _pattern_values(pattern: ast.pattern) -> list[Expr] | None:
    if isinstance(pattern, ast.MatchValue):
        return [_ir(pattern.value, 0)]
    if isinstance(pattern, ast.MatchSingleton):
        return [("const", pattern.value)]
    if isinstance(pattern, ast.MatchOr):
        out: list[Expr] = []
        for alt in pattern.patterns:
            values = _pattern_values(alt)
            if values is None:
                return None
            out.extend(values)
        return out
    return None


class _ModuleIndexer:
    """Collects the facts of one module."""

    def __init__(self, path: str, module: str, is_package: bool, text: str) -> None:
        self.path = path
        self.module = module
        self.is_package = is_package
        self.lines = _Lines(text)
        self.imports: list[tuple[str, str]] = []
        self.assigns: list[tuple[str, Expr, Span]] = []
        self.classes: list[ClassFacts] = []
        self.functions: list[FunctionFacts] = []
        self.calls: list[CallFact] = []
        self.item_stores: list[tuple[Expr, Expr, Expr]] = []
        self._lambdas: set[tuple[int, int]] = set()  # indexed already (line, column)

    def facts(self) -> ModuleFacts:
        """The facts collected so far."""
        return ModuleFacts(
            path=self.path,
            module=self.module,
            imports=tuple(self.imports),
            assigns=tuple(self.assigns),
            classes=tuple(self.classes),
            functions=tuple(self.functions),
            calls=tuple(self.calls),
            item_stores=tuple(self.item_stores),
        )

    def import_pairs(self, node: ast.Import | ast.ImportFrom) -> list[tuple[str, str]]:
        pairs = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    pairs.append((alias.asname, alias.name))
                else:
                    top = alias.name.split(".")[0]
                    pairs.append((top, top))
        else:
            base = resolve_relative(self.module, self.is_package, node.level, node.module)
            for alias in node.names:
                if alias.name == "*":
                    continue
                target = f"{base}.{alias.name}" if base else alias.name
                pairs.append((alias.asname or alias.name, target))
        return pairs

    def body(self, stmts: list[ast.stmt], prefix: str, cls: str | None) -> None:
        """Module or class body: definitions, imports, assignments."""
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(node, f"{prefix}.{node.name}", cls)
            elif isinstance(node, ast.ClassDef):
                self.klass(node, f"{prefix}.{node.name}")
            elif isinstance(node, (ast.Import, ast.ImportFrom)) and cls is None:
                self.imports.extend(self.import_pairs(node))
            elif isinstance(node, ast.If) and cls is None:
                # TYPE_CHECKING blocks, version switches: their definitions count.
                self.body(node.body, prefix, cls)
                if not _is_type_checking(node.test):
                    self.body(node.orelse, prefix, cls)
            elif isinstance(node, ast.Try) and cls is None:
                self.body(node.body, prefix, cls)
                for handler in node.handlers:
                    self.body(handler.body, prefix, cls)
            elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and cls is None:
                # a registration at import time: the variants a registry holds
                func, args, kwargs = _call_parts(node.value, 0)
                span = self.lines.span(node.value)
                star, double_star = _forwarded(node.value)
                self.calls.append(
                    _fact(CallFact, (func, args, kwargs, span, (), None, star, double_star))
                )
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and cls is None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for tgt in targets:
                    if isinstance(tgt, ast.Name) and node.value is not None:
                        self.assigns.append((tgt.id, _ir(node.value, 0), self.lines.span(node)))
                    elif isinstance(tgt, ast.Subscript) and node.value is not None:
                        # a table filled at import time (``HANDLERS["tree"] = TreeHandler``)
                        store = (_ir(tgt.value, 0), _ir(tgt.slice, 0), _ir(node.value, 0))
                        self.item_stores.append(store)
                if node.value is not None:
                    self.lambdas_in(node.value, prefix)

    def lambdas_in(self, node: ast.expr, prefix: str) -> None:
        """Index the lambdas of a module-level value (those inside a lambda are its own)."""
        stack: list[ast.AST] = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, ast.Lambda):
                self.lambda_(item, prefix, None)
            else:
                stack.extend(ast.iter_child_nodes(item))

    def lambda_(self, node: ast.Lambda, prefix: str, cls: str | None) -> None:
        """Index a lambda as a function whose body returns its expression."""
        where = (node.lineno + self.lines.before, node.col_offset)
        if where in self._lambdas:
            return
        self._lambdas.add(where)
        body = ast.Return(value=node.body)
        ast.copy_location(body, node.body)
        name = lambda_name(*where)
        self.function(node, f"{prefix}.{name}", cls, name=name, body=[body])

    def klass(self, node: ast.ClassDef, qualname: str) -> None:
        assigns: list[tuple[str, Expr, Span]] = []
        annotations: list[tuple[str, Expr]] = []
        for stmt in node.body:
            if isinstance(stmt, ast.Assign):
                for tgt in stmt.targets:
                    if isinstance(tgt, ast.Name):
                        assigns.append((tgt.id, _ir(stmt.value, 0), self.lines.span(tgt)))
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                ann = annotation_expr(stmt.annotation)
                if ann is not None:
                    annotations.append((stmt.target.id, ann))
                if stmt.value is not None:
                    assigns.append(
                        (
                            stmt.target.id,
                            _ir(stmt.value, 0),
                            self.lines.span(stmt.target),
                        )
                    )
        span = self.lines.span(node)
        line = node.lineno + self.lines.before
        self.classes.append(
            ClassFacts(
                qualname,
                node.name,
                (line, span[1], line, span[1] + len("class ") + len(node.name)),
                tuple(_ir(b, 0) for b in node.bases),
                tuple(assigns),
                tuple(annotations),
                tuple([_ir(d, 0) for d in node.decorator_list]),
                tuple(
                    (k.arg, _ir(k.value, 0))
                    for k in node.keywords
                    if k.arg is not None and k.arg != "metaclass"
                ),
            )
        )
        self.body(node.body, qualname, qualname)

    def function(
        self,
        node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
        qualname: str,
        cls: str | None,
        *,
        name: str = "",
        body: list[ast.stmt] | None = None,
    ) -> None:
        """Index a function (a lambda: with its ``name`` and a ``body`` returning its value)."""
        walker = _FunctionWalker(self, qualname, cls)
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        walker.params = {a.arg for a in every if a.arg != "self" and a.arg != "cls"}
        returns: Expr | None = None
        decorators: tuple[str, ...] = ()
        decorator_exprs: tuple[Expr, ...] = ()
        if node.__class__ is not ast.Lambda:
            defined: ast.FunctionDef = node  # type: ignore[assignment]
            body, name = defined.body, defined.name
            returns = annotation_expr(defined.returns)
            decorators = tuple([_decorator_name(d) for d in defined.decorator_list])
            decorator_exprs = tuple([_ir(d, 0) for d in defined.decorator_list])
        assert body is not None
        # ``*args: T`` holds a tuple of T, ``**kwargs: T`` a mapping to T
        for star, head in ((args.vararg, "tuple"), (args.kwarg, "dict")):
            if star is not None and star.annotation is not None:
                ann = annotation_expr(star.annotation)
                if ann is not None:
                    parts = (ann, OTHER) if head == "tuple" else (("name", "str"), ann)
                    container = ("subscript", ("name", head), ("seq", parts))
                    walker.assigns.append((star.arg, ("annotated", container)))
        done, guards = walker.block(body, ())
        if not done:
            end = self.lines.span(body[-1])
            walker.returns.append(_fact(ReturnFact, (None, end, guards, True)))
        params = tuple(
            [
                (a.arg, None if a.annotation is None else annotation_expr(a.annotation))
                for a in every
            ]
        )
        line = node.lineno + self.lines.before
        col = self.lines.col(line, node.col_offset)
        self.functions.append(
            FunctionFacts(  # one per function: by name
                qualname=qualname,
                name=name,
                cls=cls,
                span=(line, col, line, col + len("def ") + len(name)),
                params=params,
                returns_annotation=returns,
                decorators=decorators,
                imports=tuple(walker.imports),
                local_defs=tuple(walker.local_defs),
                assigns=tuple(walker.assigns),
                calls=tuple(walker.calls),
                returns=tuple(walker.returns),
                raises=tuple(walker.raises),
                stores=tuple(walker.stores),
                derefs=tuple(walker.derefs),
                string_compares=tuple(walker.string_compares),
                binds=tuple(walker.binds),
                indexes=tuple(walker.indexes),
                grows=tuple(walker.grows),
                asserts=tuple(walker.asserts),
                branches=tuple(walker.branches),
                flags=tuple(walker.flags),
                yields=tuple(walker.yields),
                item_stores=tuple(walker.item_stores),
                defaults=_defaults(args),
                var_params=(
                    args.vararg.arg if args.vararg is not None else "",
                    args.kwarg.arg if args.kwarg is not None else "",
                ),
                decorator_exprs=decorator_exprs,
            )
        )


def index_module(
    path: str,
    display: str,
    tree: ast.Module | Iterable[tuple[int, ast.Module]],
    text: str,
    module: str | None = None,
) -> ModuleFacts:
    """Facts of one parsed module (``path`` on disk, ``display`` for output), named
    ``module`` (by default from its path, see :mod:`pdlint.source.modules`); ``tree``
    may be the trees of its pieces in turn, each with the count of the lines before
    it (see :mod:`pdlint.source.pieces`)."""
    module = module_name(path) if module is None else module
    if isinstance(tree, ast.Module):
        indexer = _ModuleIndexer(display, module, _is_package(path), text)
        _start_module()
        try:
            indexer.body(tree.body, module, None)
        finally:
            _end_module()
        return indexer.facts()
    return joined(display, module, list(index_pieces(path, display, tree, text, module)))


def index_pieces(
    path: str,
    display: str,
    trees: Iterable[tuple[int, ast.Module]],
    text: str,
    module: str | None = None,
) -> Generator[ModuleFacts, None, None]:
    """The facts of a module parsed a piece at a time (see :mod:`pdlint.source.pieces`),
    a piece's at a time: what its statements define, in order (:func:`joined` makes
    the module's facts of them). Nothing of a piece is kept once its facts are given,
    so a caller that stores them elsewhere holds one piece's facts at a time. No other
    module may be indexed before the last piece's facts are taken."""
    module = module_name(path) if module is None else module
    indexer = _ModuleIndexer(display, module, _is_package(path), text)
    _start_module()
    global _before
    try:
        for before, piece in trees:
            indexer.lines.shift(before)
            _before = before
            indexer.body(piece.body, module, None)
            # the memos hold the piece's nodes, which no later piece shares: they go
            _memo.clear()
            _calls.clear()
            del piece
            yield indexer.facts()
            indexer.imports, indexer.assigns, indexer.classes, indexer.functions = [], [], [], []
            indexer.calls, indexer.item_stores = [], []
    finally:
        _end_module()


def joined(display: str, module: str, parts: Iterable[ModuleFacts]) -> ModuleFacts:
    """The facts of the module ``module`` (``display`` for output) of its pieces'
    facts (:func:`index_pieces`), in order."""
    parts = list(parts)
    return ModuleFacts(
        path=display,
        module=module,
        imports=tuple(chain.from_iterable(p.imports for p in parts)),
        assigns=tuple(chain.from_iterable(p.assigns for p in parts)),
        classes=tuple(chain.from_iterable(p.classes for p in parts)),
        functions=tuple(chain.from_iterable(p.functions for p in parts)),
        calls=tuple(chain.from_iterable(p.calls for p in parts)),
        item_stores=tuple(chain.from_iterable(p.item_stores for p in parts)),
    )


def _is_package(path: str) -> bool:
    return os.path.basename(path).startswith("__init__.")
