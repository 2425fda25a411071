"""Entries a module-level container gets after its definition: registries.

Plugin registries start empty (``_DRAFTERS: dict[str, type] = {}``) and are filled
at import time: by item stores and adds in the module's body (``_DRAFTERS["tree"] =
TreeDrafter``, ``HOOKS.append(hook)``), or by a registering function storing its
parameters into the container (``_DRAFTERS[name] = cls``), applied as a decorator
(``@register("tree") class TreeDrafter``, the function returned by ``register``
storing the class), called (``register("tree", TreeDrafter)``), or both
(``register("tree")(TreeDrafter)``), or by a base class's ``__init_subclass__`` storing
the class into a table on the base, applied by each subclass's class statement
(``class TreeDrafter(Drafter, mode="tree")``). Each entry comes with the scope it was written
in (``("scoped", function or "", module, expression)``), a registering function's
parameters replaced by what each application binds to them, so that a lookup
(``_DRAFTERS[method]``, ``_DRAFTERS.get(method)``) reads the classes registered and
the keys they are registered under.

The applications are read in the container's module and in the modules whose text
names the registering function with the container's module (an import of it, a
decorator ``@register``): a lazy and an eager run read the same ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pdlint.facts.exprs import nodes
from pdlint.facts.types import OTHER, CallFact, Expr, FunctionFacts, ModuleFacts
from pdlint.model.binding import bind_arguments, bind_call

if TYPE_CHECKING:
    from pdlint.model.names import Model

Entry = tuple[Expr | None, Expr]
# a registering function's parameters (its own and those of the functions it is
# nested in) -> what one application binds to them, each in the scope written
Binding = dict[str, Expr]

# ``container.<adder>(value)`` adds an element, ``container.setdefault(key, value)`` an entry
_ADDERS = frozenset({"append", "appendleft", "add", "insert"})
# the modules whose text names a registering function read for its applications, at most
_APPLYING_MODULES = 24


def registered_entries(model: Model, target: str) -> list[Entry]:
    """The entries the module-level container ``target`` (a qualified name) gets
    besides its literal: (key or None, value), each scoped."""
    module, name = target.rsplit(".", 1)
    facts = model.modules.get(module)
    if facts is None:
        return []
    out: list[Entry] = []
    held = ("name", name)
    for container, key, value in facts.item_stores:
        if container == held:
            out.append(_scoped("", module, key, value))
    for call in facts.calls:
        out.extend(_scoped("", module, k, v) for k, v in _added(call, held))
    filled = bool(out)
    for fn in facts.functions:
        if _local(fn, name):
            continue
        written: list[tuple[Expr | None, Expr]] = [
            (k, v) for container, k, v in fn.item_stores if container == held
        ]
        for call in fn.calls:
            written.extend(_added(call, held))
        for k, v in written:
            filled = True
            out.extend(_applied(model, fn, module, k, v))
    if not filled and _empty(model.module_assigns.get(target)):
        # an empty table its module never fills: a registry its plugins fill
        out.extend(_stored_elsewhere(model, target))
    return out


def class_registered_entries(model: Model, cls: str, name: str) -> list[Entry]:
    """The entries the class-level container ``name`` of ``cls`` (``_table = {}`` in its
    body) gets from the class's own methods and the functions nested in them, written
    on the class (``cls._table[key] = fn``, ``Registry._table[key] = fn``): a registry
    filled by a classmethod decorator (``@Registry.register(Algo.EAGLE)``), each
    application's arguments bound as for a module-level registry."""
    module = model.class_module.get(cls)
    facts = model.modules.get(module) if module is not None else None
    if module is None or facts is None:
        return []
    short = cls.rsplit(".", 1)[-1]
    helds = (("attr", ("name", "cls"), name), ("attr", ("name", short), name))
    out: list[Entry] = []
    for fn in facts.functions:
        if fn.cls != cls:
            continue
        written: list[tuple[Expr | None, Expr]] = [
            (k, v) for container, k, v in fn.item_stores if container in helds
        ]
        for call in fn.calls:
            for held in helds:
                written.extend(_added(call, held))
        for k, v in written:
            out.extend(_applied(model, fn, module, k, v))
    return out


def _empty(value: Expr | None) -> bool:
    """Whether a module-level value is an empty container (``{}``, ``[]``, ``dict()``,
    ``defaultdict(list)``): a registry, filled elsewhere, rather than a table written
    out (whose readers elsewhere are not searched for stores)."""
    if value is None:
        return False
    if value[0] == "dict":
        return not value[1]
    if value[0] == "seq":
        return not value[1]
    if value[0] != "call" or value[3]:
        return False
    func = value[1]
    name = func[2] if func[0] == "attr" else func[1] if func[0] == "name" else ""
    return not value[2] or name == "defaultdict"


def _stored_elsewhere(model: Model, target: str) -> list[Entry]:
    """The entries the body of another module stores into ``target`` through an import
    of it (``from registry import HANDLERS`` then ``HANDLERS["tree"] = TreeHandler``):
    in the modules whose text names it with its module; one unknown entry when they
    are many."""
    module, name = target.rsplit(".", 1)
    last = module.rsplit(".", 1)[-1]
    if model.texts is not None:
        query = ((f"{name}[", last), (f"{name}.", last))
        others = [m for m in model.texts.with_text(all_of=query) if m != module]
    else:
        others = [
            m
            for m, facts in model.modules.items()
            if m != module and any(q.startswith(f"{module}.") for _, q in facts.imports)
        ]
    if len(others) > _APPLYING_MODULES:
        return [(None, OTHER)]
    model.load_needed(others)
    out: list[Entry] = []
    for other in others:
        facts = model.modules.get(other)
        if facts is None:
            continue
        writes: list[tuple[Expr, tuple[Expr | None, Expr]]] = [
            (c, (k, v)) for c, k, v in facts.item_stores
        ]
        writes.extend((call.func[1], e) for call in facts.calls for e in _added(call, None))
        for container, (key, value) in writes:
            if (
                container[0] in ("name", "attr")
                and model.resolve_dotted(None, other, container) == target
            ):
                out.append(_scoped("", other, key, value))
    return out


def _added(call: CallFact, held: Expr | None) -> list[tuple[Expr | None, Expr]]:
    """What a call adds to the container ``held`` (None: to any): an element
    (``held.append(x)``), an entry (``held.setdefault(k, v)``), or the entries of a
    literal (``held.update({...})``, ``held.extend([...])``)."""
    func, args = call.func, call.args
    if func[0] != "attr" or (held is not None and func[1] != held) or not args:
        return []
    if func[2] in _ADDERS:
        return [(None, args[-1])]
    if func[2] == "setdefault" and len(args) == 2:
        return [(args[0], args[1])]
    if func[2] == "update" and args[0][0] == "dict":
        return list(zip(args[0][1], args[0][2], strict=True))
    if func[2] == "extend" and args[0][0] == "seq":
        return [(None, value) for value in args[0][1]]
    return []


def _local(fn: FunctionFacts, name: str) -> bool:
    """Whether ``name`` is a variable of ``fn`` rather than the module's."""
    return any(p == name for p, _ in fn.params) or any(n == name for n, _ in fn.assigns)


def _scoped(function: str, module: str, key: Expr | None, value: Expr) -> Entry:
    return (
        None if key is None else ("scoped", function, module, key),
        ("scoped", function, module, value),
    )


def _applied(
    model: Model, fn: FunctionFacts, module: str, key: Expr | None, value: Expr
) -> list[Entry]:
    """An entry written in ``fn``: as it is when its value is not a parameter of ``fn``
    or of the functions enclosing it, else one per application of ``fn``, each
    parameter read as a whole replaced by what the application binds (a key read
    otherwise, ``cls.__name__``, stays in ``fn``: a key no member names). When the
    applications are too many to read, one entry with no key and an unknown value
    stands for them (a lookup then cannot tell which members find a value)."""
    params = _parameters(model, fn)
    value_param = value[0] == "name" and value[1] in params
    if not value_param and _reads(value, params):
        return []  # a value made of the parameters (``cls(config)``): not followed
    if not value_param:  # a value of its own (a cache's), under a key it may compute
        return [_scoped(fn.qualname, module, key, value)]
    applications = _applications(model, fn)
    if applications is None:
        return [(None, OTHER)]  # an entry of each application, unknown
    out: list[Entry] = []
    for binding in applications:
        bound_value = binding.get(value[1]) if value_param else value
        if bound_value is None:
            continue
        if not value_param:
            bound_value = ("scoped", fn.qualname, module, value)
        bound_key: Expr | None = None
        if key is not None:
            found = _bound_key(model, key, binding, fn)
            bound_key = found if found is not None else ("scoped", fn.qualname, module, key)
        out.append((bound_key, bound_value))
    return out


def _bound_key(
    model: Model, key: Expr, binding: Binding, fn: FunctionFacts | None = None
) -> Expr | None:
    """The key an application registers under when the key is a parameter (what the
    application binds to it) or an attribute of one holding a class (``cls.name``:
    the value the class, or a base, assigns to it in its body); None otherwise."""
    if key[0] == "name" and key[1] not in binding:
        # a loop's name over a parameter (``for mode in modes: TABLE[mode] = cls``):
        # every element is a key, read as a sequence of keys
        over = [v for n, v in fn.assigns if n == key[1]] if fn is not None else []
        if len(over) == 1 and over[0][0] == "elem" and over[0][1][0] == "name":
            return binding.get(over[0][1][1])
        return None
    if key[0] == "name":
        return binding.get(key[1])
    if key[0] != "attr" or key[1][0] != "name" or key[1][1] not in binding:
        return None
    bound = binding[key[1][1]]
    scope = model.functions.get(bound[1]) if bound[1] else None
    cls = model.resolve_dotted(scope, bound[2], bound[3]) if bound[3][0] == "name" else None
    if cls is None or cls not in model.classes:
        return None
    for klass in model.mro(cls):
        facts = model.classes.get(klass)
        for name, value, _ in facts.assigns if facts is not None else ():
            if name == key[2]:
                return ("scoped", "", model.class_module[klass], value)
    return None


def _parameters(model: Model, fn: FunctionFacts) -> set[str]:
    """The parameters ``fn`` reads: its own and those of the functions it is nested in."""
    out = {p for p, _ in fn.params}
    scope = model.functions.get(fn.qualname.rsplit(".", 1)[0])
    while scope is not None:
        out.update(p for p, _ in scope.params)
        scope = model.functions.get(scope.qualname.rsplit(".", 1)[0])
    return out


def _reads(expr: Expr, names: set[str]) -> bool:
    """Whether ``expr`` reads one of the variables ``names``."""
    return any(node[0] == "name" and node[1] in names for node in nodes(expr))


def _applications(model: Model, fn: FunctionFacts) -> list[Binding] | None:
    """What each application of the registering function ``fn`` binds to its
    parameters and to those of the function returning it: a decorator ``@fn`` or
    ``@maker(args)`` (``maker`` returning ``fn``) on a module-level class or function,
    a call ``fn(args)`` or ``maker(args)(x)``, in the modules :func:`_applying_modules`
    gives; None when they are too many to read."""
    if fn.name == "__init_subclass__" and fn.cls is not None:
        return _subclass_applications(model, fn, fn.cls)
    maker = _maker(model, fn)
    names = [fn.name] if maker is None else [fn.name, maker.name]
    modules = _applying_modules(model, model.module_of(fn), names)
    if modules is None:
        return None
    out: list[Binding] = []
    for module in modules:
        facts = model.modules.get(module)
        if facts is None:
            continue
        for defined, decorators in _decorated(facts):
            for deco in decorators:
                out.extend(_bound(model, fn, maker, None, module, deco, (defined,), ()))
        for call in facts.calls:
            out.extend(_bound(model, fn, maker, None, module, call.func, call.args, call.kwargs))
        for caller in facts.functions:
            for call in caller.calls:
                out.extend(
                    _bound(model, fn, maker, caller, module, call.func, call.args, call.kwargs)
                )
    return out


def _subclass_applications(model: Model, fn: FunctionFacts, cls: str) -> list[Binding]:
    """What the class statement of each module-level class inheriting ``cls`` binds
    to ``fn``, the ``__init_subclass__`` of ``cls`` that Python runs when it makes
    that class (the first its bases define): its first parameter the class, the
    others the statement's keywords (``class MTPDrafter(Drafter, mode=Mode.MTP)``)
    or their defaults. A statement giving none of them is no application (an
    intermediate base, which the registration's ``if mode is not None`` skips), nor
    one missing a parameter with no default (Python raises)."""
    names = [p for p, _ in fn.params]
    if not names:
        return []
    where = model.module_of(fn)
    defaults = {p: ("scoped", "", where, d) for p, d in fn.defaults}
    out: list[Binding] = []
    for sub in model.descendants(cls):
        facts, module = model.classes.get(sub), model.class_module.get(sub)
        if facts is None or module is None or sub != f"{module}.{facts.name}":
            continue  # a nested class, not named from its module
        runs = next(
            (
                f"{k}.__init_subclass__"
                for k in model.mro(sub)[1:]
                if f"{k}.__init_subclass__" in model.functions
            ),
            None,
        )
        if runs != fn.qualname:
            continue
        written = {k: ("scoped", "", module, v) for k, v in facts.keywords}
        if len(names) > 1 and not written:
            continue
        binding: Binding = {names[0]: ("scoped", "", module, ("name", facts.name))}
        for name in names[1:]:
            value = written.get(name, defaults.get(name))
            if value is None:
                break
            binding[name] = value
        else:
            out.append(binding)
    return out


def _maker(model: Model, fn: FunctionFacts) -> FunctionFacts | None:
    """The function ``fn`` is nested in when that function returns it (a decorator
    with arguments: ``def register(name): def deco(cls): ...; return deco``; a
    class's or a static method of a registry class, applied as
    ``@Registry.register(name)``)."""
    outer = model.functions.get(fn.qualname.rsplit(".", 1)[0])
    if outer is None:
        return None
    if outer.cls is not None and not {"classmethod", "staticmethod"} & set(outer.decorators):
        return None
    if any(r.value == ("name", fn.name) for r in outer.returns):
        return outer
    return None


def _decorated(facts: ModuleFacts) -> list[tuple[Expr, tuple[Expr, ...]]]:
    """(the name, the decorators) of each decorated module-level class and function."""
    depth = facts.module.count(".") + 1
    out: list[tuple[Expr, tuple[Expr, ...]]] = [
        (("name", c.name), c.decorators)
        for c in facts.classes
        if c.decorators and c.qualname.count(".") == depth
    ]
    out.extend(
        (("name", f.name), f.decorator_exprs)
        for f in facts.functions
        if f.decorator_exprs and f.qualname.count(".") == depth
    )
    return out


def _bound(
    model: Model,
    fn: FunctionFacts,
    maker: FunctionFacts | None,
    caller: FunctionFacts | None,
    module: str,
    func: Expr,
    args: tuple[Expr, ...],
    kwargs: tuple[tuple[str, Expr], ...],
) -> list[Binding]:
    """What ``func(*args, **kwargs)`` written in ``caller`` (None: at the top of
    ``module``) binds when it applies ``fn``: called by its name, or the result of a
    call of ``maker``; [] when it does not."""
    scope = caller.qualname if caller is not None else ""
    binding: Binding = {}
    if func[0] == "call" and maker is not None:
        if _names(model, caller, module, func[1]) != maker.qualname:
            return []
        for param, arg in _bound_arguments(maker, func[1], func[2], func[3]):
            binding[param] = ("scoped", scope, module, arg)
    elif _names(model, caller, module, func) != fn.qualname:
        return []
    for param, arg in _bound_arguments(fn, func, args, kwargs):
        binding[param] = ("scoped", scope, module, arg)
    return [binding]


def _bound_arguments(
    fn: FunctionFacts, func: Expr, args: tuple[Expr, ...], kwargs: tuple[tuple[str, Expr], ...]
) -> list[tuple[str, Expr]]:
    """(parameter, argument) of a call of ``fn``, its ``*args`` bound to the sequence
    of the arguments it packs (``@register(Mode.A, Mode.B)`` for ``*modes``)."""
    out = list(bind_arguments(fn, func, args, kwargs))
    packed = tuple(b.arg for b in bind_call(fn, func, args, kwargs) if b.how == "packed")
    if fn.var_params[0] and packed:
        out.append((fn.var_params[0], ("seq", packed)))
    return out


def _names(model: Model, caller: FunctionFacts | None, module: str, func: Expr) -> str | None:
    """The function a callee written ``func`` names, when it names one by a name or a
    module's attribute."""
    if func[0] not in ("name", "attr"):
        return None
    return model.resolve_dotted(caller, module, func)


def _applying_modules(model: Model, module: str, names: list[str]) -> list[str] | None:
    """The modules that may apply a registering function of ``module`` called one of
    ``names``, loaded: ``module``, those whose text uses it as a decorator (``@name``),
    and those whose text calls it and names ``module`` (its last name: an import of
    it); None when they are many (a registry pdlint does not follow). A model with no
    text (the call graph's, of a whole program) reads those of its modules importing
    from ``module``."""
    texts = model.texts
    last = module.rsplit(".", 1)[-1]
    if texts is not None:
        groups = tuple((f"@{n}",) for n in names) + tuple((f"{n}(", last) for n in names)
        others = [m for m in texts.with_text(all_of=groups) if m != module]
    else:
        others = [
            m
            for m, facts in model.modules.items()
            if m != module and any(q.startswith(f"{module}.") for _, q in facts.imports)
        ]
    if len(others) > _APPLYING_MODULES:
        return None
    found = [module, *others]
    model.load_needed(found)
    return [m for m in found if m in model.modules]
