"""Which parameter of the callee each argument of a call binds (one rule for every reader).

The facts record a function's parameters by name in order (positional-only,
ordinary, then keyword-only); ``*args`` and ``**kwargs`` are not among them, so
a positional argument past the last named parameter and a keyword the callee
does not name bind nothing, and a parameter left to its default binds nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    params = [p for p, _ in callee.params]
    method = bool(params) and params[0] in _RECEIVERS and func[0] == "attr"
    skip = 1 if method or (skip_receiver_always and params and params[0] in _RECEIVERS) else 0
    out = [(params[skip + i], a) for i, a in enumerate(args) if skip + i < len(params)]
    if kwargs:
        out += [(k, v) for k, v in kwargs if k in params]
    if bind_receiver and method:
        out.append((params[0], func[1]))
    return tuple(out)


def call_arguments(call: CallFact) -> tuple[Expr, ...]:
    """Every argument of ``call``: the positional ones, then the keywords' values."""
    return (*call.args, *(v for _, v in call.kwargs))
