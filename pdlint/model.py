"""The program model: names resolved across modules, classes, types, call graph.

Built from the facts of every indexed module; never touches syntax trees.
Anything it cannot resolve is dropped (and counted for ``--verbose``).
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable

from pdlint.facts import ClassFacts, Expr, FunctionFacts, ModuleFacts
from pdlint.index import annotation_expr

ENUM_BASES = {
    "enum.Enum",
    "enum.IntEnum",
    "enum.StrEnum",
    "enum.Flag",
    "enum.IntFlag",
    "enum.ReprEnum",
}
_OPTIONAL_NAMES = {"Optional", "typing.Optional"}
_UNION_NAMES = {"Union", "typing.Union"}
_LITERAL_NAMES = {"typing.Literal", "typing_extensions.Literal", "Literal"}


class Model:
    """Symbols of the analysed program and how names and calls resolve."""

    def __init__(self, modules: Iterable[ModuleFacts]) -> None:
        self.modules: dict[str, ModuleFacts] = {}
        self.functions: dict[str, FunctionFacts] = {}
        self.function_module: dict[str, str] = {}
        self.classes: dict[str, ClassFacts] = {}
        self.class_module: dict[str, str] = {}
        self.symbols: dict[str, dict[str, str]] = {}
        self.module_assigns: dict[str, Expr] = {}
        self.stats: Counter[str] = Counter()
        for facts in modules:
            self._add(facts)
        self._bases: dict[str, tuple[str, ...]] = {}
        self._mro: dict[str, tuple[str, ...]] = {}
        self.subclasses: dict[str, set[str]] = {}
        for cls in self.classes:
            for base in self.bases(cls):
                self.subclasses.setdefault(base, set()).add(cls)
        self._attr_types: dict[str, dict[str, list[Expr]]] = {}
        self.methods_of: dict[str, list[FunctionFacts]] = {}
        for fn in self.functions.values():
            if fn.cls is not None:
                self.methods_of.setdefault(fn.cls, []).append(fn)
        self._call_cache: dict[tuple[str, int], tuple[str, ...]] = {}
        self._type_depth = 0

    def _add(self, facts: ModuleFacts) -> None:
        mod = facts.module
        if mod in self.modules:
            self.stats["duplicate module names"] += 1
            return
        self.modules[mod] = facts
        table: dict[str, str] = {}
        for local, target in facts.imports:
            table[local] = target
        for name, value, _span in facts.assigns:
            table.setdefault(name, f"{mod}.{name}")
            self.module_assigns[f"{mod}.{name}"] = value
        for cls in facts.classes:
            self.classes[cls.qualname] = cls
            self.class_module[cls.qualname] = mod
            if cls.qualname.count(".") == mod.count(".") + 1:
                table[cls.name] = cls.qualname
        for fn in facts.functions:
            self.functions[fn.qualname] = fn
            self.function_module[fn.qualname] = mod
            if fn.qualname.count(".") == mod.count(".") + 1:
                table[fn.name] = fn.qualname
        self.symbols[mod] = table

    # names ------------------------------------------------------------------
    def canonical(self, qualname: str, depth: int = 0) -> str:
        """Follow re-exports until ``qualname`` names a definition (or give up)."""
        if depth > 20 or qualname in self.functions or qualname in self.classes:
            return qualname
        if qualname in self.modules or qualname in self.module_assigns:
            return qualname
        parts = qualname.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            mod = ".".join(parts[:cut])
            if mod in self.modules:
                rest = parts[cut:]
                target = self.symbols[mod].get(rest[0])
                if target is None or target == qualname:
                    return qualname
                resolved = self.canonical(target, depth + 1)
                if len(rest) == 1:
                    return resolved
                return self.canonical(".".join([resolved, *rest[1:]]), depth + 1)
        return qualname

    def resolve_name(self, fn: FunctionFacts | None, module: str, name: str) -> str | None:
        """Qualified name that ``name`` denotes inside ``fn`` (or at module level)."""
        scope = fn
        while scope is not None:
            for local, target in scope.local_defs:
                if local == name:
                    return target
            for local, target in scope.imports:
                if local == name:
                    return self.canonical(target)
            parent = scope.qualname.rsplit(".", 1)[0]
            scope = self.functions.get(parent)
        found = self.symbols.get(module, {}).get(name)
        if found is not None:
            return self.canonical(found)
        return None

    def resolve_dotted(self, fn: FunctionFacts | None, module: str, expr: Expr) -> str | None:
        """Qualified name of a ``name`` or ``attr`` chain, if it names a symbol."""
        if expr[0] == "name":
            return self.resolve_name(fn, module, expr[1])
        if expr[0] == "attr":
            base = self.resolve_dotted(fn, module, expr[1])
            if base is None:
                return None
            return self.canonical(f"{base}.{expr[2]}")
        return None

    # classes ----------------------------------------------------------------
    def bases(self, cls: str) -> tuple[str, ...]:
        """Qualified names of the direct bases of ``cls``."""
        if cls not in self._bases:
            facts = self.classes.get(cls)
            out: list[str] = []
            if facts is not None:
                module = self.class_module[cls]
                for base in facts.bases:
                    if base[0] == "subscript":
                        base = base[1]
                    resolved = self.resolve_dotted(None, module, base)
                    if resolved is not None:
                        out.append(resolved)
            self._bases[cls] = tuple(out)
        return self._bases[cls]

    def mro(self, cls: str) -> tuple[str, ...]:
        """``cls`` and its ancestors, depth-first left to right, no repeats."""
        if cls in self._mro:
            return self._mro[cls]
        self._mro[cls] = (cls,)  # cycle guard
        seen: list[str] = [cls]
        stack = list(reversed(self.bases(cls)))
        while stack and len(seen) < 500:
            base = stack.pop()
            if base in seen:
                continue
            seen.append(base)
            stack.extend(reversed(self.bases(base)))
        self._mro[cls] = tuple(seen)
        return self._mro[cls]

    def descendants(self, cls: str) -> list[str]:
        """Every class that inherits ``cls`` (directly or not), sorted."""
        out: set[str] = set()
        stack = [cls]
        while stack and len(out) < 5000:
            for sub in self.subclasses.get(stack.pop(), ()):
                if sub not in out:
                    out.add(sub)
                    stack.append(sub)
        return sorted(out)

    def is_enum(self, cls: str) -> bool:
        return any(base in ENUM_BASES for base in self.mro(cls))

    def lookup_method(self, cls: str, name: str) -> str | None:
        for klass in self.mro(cls):
            qual = f"{klass}.{name}"
            if qual in self.functions:
                return qual
        return None

    def methods_named(self, cls: str, name: str) -> tuple[str, ...]:
        """Targets of ``obj.name()`` for an object of class ``cls``.

        The method found over the MRO; if none (a mixin calling what the class
        that inherits it defines), the method in every subclass.
        """
        found = self.lookup_method(cls, name)
        if found is not None:
            return (found,)
        out = {m for sub in self.descendants(cls) if (m := self.lookup_method(sub, name))}
        return tuple(sorted(out))

    def attribute_types(self, cls: str) -> dict[str, list[Expr]]:
        """Annotations (or constructor values) of the attributes of ``cls``."""
        if cls in self._attr_types:
            return self._attr_types[cls]
        table: dict[str, list[Expr]] = {}
        facts = self.classes.get(cls)
        if facts is not None:
            for name, ann in facts.annotations:
                table.setdefault(name, []).append(ann)
            for fn in self.methods_of.get(cls, ()):
                for store in fn.stores:
                    tgt = store.target
                    if tgt[0] == "attr" and tgt[1] == ("name", "self"):
                        if store.annotation is not None:
                            table.setdefault(tgt[2], []).append(store.annotation)
                        elif store.value[0] == "call":
                            table.setdefault(tgt[2], []).append(("value", store.value, fn.qualname))
                        elif store.value[0] == "name":
                            # ``self.x = x`` from an annotated parameter
                            for pname, pann in fn.params:
                                if pname == store.value[1] and pann is not None:
                                    table.setdefault(tgt[2], []).append(pann)
        self._attr_types[cls] = table
        return table

    # types ------------------------------------------------------------------
    def annotation_class(
        self, ann: Expr | None, module: str, fn: FunctionFacts | None = None
    ) -> str | None:
        """The class an annotation names (Optional and ``X | None`` unwrapped)."""
        if ann is None:
            return None
        kind = ann[0]
        if kind == "const" and isinstance(ann[1], str):
            return self.annotation_class(annotation_expr(_parse_const(ann[1])), module, fn)
        if kind == "union":
            parts = [p for p in (ann[1], ann[2]) if p != ("const", None)]
            return self.annotation_class(parts[0], module, fn) if len(parts) == 1 else None
        if kind == "subscript":
            head = self.resolve_dotted(fn, module, ann[1]) or ""
            if (
                head in _OPTIONAL_NAMES
                or head.endswith(".Optional")
                or ann[1] == ("name", "Optional")
            ):
                return self.annotation_class(ann[2], module, fn)
            if head in _UNION_NAMES or ann[1] == ("name", "Union"):
                inner = ann[2][1] if ann[2][0] == "seq" else (ann[2],)
                parts = [p for p in inner if p != ("const", None)]
                return self.annotation_class(parts[0], module, fn) if len(parts) == 1 else None
            return None
        if kind in ("name", "attr"):
            resolved = self.resolve_dotted(fn, module, ann)
            if resolved in self.classes:
                return resolved
        return None

    def module_of(self, fn: FunctionFacts) -> str:
        return self.function_module[fn.qualname]

    def self_class(self, fn: FunctionFacts) -> str | None:
        """The class ``self`` has in ``fn``: an annotation on it, else the enclosing class."""
        if fn.params and fn.params[0][0] in ("self", "cls") and fn.params[0][1] is not None:
            ann = self.annotation_class(fn.params[0][1], self.module_of(fn), fn)
            if ann is not None:
                return ann
        return fn.cls

    def type_of(self, fn: FunctionFacts, expr: Expr, depth: int = 0) -> str | None:
        """The class of the value of ``expr`` in ``fn``, when it can be known."""
        if depth > 8 or self._type_depth > 12:
            return None
        self._type_depth += 1
        try:
            return self._type_of(fn, expr, depth)
        finally:
            self._type_depth -= 1

    def _type_of(self, fn: FunctionFacts, expr: Expr, depth: int) -> str | None:
        module = self.module_of(fn)
        kind = expr[0]
        if kind == "name":
            name = expr[1]
            if name in ("self", "cls") and fn.cls is not None:
                return self.self_class(fn)
            for pname, ann in fn.params:
                if pname == name:
                    return self.annotation_class(ann, module, fn)
            values = [v for n, v in fn.assigns if n == name]
            types = {self.type_of(fn, v, depth + 1) for v in values}
            if len(types) == 1:
                return types.pop()
            return None
        if kind == "annotated":
            return self.annotation_class(expr[1], module, fn)
        if kind == "attr":
            base = self.type_of(fn, expr[1], depth + 1)
            if base is None:
                return None
            return self.attribute_class(base, expr[2], depth)
        if kind == "call":
            func = expr[1]
            if func == ("name", "cls") and fn.cls is not None:
                return self.self_class(fn)
            resolved = (
                self.resolve_dotted(fn, module, func) if func[0] in ("name", "attr") else None
            )
            if resolved in self.classes:
                return resolved
            targets = self.call_targets(fn, func)
            types = {self.return_class(t, fn, func, depth) for t in targets}
            if len(types) == 1:
                return types.pop()
        return None

    def attribute_class(self, cls: str, attr: str, depth: int = 0) -> str | None:
        """The class of ``obj.attr`` for ``obj`` of class ``cls``.

        Looked up over the MRO; for a mixin that does not declare it, over the
        classes that inherit the mixin, when they agree.
        """
        found = self._attribute_class(cls, attr, depth)
        if found is not None:
            return found
        below = {self._attribute_class(sub, attr, depth) for sub in self.descendants(cls)[:50]}
        below.discard(None)
        return below.pop() if len(below) == 1 else None

    def _attribute_class(self, cls: str, attr: str, depth: int) -> str | None:
        for klass in self.mro(cls):
            entries = self.attribute_types(klass).get(attr)
            if not entries:
                continue
            module = self.class_module[klass]
            for entry in entries:
                if entry[0] == "value":
                    where = self.functions.get(entry[2])
                    if where is not None:
                        found = self.type_of(where, entry[1], depth + 1)
                        if found:
                            return found
                    continue
                found = self.annotation_class(entry, module)
                if found:
                    return found
        return None

    def return_class(
        self, target: str, caller: FunctionFacts, func: Expr, depth: int
    ) -> str | None:
        fn = self.functions[target]
        if fn.name == "__init__" and fn.cls:
            return fn.cls
        ann = self.annotation_class(fn.returns_annotation, self.module_of(fn), fn)
        if ann is not None:
            return ann
        # inferred from what it returns (factory classmethods: ``return cls(...)``)
        types = {
            self.type_of(fn, r.value, depth + 1)
            for r in fn.returns
            if r.value is not None and r.value != ("const", None)
        }
        if len(types) != 1:
            return None
        found = types.pop()
        if found is not None and "classmethod" in fn.decorators and func[0] == "attr":
            receiver = self.resolve_dotted(caller, self.module_of(caller), func[1])
            if receiver in self.classes and found in self.mro(receiver):
                return receiver
        return found

    # calls ------------------------------------------------------------------
    def call_targets(self, fn: FunctionFacts, func: Expr) -> tuple[str, ...]:
        """Functions a call of ``func`` inside ``fn`` may reach; () when unknown."""
        key = (fn.qualname, id(func))
        cached = self._call_cache.get(key)
        if cached is not None:
            return cached
        out = self._call_targets(fn, func)
        self._call_cache[key] = out
        return out

    def _call_targets(self, fn: FunctionFacts, func: Expr) -> tuple[str, ...]:
        module = self.module_of(fn)
        if func[0] == "name":
            target = self.resolve_name(fn, module, func[1])
            return self._callable(target)
        if func[0] != "attr":
            return ()
        receiver, meth = func[1], func[2]
        if receiver[0] == "call" and receiver[1] == ("name", "super") and fn.cls:
            for klass in self.mro(fn.cls)[1:]:
                qual = f"{klass}.{meth}"
                if qual in self.functions:
                    return (qual,)
            return ()
        if receiver in (("name", "self"), ("name", "cls")) and fn.cls is not None:
            cls = self.self_class(fn)
            return self.methods_named(cls, meth) if cls else ()
        dotted = self.resolve_dotted(fn, module, func) if receiver[0] in ("name", "attr") else None
        if dotted is not None:
            found = self._callable(dotted)
            if found:
                return found
            owner = dotted.rsplit(".", 1)[0]
            if owner in self.classes:
                return self.methods_named(owner, meth)
        cls = self.type_of(fn, receiver)
        if cls is not None:
            return self.methods_named(cls, meth)
        return ()

    def _callable(self, target: str | None) -> tuple[str, ...]:
        if target is None:
            return ()
        if target in self.functions:
            return (target,)
        if target in self.classes:
            init = self.lookup_method(target, "__init__")
            return (init,) if init else ()
        return ()


def _parse_const(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
