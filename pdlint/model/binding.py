"""Which parameter of the callee each argument of a call binds (one rule for every reader).

The facts record a function's parameters by name in order (positional-only,
ordinary, then keyword-only), and apart from them the names of its ``*args`` and
``**kwargs``: :func:`bind_arguments` gives the named parameters only (a positional
argument past the last one and a keyword the callee does not name bind nothing
there), :func:`bind_call` also what ``*args`` and ``**kwargs`` take. A parameter
left to its default binds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, TypeVar

from pdlint.facts.types import CallFact, Expr, FunctionFacts

_RECEIVERS = ("self", "cls")


def bind_arguments(
    callee: FunctionFacts,
    func: Expr,
    args: Sequence[Expr],
    kwargs: Sequence[tuple[str, Expr]] = (),
    *,
    skip_receiver_always: bool = False,
    bind_receiver: bool = False,
) -> tuple[tuple[str, Expr], ...]:
    """(parameter, argument) for each argument of ``func(*args, **kwargs)`` that
    binds one of ``callee``'s parameters: positional ones in order, then keywords.

    A first parameter named ``self`` or ``cls`` is taken by the receiver when
    the call is written ``obj.method(...)``; with ``skip_receiver_always`` it is
    skipped whatever the call's form. With ``bind_receiver`` the receiver
    (``obj``) is bound to that parameter last. Pass no ``kwargs`` to bind the
    positional arguments only: the i-th pair is then the i-th argument's.
    """
    bound = bind_call(callee, func, args, kwargs, skip_receiver_always=skip_receiver_always)
    out = [(b.param, b.arg) for b in bound if b.how == "value" and b.param not in callee.var_params]
    params = callee.params
    if bind_receiver and params and params[0][0] in _RECEIVERS and func[0] == "attr":
        out.append((params[0][0], func[1]))
    return tuple(out)


def bind_call(
    callee: FunctionFacts,
    func: Expr,
    args: Sequence[Expr],
    kwargs: Sequence[tuple[str, Expr]] = (),
    *,
    skip_receiver_always: bool = False,
) -> list[Bound]:
    """Each argument of ``func(*args, **kwargs)`` bound to ``callee``'s signature as
    :func:`bind_signature` does, ``*args`` and ``**kwargs`` included (an argument
    past the named parameters is ``packed`` into the first, a keyword the callee
    does not name is a ``keyword`` of the second). The receiver as in
    :func:`bind_arguments`."""
    params = [p for p, _ in callee.params]
    method = bool(params) and params[0] in _RECEIVERS and func[0] == "attr"
    skip = 1 if method or (skip_receiver_always and params and params[0] in _RECEIVERS) else 0
    # the facts name the parameters without their kinds: each may take a position
    signature = [(name, ORDINARY) for name in params[skip:]]
    var_positional, var_keyword = callee.var_params
    if var_positional:
        signature.append((var_positional, VAR_POSITIONAL))
    if var_keyword:
        signature.append((var_keyword, VAR_KEYWORD))
    return bind_signature(signature, [(a, False) for a in args], list(kwargs))


def call_arguments(call: CallFact) -> tuple[Expr, ...]:
    """Every argument of ``call``: the positional ones, then the keywords' values."""
    return (*call.args, *(v for _, v in call.kwargs))


# A signature's parameter kinds, as ``inspect.Parameter`` names them (lower case):
# the value-flow layer knows them all; the facts of the checks only the names.
POSITIONAL_ONLY, ORDINARY, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = (
    "positional_only",
    "ordinary",
    "var_positional",
    "keyword_only",
    "var_keyword",
)

A = TypeVar("A")


class Bound(NamedTuple):
    """One argument flowing into one parameter, and how.

    ``how`` is ``value`` (the argument as is), ``element`` (an element of a
    ``*iterable`` argument), ``packed`` (one element of the callee's ``*args``
    tuple), ``spread`` (the elements of a ``*iterable`` argument, each one an
    element of the callee's ``*args`` tuple), ``keyword`` (the value of key
    ``key`` of the callee's ``**kwargs``) or ``mapping`` (the values of a
    ``**mapping`` argument).
    """

    param: str
    arg: Any
    how: str
    key: str | None = None


def bind_signature(
    params: Sequence[tuple[str, str]],
    positional: Sequence[tuple[A, bool]],
    keywords: Sequence[tuple[str | None, A]],
) -> list[Bound]:
    """Bind a call's arguments to a signature of ``(name, kind)`` parameters (the
    one binding rule: :func:`bind_arguments` is this over the facts' parameters).

    ``positional`` holds ``(argument, starred)``; ``keywords`` holds ``(name,
    argument)`` with name None for ``**mapping``. Past a starred argument the
    positions are unknown: each parameter left may take an element of it. A
    parameter with no argument binds nothing (its default flows on its own).
    """
    out: list[Bound] = []
    slots = [(n, k) for n, k in params if k in (POSITIONAL_ONLY, ORDINARY)]
    var_pos = next((n for n, k in params if k == VAR_POSITIONAL), None)
    var_kw = next((n for n, k in params if k == VAR_KEYWORD), None)
    filled: set[str] = set()
    index = 0
    star: A | None = None
    for arg, starred in positional:
        if starred:
            star = arg
            for name, _ in slots[index:]:
                out.append(Bound(name, arg, "element"))
            if var_pos is not None:
                out.append(Bound(var_pos, arg, "spread"))
            continue
        if star is not None:  # after a *iterable: any slot left, or *args
            for name, _ in slots[index:]:
                out.append(Bound(name, arg, "value"))
            if var_pos is not None:
                out.append(Bound(var_pos, arg, "packed"))
            continue
        if index < len(slots):
            out.append(Bound(slots[index][0], arg, "value"))
            filled.add(slots[index][0])
            index += 1
        elif var_pos is not None:
            out.append(Bound(var_pos, arg, "packed"))
    by_keyword = {n for n, k in params if k in (ORDINARY, KEYWORD_ONLY)}
    for key, arg in keywords:
        if key is None:  # **mapping: any keyword-able parameter left
            for name in sorted(by_keyword - filled):
                out.append(Bound(name, arg, "mapping"))
            if var_kw is not None:
                out.append(Bound(var_kw, arg, "value"))
        elif key in by_keyword and key not in filled:
            out.append(Bound(key, arg, "value"))
        elif var_kw is not None:
            out.append(Bound(var_kw, arg, "keyword", key))
    return out


class HandedCall(NamedTuple):
    """A call that code outside the analysed tree makes of a callable it was given:
    ``func(*args, **kwargs)`` (an element of an iterable ``xs`` is ``("elem", xs)``)."""

    func: Expr
    args: tuple[Expr, ...]
    kwargs: tuple[tuple[str, Expr], ...]


# called with its arguments after the callable: ``partial(f, a)``, ``pool.submit(f, a)``
_FORWARDERS = frozenset({"partial", "submit", "to_thread", "call_soon", "call_soon_threadsafe"})
# called with its arguments after the callable, which comes second:
# ``loop.run_in_executor(pool, f, a)``, ``loop.call_later(delay, f, a)``
_SECOND_FORWARDERS = frozenset({"run_in_executor", "call_later", "call_at"})
# called with each element of the iterables after the callable: ``map(f, xs)``
_MAPPERS = frozenset({"map", "filter"})
# called with each element of their one positional argument as ``key=``
_KEYED = frozenset({"sorted", "min", "max"})
# run ``target=`` with ``args=(...)`` and ``kwargs={...}``
_STARTERS = frozenset({"Thread", "Process"})


def handed_calls(call: CallFact) -> tuple[HandedCall, ...]:
    """The calls of a callable ``call`` hands to library code that calls it: by the
    last name of what it calls (``map``, ``functools.partial``, ``Thread``...), the
    callable and the arguments it is called with; () for any other call. Whether a
    bare name is the builtin is the caller's to decide."""
    func, args, kwargs = call.func, call.args, call.kwargs
    name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else None
    if name in _MAPPERS and len(args) >= 2:
        items = args[1:] if name == "map" else args[1:2]
        return (HandedCall(args[0], tuple(("elem", xs) for xs in items), ()),)
    if name in _FORWARDERS and args:
        return (HandedCall(args[0], args[1:], kwargs),)
    if name in _SECOND_FORWARDERS and len(args) >= 2:
        return (HandedCall(args[1], args[2:], ()),)
    key = next((v for k, v in kwargs if k == "key"), None)
    if key is not None and name in _KEYED and len(args) == 1:
        return (HandedCall(key, (("elem", args[0]),), ()),)
    if key is not None and name == "sort" and func[0] == "attr" and not args:
        return (HandedCall(key, (("elem", func[1]),), ()),)
    target = next((v for k, v in kwargs if k == "target"), None)
    if target is not None and name in _STARTERS:
        passed = next((v for k, v in kwargs if k == "args"), ("seq", ()))
        named = next((v for k, v in kwargs if k == "kwargs"), ("dict", (), ()))
        if passed[0] != "seq" or named[0] != "dict":
            return ()
        keywords = tuple(
            (k[1], v)
            for k, v in zip(named[1], named[2], strict=True)
            if k[0] == "const" and isinstance(k[1], str)
        )
        return (HandedCall(target, passed[1], keywords),)
    return ()


# a call written in the code, or one library code makes of a callable handed to it
Site = CallFact | HandedCall


def through_held(site: Site, held: Expr) -> tuple[Site, ...]:
    """``site``, a call of a name or an attribute that holds the callable ``held``
    (``f = self.step`` then ``f(b)`` or ``map(f, xs)``), as the calls of what it holds:
    a function or bound method called with the same arguments, a
    ``functools.partial`` (by its last name, as :func:`handed_calls` reads it) with
    its own arguments first, either side of ``a if c else b``; () for any other value."""
    kind = held[0]
    if kind in ("name", "attr", "lambda"):
        return (site._replace(func=held),)
    if kind == "ifexp":
        return (*through_held(site, held[2]), *through_held(site, held[3]))
    if kind == "call" and held[2]:
        func = held[1]
        name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else None
        if name == "partial":
            return (
                site._replace(
                    func=held[2][0],
                    args=(*held[2][1:], *site.args),
                    kwargs=(*held[3], *site.kwargs),
                ),
            )
    return ()
