"""Variants declared by registration at import time, and the values a member carries.

A registry class has no enum members in its body: its instances are its members,
made by a registering classmethod (``cls(name, ...)``, then ``setattr(cls, name,
...)``, so ``Algo.EAGLE`` names one) and registered by calls in the module body,
directly (``Algo.register("EAGLE")``) or through a module function that passes its
own parameter on (``register_algo("EAGLE", flags=("TREE",))``). The arguments of
each registration are what the member carries: an attribute its constructor stores
from them (``self.flags = flags``), and flag sets a flag test reads
(``self.has_flag("TREE")``).

:class:`MemberValues` evaluates an expression to a constant for one member, where
the member decides it: a registration's argument, a table keyed by members
(``TRAITS[self] & TREE``), bit and set operations on module constants.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from pdlint.facts.types import Expr, FunctionFacts
from pdlint.model.binding import bind_arguments
from pdlint.model.names import Model, assigned_values


class Registration(NamedTuple):
    """One member registered by a call at import time."""

    member: str
    function: str  # the registering function the call reaches (a classmethod or a wrapper)
    arguments: tuple[tuple[str, Expr], ...]  # its parameters and what the call passes
    module: str  # where the call is written (its arguments are read there)
    named: str  # the parameter holding the member's name


class _Registering(NamedTuple):
    function: str
    param: str  # the parameter holding the member's name
    case: str  # "upper", "lower" or "" (the name as written)


def traced_param(fn: FunctionFacts, expr: Expr, depth: int = 0) -> tuple[str, str] | None:
    """(parameter, case) when ``expr`` is a parameter of ``fn``, maybe through a local
    assigned once and ``.upper()``/``.lower()`` (case: which one)."""
    if depth > 4:
        return None
    if expr[0] == "name":
        if any(p == expr[1] for p, _ in fn.params):
            return expr[1], ""
        values = assigned_values(fn, expr[1])
        return traced_param(fn, values[0], depth + 1) if len(values) == 1 else None
    if (
        expr[0] == "call"
        and not expr[2]
        and expr[1][0] == "attr"
        and expr[1][2] in ("upper", "lower")
    ):
        inner = traced_param(fn, expr[1][1], depth + 1)
        return None if inner is None else (inner[0], expr[1][2])
    return None


def _cased(name: str, case: str) -> str:
    return name.upper() if case == "upper" else name.lower() if case == "lower" else name


class Registry:
    """The registrations of the registry classes of a model (cached per class)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._found: dict[str, list[Registration] | None] = {}

    def registrations(self, cls: str) -> list[Registration] | None:
        """The members of the registry class ``cls``, in registration order; None when
        ``cls`` is no registry class or no call registers a member."""
        if cls not in self._found:
            self._found[cls] = self._find(cls) or None
        return self._found[cls]

    def _find(self, cls: str) -> list[Registration]:
        model = self.model
        module = model.class_module.get(cls)
        facts = model.modules.get(module or "")
        if module is None or facts is None:
            return []
        registering = self._classmethods(cls)
        if not registering:
            return []
        # module functions passing their own parameter on as the member's name
        for fn in facts.functions:
            if fn.cls is None and fn.qualname.count(".") == module.count(".") + 1:
                wrapper = self._wrapper(fn, registering)
                if wrapper is not None:
                    registering[fn.qualname] = wrapper
        out: list[Registration] = []
        seen: set[str] = set()
        for call in facts.calls:
            if call.func[0] not in ("name", "attr"):
                continue
            target = model.resolve_dotted(None, module, call.func) or ""
            reg = registering.get(target)
            if reg is None:
                continue
            arguments = bind_arguments(model.functions[target], call.func, call.args, call.kwargs)
            name = dict(arguments).get(reg.param)
            if name is None or name[0] != "const" or not isinstance(name[1], str):
                continue
            member = _cased(name[1], reg.case)
            if member not in seen:
                seen.add(member)
                out.append(Registration(member, target, arguments, module, reg.param))
        return out

    def _wrapper(
        self, fn: FunctionFacts, registering: dict[str, _Registering]
    ) -> _Registering | None:
        """``fn`` as a registering function: it calls a registering classmethod with its
        own parameter as the member's name."""
        for call in fn.calls:
            for target in self.model.call_targets(fn, call.func):
                reg = registering.get(target)
                if reg is None:
                    continue
                callee = self.model.functions[target]
                passed = dict(bind_arguments(callee, call.func, call.args, call.kwargs))
                value = passed.get(reg.param)
                traced = traced_param(fn, value) if value is not None else None
                if traced is not None:
                    return _Registering(fn.qualname, traced[0], traced[1] or reg.case)
        return None

    def _classmethods(self, cls: str) -> dict[str, _Registering]:
        """The classmethods of ``cls`` that make an instance and set it as a class
        attribute named by one of their parameters."""
        out: dict[str, _Registering] = {}
        for method in self.model.methods_of.get(cls, ()):
            if "classmethod" not in method.decorators or not method.params:
                continue
            receiver = method.params[0][0]
            makes = any(c.func == ("name", receiver) for c in method.calls)
            for call in method.calls:
                if (
                    makes
                    and call.func == ("name", "setattr")
                    and len(call.args) >= 2
                    and call.args[0] == ("name", receiver)
                ):
                    traced = traced_param(method, call.args[1])
                    if traced is not None:
                        out[method.qualname] = _Registering(method.qualname, *traced)
        return out

    def flag_parameter(self, cls: str, flag: str) -> str | None:
        """The one registration parameter whose string sets name ``flag`` for some
        member (compared without case); None when none or several do."""
        found = set()
        for reg in self.registrations(cls) or ():
            for param, arg in reg.arguments:
                strings = _strings(arg) if param != reg.named else None
                if strings is not None and flag.upper() in strings:
                    found.add(param)
        return found.pop() if len(found) == 1 else None

    def has_flag(self, cls: str, member: int, param: str, flag: str) -> bool | None:
        """Whether the member's registration gives ``flag`` in ``param`` (none given:
        no flags); None when the argument is no set of strings."""
        regs = self.registrations(cls)
        if regs is None or member >= len(regs):
            return None
        arg = dict(regs[member].arguments).get(param)
        if arg is None:
            return False
        strings = _strings(arg)
        return None if strings is None else flag.upper() in strings

    def is_flag_test(self, method: FunctionFacts) -> bool:
        """A method taking one flag (besides ``self``) that its return reads."""
        params = [p for p, _ in method.params]
        if len(params) != 2 or not method.returns:
            return False
        return all(ret.value is not None and _reads(ret.value, params[1]) for ret in method.returns)


def _strings(expr: Expr) -> frozenset[str] | None:
    """The strings (upper case) of a string constant or a literal sequence of them."""
    if expr[0] == "const" and isinstance(expr[1], str):
        return frozenset({expr[1].upper()})
    if expr[0] == "seq":
        out = set()
        for item in expr[1]:
            if item[0] != "const" or not isinstance(item[1], str):
                return None
            out.add(item[1].upper())
        return frozenset(out)
    return None


def _reads(expr: Expr, name: str) -> bool:
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple):
            continue
        if node == ("name", name):
            return True
        stack.extend(node)
    return False


class Member(NamedTuple):
    """A member as a value (what an expression denoting the variant evaluates to)."""

    position: int


UNKNOWN_VALUE = object()
# methods of a string a condition may test a member's name or value with (their
# arguments strings): pure, so evaluated as CPython would
_STRING_METHODS = frozenset(
    {"startswith", "endswith", "lower", "upper", "casefold", "strip", "lstrip", "rstrip"}
)

Denotes = Callable[[Expr, FunctionFacts], bool]
MembersIn = Callable[[Expr, "FunctionFacts | None", str], "list[int] | None"]


class MemberValues:
    """Evaluates expressions to constants for one member of one variant."""

    def __init__(
        self,
        model: Model,
        registry: Registry,
        cls: str,
        member: int,
        denotes: Denotes,
        members_in: MembersIn,
        described: tuple[str, str, object] = ("enum", "", None),
    ) -> None:
        self.model = model
        self.registry = registry
        self.cls = cls
        self.member = member
        self.denotes = denotes
        self.members_in = members_in
        # the variant's kind, the member's name and its value: a literal or a string
        # variant's member is its string; an enum member has a ``.name`` and a ``.value``
        self.kind, self.name, self.literal = described

    def value(self, expr: Expr, fn: FunctionFacts | None, module: str, depth: int = 0) -> object:
        """The value of ``expr`` (read in ``fn``, or at the top of ``module``), or
        :data:`UNKNOWN_VALUE`."""
        if depth > 12:
            return UNKNOWN_VALUE
        kind = expr[0]
        if kind == "const":
            return expr[1]
        if kind in ("name", "attr"):
            if fn is not None and self.denotes(expr, fn):
                return Member(self.member) if self.kind == "enum" else self.literal
            if kind == "attr" and fn is not None and self.denotes(expr[1], fn):
                found = self._attribute(expr[2], depth)
                if found is UNKNOWN_VALUE and self.kind == "enum" and self.name:
                    # ``algo.name``; ``algo.value`` when a constant (not ``auto()``)
                    if expr[2] == "name":
                        return self.name
                    if expr[2] == "value" and self.literal is not None:
                        return self.literal
                return found
            return self._constant(expr, fn, module, depth)
        if kind == "fstr":
            pieces = [self.value(e, fn, module, depth + 1) for e in expr[1]]
            # a member formatted as itself depends on its enum's ``__format__``: unknown
            if all(isinstance(p, (str, int)) and not isinstance(p, bool) for p in pieces):
                return "".join(str(p) for p in pieces)
            return UNKNOWN_VALUE
        if kind == "call" and expr[1][0] == "attr" and expr[1][2] in _STRING_METHODS:
            text = self.value(expr[1][1], fn, module, depth + 1)
            args = [self.value(a, fn, module, depth + 1) for a in expr[2]]
            if isinstance(text, str) and not expr[3] and all(isinstance(a, str) for a in args):
                try:
                    return getattr(text, expr[1][2])(*args)
                except (TypeError, ValueError):
                    return UNKNOWN_VALUE
            return UNKNOWN_VALUE
        if kind in ("binop", "union"):
            op = "|" if kind == "union" else expr[1]
            left = self.value(expr[-2], fn, module, depth + 1)
            right = self.value(expr[-1], fn, module, depth + 1)
            return _operate(op, left, right)
        if kind == "seq":
            items = [self.value(e, fn, module, depth + 1) for e in expr[1]]
            return UNKNOWN_VALUE if UNKNOWN_VALUE in items else tuple(items)
        if kind == "subscript":
            return self._lookup(expr[1], expr[2], fn, module, depth)
        if kind == "call" and expr[1] in (("name", "bool"), ("name", "int")) and len(expr[2]) == 1:
            inner = self.value(expr[2][0], fn, module, depth + 1)
            if isinstance(inner, (bool, int)):
                return bool(inner) if expr[1][1] == "bool" else int(inner)
            return UNKNOWN_VALUE
        if kind == "cmp" and len(expr[2]) == 1:
            left = self.value(expr[1], fn, module, depth + 1)
            right = self.value(expr[3][0], fn, module, depth + 1)
            return _compare(expr[2][0], left, right)
        if kind == "not":
            inner = self.value(expr[1], fn, module, depth + 1)
            return UNKNOWN_VALUE if inner is UNKNOWN_VALUE else not inner
        return UNKNOWN_VALUE

    def _constant(self, expr: Expr, fn: FunctionFacts | None, module: str, depth: int) -> object:
        """A module-level constant's value."""
        if fn is not None and expr[0] == "name" and any(n == expr[1] for n, _ in fn.assigns):
            return UNKNOWN_VALUE  # a local
        model = self.model
        target = model.resolve_dotted(fn, module, expr)
        if target is None or target in model.functions or target in model.classes:
            return UNKNOWN_VALUE
        value = model.module_assigns.get(target)
        if value is None:
            return UNKNOWN_VALUE
        return self.value(value, None, target.rsplit(".", 1)[0], depth + 1)

    def _lookup(
        self, table: Expr, key: Expr, fn: FunctionFacts | None, module: str, depth: int
    ) -> object:
        """``TABLE[key]`` of a module-level dict literal, its keys members or constants."""
        model = self.model
        target = model.resolve_dotted(fn, module, table) if table[0] in ("name", "attr") else None
        found = model.module_assigns.get(target or "")
        if target is None or found is None or found[0] != "dict":
            return UNKNOWN_VALUE
        where = target.rsplit(".", 1)[0]
        wanted = self.value(key, fn, module, depth + 1)
        if wanted is UNKNOWN_VALUE:
            return UNKNOWN_VALUE
        for k, v in zip(found[1], found[2], strict=True):
            if isinstance(wanted, Member):
                members = self.members_in(k, None, where)
                if members is None:
                    return UNKNOWN_VALUE
                hit = wanted.position in members
            else:
                hit = self.value(k, None, where, depth + 1) == wanted
            if hit:
                return self.value(v, None, where, depth + 1)
        return UNKNOWN_VALUE

    def _attribute(self, attr: str, depth: int) -> object:
        """``member.attr`` of a registered member: what its registration passed for the
        constructor parameter the attribute is stored from."""
        regs = self.registry.registrations(self.cls)
        if regs is None or self.member >= len(regs):
            return UNKNOWN_VALUE
        reg = regs[self.member]
        arg = _constructor_argument(self.model, self.cls, attr, reg)
        if arg is None:
            return UNKNOWN_VALUE
        return self.value(arg, None, reg.module, depth + 1)


def _constructor_argument(model: Model, cls: str, attr: str, reg: Registration) -> Expr | None:
    """What the registration passes, through the registering functions, for the
    parameter of ``cls.__init__`` stored as ``self.attr``."""
    init = model.functions.get(f"{cls}.__init__")
    if init is None:
        return None
    stored = [
        s.value
        for s in init.stores
        if s.target == ("attr", ("name", "self"), attr) and not s.guards
    ]
    if len(stored) != 1 or stored[0][0] != "name":
        return None
    param = stored[0][1]
    # the registering classmethod constructs ``cls(...)``; follow the parameter up to
    # the function the registration calls
    chain = [reg.function]
    registering = model.functions[reg.function]
    if "classmethod" not in registering.decorators:
        targets = [
            t
            for c in registering.calls
            for t in model.call_targets(registering, c.func)
            if t.startswith(f"{cls}.")
        ]
        if len(set(targets)) != 1:
            return None
        chain.insert(0, targets[0])
    expr: Expr | None = None
    current = param
    for i, qual in enumerate(chain):
        fn = model.functions[qual]
        if i == 0:
            receiver = fn.params[0][0] if fn.params else ""
            sites = [c for c in fn.calls if c.func == ("name", receiver)]
            callee = init
        else:
            sites = [c for c in fn.calls if chain[i - 1] in model.call_targets(fn, c.func)]
            callee = model.functions[chain[i - 1]]
        if len(sites) != 1:
            return None
        passed = dict(
            bind_arguments(
                callee, sites[0].func, sites[0].args, sites[0].kwargs, skip_receiver_always=i == 0
            )
        ).get(current)
        if passed is None:
            return None
        traced = traced_param(fn, passed)
        if traced is None or traced[1]:
            return None
        current = traced[0]
    expr = dict(reg.arguments).get(current)
    return expr


def _operate(op: str, left: object, right: object) -> object:
    if isinstance(left, int) and isinstance(right, int):
        if op == "|":
            return left | right
        if op == "&":
            return left & right
        if op == "^":
            return left ^ right
        if op == "+":
            return left + right
        if op == "-":
            return left - right
        if op in ("<<", ">>") and 0 <= right < 64:
            return left << right if op == "<<" else left >> right
    if op == "+" and isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(left, frozenset) and isinstance(right, frozenset):
        if op == "|":
            return left | right
        if op == "&":
            return left & right
    return UNKNOWN_VALUE


def _compare(op: str, left: object, right: object) -> object:
    if left is UNKNOWN_VALUE or right is UNKNOWN_VALUE:
        return UNKNOWN_VALUE
    if op in ("==", "is"):
        return left == right
    if op in ("!=", "is not"):
        return left != right
    if op in ("in", "not in") and isinstance(right, (tuple, frozenset)):
        return (left in right) is (op == "in")
    if op in ("in", "not in") and isinstance(right, str) and isinstance(left, str):
        return (left in right) is (op == "in")
    if isinstance(left, int) and isinstance(right, int):
        if op == "<":
            return left < right
        if op == "<=":
            return left <= right
        if op == ">":
            return left > right
        if op == ">=":
            return left >= right
    return UNKNOWN_VALUE
