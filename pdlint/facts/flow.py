"""The value-flow IR of one module, extracted by one walk over its syntax tree.

A module becomes a flat list of operations over named nodes (three-address
form, plain tuples, no syntax nodes kept), plus its functions and classes.
Local names are renamed per assignment (``scope|name#3``: SSA over the
structured control flow, with merges after branches and loops), so a name
read sees only the stores that can reach it; every store of a name also flows
into the name's scope-wide node (``scope|name``), which nested scopes, other
modules and attribute reads of modules and classes see. Temporaries are
``scope|$7``. The operations (first field the kind) are:

``const dst value`` · ``unknown dst`` · ``copy dst src`` · ``fn dst qualname`` ·
``cls dst qualname`` · ``module dst dotted bound_top`` · ``from dst module name`` ·
``builtin dst name`` · ``self dst class kind`` (a method's receiver) ·
``getattr dst obj attr scope`` · ``setattr obj attr src scope`` ·
``getitem dst obj key scope`` (key None: any entry) · ``setitem obj key src scope`` ·
``slice dst obj lower upper step`` (each bound an int, None when absent, ``...``
when not a literal) ·
``update dst old key src scope`` (a store into a local container: a new version) ·
``merge dst old src`` (``old.update(src)`` on a local: a new version) ·
``seq dst kind site elements`` (elements: ``(node, starred)``) ·
``dict dst site items`` (items: ``(key node or None for **, value)``) ·
``elem dst src index`` · ``rest dst src start stop site`` (a starred target) ·
``iter dst src scope async`` · ``call dst func args kwargs scope deco line`` ·
``await dst src`` · ``enter dst src scope async`` · ``raise src scope`` ·
``instof dst classes`` (an instance of each class, as ``except C as e`` binds) ·
``subclass cls scope kwargs`` (a class made: its bases' ``__init_subclass__``) ·
``annot target types`` (what an annotation says ``target`` holds, used where no
value flows; each type ``("cls", node)``, ``("seq", kind, types)``,
``("map", key types, value types)`` or ``("type", types)``) ·
``binop dst left right add`` (``add``: the operator is ``+``) ·
``star module source`` (``from source import *``).
A generator's ``yield`` expression holds what ``send`` passes (``fn|<sent>``).
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any, NamedTuple

from pdlint.model.binding import (
    KEYWORD_ONLY,
    ORDINARY,
    POSITIONAL_ONLY,
    VAR_KEYWORD,
    VAR_POSITIONAL,
)

Op = tuple[Any, ...]
BUILTIN_NAMES = frozenset(dir(builtins))
_KEY_TYPES = (str, int, float, bool, bytes, type(None))


class FunctionDef(NamedTuple):
    """A function, method or lambda: its parameters' nodes and where its results go."""

    qualname: str
    module: str
    params: tuple[tuple[str, str, str], ...]  # name, kind, node
    returns: str  # node
    yields: str  # node
    generator: bool
    coroutine: bool
    cls: str | None  # the class whose body defines it
    line: int


class ClassDef(NamedTuple):
    """A class: the nodes of its bases, the names its body binds, the attributes
    its methods store on their receiver (``self.x = ...``)."""

    qualname: str
    module: str
    bases: tuple[str, ...]
    names: tuple[str, ...]
    line: int
    attrs: tuple[str, ...] = ()


class ModuleFlow(NamedTuple):
    """Everything the solver needs from one module."""

    module: str
    is_package: bool
    ops: tuple[Op, ...]
    functions: tuple[FunctionDef, ...]
    classes: tuple[ClassDef, ...]
    names: tuple[str, ...]  # module-level names
    public: tuple[str, ...] | None  # __all__ when it is a literal
    # each function's body: its qualname and the range of ``ops`` it is (a
    # demand-driven solve runs a body once something calls the function)
    bodies: tuple[tuple[str, int, int], ...] = ()


class _Scope:
    """A scope being extracted: its current versions of local names."""

    def __init__(self, qualname: str, kind: str, parent: _Scope | None) -> None:
        self.qualname = qualname
        self.kind = kind  # "module", "class", "function"
        self.parent = parent
        self.env: dict[str, str] = {}
        self.assigned: set[str] = set()
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.counter = 0
        self.lambdas = 0
        self.cls: str | None = None  # for a method: its class
        self.receiver: str | None = None  # for a method: its first parameter's node
        self.dead = False
        self.created: list[tuple[str, str]] | None = None  # versions made in a try body
        self.shared: set[str] = set()  # names a nested function declares nonlocal
        self.attrs: set[str] = set()  # for a class body: what its methods store on self

    @property
    def caller(self) -> str:
        """The scope calls are attributed to (a class body runs in its enclosing one)."""
        scope: _Scope | None = self
        while scope is not None and scope.kind == "class":
            scope = scope.parent
        return scope.qualname if scope is not None else self.qualname


def _bound_in(body: list[ast.stmt]) -> set[str]:
    """Names a statement list binds, not looking into nested scopes."""
    out: set[str] = set()
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
            todo.extend(node.decorator_list)
            continue
        elif isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp)):
            continue
        elif isinstance(node, ast.GeneratorExp):
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return out


class _Extractor:
    """The walk: statements in order, nested function bodies after their scope."""

    def __init__(
        self, module: str, is_package: bool, global_names: set[str], words: frozenset[str]
    ) -> None:
        self.module = module
        # the keywords the source has, of those only some bodies need a walk for
        # (a module without them spares a walk of every function's body)
        self.words = words
        self.is_package = is_package
        self.ops: list[Op] = []
        self.functions: list[FunctionDef] = []
        self.classes: list[ClassDef] = []
        self.sites = 0
        self.deferred: list[tuple[Any, _Scope]] = []
        self.global_names = global_names  # names some function declares global
        self.public: tuple[str, ...] | None = None
        self.has_star = False

    # nodes ---------------------------------------------------------------
    def temp(self, scope: _Scope) -> str:
        scope.counter += 1
        return f"{scope.qualname}|${scope.counter}"

    def site(self) -> str:
        self.sites += 1
        return f"{self.module}@{self.sites}"

    def emit(self, *op: Any) -> None:
        self.ops.append(op)

    # names ---------------------------------------------------------------
    def bind(self, scope: _Scope, name: str, src: str) -> None:
        """Store ``src`` in the local ``name`` of ``scope`` (a new version)."""
        if name in scope.globals or (scope.kind == "module" and name in self.global_names):
            self.emit("copy", f"{self.module}|{name}", src)
            if scope.kind == "module":
                self.module_names.add(name)
            return
        if name in scope.nonlocals:
            owner = self.owner(scope.parent, name)
            self.emit("copy", f"{owner.qualname}|{name}" if owner else "", src)
            return
        scope.counter += 1
        version = f"{scope.qualname}|{name}#{scope.counter}"
        self.emit("copy", version, src)
        self.emit("copy", f"{scope.qualname}|{name}", version)
        scope.env[name] = version
        scope.assigned.add(name)
        if scope.created is not None:
            scope.created.append((name, version))
        if scope.kind == "module":
            self.module_names.add(name)

    def owner(self, scope: _Scope | None, name: str) -> _Scope | None:
        """The enclosing function scope that binds ``name``."""
        while scope is not None:
            if scope.kind == "function" and (name in scope.assigned or name in scope.env):
                return scope
            scope = scope.parent
        return None

    def read(self, scope: _Scope, name: str) -> str:
        """The node holding what ``name`` may be where it is read."""
        if name in scope.globals or (scope.kind == "module" and name in self.global_names):
            return f"{self.module}|{name}"
        if name in scope.shared and name in scope.assigned:
            # a nested function may rebind it: every store of it may be seen here
            return f"{scope.qualname}|{name}"
        if name in scope.env:
            return scope.env[name]
        # enclosing functions (class bodies are not enclosing scopes)
        walk = scope.parent
        while walk is not None:
            if walk.kind == "function" and name in walk.assigned:
                return f"{walk.qualname}|{name}"
            walk = walk.parent
        if name in self.module_names or (self.has_star and name not in BUILTIN_NAMES):
            return f"{self.module}|{name}"
        out = self.temp(scope)
        if name in BUILTIN_NAMES:
            self.emit("builtin", out, name)
        else:
            self.emit("unknown", out)
        if self.has_star:
            self.emit("copy", out, f"{self.module}|{name}")
        return out

    # entry ---------------------------------------------------------------
    def run(self, tree: ast.Module) -> ModuleFlow:
        self.module_names: set[str] = set()
        top = _Scope(self.module, "module", None)
        self.block(tree.body, top)
        bodies: list[tuple[str, int, int]] = []
        while self.deferred:
            node, scope = self.deferred.pop(0)
            start = len(self.ops)
            self.function_body(node, scope)
            bodies.append((scope.qualname, start, len(self.ops)))
        return ModuleFlow(
            self.module,
            self.is_package,
            tuple(self.ops),
            tuple(self.functions),
            tuple(self.classes),
            tuple(sorted(self.module_names)),
            self.public,
            tuple(bodies),
        )

    # statements ----------------------------------------------------------
    def block(self, body: list[ast.stmt], scope: _Scope) -> None:
        for stmt in body:
            self.stmt(stmt, scope)

    def stmt(self, node: ast.stmt, scope: _Scope) -> None:  # noqa: C901
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.bind(scope, node.name, self.function(node, scope))
        elif isinstance(node, ast.ClassDef):
            self.bind(scope, node.name, self.class_def(node, scope))
        elif isinstance(node, ast.Assign):
            src = self.expr(node.value, scope)
            for target in node.targets:
                self.assign(target, src, scope)
            if scope.kind == "module" and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
            ):
                self.public = _literal_names(node.value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value, scope), scope)
                if isinstance(node.target, ast.Name) and node.target.id in scope.env:
                    types = self.types(node.annotation, scope)
                    if types:  # batch: Batch = await receive(): where no value flows
                        self.emit("annot", scope.env[node.target.id], types)
                        if scope.kind == "class":
                            self.emit("annot", f"{scope.qualname}|{node.target.id}", types)
            elif isinstance(node.target, ast.Name) and scope.kind == "class":
                scope.assigned.add(node.target.id)
                types = self.types(node.annotation, scope)
                if types:  # a field: what its instances hold where no value flows
                    self.emit("annot", f"{scope.qualname}|{node.target.id}", types)
        elif isinstance(node, ast.AugAssign):
            self.aug_assign(node, scope)
        elif isinstance(node, ast.Expr):
            self.expr(node.value, scope)
        elif isinstance(node, ast.Return):
            if node.value is not None and scope.kind == "function":
                self.emit("copy", f"{scope.qualname}|<return>", self.expr(node.value, scope))
            scope.dead = True
        elif isinstance(node, (ast.If, ast.While)):
            self.branching(node, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.for_loop(node, scope)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                src = self.expr(item.context_expr, scope)
                out = self.temp(scope)
                self.emit("enter", out, src, scope.caller, isinstance(node, ast.AsyncWith))
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, out, scope)
            self.block(node.body, scope)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.try_stmt(node, scope)
        elif isinstance(node, ast.Raise):
            if node.exc is not None:
                self.emit("raise", self.expr(node.exc, scope), scope.caller)
            if node.cause is not None:
                self.expr(node.cause, scope)
            scope.dead = True
        elif isinstance(node, ast.Import):
            for alias in node.names:
                out = self.temp(scope)
                if alias.asname:
                    self.emit("module", out, alias.name, False)
                    self.bind(scope, alias.asname, out)
                else:
                    self.emit("module", out, alias.name, True)
                    self.bind(scope, alias.name.split(".")[0], out)
        elif isinstance(node, ast.ImportFrom):
            base = self.absolute(node.module, node.level)
            for alias in node.names:
                if alias.name == "*":
                    self.emit("star", self.module, base)
                    self.has_star = True
                    continue
                out = self.temp(scope)
                self.emit("from", out, base, alias.name)
                self.bind(scope, alias.asname or alias.name, out)
        elif isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.Match):
            self.match(node, scope)
        elif isinstance(node, ast.Assert):
            self.expr(node.test, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if not isinstance(target, ast.Name):
                    self.expr(target, scope)
        elif isinstance(node, (ast.Break, ast.Continue)):
            self.loop_exit(node, scope)
        # Pass and the rest bind nothing

    def absolute(self, module: str | None, level: int) -> str:
        """The absolute name of ``from <level dots><module> import``."""
        if level == 0:
            return module or ""
        parts = self.module.split(".")
        if not self.is_package:
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        if module:
            return f"{base}.{module}" if base else module
        return base

    # assignments ---------------------------------------------------------
    def assign(self, target: ast.expr, src: str, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            self.bind(scope, target.id, src)
        elif isinstance(target, (ast.Tuple, ast.List)):
            star = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Starred)), None)
            count = len(target.elts)
            for i, elt in enumerate(target.elts):
                out = self.temp(scope)
                if star is None or i < star:
                    self.emit("elem", out, src, i)
                elif i == star:
                    self.emit("rest", out, src, i, count - i - 1, self.site())
                    elt = elt.value  # type: ignore[attr-defined]
                else:
                    self.emit("elem", out, src, i - count)
                self.assign(elt, out, scope)
        elif isinstance(target, ast.Attribute):
            self.emit("setattr", self.expr(target.value, scope), target.attr, src, scope.caller)
        elif isinstance(target, ast.Subscript):
            self.store_item(target.value, target.slice, src, scope)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, src, scope)

    def key(self, node: ast.expr, scope: _Scope) -> str | None:
        if isinstance(node, ast.Slice):
            return None
        literal = _tuple_key(node)
        if literal is None:
            return self.expr(node, scope)
        out = self.temp(scope)
        self.emit("const", out, literal)  # d[("a", 1)]: one key
        return out

    def bound(self, node: ast.expr | None, scope: _Scope) -> Any:
        """A slice bound: an int literal, None when absent, ``...`` otherwise."""
        if node is None:
            return None
        literal = node
        sign = 1
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            literal, sign = node.operand, -1
        if (
            isinstance(literal, ast.Constant)
            and isinstance(literal.value, int)
            and not isinstance(literal.value, bool)
        ):
            return sign * literal.value
        self.expr(node, scope)
        return ...

    def store_item(self, base: ast.expr, index: ast.expr, src: str, scope: _Scope) -> None:
        """``base[index] = src``: a new version of a local container, else a store."""
        key = self.key(index, scope)
        if isinstance(base, ast.Name) and base.id in scope.env:
            out = self.temp(scope)
            self.emit("update", out, scope.env[base.id], key, src, scope.caller)
            self.bind(scope, base.id, out)
        elif isinstance(base, ast.Subscript) and _rooted_local(base, scope):
            inner = self.expr(base, scope)
            out = self.temp(scope)
            self.emit("update", out, inner, key, src, scope.caller)
            self.store_item(base.value, base.slice, out, scope)
        else:
            self.emit("setitem", self.expr(base, scope), key, src, scope.caller)

    def aug_assign(self, node: ast.AugAssign, scope: _Scope) -> None:
        value = self.expr(node.value, scope)
        current = (
            self.expr(node.target, scope)
            if not isinstance(node.target, ast.Name)
            else self.read(scope, node.target.id)
        )
        out = self.temp(scope)
        self.emit("binop", out, current, value, isinstance(node.op, ast.Add))
        if isinstance(node.target, ast.Name):
            self.bind(scope, node.target.id, out)
        elif isinstance(node.target, ast.Attribute):
            obj = self.expr(node.target.value, scope)
            self.emit("setattr", obj, node.target.attr, out, scope.caller)
        elif isinstance(node.target, ast.Subscript):
            self.emit("setitem", self.expr(node.target.value, scope), None, out, scope.caller)

    # control flow ----------------------------------------------------------
    def merge(self, scope: _Scope, envs: list[tuple[dict[str, str], bool]]) -> None:
        """Join the versions of branches that fall through (phi nodes)."""
        live = [env for env, dead in envs if not dead] or [env for env, _ in envs]
        scope.dead = all(dead for _, dead in envs)
        names = set().union(*live)
        merged: dict[str, str] = {}
        for name in sorted(names):  # the versions' numbers, whatever the hash seed
            versions = {env[name] for env in live if name in env}
            if len(versions) == 1:
                merged[name] = versions.pop()
                continue
            scope.counter += 1
            phi = f"{scope.qualname}|{name}#{scope.counter}"
            for version in sorted(versions):
                self.emit("copy", phi, version)
            merged[name] = phi
        scope.env = merged

    def branching(self, node: ast.If | ast.While, scope: _Scope) -> None:
        if isinstance(node, ast.While):
            self.loop(node, scope, lambda: self.expr(node.test, scope), None)
            return
        self.expr(node.test, scope)
        before = dict(scope.env)
        self.block(node.body, scope)
        then = (scope.env, scope.dead)
        scope.env, scope.dead = dict(before), False
        self.block(node.orelse, scope)
        self.merge(scope, [then, (scope.env, scope.dead)])

    def for_loop(self, node: ast.For | ast.AsyncFor, scope: _Scope) -> None:
        src = self.expr(node.iter, scope)

        def head() -> None:
            out = self.temp(scope)
            self.emit("iter", out, src, scope.caller, isinstance(node, ast.AsyncFor))
            self.assign(node.target, out, scope)

        self.loop(node, scope, head, node.target)

    def loop(self, node: Any, scope: _Scope, head: Any, target: ast.expr | None) -> None:
        """A loop: phi nodes at its head for the names its body rebinds."""
        names = _bound_in(node.body) | (_bound_in([ast.Expr(target)]) if target else set())
        names &= set(scope.env)
        phis: dict[str, str] = {}
        for name in sorted(names):
            scope.counter += 1
            phi = f"{scope.qualname}|{name}#{scope.counter}"
            self.emit("copy", phi, scope.env[name])
            phis[name] = phi
            scope.env[name] = phi
        self.loops.append(([], []))
        head()
        entry = dict(scope.env)
        self.block(node.body, scope)
        continues, breaks = self.loops.pop()
        for env in [scope.env, *continues]:
            for name, phi in phis.items():
                if env.get(name, phi) != phi:
                    self.emit("copy", phi, env[name])
        scope.env, scope.dead = entry, False
        self.block(node.orelse, scope)
        self.merge(scope, [(scope.env, scope.dead), *((b, False) for b in breaks)])

    def loop_exit(self, node: ast.stmt, scope: _Scope) -> None:
        if self.loops:
            kind = 0 if isinstance(node, ast.Continue) else 1
            self.loops[-1][kind].append(dict(scope.env))
        scope.dead = True

    @property
    def loops(self) -> list[tuple[list[dict[str, str]], list[dict[str, str]]]]:
        if not hasattr(self, "_loops"):
            self._loops: list[tuple[list[dict[str, str]], list[dict[str, str]]]] = []
        return self._loops

    def try_stmt(self, node: Any, scope: _Scope) -> None:
        before = dict(scope.env)
        outer = scope.created
        scope.created = []
        self.block(node.body, scope)
        created, scope.created = scope.created, outer
        if outer is not None:
            outer.extend(created)
        self.block(node.orelse, scope)
        ends = [(scope.env, scope.dead)]
        for handler in node.handlers:
            # a handler may start after any store of the body
            scope.env, scope.dead = dict(before), False
            self.merge(scope, [(before, False)] + [({n: v}, False) for n, v in created])
            scope.env = {**before, **scope.env}
            caught = []
            if handler.type is not None:
                kinds = handler.type
                listed = kinds.elts if isinstance(kinds, ast.Tuple) else [kinds]
                caught = [self.expr(k, scope) for k in listed]
            if handler.name:
                out = self.temp(scope)
                for kind in caught:  # an instance of a class caught
                    self.emit("instof", out, kind)
                if not caught:
                    self.emit("unknown", out)
                self.bind(scope, handler.name, out)
            self.block(handler.body, scope)
            ends.append((scope.env, scope.dead))
        self.merge(scope, ends)
        if node.finalbody:
            dead = scope.dead
            scope.dead = False
            self.block(node.finalbody, scope)
            scope.dead = scope.dead or dead

    def match(self, node: ast.Match, scope: _Scope) -> None:
        subject = self.expr(node.subject, scope)
        before = dict(scope.env)
        ends = []
        for case in node.cases:
            scope.env, scope.dead = dict(before), False
            for sub in ast.walk(case.pattern):
                if isinstance(sub, ast.MatchAs) and sub.name:
                    src = subject if sub.pattern is None and sub is case.pattern else None
                    if src is None:
                        src = self.temp(scope)
                        self.emit("unknown", src)
                    self.bind(scope, sub.name, src)
                elif isinstance(sub, ast.MatchStar) and sub.name:
                    src = self.temp(scope)
                    self.emit("unknown", src)
                    self.bind(scope, sub.name, src)
                elif isinstance(sub, (ast.MatchValue, ast.MatchClass)):
                    self.expr(sub.value if isinstance(sub, ast.MatchValue) else sub.cls, scope)
            if case.guard is not None:
                self.expr(case.guard, scope)
            self.block(case.body, scope)
            ends.append((scope.env, scope.dead))
        ends.append((before, False))
        self.merge(scope, ends)

    # definitions ---------------------------------------------------------
    def function(self, node: Any, scope: _Scope) -> str:
        """A ``def`` (or lambda): its value after the decorators, in ``scope``."""
        if isinstance(node, ast.Lambda):
            owner = _named_scope(scope)
            owner.lambdas += 1
            qualname = f"{owner.qualname}.<lambda{owner.lambdas}>"
            decorators: list[ast.expr] = []
        else:
            qualname = f"{_named_scope(scope).qualname}.{node.name}"
            if scope.kind == "class":
                qualname = f"{scope.qualname}.{node.name}"
            decorators = node.decorator_list
        decorated = [self.expr(d, scope) for d in decorators]
        inner = _Scope(qualname, "function", scope)
        if not isinstance(node, ast.Lambda) and "nonlocal" in self.words:
            inner.shared = _nonlocal_names(node.body)
        args = node.args
        params: list[tuple[str, str, str]] = []
        plain = [(a, POSITIONAL_ONLY) for a in args.posonlyargs] + [
            (a, ORDINARY) for a in args.args
        ]
        defaults = [None] * (len(plain) - len(args.defaults)) + list(args.defaults)
        entries = list(zip(plain, defaults, strict=True))
        if args.vararg:
            entries.append(((args.vararg, VAR_POSITIONAL), None))
        entries += [
            ((a, KEYWORD_ONLY), d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)
        ]
        if args.kwarg:
            entries.append(((args.kwarg, VAR_KEYWORD), None))
        for (arg, kind), default in entries:
            node_id = f"{qualname}|{arg.arg}#0"
            params.append((arg.arg, kind, node_id))
            if default is not None:
                self.emit("copy", node_id, self.expr(default, scope))
            if arg.annotation is not None:
                types = self.types(arg.annotation, scope)
                if kind == VAR_POSITIONAL and types:
                    types = (("seq", "tuple", types),)
                elif kind == VAR_KEYWORD and types:
                    types = (("map", (), types),)
                if types:
                    self.emit("annot", node_id, types)
            inner.env[arg.arg] = node_id
            inner.assigned.add(arg.arg)
            self.emit("copy", f"{qualname}|{arg.arg}", node_id)
        if (
            scope.kind == "class"
            and not isinstance(node, ast.Lambda)
            and params
            and params[0][1] in (POSITIONAL_ONLY, ORDINARY)
        ):
            kinds = {d.id for d in decorators if isinstance(d, ast.Name)}
            if "staticmethod" not in kinds:
                kind = "cls" if "classmethod" in kinds or node.name in _CLASS_HOOKS else "self"
                self.emit("self", params[0][2], scope.qualname, kind)
                inner.cls, inner.receiver = scope.qualname, params[0][2]
                scope.attrs |= _stored_on(node.body, params[0][0])
        generator = coroutine = False
        if isinstance(node, ast.Lambda):
            self.deferred.append((node, inner))
        else:
            coroutine = isinstance(node, ast.AsyncFunctionDef)
            generator = "yield" in self.words and _is_generator(node.body)
            self.deferred.append((node, inner))
            if node.returns is not None and not generator:
                types = self.types(node.returns, scope)
                if types:
                    self.emit("annot", f"{qualname}|<return>", types)
        self.functions.append(
            FunctionDef(
                qualname,
                self.module,
                tuple(params),
                f"{qualname}|<return>",
                f"{qualname}|<yield>",
                generator,
                coroutine,
                scope.qualname if scope.kind == "class" else None,
                node.lineno,
            )
        )
        value = self.temp(scope)
        self.emit("fn", value, qualname)
        for deco, written in reversed(list(zip(decorated, decorators, strict=True))):
            out = self.temp(scope)
            self.emit("call", out, deco, ((value, False),), (), scope.caller, True, written.lineno)
            value = out
        return value

    def function_body(self, node: Any, scope: _Scope) -> None:
        if isinstance(node, ast.Lambda):
            self.emit("copy", f"{scope.qualname}|<return>", self.expr(node.body, scope))
            return
        self.block(node.body, scope)

    def class_def(self, node: ast.ClassDef, scope: _Scope) -> str:
        qualname = f"{_named_scope(scope).qualname}.{node.name}"
        if scope.kind == "class":
            qualname = f"{scope.qualname}.{node.name}"
        decorated = [self.expr(d, scope) for d in node.decorator_list]
        bases = tuple(self.expr(b, scope) for b in node.bases)
        keywords = tuple(
            (kw.arg, self.expr(kw.value, scope)) for kw in node.keywords if kw.arg != "metaclass"
        )
        body = _Scope(qualname, "class", scope)
        self.block(node.body, body)
        self.classes.append(
            ClassDef(
                qualname,
                self.module,
                bases,
                tuple(sorted(body.assigned)),
                node.lineno,
                tuple(sorted(body.attrs)),
            )
        )
        value = self.temp(scope)
        self.emit("cls", value, qualname)
        if bases:  # a base's __init_subclass__ runs as the class is made
            self.emit("subclass", value, scope.caller, keywords)
        for deco, written in reversed(list(zip(decorated, node.decorator_list, strict=True))):
            out = self.temp(scope)
            self.emit("call", out, deco, ((value, False),), (), scope.caller, True, written.lineno)
            value = out
        return value

    # annotations ---------------------------------------------------------
    def types(self, node: ast.expr, scope: _Scope, depth: int = 0) -> tuple[Any, ...]:  # noqa: C901
        """What an annotation says a name holds (see ``annot``); () when it says
        nothing the value flow can use (builtin scalars, callables, literals)."""
        if depth > 4:
            return ()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if len(node.value) > _MAX_CODE:
                return ()
            try:  # a forward reference
                parsed = ast.parse(node.value, mode="eval").body
            except (SyntaxError, ValueError, RecursionError):
                return ()
            return self.types(parsed, scope, depth + 1)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.types(node.left, scope, depth + 1) + self.types(
                node.right, scope, depth + 1
            )
        if isinstance(node, (ast.Name, ast.Attribute)):
            if not _is_dotted(node):  # torch.get_device_module().Stream: a value's type
                return ()
            name = _last_name(node)
            if name in _TYPE_WORDS or name in _SEQ_TYPES or name in _MAP_TYPES:
                return ()
            if isinstance(node, ast.Name) and name in BUILTIN_NAMES:
                if name not in self.module_names and not self.has_star:
                    return ()
            return (("cls", self.type_name(node, scope)),)
        if not isinstance(node, ast.Subscript):
            return ()
        name = _last_name(node.value)
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if name in _UNIONS:
            return tuple(t for a in args for t in self.types(a, scope, depth + 1))
        if name in _WRAPPERS_OF_FIRST:
            return self.types(args[0], scope, depth + 1)
        if name in _SEQ_TYPES:
            inner = tuple(
                t
                for a in args
                if not (isinstance(a, ast.Constant) and a.value is ...)
                for t in self.types(a, scope, depth + 1)
            )
            kind = "tuple" if name in ("tuple", "Tuple") else _SEQ_TYPES[name]
            return (("seq", kind, inner),) if inner else ()
        if name in _MAP_TYPES:
            if len(args) != 2:
                return ()
            values = self.types(args[1], scope, depth + 1)
            return (("map", self.types(args[0], scope, depth + 1), values),) if values else ()
        if name in ("type", "Type"):
            inner = self.types(args[0], scope, depth + 1)
            return (("type", inner),) if inner else ()
        if name in _TYPE_WORDS or not _is_dotted(node.value):
            return ()
        return (("cls", self.type_name(node.value, scope)),)  # a generic class: Box[int]

    def type_name(self, node: ast.expr, scope: _Scope) -> str:
        """The node of a name in an annotation: a class defined later in the module
        is seen too (annotations name what the module will hold)."""
        if isinstance(node, ast.Attribute):
            out = self.temp(scope)
            self.emit("getattr", out, self.type_name(node.value, scope), node.attr, "")
            return out
        assert isinstance(node, ast.Name)
        walk: _Scope | None = scope
        while walk is not None:
            if walk.kind == "function" and node.id in walk.assigned:
                return f"{walk.qualname}|{node.id}"
            walk = walk.parent
        return f"{self.module}|{node.id}"

    # expressions ---------------------------------------------------------
    def expr(self, node: ast.expr, scope: _Scope) -> str:  # noqa: C901
        """Emit the operations of ``node``; the node that holds its values."""
        if isinstance(node, ast.Name):
            return self.read(scope, node.id)
        if isinstance(node, ast.Constant):
            out = self.temp(scope)
            literal = node.value
            if isinstance(literal, _KEY_TYPES) and not (
                isinstance(literal, str) and len(literal) > 80
            ):
                self.emit("const", out, literal)
            else:
                self.emit("const", out, ...)
            return out
        if isinstance(node, ast.Attribute):
            out = self.temp(scope)
            self.emit("getattr", out, self.expr(node.value, scope), node.attr, scope.caller)
            return out
        if (
            isinstance(node, ast.UnaryOp)
            and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float)
        ):
            out = self.temp(scope)
            number: float = node.operand.value  # type: ignore[assignment]
            self.emit("const", out, -number)  # -1: an index from the end
            return out
        if isinstance(node, ast.Call):
            return self.call(node, scope)
        if isinstance(node, ast.Subscript):
            base = self.expr(node.value, scope)
            out = self.temp(scope)
            if isinstance(node.slice, ast.Slice):
                bounds = [self.bound(b, scope) for b in (node.slice.lower, node.slice.upper)]
                self.emit("slice", out, base, *bounds, self.bound(node.slice.step, scope))
            else:
                self.emit("getitem", out, base, self.key(node.slice, scope), scope.caller)
            return out
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            elements = tuple(
                (self.expr(e.value, scope), True)
                if isinstance(e, ast.Starred)
                else (self.expr(e, scope), False)
                for e in node.elts
            )
            out = self.temp(scope)
            kind = {ast.Tuple: "tuple", ast.List: "list", ast.Set: "set"}[type(node)]
            self.emit("seq", out, kind, self.site(), elements)
            return out
        if isinstance(node, ast.Dict):
            items = tuple(
                (self.key(k, scope) if k is not None else None, self.expr(v, scope))
                for k, v in zip(node.keys, node.values, strict=True)
            )
            out = self.temp(scope)
            self.emit("dict", out, self.site(), items)
            return out
        if isinstance(node, ast.Lambda):
            return self.function(node, scope)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(node, scope)
        if isinstance(node, ast.Await):
            out = self.temp(scope)
            self.emit("await", out, self.expr(node.value, scope))
            return out
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            if node.value is not None:
                yielded = self.expr(node.value, scope)
                if isinstance(node, ast.YieldFrom):
                    each = self.temp(scope)
                    self.emit("iter", each, yielded, scope.caller, False)
                    yielded = each
                self.emit("copy", f"{scope.qualname}|<yield>", yielded)
            out = self.temp(scope)
            if isinstance(node, ast.Yield):
                self.emit("copy", out, f"{scope.qualname}|<sent>")
            else:
                self.emit("unknown", out)
            return out
        if isinstance(node, ast.NamedExpr):
            value = self.expr(node.value, scope)
            self.bind(scope, node.target.id, value)
            return value
        if isinstance(node, ast.BoolOp):
            out = self.temp(scope)
            for operand in node.values:
                self.emit("copy", out, self.expr(operand, scope))
            return out
        if isinstance(node, ast.IfExp):
            self.expr(node.test, scope)
            out = self.temp(scope)
            self.emit("copy", out, self.expr(node.body, scope))
            self.emit("copy", out, self.expr(node.orelse, scope))
            return out
        if isinstance(node, ast.BinOp):
            out = self.temp(scope)
            left, right = self.expr(node.left, scope), self.expr(node.right, scope)
            self.emit("binop", out, left, right, isinstance(node.op, ast.Add))
            return out
        if isinstance(node, ast.Starred):
            return self.expr(node.value, scope)
        # comparisons, unary operators, f-strings, ...: their parts may call
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, scope)
        out = self.temp(scope)
        self.emit("unknown", out)
        return out

    def call(self, node: ast.Call, scope: _Scope) -> str:
        func = node.func
        if (
            isinstance(func, ast.Name)
            and func.id == "super"
            and not node.args
            and scope.kind == "function"
            and "super" not in scope.env
        ):
            method = scope
            while method is not None and method.cls is None and method.kind == "function":
                method = method.parent  # type: ignore[assignment]
            if method is not None and method.cls is not None and method.receiver is not None:
                cls = self.temp(scope)
                self.emit("cls", cls, method.cls)
                callee = self.read(scope, "super")
                out = self.temp(scope)
                receiver = f"{method.qualname}|{_receiver_name(method.receiver)}"
                if method is scope:
                    receiver = scope.env.get(_receiver_name(method.receiver), method.receiver)
                pair = ((cls, False), (receiver, False))
                self.emit("call", out, callee, pair, (), scope.caller, False, node.lineno)
                return out
        callee = self.expr(func, scope)
        positional: list[ast.expr] = []
        for a in node.args:  # f(*[x, y]) is f(x, y)
            if isinstance(a, ast.Starred) and isinstance(a.value, (ast.List, ast.Tuple)):
                positional.extend(a.value.elts)
            else:
                positional.append(a)
        args = tuple(
            (self.expr(a.value, scope), True)
            if isinstance(a, ast.Starred)
            else (self.expr(a, scope), False)
            for a in positional
        )
        kwargs = tuple((k.arg, self.expr(k.value, scope)) for k in node.keywords)
        out = self.temp(scope)
        self.emit("call", out, callee, args, kwargs, scope.caller, False, node.lineno)
        builtin = self.builtin_called(func, scope)
        if builtin in ("eval", "exec") and node.args:
            self.literal_code(node.args[0], builtin, out, scope)
        elif builtin == "globals" and not node.args:
            self.emit("module", out, self.module, False)  # the module's namespace
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "update"
            and isinstance(func.value, ast.Name)
            and func.value.id in scope.env
            and len(args) <= 1
            and not any(starred for _, starred in args)
        ):
            sources = [node for node, _ in args]
            if kwargs:
                items = []
                for key, value in kwargs:
                    key_node = None
                    if key is not None:
                        key_node = self.temp(scope)
                        self.emit("const", key_node, key)
                    items.append((key_node, value))
                sources.append(self.temp(scope))
                self.emit("dict", sources[-1], self.site(), tuple(items))
            for source in sources:
                merged = self.temp(scope)
                self.emit("merge", merged, scope.env[func.value.id], source)
                self.bind(scope, func.value.id, merged)
        return out

    def builtin_called(self, func: ast.expr, scope: _Scope) -> str | None:
        """The builtin a call's callee names, when no scope rebinds that name."""
        if not isinstance(func, ast.Name) or func.id not in BUILTIN_NAMES:
            return None
        name = func.id
        if name in self.module_names or self.has_star or name in self.global_names:
            return None
        walk: _Scope | None = scope
        while walk is not None:
            if name in walk.env or name in walk.assigned:
                return None
            walk = walk.parent
        return name

    def literal_code(self, arg: ast.expr, mode: str, out: str, scope: _Scope) -> None:
        """``eval``/``exec`` of a string literal: its code, run in ``scope``."""
        if not isinstance(arg, ast.Constant) or not isinstance(arg.value, str):
            return
        if len(arg.value) > _MAX_CODE:
            return
        try:
            tree = ast.parse(arg.value, mode="eval" if mode == "eval" else "exec")
        except (SyntaxError, ValueError, RecursionError):
            return
        if isinstance(tree, ast.Expression):
            self.emit("copy", out, self.expr(tree.body, scope))
        else:
            dead = scope.dead
            self.block(tree.body, scope)  # type: ignore[attr-defined]
            scope.dead = dead

    def comprehension(self, node: Any, scope: _Scope) -> str:
        """A comprehension, inline in ``scope`` (its calls are the scope's)."""
        saved = dict(scope.env)
        for gen in node.generators:
            src = self.expr(gen.iter, scope)
            out = self.temp(scope)
            self.emit("iter", out, src, scope.caller, bool(gen.is_async))
            self.assign(gen.target, out, scope)
            for cond in gen.ifs:
                self.expr(cond, scope)
        result = self.temp(scope)
        if isinstance(node, ast.DictComp):
            key, value = self.expr(node.key, scope), self.expr(node.value, scope)
            self.emit("dict", result, self.site(), ((key, value),))
        else:
            kind = {ast.ListComp: "list", ast.SetComp: "set"}.get(type(node), "iter")
            element = self.expr(node.elt, scope)
            self.emit("seq", result, kind, self.site(), ((element, False),))
        # the targets are the comprehension's own; walrus targets stay
        walrus = {
            n.target.id
            for n in ast.walk(node)
            if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)
        }
        scope.env = {**saved, **{n: v for n, v in scope.env.items() if n in walrus}}
        return result


_CLASS_HOOKS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})
# Annotations: the typing names that say nothing of a class, the unions, the
# wrappers of their first argument, containers of elements and of values.
_TYPE_WORDS = frozenset(
    "Any Callable Literal TypeVar ParamSpec Protocol Generic NoReturn Never None Self "
    "LiteralString TypeAlias Awaitable Coroutine object".split()
)
_UNIONS = frozenset({"Optional", "Union"})
_WRAPPERS_OF_FIRST = frozenset(
    "Annotated ClassVar Final Required NotRequired ReadOnly InitVar TypeGuard".split()
)
_SEQ_TYPES = {
    **dict.fromkeys("list List Sequence MutableSequence deque Deque".split(), "list"),
    **dict.fromkeys("Iterable Iterator Collection Generator AsyncIterator".split(), "list"),
    **dict.fromkeys("AsyncIterable AsyncGenerator Reversible".split(), "list"),
    **dict.fromkeys("set Set frozenset FrozenSet AbstractSet MutableSet".split(), "set"),
    **dict.fromkeys(("tuple", "Tuple"), "tuple"),
}
_MAP_TYPES = frozenset(
    "dict Dict Mapping MutableMapping DefaultDict defaultdict OrderedDict Counter".split()
)
_MAX_CODE = 4000  # longer strings given to eval or exec are not read as code


def _is_dotted(node: ast.expr) -> bool:
    """Whether ``node`` is a name or a chain of attributes of one (``a.b.C``)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _last_name(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _receiver_name(node: str) -> str:
    return node.rsplit("|", 1)[1].split("#", 1)[0]


def _named_scope(scope: _Scope) -> _Scope:
    return scope


def _rooted_local(node: ast.expr, scope: _Scope) -> bool:
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Name) and node.id in scope.env


def _stored_on(body: list[ast.stmt], receiver: str) -> set[str]:
    """Attributes ``body`` stores on the name ``receiver`` (``self.x = ...``)."""
    out = set()
    for stmt in body:
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id == receiver
            ):
                out.add(node.attr)
    return out


def _nonlocal_names(body: list[ast.stmt]) -> set[str]:
    """Names a ``nonlocal`` statement in ``body`` or its nested functions declares."""
    if not any(isinstance(n, ast.Nonlocal) for stmt in body for n in ast.walk(stmt)):
        return set()
    return {
        name
        for stmt in body
        for n in ast.walk(stmt)
        if isinstance(n, ast.Nonlocal)
        for name in n.names
    }


def _is_generator(body: list[ast.stmt]) -> bool:
    todo: list[ast.AST] = list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        todo.extend(ast.iter_child_nodes(node))
    return False


def _tuple_key(node: ast.expr) -> tuple[Any, ...] | None:
    """A tuple of constants written as a key (``d[("a", 1)]``), else None."""
    if not isinstance(node, ast.Tuple) or not node.elts:
        return None
    out = []
    for elt in node.elts:
        if not isinstance(elt, ast.Constant) or not isinstance(elt.value, _KEY_TYPES):
            return None
        out.append(elt.value)
    return tuple(out)


def _literal_names(node: ast.expr) -> tuple[str, ...] | None:
    if isinstance(node, (ast.List, ast.Tuple)) and all(
        isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts
    ):
        return tuple(e.value for e in node.elts)  # type: ignore[attr-defined]
    return None


def _statement(word: str) -> re.Pattern[str]:
    """A statement starting with ``word`` (at a line's start, after ``;`` or a
    one-line compound's ``:``), as a quick test before walking a tree for it."""
    return re.compile(rf"(?:^|[;:])[ \t]*{word}[ \t]", re.MULTILINE)


_GLOBAL = _statement("global")
_NONLOCAL = _statement("nonlocal")


def _global_names(tree: ast.Module, source: str) -> set[str]:
    """Names some function declares ``global`` (read as one node everywhere)."""
    if not _GLOBAL.search(source):
        return set()
    return {n for node in ast.walk(tree) if isinstance(node, ast.Global) for n in node.names}


def extract(source: str, module: str, is_package: bool = False) -> ModuleFlow:
    """The value-flow IR of one module's source (SyntaxError propagates)."""
    tree = ast.parse(source)
    words = set()
    if _NONLOCAL.search(source):
        words.add("nonlocal")
    if "yield" in source:  # also an expression: no statement test
        words.add("yield")
    return _Extractor(module, is_package, _global_names(tree, source), frozenset(words)).run(tree)
