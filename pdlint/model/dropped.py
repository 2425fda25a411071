"""Why a call of the call graph has no callee: the reason ``-vv`` prints for each
dropped call (unknown stays silent in the findings; it is told only here)."""

from __future__ import annotations

import builtins

from pdlint.facts.exprs import text
from pdlint.facts.types import Expr, FunctionFacts
from pdlint.model.names import Model

_BUILTINS = frozenset(dir(builtins))
# the prefix of a run's count for one dropped call: ``dropped call: PATH:LINE: `CALLEE`:
# REASON`` (counted with the other counts, so that it travels as they do)
DROPPED_CALL = "dropped call: "


def why_dropped(model: Model, fn: FunctionFacts, func: Expr) -> str:
    """The reason a call of ``func`` inside ``fn`` resolves to no analysed function."""
    kind = func[0]
    module = model.module_of(fn)
    if kind == "name":
        name = func[1]
        target = model.resolve_name(fn, module, name)
        if target is not None:
            return _missing(model, target)
        if name in {p for p, _ in fn.params}:
            return f"parameter `{name}`: no caller passes an analysed function for it"
        if name in _BUILTINS:
            return "a builtin"
        return f"`{name}` holds no analysed function or class"
    if kind == "attr":
        receiver, meth = func[1], func[2]
        if receiver in (("name", "self"), ("name", "cls")) and fn.cls is not None:
            cls = model.self_class(fn)
            if not cls:
                return f"the class of `{receiver[1]}` is unknown"
            return f"`{cls}` and its bases have no method `{meth}`"
        dotted = model.resolve_dotted(fn, module, func) if receiver[0] in ("name", "attr") else None
        if dotted is not None:
            return _missing(model, dotted)
        classes = sorted(model.types_of(fn, receiver))
        if not classes:
            return f"the value of `{text(receiver, brief=True)}` is unknown"
        outside = [c for c in classes if c not in model.classes]
        if outside:
            return f"`{outside[0]}` is not an analysed class"
        return f"{', '.join(f'`{c}`' for c in classes)} has no method `{meth}`"
    if kind == "subscript":
        return f"what `{text(func, brief=True)}` holds is unknown"
    if kind == "call":
        return "a call of what a call returns, which is unknown"
    return "the callee is not a name, an attribute or a subscript"


def _missing(model: Model, target: str) -> str:
    """Why the qualified name ``target`` is no analysed function or class."""
    if target in model.classes:
        return f"class `{target}` has no analysed `__init__` (nor its bases)"
    parts = target.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        if model.has_module(module):
            rest = ".".join(parts[end:])
            if not rest:
                return f"`{target}` is a module"
            if "." in rest:  # an attribute of a module-level value
                return f"the value of `{rest.split('.')[0]}` in module `{module}` is unknown"
            return f"`{target}`: module `{module}` defines no function or class `{rest}`"
    return f"`{target}`: module `{parts[0]}` is not analysed"
