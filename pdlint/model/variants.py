"""Variant sets and the per-member evaluation of predicates and guards.

A variant is an Enum class or a ``Literal[...]`` alias. Conditions are
evaluated for one member at a time to one of four answers: always true, never
true, MAYBE (does not depend on the variant) or UNKNOWN (depends on it in a way
pdlint cannot resolve; never produces a finding).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum

from pdlint.facts.exprs import nodes
from pdlint.facts.types import CallFact, ClassFacts, Expr, FunctionFacts, Guards, Span
from pdlint.model.binding import bind_arguments
from pdlint.model.names import (
    _LITERAL_NAMES,
    _OPTIONAL_NAMES,
    LazyTable,
    Model,
    Table,
    assigned_values,
    holds,
    is_property,
)
from pdlint.model.registry import UNKNOWN_VALUE, MemberValues, Registry


class Truth(Enum):
    TRUE = "true"
    FALSE = "false"
    MAYBE = "maybe"
    UNKNOWN = "unknown"


T, F, MAYBE, UNKNOWN = Truth.TRUE, Truth.FALSE, Truth.MAYBE, Truth.UNKNOWN


@dataclass(frozen=True)
class Variant:
    """A set of members: an enum class or a Literal alias (``qualname``)."""

    qualname: str
    kind: str  # "enum", "literal" or "string" (constants compared against an attribute)
    members: tuple[str, ...]
    values: tuple[object, ...]  # enum: constant values (or None); literal: the literals
    # member name -> its indices (a lookup per member must not scan them all); made
    # with the variant, not on first use: compiled with mypyc, a class has no
    # instance dict, so a ``cached_property`` would be made again at every use
    # (quadratic in the members of a large enum)
    positions: dict[str, list[int]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        out: dict[str, list[int]] = {}
        for i, member in enumerate(self.members):
            out.setdefault(member, []).append(i)
        object.__setattr__(self, "positions", out)

    def __hash__(self) -> int:
        # equal variants have equal names: hashing every member made each lookup of a
        # key holding a variant cost the enum's size (quadratic over its members)
        return hash((self.qualname, self.kind))

    @property
    def name(self) -> str:
        if self.kind == "string":
            return f"values of `{self.qualname[4:]}`"
        if self.qualname.startswith("Literal["):  # written inline (its literals may hold dots)
            return self.qualname
        return self.qualname.rsplit(".", 1)[-1]


def _and(values: list[Truth]) -> Truth:
    if F in values:
        return F
    if UNKNOWN in values:
        return UNKNOWN
    return T if all(v is T for v in values) else MAYBE


def _or(values: list[Truth]) -> Truth:
    if T in values:
        return T
    if UNKNOWN in values:
        return UNKNOWN
    return F if all(v is F for v in values) else MAYBE


def _not(value: Truth) -> Truth:
    return F if value is T else T if value is F else value


@dataclass(frozen=True)
class Rewrite:
    """A member the construction of its holder rewrites: what it becomes, where."""

    into: tuple[int, ...]  # the members the store gives it (none: a value of no member)
    function: str  # the function of the last store that rewrites it
    span: Span


@dataclass(frozen=True)
class Normalisation:
    """The members of a variant held in ``owner.attr`` that constructing an ``owner``
    rewrites into others: no ``owner`` holds them once made."""

    owner: str
    attr: str
    variant: Variant
    rewrites: dict[int, Rewrite]
    functions: tuple[str, ...] = ()  # the functions read: the construction, in order

    def live(self) -> list[int]:
        """The members an ``owner`` may hold once made."""
        return [m for m in range(len(self.variant.members)) if m not in self.rewrites]


class _Rewriting:
    """The values an attribute may hold for one member while its construction is read."""

    def __init__(self, member: int, read: dict[str, None]) -> None:
        self.member = member
        self.read = read  # the functions read so far, in order
        self.values: set[int] | None = {member}  # None: unknown
        self.site: Rewrite | None = None  # the last store that rewrote it


# Decorators of the methods run once an object is made (pydantic's validators).
_AFTER_INIT = ("model_validator", "root_validator")
# annotations that name no variant but hold one's values (``spec: str``)
_PLAIN_SCALARS = frozenset({("name", "str"), ("name", "int")})

# comparisons that test which member a value is, and the containers written of members
_MEMBER_TESTS = ("is", "is not", "==", "!=", "in", "not in")
_CONTAINERS = ("frozenset", "set", "tuple", "list")


class Variants:
    """Finds variants in the model and evaluates conditions per member."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self.stats: Counter[str] = Counter()  # predicates that could not be read
        # Enum classes and Literal aliases are found when looked up (a lazy model
        # loads their module then); string variants are added below.
        self.by_name: Table[Variant] = LazyTable(self._discover)
        self._discovered: set[str] = set()
        self.registry = Registry(model)
        self.carrier_names: dict[str, set[str]] = {}
        self._class_stores: dict[str, dict[str, Variant]] = {}  # see _stored_variants
        # enum -> attribute read as member names -> the function converting it
        self.converted: dict[str, dict[str, str]] = {}
        self._attr_cache: dict[tuple[str, int], Variant | None] = {}
        # (function, expression, variant, bound) -> :meth:`mentions`; the same guard
        # is asked once per member
        self._mentions: dict[tuple[str, Expr, str, frozenset[str]], bool] = {}
        # (function, object, variant, bound) -> see _read_from
        self._reads_from: dict[tuple[str, Expr, str, frozenset[str]], bool] = {}
        self._attribute_reads: dict[str, list[Expr]] = {}  # see _attribute_nodes
        # the classes and the functions read for carriers so far
        self._read_for_carriers: tuple[set[str], set[str]] = (set(), set())
        # attribute -> the enums it is compared with (see _compared_carriers), and the
        # attributes that are carriers by those comparisons alone
        self._compared_names: dict[str, set[str]] = {}
        self._compared_in: dict[tuple[str, str], set[str]] = {}  # by (class, attribute)
        # the comparisons read so far whose object's class was not asked
        self._compared_sides: list[tuple[FunctionFacts, Expr, str, str]] = []
        self._by_compare: set[str] = set()
        self._giving: set[str] = set()  # constructors being read, see _given_rewrite
        self._copying: set[tuple[str, Expr]] = set()  # see _copied_variant
        self._copies: dict[tuple[str, str], Variant | None] = {}  # see _copy_in_class
        # (class, attribute, variant) -> see :meth:`_attribute_set`
        self._attr_set: dict[tuple[str, str, str], tuple[set[int], set[int]] | None] = {}
        self.carriers = self._find_carriers()
        if self._load_validators():
            self.carriers = self._find_carriers()  # with what was loaded
        self._string_names: set[str] = set()
        self._add_string_variants()
        self._mentions.clear()  # answers given before every string variant was known
        self._pred_cache: dict[tuple[str, str, str, tuple[str, ...]], Truth] = {}
        # the truth of a guard's condition asked by :meth:`guards_truth` from outside
        # any predicate: (id of the condition, function, variant, bound) -> for a
        # truth that read no member (most of them: ``x is None``), in _member_free;
        # else (..., member) -> in _guard_memo. _member_reads counts those reads.
        self._member_free: dict[tuple[int, str, str, frozenset[str]], tuple[Expr, Truth]] = {}
        self._guard_memo: dict[tuple[int, str, str, frozenset[str], int], tuple[Expr, Truth]] = {}
        self._member_reads = 0
        # counts the times the truths above were forgotten: a caller keeping answers
        # derived from them keeps this with each
        self.epoch = 0
        self._active: set[tuple[str, str, str, tuple[str, ...]]] = set()
        # Every result (UNKNOWN included) of the outermost evaluation under way:
        # predicates calling each other through many branches would otherwise be
        # re-evaluated once per path, exponentially.
        self._walk: dict[tuple[str, str, str, tuple[str, ...]], Truth] = {}
        self._cyclic: set[str] = set()
        # (variant, member) -> setting -> the value it always has for that member
        # (startup rejects the member with the other value; see :meth:`settle`)
        self.settled: dict[tuple[str, int], dict[str, bool]] = {}
        self._settled_anywhere: dict[str, set[str]] = {}  # variant -> settings settled
        self._setting_cache: dict[tuple[str, int], str | None] = {}
        self._normalised: dict[tuple[str, str, str, tuple[str, ...]], Normalisation] = {}
        # (function, parameter) -> the variant its callers pass (see passed_variant)
        self._passed: dict[tuple[str, str], Variant | None] = {}
        self._passing: set[tuple[str, str]] = set()
        self._value_reads: dict[str, frozenset[str]] = {}  # see _value_reads

    # discovery --------------------------------------------------------------
    def _discover(self, qual: str) -> bool:
        """Add the variant ``qual`` names (an Enum class, a Literal alias), if any."""
        if qual in self._discovered or qual.startswith(("str:", "Literal[")):
            return False
        found = self._variant_named(qual)  # may be cut short (see Model.batched)
        self._discovered.add(qual)
        if found is None:
            return False
        self.by_name[qual] = found
        return True

    def _variant_named(self, qual: str) -> Variant | None:
        model = self.model
        if qual in model.classes:
            if not model.is_enum(qual):
                # members registered at import time (``Algo.register("EAGLE")``)
                found = self.registry.registrations(qual)
                if not found:
                    return None
                names = tuple(r.member for r in found)
                return Variant(qual, "enum", names, tuple(None for _ in names))
            facts = model.classes[qual]
            members = [
                (n, v) for n, v, _ in facts.assigns if not n.startswith("_") and _member_value(v)
            ]
            if not members:
                return None
            return Variant(
                qual,
                "enum",
                tuple(n for n, _ in members),
                tuple(v[1] if v[0] == "const" else None for _, v in members),
            )
        value = model.module_assigns.get(qual)
        if value is None:
            return None
        literals = self._literals(value, model.function_module.get(qual, qual.rsplit(".", 1)[0]))
        if not literals:
            return None
        return Variant(qual, "literal", tuple(_literal_name(v) for v in literals), tuple(literals))

    def _literals(self, value: Expr, module: str, depth: int = 0) -> list[object] | None:
        """Members of ``Literal[...]`` (nested, Optional, Union, ``A | B``, aliases
        flattened)."""
        if value[0] == "union" and depth <= 10:  # ``MethodA | MethodB | None``
            left = self._literals(value[1], module, depth + 1)
            right = self._literals(value[2], module, depth + 1)
            return None if left is None or right is None else [*left, *right]
        if depth > 10 or value[0] != "subscript":
            if value[0] in ("name", "attr") and depth:
                target = self.model.resolve_dotted(None, module, value)
                inner = self.model.module_assigns.get(target or "")
                if inner is not None:
                    return self._literals(inner, target.rsplit(".", 1)[0], depth + 1)  # type: ignore[union-attr]
            if value == ("const", None) and depth:
                return [None]
            return None
        head = self.model.resolve_dotted(None, module, value[1]) or ""
        items = value[2][1] if value[2][0] == "seq" else (value[2],)
        if head in _LITERAL_NAMES or value[1] == ("name", "Literal") or head.endswith(".Literal"):
            out: list[object] = []
            for item in items:
                if item[0] == "const":
                    out.append(item[1])
                else:
                    nested = self._literals(item, module, depth + 1)
                    if nested is None:
                        return None
                    out.extend(nested)
            return out
        if (
            head in _OPTIONAL_NAMES
            or head.endswith(".Optional")
            or value[1] == ("name", "Optional")
        ):
            optional = self._literals(items[0], module, depth + 1)
            return None if optional is None else [*optional, None]
        if head.endswith("Union") or value[1] == ("name", "Union"):
            union: list[object] = []
            for item in items:
                nested = self._literals(item, module, depth + 1)
                if nested is None:
                    return None
                union.extend(nested)
            return union
        return None

    def variant_of_annotation(
        self, ann: Expr | None, module: str, fn: FunctionFacts | None
    ) -> Variant | None:
        """The variant an annotation names (Optional unwrapped)."""
        if ann is None:
            return None
        cls = self.model.annotation_class(ann, module, fn)
        if cls is not None and cls in self.by_name:
            return self.by_name[cls]
        target = ann
        if ann[0] == "subscript":
            head = self.model.resolve_dotted(fn, module, ann[1]) or ""
            if (
                head in _OPTIONAL_NAMES
                or ann[1] == ("name", "Optional")
                or head.endswith(".Optional")
            ):
                target = ann[2]
        elif ann[0] == "union":
            parts = [p for p in (ann[1], ann[2]) if p != ("const", None)]
            target = parts[0] if len(parts) == 1 else ann
        if target[0] in ("name", "attr"):
            resolved = self.model.resolve_dotted(fn, module, target)
            if resolved is not None and resolved in self.by_name:
                return self.by_name[resolved]
        elif target[0] in ("subscript", "union"):  # ``Literal[...]``, ``MethodA | MethodB``
            return self._inline_literal(ann, module)
        return None

    def param_variant(self, fn: FunctionFacts, name: str) -> Variant | None:
        """The variant the parameter ``name`` of ``fn`` holds: by its annotation, or,
        with none, the one its callers pass (see :meth:`passed_variant`) if ``fn``
        reads it as a variant is read (see :func:`_value_reads`)."""
        for pname, ann in fn.params:
            if pname == name:
                if ann is not None:
                    found = self.variant_of_annotation(ann, self.model.module_of(fn), fn)
                    if found is not None or ann not in _PLAIN_SCALARS:
                        return found
                # a plain ``str`` or ``int`` says no more than no annotation does:
                # the variant is what the callers pass (``build(spec: str)``)
                reads = self._value_reads.get(fn.qualname)
                if reads is None:
                    reads = self._value_reads[fn.qualname] = _value_reads(fn)
                return self.passed_variant(fn, name) if name in reads else None
        return None

    def passed_variant(self, fn: FunctionFacts, param: str, depth: int = 0) -> Variant | None:
        """The variant every call of ``fn`` passes for its unannotated parameter
        ``param`` (``self.builder.build(self.cfg.spec, rec)``: ``spec`` holds what
        ``cfg.spec`` holds), the calls found as for the classes a parameter takes
        (:meth:`Model.passed_classes`); None when a call passes anything else (a
        constant member is not the variant, and neither is what cannot be read)."""
        key = (fn.qualname, param)
        if key in self._passed:
            return self._passed[key]
        if key in self._passing or depth > 3:
            return None
        self._passing.add(key)
        found: Variant | None = None
        try:
            arguments = self.model.passed_arguments(fn, ("param", param))
            held = [self._held_variant(caller, arg, depth) for caller, arg in arguments]
            if held and held[0] is not None and all(v is held[0] for v in held):
                found = held[0]
        finally:
            self._passing.discard(key)
        self._passed[key] = found
        return found

    def _held_variant(self, fn: FunctionFacts, expr: Expr, depth: int) -> Variant | None:
        """The variant ``expr`` holds in ``fn`` as a value passed on: an attribute
        holding it, a parameter (annotated or passed it), a local assigned one of these."""
        if expr[0] == "attr":
            found = self.attr_variant(fn, expr)
            if found is not None or depth > 3:
                return found
            # what the attribute's class stores in it (``self.kind = settings.kind``),
            # asked of the class and not of the names loaded so far: a lazy run may
            # not have loaded the class annotating it yet
            held: set[Variant | None] = set()
            for cls in self.model.types_of(fn, expr[1]):
                found = self.class_attr_variant(cls, expr[2])
                if found is not None:
                    held.add(found)
                    continue
                held.update(
                    self._held_variant(method, value, depth + 1)
                    for method, value in self.model.attribute_stores(cls, expr[2])
                )
            return held.pop() if len(held) == 1 else None
        if expr[0] != "name":
            return None
        name = expr[1]
        for pname, ann in fn.params:
            if pname == name:
                if ann is not None:
                    return self.variant_of_annotation(ann, self.model.module_of(fn), fn)
                return self.passed_variant(fn, name, depth + 1)
        values = assigned_values(fn, name)
        if len(values) == 1 and values[0][0] in ("name", "attr") and values[0] != expr:
            return self._held_variant(fn, values[0], depth + 1)
        return None

    def _inline_literal(self, ann: Expr, module: str) -> Variant | None:
        """The variant of a ``Literal[...]`` written in the annotation itself (``method:
        Literal["a", "b"]``): named by its members, so every annotation listing the
        same literals holds the same variant."""
        literals = self._literals(ann, module)
        if not literals:
            return None
        qual = "Literal[" + ", ".join(repr(v) for v in literals) + "]"
        if not holds(self.by_name, qual):  # (no module to load for that name)
            names = tuple(_literal_name(v) for v in literals)
            self.by_name[qual] = Variant(qual, "literal", names, tuple(literals))
        return self.by_name[qual]

    def _find_carriers(self, only: set[str] | None = None) -> dict[str, Variant]:
        """Attribute names that hold a variant, where exactly one variant fits (the
        classes and functions not read by an earlier call add to :attr:`carrier_names`;
        ``only``: the classes of those names and their methods, no other)."""
        seen = self.carrier_names
        model = self.model
        done_classes, done_functions = self._read_for_carriers
        wanted = [c for c in model.classes if c not in done_classes and (only is None or c in only)]
        classes = [(model.class_module[c], model.classes[c]) for c in wanted]
        done_classes.update(wanted)
        for found in model.batched(classes, self._class_carriers):
            for name, variant in found:
                seen.setdefault(name, set()).add(variant.qualname)
        functions = [
            f
            for q, f in model.functions.items()
            if q not in done_functions and (only is None or f.cls in only)
        ]
        done_functions.update(f.qualname for f in functions)
        for found in model.batched(functions, self._function_carriers):
            for name, variant in found:
                if name in self._by_compare:  # a store says more than a comparison
                    self._by_compare.discard(name)
                    seen[name] = set()
                seen.setdefault(name, set()).add(variant.qualname)
        compared = self._compared_names
        sides = self._compared_sides
        for fn, found_compared in zip(
            functions, model.batched(functions, self._compared_carriers), strict=True
        ):
            for obj, name, qual in found_compared:
                compared.setdefault(name, set()).add(qual)
                sides.append((fn, obj, name, qual))
        # a name compared with the members of several enums: by its object's class
        # (asked only then: most names are compared with one)
        kept = []
        for fn, obj, name, qual in sides:
            if len(compared[name]) < 2:
                kept.append((fn, obj, name, qual))
                continue
            owner = model.type_of(fn, obj)
            if owner is not None:
                self._compared_in.setdefault((owner, name), set()).add(qual)
        self._compared_sides = kept
        for name, quals in compared.items():
            if name not in seen or name in self._by_compare:
                self._by_compare.add(name)
                seen[name] = set(quals)
        return {
            name: self.by_name[next(iter(quals))] for name, quals in seen.items() if len(quals) == 1
        }

    def _compared_carriers(self, fn: FunctionFacts) -> list[tuple[Expr, str, str]]:
        """(the object, attribute, enum) for each attribute ``fn`` compares with
        members of one enum where it branches (``batch.kind is Kind.NGRAM``,
        ``batch.kind in RELAY_KINDS``): what an attribute no store or annotation
        describes holds (the value came through parameters nothing annotates)."""
        out = []
        module = self.model.module_of(fn)
        for node in (n for b in fn.branches for n in nodes(b[0])):
            if node[0] != "cmp" or len(node[2]) != 1 or node[2][0] not in _MEMBER_TESTS:
                continue
            for side, other in ((node[1], node[3][0]), (node[3][0], node[1])):
                if side[0] != "attr" or other[0] not in ("attr", "name", "seq"):
                    continue
                enum = self._enum_named(fn, module, other, 0)
                if enum is not None:
                    out.append((side[1], side[2], enum))
        return out

    def _compared_in_class(self, cls: str, name: str) -> Variant | None:
        """The enum the attribute ``name`` of a ``cls`` is compared with the members of
        (see :meth:`_compared_carriers`), where one is."""
        for klass in self.model.mro(cls):
            quals = self._compared_in.get((klass, name))
            if quals is not None:
                return self.by_name[next(iter(quals))] if len(quals) == 1 else None
        return None

    def _enum_named(
        self, fn: FunctionFacts | None, module: str, expr: Expr, depth: int
    ) -> str | None:
        """The enum whose members ``expr`` names (``E.X``, a tuple or set of them, a
        module-level constant holding them), where they are all of one enum."""
        if depth > 4:
            return None
        if expr[0] == "seq" and expr[1]:
            owners = {self._enum_named(fn, module, e, depth + 1) for e in expr[1]}
            return owners.pop() if len(owners) == 1 else None
        if expr[0] == "call" and _callee_name(expr[1]) in _CONTAINERS and len(expr[2]) == 1:
            return self._enum_named(fn, module, expr[2][0], depth + 1)
        if expr[0] == "attr" and expr[1][0] in ("name", "attr"):
            owner = self.model.resolve_dotted(fn, module, expr[1])
            variant = self.by_name.get(owner) if owner is not None else None
            if variant is not None and variant.kind == "enum" and expr[2] in variant.positions:
                return variant.qualname
        if expr[0] in ("name", "attr"):
            constant = self._module_constant(fn, module, expr)
            if constant is not None and constant[1][0] in ("seq", "call"):
                return self._enum_named(None, constant[0], constant[1], depth + 1)
        return None

    def learn_classes(self, classes: set[str]) -> None:
        """Read the carriers of ``classes`` and their methods, if loaded since (a lazy
        model that loaded them for a check), forgetting the answers given without them."""
        before = {name: set(quals) for name, quals in self.carrier_names.items()}
        compared = {key: set(quals) for key, quals in self._compared_in.items()}
        self.carriers = {**self.carriers, **self._find_carriers(classes)}
        if self.carrier_names != before or self._compared_in != compared:
            self._attr_cache.clear()
            self._copies.clear()  # they read the carriers
            self._mentions.clear()
            self._reads_from.clear()
            self._forget_truths()

    def _load_validators(self) -> bool:
        """Load, in a lazy model, the files that can test a setting string the program
        converts to a variant (a startup validator: see ``RelayAnalysis._reads_setting``):
        they may be in files nothing else loads, and their comparisons of that setting
        with strings make it a string variant. Whether any file was loaded."""
        names = sorted({name for table in self.converted.values() for name in table})
        if self.model.source is None or not names:
            return False
        before = len(self.model.modules)
        self.model.load_text(any_of=names, all_of=(("raise",),))
        return len(self.model.modules) > before

    def _class_carriers(self, item: tuple[str, ClassFacts]) -> list[tuple[str, Variant]]:
        """(attribute, variant) for each class-level annotation naming a variant."""
        module, facts = item
        out = []
        for name, ann in facts.annotations:
            variant = self.variant_of_annotation(ann, module, None)
            if variant is not None:
                out.append((name, variant))
        return out

    def _function_carriers(self, fn: FunctionFacts) -> list[tuple[str, Variant]]:
        """(attribute, variant) for each store of a variant in ``fn`` (an annotated
        store, a member, a conversion, an annotated parameter)."""
        model = self.model
        module = model.module_of(fn)
        out = []
        for store in fn.stores:
            if store.target[0] != "attr":
                continue
            name = store.target[2]
            variant = None
            if store.annotation is not None:
                variant = self.variant_of_annotation(store.annotation, module, fn)
            elif store.value[0] == "attr":
                owner = model.resolve_dotted(fn, module, store.value[1])
                if owner is not None and owner in self.by_name:
                    variant = self.by_name[owner]
            elif store.value[0] == "call" and store.value[1][0] == "attr":
                variant = self._conversion(fn, module, store.value) or self._made_member(
                    fn, module, store.value
                )
            elif store.value[0] == "call" and store.value[1][0] == "name":
                variant = self._made_member(fn, module, store.value)
            elif store.value[0] == "name":
                # ``self.algo = algo`` from a parameter annotated with the variant
                for pname, pann in fn.params:
                    if pname == store.value[1] and pann is not None:
                        variant = self.variant_of_annotation(pann, module, fn)
            if variant is not None:
                out.append((name, variant))
        for _name, value in fn.assigns:
            if value[0] == "call" and value[1][0] == "attr":
                self._conversion(fn, module, value)
        if is_property(fn) and fn.cls is not None:
            # an attribute made when first read (``@cached_property def algo(self) -> Algo``)
            variant = self.variant_of_annotation(fn.returns_annotation, module, fn)
            for ret in fn.returns if variant is None else ():
                made = ret.value
                if made is None or made[0] not in ("call", "subscript"):
                    continue
                if made[1][0] in ("name", "attr"):
                    owner = model.resolve_dotted(fn, module, made[1])
                    if owner is not None and owner in self.by_name:  # ``Algo(x)``, ``Algo[x]``
                        variant = self.by_name[owner]
                    elif made[0] == "call" and made[1][0] == "attr":
                        variant = self._conversion(fn, module, made)
                if variant is not None:
                    break
            if variant is not None:
                out.append((fn.name, variant))
        return out

    def _copied_variant(self, fn: FunctionFacts, expr: Expr) -> Variant | None:
        """The variant the attribute ``X.attr`` read in ``fn`` holds: from X's class when
        known, else the one variant an attribute of that name holds."""
        key = (fn.qualname, expr)
        if key in self._copying:
            return None
        self._copying.add(key)
        try:
            cls = self.model.type_of(fn, expr[1])
            if cls is not None:
                # its annotations and stores alone (in a lazy model, the subclasses or the
                # classes its attributes hold load files for every attribute copied)
                return self.class_attr_variant(cls, expr[2], subclasses=False, held=False)
            return self.carriers.get(expr[2])
        finally:
            self._copying.discard(key)

    def _copy_in_class(self, cls: str, name: str) -> Variant | None:
        """The variant the attribute ``name`` of a ``cls`` holds as a copy its class's
        methods store (``self.method = spec.method if spec else None``), where one fits;
        read when asked, for that attribute alone (a lazy model loads what the copied
        objects' classes need)."""
        key = (cls, name)
        if key in self._copies:
            return self._copies[key]
        self._copies[key] = None  # while it is read (a copy of itself)
        found: set[Variant | None] = set()
        target = ("attr", ("name", "self"), name)
        try:
            for klass in self.model.mro(cls):
                for method in self.model.methods_of.get(klass, ()):
                    for store in method.stores:
                        copied = _copied_attribute(store.value) if store.target == target else None
                        if copied is not None:
                            found.add(self._copied_variant(method, copied))
        except BaseException:
            # a lazy model cuts a lookup short to load a module, and asks again
            del self._copies[key]
            raise
        self._copies[key] = found.pop() if len(found) == 1 else None
        return self._copies[key]

    def _made_member(self, fn: FunctionFacts, module: str, call: Expr) -> Variant | None:
        """The enum a call makes a member of: the enum called (``Backend(name)``) or a
        factory of its own that returns one (``Backend.parse(name)``, a classmethod
        normalising the name first)."""
        func = call[1]
        called = func if func[0] == "name" else func[1]
        last = called[1] if called[0] == "name" else called[2] if called[0] == "attr" else None
        if not isinstance(last, str):
            return None
        # the name it is defined as (``from .kinds import Backend as B``), not yet resolved
        imported = dict(fn.imports).get(last) or self.model.symbols.get(module, {}).get(last)
        if not self.model.may_be_enum((imported or last).rsplit(".", 1)[-1]):
            return None
        owner = self.model.resolve_dotted(fn, module, called)
        if owner is None or owner not in self.model.classes or not self.model.is_enum(owner):
            return None
        if func[0] == "attr" and self.model.type_of(fn, call) != owner:
            return None
        return self.by_name[owner] if owner in self.by_name else None

    def _conversion(self, fn: FunctionFacts, module: str, call: Expr) -> Variant | None:
        """The enum ``E.from_string(x.attr)`` converts to; records ``attr`` as a setting
        string that names members (see :meth:`denotes`)."""
        if call[1][2] not in ("from_string", "from_str"):
            return None
        owner = self.model.resolve_dotted(fn, module, call[1][1])
        variant = self.by_name.get(owner) if owner is not None else None
        if variant is None:
            return None
        if call[2] and call[2][0][0] == "attr":
            func = f"{variant.qualname}.{call[1][2]}"
            self.converted.setdefault(variant.qualname, {})[call[2][0][2]] = func
        return variant

    def _none_members(self, variant: Variant, func: str) -> list[int] | None:
        """Members the conversion function gives for None (``if name is None: return
        cls.OFF``); [] when it gives none; None when it cannot be read."""
        fn = self.model.functions.get(func)
        params = [p for p, _ in fn.params if p not in ("self", "cls")] if fn else []
        if fn is None or not params:
            return None
        test = ("cmp", ("name", params[0]), ("is",), (("const", None),))
        out: list[int] = []
        for ret in fn.returns:
            if (test, True) not in ret.guards:
                continue
            value = ret.value
            if value is None or value[0] != "attr" or value[2] not in variant.positions:
                return None
            out.extend(variant.positions[value[2]])
        return out

    def _add_string_variants(self) -> None:
        """String constants compared against an attribute (``x.method == "eagle"``).

        An attribute name that holds no Enum or Literal member and is compared
        against two or more distinct strings anywhere becomes a variant whose
        members are those strings.
        """
        compared: dict[tuple[str, str], set[str]] = {}
        by_param: dict[str, dict[str, set[str]]] = {}  # function -> parameter -> strings
        functions = [fn for fn in self.model.functions.values() if fn.string_compares]
        owners = self.model.batched(functions, self._compared_owners)
        for fn, owned in zip(functions, owners, strict=True):
            names = {p for p, _ in fn.params}
            for (subject, strings), owner in zip(fn.string_compares, owned, strict=True):
                if subject[0] == "attr":
                    if owner is not None:
                        compared.setdefault((owner, subject[2]), set()).update(strings)
                elif subject[1] in names:
                    by_param.setdefault(fn.qualname, {}).setdefault(subject[1], set()).update(
                        strings
                    )
        # A parameter compared against strings takes them into the attribute passed to it.
        callee_names = {q.rsplit(".", 1)[-1] for q in by_param}
        calls = [
            (fn, call)
            for fn in self.model.functions.values()  # with what the owners loaded
            for call in fn.calls
            if _callee_name(call.func) in callee_names
        ]

        def passed(item: tuple[FunctionFacts, CallFact]) -> list[tuple[str, str, set[str]]]:
            """(owner, attribute, strings) for each attribute ``call`` passes to a
            parameter compared against strings."""
            fn, call = item
            out = []
            for target in self.model.call_targets(fn, call.func):
                wanted = by_param.get(target)
                if wanted is None:
                    continue
                callee = self.model.functions[target]
                bound = bind_arguments(callee, call.func, call.args, skip_receiver_always=True)
                for param, arg in bound:
                    if arg[0] != "attr":
                        continue
                    strings = wanted.get(param)
                    owner = self._string_owner(fn, arg) if strings else None
                    if strings and owner is not None:
                        out.append((owner, arg[2], strings))
            return out

        for found_passed in self.model.batched(calls, passed):
            for owner, attr, given in found_passed:
                compared.setdefault((owner, attr), set()).update(given)
        for (owner, attr), found in sorted(compared.items()):
            if len(found) < 2:
                continue
            ordered = tuple(sorted(found))
            key = f"{owner}.{attr}" if owner else attr
            variant = Variant(f"str:{key}", "string", ordered, ordered)
            self.by_name[variant.qualname] = variant
            self._string_names.add(attr)
            if not owner:
                self.carriers[attr] = variant

    def _compared_owners(self, fn: FunctionFacts) -> list[str | None]:
        """:meth:`_string_owner` of each attribute ``fn`` compares with strings."""
        return [
            self._string_owner(fn, subject) if subject[0] == "attr" else None
            for subject, _ in fn.string_compares
        ]

    def _string_owner(self, fn: FunctionFacts, subject: Expr) -> str | None:
        """Class of ``X`` in ``X.attr`` ("" when unknown); None when the attribute holds
        an Enum or Literal variant."""
        cls = self.model.type_of(fn, subject[1])
        if subject[2] in self.carrier_names:
            if cls is None or self.class_attr_variant(cls, subject[2]) is not None:
                return None
        elif cls is not None and self._copy_in_class(cls, subject[2]) is not None:
            return None
        return cls or ""

    def _string_attr_variant(self, fn: FunctionFacts, expr: Expr) -> Variant | None:
        """The string variant of ``X.attr``: by X's class when known, else by name."""
        attr = expr[2]
        cls = self.model.type_of(fn, expr[1])
        if cls is not None:
            for klass in (*self.model.mro(cls), *self.model.descendants(cls)[:50]):
                found = self.by_name.get(f"str:{klass}.{attr}")
                if found is not None:
                    return found
            return None
        return self.carriers.get(attr)

    def member_params(self, fn: FunctionFacts) -> list[tuple[Variant, str]]:
        """Parameters with no annotation compared with the members of one enum where
        ``fn`` branches or returns (``algo is Algo.EAGLE``, ``kind in (Kind.A,
        Kind.B)``). (One annotated otherwise, ``status: Optional[int]`` compared with
        an ``IntEnum``'s members, is a value the function maps, not a variant.)"""
        module = self.model.module_of(fn)
        params = {p for p, ann in fn.params if ann is None}
        found: dict[str, set[str]] = {}
        conditions = {id(e): e for r in fn.returns for e, _ in r.guards}
        for node in (n for e in conditions.values() for n in nodes(e)):
            if node[0] != "cmp" or len(node[2]) != 1:
                continue
            for side, other in ((node[1], node[3][0]), (node[3][0], node[1])):
                if side[0] != "name" or side[1] not in params:
                    continue
                for named in other[1] if other[0] == "seq" else (other,):
                    if named[0] != "attr" or named[1][0] not in ("name", "attr"):
                        continue
                    owner = self.model.resolve_dotted(fn, module, named[1])
                    variant = self.by_name.get(owner) if owner is not None else None
                    if variant is not None and variant.kind == "enum":
                        found.setdefault(side[1], set()).add(variant.qualname)
        for param, qualname in self._table_keys(fn, params, module):
            found.setdefault(param, set()).add(qualname)
        return [(self.by_name[next(iter(q))], p) for p, q in sorted(found.items()) if len(q) == 1]

    def _table_keys(
        self, fn: FunctionFacts, params: set[str], module: str
    ) -> Iterator[tuple[str, str]]:
        """(parameter, enum) for a parameter ``fn`` looks up in a table whose every key
        is a member of that enum (``_BUILDERS.get(kind)``, ``_BUILDERS[kind]``)."""
        values = [v for _, v in fn.assigns]
        values += [("call", c.func, c.args, c.kwargs) for c in fn.calls]
        for value in values:
            for node in nodes(value):
                if node[0] == "call" and node[1][0] == "attr" and node[1][2] == "get":
                    table, key = node[1][1], node[2][0] if node[2] else None
                elif node[0] == "subscript":
                    table, key = node[1], node[2]
                else:
                    continue
                if key is None or key[0] != "name" or key[1] not in params:
                    continue
                owner = self._key_enum(fn, module, table)
                if owner is not None:
                    yield key[1], owner

    def _key_enum(self, fn: FunctionFacts, module: str, table: Expr) -> str | None:
        """The enum every key of the table ``table`` is a member of (None: not one)."""
        owners: set[str | None] = set()
        for key, _ in self.model.entries(fn, module, table):
            scope: FunctionFacts | None = fn
            where = module
            while key is not None and key[0] == "scoped":
                scope = self.model.functions.get(key[1]) if key[1] else None
                where, key = key[2], key[3]
            if key is None or key[0] != "attr" or key[1][0] not in ("name", "attr"):
                return None
            owners.add(self.model.resolve_dotted(scope, where, key[1]))
        owner = owners.pop() if len(owners) == 1 else None
        variant = self.by_name.get(owner) if owner is not None else None
        return variant.qualname if variant is not None and variant.kind == "enum" else None

    def string_params(self, fn: FunctionFacts) -> list[tuple[Variant, str]]:
        """Parameters compared against strings that all belong to one string variant."""
        compared: dict[str, set[str]] = {}
        for subject, strings in fn.string_compares:
            if subject[0] == "name":
                compared.setdefault(subject[1], set()).update(strings)
        params = {p for p, _ in fn.params}
        out: list[tuple[Variant, str]] = []
        for name, found in sorted(compared.items()):
            if name not in params:
                continue
            fits = [
                v for v in self.by_name.values() if v.kind == "string" and found <= set(v.members)
            ]
            if len(fits) == 1:
                out.append((fits[0], name))
        return out

    # evaluation -------------------------------------------------------------
    def denotes(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> bool:
        """Whether ``expr`` is the variant value in ``fn``."""
        kind = expr[0]
        if kind == "name":
            name = expr[1]
            if name in bound:
                return True
            if name == "self" and fn.cls == variant.qualname:
                return True
            for pname, ann in fn.params:
                if pname == name:
                    return self.variant_of_annotation(ann, self.model.module_of(fn), fn) is variant
            values = assigned_values(fn, name)
            if len(values) != 1:
                return False
            value = values[0]
            if value[0] == "attr":
                return self.denotes(value, fn, variant, bound)
            # the setting converted to the enum here (``algo = Algo.from_string(
            # self.algorithm)``, ``kind = Kind(args.kind)``): the member it names
            return (
                value[0] == "call"
                and value[1][0] in ("name", "attr")
                and len(value[2]) == 1
                and value[2][0][0] in ("name", "attr")
                and self._made_member(fn, self.model.module_of(fn), value) is variant
            )
        if kind == "attr":
            return self.attr_variant(fn, expr) is variant or self.converted_setting(
                expr, fn, variant
            )
        return False

    def converted_setting(self, expr: Expr, fn: FunctionFacts, variant: Variant) -> bool:
        """Whether ``expr`` is a setting string the program converts to the enum by
        member name (``E.from_string(args.algo)``), compared as that member's name."""
        if expr[0] != "attr" or expr[2] not in self.converted.get(variant.qualname, ()):
            return False
        held = self.attr_variant(fn, expr)
        return held is not None and held.kind == "string"

    def attr_variant(self, fn: FunctionFacts, expr: Expr) -> Variant | None:
        """The variant ``X.attr`` holds: from X's class when known, else by name."""
        key = (fn.qualname, id(expr))
        if key in self._attr_cache:
            return self._attr_cache[key]
        found: Variant | None = None
        name = expr[2]
        if name in self._string_names:
            found = self._string_attr_variant(fn, expr)
        if found is None and name in self.carrier_names:
            cls = self.model.type_of(fn, expr[1])
            if cls is not None:
                found = self.class_attr_variant(cls, name)
            if found is None:
                found = self.carriers.get(name)
        elif found is None and expr[1] == ("name", "self"):
            cls = self.model.type_of(fn, expr[1])
            if cls is not None:
                found = self._copy_in_class(cls, name)
        self._attr_cache[key] = found
        return found

    def class_attr_variant(
        self, cls: str, name: str, subclasses: bool = True, held: bool = True
    ) -> Variant | None:
        """The variant ``name`` holds in a ``cls`` (or, with ``subclasses``, declared
        in a subclass; with ``held``, the enum whose member it holds)."""
        below = self.model.descendants(cls)[:50] if subclasses else ()
        for klass in (*self.model.mro(cls), *below):
            facts = self.model.classes.get(klass)
            if facts is None:
                continue
            module = self.model.class_module[klass]
            for attr, ann in facts.annotations:
                if attr == name:
                    variant = self.variant_of_annotation(ann, module, None)
                    if variant is not None:
                        return variant
        # stored by a method (``self.kind = kind`` from a parameter annotated with a
        # Literal alias, a member, a conversion), then a class it holds (an enum's)
        for klass in self.model.mro(cls):
            stored = self._stored_variants(klass).get(name)
            if stored is not None:
                return stored
        copied = self._copy_in_class(cls, name)
        if copied is not None:
            return copied
        compared = self._compared_in_class(cls, name)
        if compared is not None:
            return compared
        if not held:
            return None
        found = self.model.attribute_class(cls, name)
        return self.by_name.get(found) if found is not None else None

    def _stored_variants(self, cls: str) -> dict[str, Variant]:
        """The variant each attribute of ``cls`` is stored as by its own methods (see
        :meth:`_function_carriers`), where one variant fits."""
        found = self._class_stores.get(cls)
        if found is None:
            seen: dict[str, set[str]] = {}
            for method in self.model.methods_of.get(cls, ()):
                for attr, variant in self._function_carriers(method):
                    seen.setdefault(attr, set()).add(variant.qualname)
            found = self._class_stores[cls] = {
                attr: self.by_name[next(iter(q))] for attr, q in seen.items() if len(q) == 1
            }
        return found

    def mentions(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> bool:
        """Whether the variant value occurs anywhere in ``expr``."""
        key = (fn.qualname, expr, variant.qualname, bound)
        found = self._mentions.get(key)
        if found is None:
            found = self._mentions[key] = self._mentions_walk(expr, fn, variant, bound)
        return found

    def _mentions_walk(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> bool:
        stack = [expr]
        while stack:
            node = stack.pop()
            if not isinstance(node, tuple) or not node:
                continue
            if node[0] in ("name", "attr") and self.denotes(node, fn, variant, bound):
                return True
            if node[0] == "name" and self.local_lookup(node, fn, variant, bound) is not None:
                return True
            if node[0] == "attr" and variant.qualname in self.carrier_names.get(node[2], ()):
                return True  # a name that holds this variant somewhere: cannot rule it out
            if node[0] == "attr" and self._unknown_variant_method(node, fn, variant):
                return True
            if (
                node[0] == "attr"
                and variant.kind == "string"
                and variant.qualname[4:].rsplit(".", 1)[-1] == node[2]
            ):
                return True
            parts = node[1:] if isinstance(node[0], str) else node
            stack.extend(p for p in parts if isinstance(p, tuple))
        return False

    def _unknown_variant_method(self, node: Expr, fn: FunctionFacts, variant: Variant) -> bool:
        """``x.is_tree()`` or ``x.drafts`` where the enum variant's class defines that
        method or property and what ``x`` holds is not known: it may be the variant,
        so the condition cannot be ruled independent of it."""
        if variant.kind != "enum" or variant.qualname not in self.model.classes:
            return False
        if self.model.lookup_method(variant.qualname, node[2]) is None:
            return False
        return not self.model.types_of(fn, node[1])

    def member_of(self, expr: Expr, fn: FunctionFacts, variant: Variant) -> list[int] | None:
        """Indices of members a constant-like expression names (``E.X``, ``"x"``, a
        tuple or set of them, a module-level constant holding one)."""
        return self.members_in(expr, fn, self.model.module_of(fn), variant, 0)

    def members_in(
        self, expr: Expr, fn: FunctionFacts | None, module: str, variant: Variant, depth: int
    ) -> list[int] | None:
        """:meth:`member_of` of ``expr`` read in ``fn`` (None: at the top of ``module``)."""
        kind = expr[0]
        if depth > 8:
            return None
        if kind == "scoped":  # written in another scope (a table's key: Model.entries)
            scope = self.model.functions.get(expr[1]) if expr[1] else None
            return self.members_in(expr[3], scope, expr[2], variant, depth + 1)
        if kind == "seq":
            out: list[int] = []
            for elt in expr[1]:
                found = self.members_in(elt, fn, module, variant, depth + 1)
                if found is None:
                    return None
                out.extend(found)
            return out
        if (
            kind == "call"
            and expr[1][0] == "name"
            and expr[1][1] in ("frozenset", "set", "tuple", "list")
            and len(expr[2]) == 1
        ):
            return self.members_in(expr[2][0], fn, module, variant, depth + 1)
        if kind == "call" and _callee_name(expr[1]) == "get_args" and len(expr[2]) == 1:
            # ``get_args(MTPMethods)``: the literals of an alias, as members
            literals = self._literals_of_alias(fn, module, expr[2][0])
            if literals is None:
                return None
            return [i for i, v in enumerate(variant.values) for x in literals if _same(v, x)]
        if kind == "const":
            value = expr[1]
            # an enum member's value None means "not a constant"; a literal's is None
            found = [
                i
                for i, v in enumerate(variant.values)
                if (v is not None or variant.kind == "literal")
                and v == value
                and type(v) is type(value)
            ]
            if found or variant.kind in ("literal", "string"):
                return found
            if variant.kind == "enum" and isinstance(value, str):
                # a setting string converted by member name (``Algo[name.upper()]``)
                return [i for i, m in enumerate(variant.members) if m == value.upper()] or None
            return None
        if kind == "union" and self._is_flag(variant):
            # ``Proto.RDMA | Proto.NVLINK``: a composite flag, which ``in`` tests as a set
            out = []
            for side in expr[1:]:
                found = self.members_in(side, fn, module, variant, depth + 1)
                if found is None:
                    return None
                out.extend(found)
            return out
        if kind == "attr" and variant.kind == "enum":
            owner = self.model.resolve_dotted(fn, module, expr[1])
            if owner == variant.qualname:
                return list(variant.positions.get(expr[2], ()))
        if kind in ("name", "attr"):
            constant = self._module_constant(fn, module, expr)
            if constant is not None:
                where, value = constant
                return self.members_in(value, None, where, variant, depth + 1)
        return None

    def _is_flag(self, variant: Variant) -> bool:
        """Whether the variant is an ``enum.Flag`` (or ``IntFlag``): its members combine
        with ``|`` into a composite that ``in`` tests bit by bit."""
        return variant.kind == "enum" and any(
            base in ("enum.Flag", "enum.IntFlag") for base in self.model.mro(variant.qualname)
        )

    def _literals_of_alias(
        self, fn: FunctionFacts | None, module: str, expr: Expr
    ) -> list[object] | None:
        """The literals of the ``Literal[...]`` alias ``expr`` names; None for anything else."""
        if expr[0] not in ("name", "attr"):
            return None
        target = self.model.resolve_dotted(fn, module, expr)
        value = self.model.module_assigns.get(target or "")
        if target is None or value is None:
            return None
        return self._literals(value, target.rsplit(".", 1)[0])

    def _module_constant(
        self, fn: FunctionFacts | None, module: str, expr: Expr
    ) -> tuple[str, Expr] | None:
        """(its module, its value) for a name of a module-level constant (``SUPPORTED =
        frozenset({Algo.A})``); None for anything else (a class, a function, a local)."""
        if fn is not None and expr[0] == "name" and any(n == expr[1] for n, _ in fn.assigns):
            return None  # a local of the function
        model = self.model
        target = model.resolve_dotted(fn, module, expr)
        if target is None or target in model.functions or target in model.classes:
            return None
        value = model.module_assigns.get(target)
        if value is None or value[0] not in ("seq", "call", "name", "attr", "union"):
            return None
        return target.rsplit(".", 1)[0], value

    def table_lookup(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> set[int] | None:
        """Members for which ``TABLE.get(v)`` finds a value (a non-None default covers
        every member), or ``getattr(obj, f"_build_{v}", None)`` finds an attribute;
        None when not such a lookup or what it reads is not known."""
        if expr[0] != "call":
            return None
        module = self.model.module_of(fn)
        if self.model.is_builtin(fn, module, expr[1], "getattr"):
            return self._attribute_lookup(expr, fn, variant, bound)
        if not (expr[1][0] == "attr" and expr[1][2] == "get" and expr[2]):
            return None
        if not self.denotes(expr[2][0], fn, variant, bound):
            return None
        keys = self.container_keys(expr[1][1], fn, variant)
        if keys is None:
            return None
        default = expr[2][1] if len(expr[2]) > 1 else ("const", None)
        if default != ("const", None):
            return set(range(len(variant.members)))
        return keys

    def container_keys(
        self, container: Expr, fn: FunctionFacts, variant: Variant
    ) -> set[int] | None:
        """The members the keys of a dict hold (a literal, a local, a module constant or
        an attribute its class stores one in, with what a registry gets at import
        time: :meth:`Model.entries`); None when it holds no entry, an entry with no key
        or a key that names no member, or a None value (found, yet nothing built)."""
        module = self.model.module_of(fn)
        entries = self.model.entries(fn, module, container)
        if not entries:
            return None
        keys: set[int] = set()
        for key, value in entries:
            found = None if key is None else self.members_in(key, fn, module, variant, 0)
            while value[0] == "scoped":
                value = value[3]
            if found is None or value == ("const", None):
                return None
            keys.update(found)
        return keys

    def entry_for(
        self, container: Expr, fn: FunctionFacts, variant: Variant, member: int
    ) -> list[tuple[FunctionFacts | None, str, Expr]] | None:
        """(scope, module, value) of the entries of a dict keyed by members (as
        :meth:`container_keys` reads it) whose key is the member; None when a key is
        not read."""
        module = self.model.module_of(fn)
        out: list[tuple[FunctionFacts | None, str, Expr]] = []
        for key, value in self.model.entries(fn, module, container):
            found = None if key is None else self.members_in(key, fn, module, variant, 0)
            if found is None:
                return None
            if member not in found:
                continue
            scope: FunctionFacts | None = fn
            where = module
            while value[0] == "scoped":
                scope = self.model.functions.get(value[1]) if value[1] else None
                where, value = value[2], value[3]
            out.append((scope, where, value))
        return out

    def _attribute_lookup(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> set[int] | None:
        """``getattr(obj, name, None)`` with a name made from the member (an f-string,
        a concatenation, a method of its name): the members whose name ``obj``'s class
        defines (a method or a class attribute), for every class ``obj`` may hold."""
        args = expr[2]
        if len(args) != 3 or args[2] != ("const", None) or expr[3]:
            return None
        if not self.mentions(args[1], fn, variant, bound):
            return None
        classes = self.model.types_of(fn, args[0])
        if not classes:
            return None
        module = self.model.module_of(fn)
        found: set[int] = set()
        for member in range(len(variant.members)):
            name = self._member_values(fn, variant, member, bound).value(args[1], fn, module)
            if not isinstance(name, str):
                return None
            defined = {self._defines(cls, name) for cls in classes}
            if len(defined) != 1:
                return None
            if defined.pop():
                found.add(member)
        return found

    def _defines(self, cls: str, name: str) -> bool:
        """Whether instances of ``cls`` have the attribute ``name`` from their class: a
        method or a class-level assignment, its own or a base's."""
        if self.model.lookup_method(cls, name) is not None:
            return True
        for klass in self.model.mro(cls):
            facts = self.model.classes.get(klass)
            if facts is not None and any(n == name for n, _, _ in facts.assigns):
                return True
        return False

    def local_lookup(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> tuple[Expr, set[int]] | None:
        """A local assigned once from ``TABLE.get(v)``, or that lookup itself (``(maker
        := TABLE.get(v)) is None``): (that call, members with a value)."""
        if expr[0] == "call":
            found = self.table_lookup(expr, fn, variant, bound)
            return None if found is None else (expr, found)
        if expr[0] != "name":
            return None
        values = assigned_values(fn, expr[1])
        if len(values) != 1:
            return None
        found = self.table_lookup(values[0], fn, variant, bound)
        return None if found is None else (values[0], found)

    def truth(
        self,
        expr: Expr,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str] = frozenset(),
        depth: int = 0,
    ) -> Truth:
        """Truth of ``expr`` in ``fn`` when the variant is member number ``member``."""
        if depth > 40:
            return UNKNOWN
        kind = expr[0]
        d = depth + 1
        if kind == "and":
            return _and([self.truth(e, fn, variant, member, bound, d) for e in expr[1]])
        if kind == "or":
            return _or([self.truth(e, fn, variant, member, bound, d) for e in expr[1]])
        if kind == "not":
            return _not(self.truth(expr[1], fn, variant, member, bound, d))
        if kind == "const":
            return T if expr[1] else F
        anywhere = self._settled_anywhere.get(variant.qualname)
        if anywhere and kind in ("name", "attr", "call"):
            key = self.setting_key(fn, expr)
            if key is not None and key in anywhere:  # settled for some member
                self._member_reads += 1
                settled = self.settled.get((variant.qualname, member), {})
                if key in settled:
                    return T if settled[key] else F
        if kind == "cmp":
            return self._compare(expr, fn, variant, member, bound)
        if kind == "call" or (kind == "attr" and self._reads_property(expr, fn, variant, bound)):
            # a property read (``algo.drafts``, ``cfg.uses_tree``) is a call of it
            call = expr if kind == "call" else ("call", expr, (), ())
            result = self._call_truth(call, fn, variant, member, bound, d)
            if result is not None:
                return result
        if kind == "name":
            lookup = self.local_lookup(expr, fn, variant, bound)
            if lookup is not None:
                self._member_reads += 1
                return T if member in lookup[1] else F
        if not self.mentions(expr, fn, variant, bound):
            return MAYBE
        return self._evaluated(expr, fn, variant, member, bound)

    def _evaluated(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, member: int, bound: frozenset[str]
    ) -> Truth:
        """The truth of a condition the member decides as a constant (a registration's
        flags, ``TRAITS[self] & TREE``); UNKNOWN when it does not."""
        value = self._member_values(fn, variant, member, bound).value(
            expr, fn, self.model.module_of(fn)
        )
        if value is UNKNOWN_VALUE:
            return UNKNOWN
        self._member_reads += 1
        return T if value else F

    def _member_values(
        self, fn: FunctionFacts, variant: Variant, member: int, bound: frozenset[str]
    ) -> MemberValues:
        """The evaluator of expressions read in ``fn`` for the member."""
        return MemberValues(
            self.model,
            self.registry,
            variant.qualname,
            member,
            lambda e, where: self.denotes(e, where, variant, bound if where is fn else frozenset()),
            lambda e, where, module: self.members_in(e, where, module, variant, 0),
            (variant.kind, variant.members[member], variant.values[member]),
        )

    def _compare(
        self,
        expr: Expr,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str],
    ) -> Truth:
        left, ops, rights = expr[1], expr[2], expr[3]
        if len(ops) != 1:
            return UNKNOWN if self.mentions(expr, fn, variant, bound) else MAYBE
        op, right = ops[0], rights[0]
        if op not in ("is", "is not", "==", "!=", "in", "not in"):
            if not self.mentions(expr, fn, variant, bound):
                return MAYBE
            return self._evaluated(expr, fn, variant, member, bound)
        if op in ("is", "is not", "==", "!=") and ("const", None) in (left, right):
            other_side = right if left == ("const", None) else left
            lookup = self.local_lookup(other_side, fn, variant, bound)
            if lookup is not None:
                self._member_reads += 1
                found = member in lookup[1]
                return T if found == (op in ("is not", "!=")) else F
            held = self._attribute_set(fn, other_side, variant)
            if held is not None:
                # ``self.drafter = make(args) if algo.drafts() else None``: None for the
                # members that never take the value, never None for those that always
                # do (the answer is the member's, whichever it is)
                self._member_reads += 1
                if member not in held[0] or member not in held[1]:
                    is_set = member in held[0]
                    return T if is_set == (op in ("is not", "!=")) else F
            if self._read_from(fn, other_side, variant, bound):
                # ``if self.spec_config is None: return`` then ``mode =
                # self.spec_config.mode``: a request of a member has the object the
                # member is read from
                self._member_reads += 1
                return T if op in ("is not", "!=") else F
        if self.denotes(left, fn, variant, bound) or self._holds_member(left, right, fn, variant):
            other = right
        elif (
            self.denotes(right, fn, variant, bound) or self._holds_member(right, left, fn, variant)
        ) and op in ("==", "!=", "is", "is not"):
            other = left
        elif not self.mentions(expr, fn, variant, bound):
            return MAYBE
        else:
            return self._evaluated(expr, fn, variant, member, bound)
        if other == ("const", None) and variant.kind == "enum":
            side = left if other is right else right
            hit = False
            if self.converted_setting(side, fn, variant):  # None converts to some member, maybe
                func = self.converted[variant.qualname][side[2]]
                none_members = self._none_members(variant, func)
                if none_members is None:
                    return UNKNOWN
                self._member_reads += 1
                hit = member in none_members
        else:
            members = self.member_of(other, fn, variant)
            if members is None and op in ("in", "not in"):
                keyed = self.container_keys(other, fn, variant)  # ``algo in BUILDERS``
                members = None if keyed is None else sorted(keyed)
            if members is None:
                return UNKNOWN
            self._member_reads += 1
            hit = member in members
        if op in ("==", "is", "in"):
            return T if hit else F
        if op in ("!=", "is not", "not in"):
            return F if hit else T
        return UNKNOWN

    def _read_from(
        self, fn: FunctionFacts, obj: Expr, variant: Variant, bound: frozenset[str]
    ) -> bool:
        """Whether ``fn`` reads the variant value as an attribute of ``obj`` (``mode =
        obj.mode``, ``obj.mode.is_tree()``), ``obj`` an attribute or a name."""
        if obj[0] not in ("name", "attr"):
            return False
        key = (fn.qualname, obj, variant.qualname, bound)
        found = self._reads_from.get(key)
        if found is None:
            found = self._reads_from[key] = any(
                node[1] == obj and self.denotes(node, fn, variant, bound)
                for node in self._attribute_nodes(fn)
            )
        return found

    def _attribute_nodes(self, fn: FunctionFacts) -> list[Expr]:
        """The attribute reads in what ``fn`` assigns, calls and branches on (each
        object's reads are asked of them for every variant)."""
        found = self._attribute_reads.get(fn.qualname)
        if found is None:
            candidates = [value for _, value in fn.assigns] + [call.func for call in fn.calls]
            candidates += [test for test, _, _ in fn.branches]
            found = self._attribute_reads[fn.qualname] = [
                node for candidate in candidates for node in nodes(candidate) if node[0] == "attr"
            ]
        return found

    def _attribute_set(
        self, fn: FunctionFacts, expr: Expr, variant: Variant
    ) -> tuple[set[int], set[int]] | None:
        """(members for which ``self.<attr>`` may hold a value, members for which it may
        be None) from every store of it in the classes of ``self`` (each side of ``x if
        test else None`` with that test): None when a test of a store is not known or
        nothing stores it."""
        if expr[0] != "attr" or expr[1] != ("name", "self") or fn.cls is None:
            return None
        owner = self.model.self_class(fn) or fn.cls
        key = (owner, expr[2], variant.qualname)
        if key in self._attr_set:
            return self._attr_set[key]
        self._attr_set[key] = None  # a store testing the attribute itself: unknown
        stores: list[tuple[FunctionFacts, Expr, Guards]] = []
        for klass in self.model.mro(owner):
            for method in self.model.methods_of.get(klass, ()):
                for store in method.stores:
                    if store.target != expr:
                        continue
                    value = store.value
                    if value[0] == "ifexp":
                        stores.append((method, value[2], (*store.guards, (value[1], True))))
                        stores.append((method, value[3], (*store.guards, (value[1], False))))
                    else:
                        stores.append((method, value, store.guards))
        if not any(value == ("const", None) for _, value, _ in stores):
            return None  # never stored None here: a question for the class's default
        may_set: set[int] = set()
        may_none: set[int] = set()
        for method, value, guards in stores:
            for member in range(len(variant.members)):
                truth = self.guards_truth(guards, method, variant, member)
                if truth is UNKNOWN:
                    return None
                if truth is not F:
                    (may_none if value == ("const", None) else may_set).add(member)
        self._attr_set[key] = (may_set, may_none)
        return self._attr_set[key]

    def _holds_member(self, side: Expr, other: Expr, fn: FunctionFacts, variant: Variant) -> bool:
        """Whether the attribute ``side``, compared with members of the enum (``other``),
        holds the request's member: its class is the enum (``self.algo`` stored from a
        function annotated to return it), where no annotation of its own says so."""
        if variant.kind != "enum" or side[0] != "attr":
            return False
        if self.member_of(other, fn, variant) is None or self.member_of(side, fn, variant):
            return False
        if self._held_variant(fn, side, 0) is variant:  # ``self.algo = args.algo``
            return True
        return self.model.types_of(fn, side) == frozenset((variant.qualname,))

    def _reads_property(
        self, expr: Expr, fn: FunctionFacts, variant: Variant, bound: frozenset[str]
    ) -> bool:
        """Whether ``X.name`` reads a ``@property`` (of the variant's class when X
        holds a member, else of X's class)."""
        if self.denotes(expr[1], fn, variant, bound):
            found = self.model.functions.get(f"{variant.qualname}.{expr[2]}")
        else:
            targets = self.model.call_targets(fn, expr)
            found = self.model.functions[targets[0]] if len(targets) == 1 else None
        return found is not None and is_property(found)

    def _call_truth(
        self,
        expr: Expr,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str],
        depth: int,
    ) -> Truth | None:
        func, args = expr[1], expr[2]
        model = self.model
        targets: tuple[str, ...] = ()
        inner_bound: set[str] = set()
        if func[0] == "attr" and self.denotes(func[1], fn, variant, bound):
            method = f"{variant.qualname}.{func[2]}"
            if method in model.functions:
                targets = (method,)
                inner_bound.add("self")
                flagged = self._flag_truth(method, args, variant, member)
                if flagged is not None:
                    return flagged
        else:
            targets = model.call_targets(fn, func)
        if len(targets) != 1:
            return None
        target = model.functions[targets[0]]
        for param, arg in bind_arguments(target, func, args):
            if self.denotes(arg, fn, variant, bound):
                inner_bound.add(param)
        self._member_reads += 1
        return self.function_truth(target, variant, member, frozenset(inner_bound), depth)

    def _flag_truth(
        self, method: str, args: tuple[Expr, ...], variant: Variant, member: int
    ) -> Truth | None:
        """``member.has_flag("TREE")`` of a registered member: whether its registration
        gives that flag (``flags=("TREE",)``); None when this is no such test."""
        if len(args) != 1 or args[0][0] != "const" or not isinstance(args[0][1], str):
            return None
        if not self.registry.is_flag_test(self.model.functions[method]):
            return None
        param = self.registry.flag_parameter(variant.qualname, args[0][1])
        if param is None:
            return None
        found = self.registry.has_flag(variant.qualname, member, param, args[0][1])
        if found is None:
            return None
        self._member_reads += 1
        return T if found else F

    def function_truth(
        self,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str],
        depth: int = 0,
    ) -> Truth:
        """What ``fn`` returns for the member, read as a condition."""
        key = (fn.qualname, variant.qualname, str(member), tuple(sorted(bound)))
        if key in self._pred_cache:
            return self._pred_cache[key]
        if key in self._walk:
            return self._walk[key]
        outermost = not self._active
        if key in self._active:
            # Every predicate on the cycle is unknown, whatever short-circuits.
            self.stats["predicate cycles"] += 1
            self._cyclic.update(k[0] for k in self._active)
            return UNKNOWN
        self._active.add(key)
        try:
            outcomes: list[Truth] = []
            for ret in fn.returns:
                reach = self.guards_truth(ret.guards, fn, variant, member, bound, depth + 1)
                if reach is F:
                    continue
                if reach is UNKNOWN:
                    outcomes.append(UNKNOWN)
                    continue
                value = ret.value if ret.value is not None else ("const", None)
                outcomes.append(self.truth(value, fn, variant, member, bound, depth + 1))
            if not outcomes or UNKNOWN in outcomes:
                result = UNKNOWN if outcomes else MAYBE
            elif all(o is T for o in outcomes):
                result = T
            elif all(o is F for o in outcomes):
                result = F
            else:
                result = MAYBE
            if fn.qualname in self._cyclic:
                result = UNKNOWN
            if result is UNKNOWN:
                self.stats["unknown predicates"] += 1
        finally:
            self._active.discard(key)
            if outermost:
                self._walk.clear()
        if not outermost:
            self._walk[key] = result
        if result is not UNKNOWN or depth == 0:
            self._pred_cache[key] = result
        return result

    def guards_truth(
        self,
        guards: Guards,
        fn: FunctionFacts,
        variant: Variant,
        member: int,
        bound: frozenset[str] = frozenset(),
        depth: int = 0,
    ) -> Truth:
        """Whether code under ``guards`` can run for the member."""
        outermost = depth == 0 and not self._active
        memo, free = self._guard_memo, self._member_free
        values = []
        for expr, polarity in guards:
            if outermost:
                # a condition guards many events (the statements of its block): its
                # truth, asked from outside any predicate, holds until a setting is
                # settled (by the expression's identity, kept in the value)
                key = (id(expr), fn.qualname, variant.qualname, bound)
                found = free.get(key)
                if found is None or found[0] is not expr:
                    member_key = (*key, member)
                    found = memo.get(member_key)
                    if found is None or found[0] is not expr:
                        reads = self._member_reads
                        found = (expr, self.truth(expr, fn, variant, member, bound, depth))
                        if self._member_reads == reads:  # the same for every member
                            free[key] = found
                        else:
                            memo[member_key] = found
                value = found[1]
            else:
                value = self.truth(expr, fn, variant, member, bound, depth)
            values.append(value if polarity else _not(value))
            if values[-1] is F:
                return F
        return _and(values) if values else T

    # settings tied to members by startup validators ------------------------------
    def _forget_truths(self) -> None:
        """Forget the truths of guards given so far (what they read has changed)."""
        self._pred_cache.clear()
        self._guard_memo.clear()
        self._member_free.clear()
        self.epoch += 1

    def settle(self, variant: Variant, member: int, setting: str, value: bool) -> None:
        """Record that ``setting`` (a :meth:`setting_key`) always has ``value`` when the
        variant is ``member``: a startup validator rejects the member with the other value."""
        settled = self.settled.setdefault((variant.qualname, member), {})
        if settled.get(setting) is not value:
            settled[setting] = value
            self._settled_anywhere.setdefault(variant.qualname, set()).add(setting)
            self._forget_truths()  # answers given so far read the setting as MAYBE

    def setting_key(self, fn: FunctionFacts, expr: Expr) -> str | None:
        """One name for the setting ``expr`` reads in ``fn``, the same wherever it is read.

        Names and attribute chains resolve through imports (``envs.FLAG.get()``
        is ``pkg.environ.envs.FLAG.get()`` in every module); an attribute of an
        object of known class is ``Class.attr``; a local assigned once, and
        ``self.flag`` when every store of it assigns one setting, stand for that
        setting. None when any part is unknown.
        """
        key = (fn.qualname, id(expr))
        if key not in self._setting_cache:
            self._setting_cache[key] = None  # a cycle through ``self.flag`` is unknown
            self._setting_cache[key] = self._setting_key(fn, expr, 0)
        return self._setting_cache[key]

    def _setting_key(self, fn: FunctionFacts, expr: Expr, depth: int) -> str | None:
        if depth > 12:
            return None
        kind = expr[0]
        if kind == "const":
            return repr(expr[1])
        if kind == "call":
            func = self._setting_key(fn, expr[1], depth + 1)
            args = [self._setting_key(fn, e, depth + 1) for e in expr[2]]
            names = [f"{k}=" for k, _ in expr[3]]
            args += [self._setting_key(fn, e, depth + 1) for _, e in expr[3]]
            if func is None or None in args:
                return None
            labels = [""] * len(expr[2]) + names
            return f"{func}({', '.join(f'{n}{a}' for n, a in zip(labels, args, strict=True))})"
        if kind not in ("name", "attr"):
            return None
        model = self.model
        resolved = model.resolve_dotted(fn, model.module_of(fn), expr)
        if resolved is not None:
            return resolved
        if kind == "name":
            values = assigned_values(fn, expr[1])
            if len(values) == 1 and values[0] != expr:
                return self._setting_key(fn, values[0], depth + 1)
            return None
        if expr[1] == ("name", "self") and fn.cls is not None:
            stored = self._stored_setting(fn.cls, expr[2])
            if stored is not None:
                return stored
        cls = model.type_of(fn, expr[1])
        if cls is not None:
            return f"{cls}.{expr[2]}"
        base = self._setting_key(fn, expr[1], depth + 1)
        return None if base is None else f"{base}.{expr[2]}"

    def _stored_setting(self, cls: str, attr: str) -> str | None:
        """The setting every ``self.attr = ...`` of the class (and its relatives) stores."""
        found: set[str | None] = set()
        model = self.model
        for klass in (*model.mro(cls), *model.descendants(cls)[:50]):
            for method in model.methods_of.get(klass, ()):
                for store in method.stores:
                    if store.target == ("attr", ("name", "self"), attr):
                        found.add(self.setting_key(method, store.value))
        if len(found) == 1:
            return next(iter(found))
        return None

    # normalisation after construction ----------------------------------------------
    def normalisation(
        self, owner: str, attr: str, variant: Variant, normalisers: tuple[str, ...] = ()
    ) -> Normalisation:
        """What constructing an ``owner`` does to the variant held in ``attr``: the members
        rewritten into others (``if self.method in get_args(MTP) and self.method !=
        "mtp": self.method = "mtp"``; ``self.algo = resolve(self.algo)``; ``self.mode =
        Mode.WIDE if mode is Mode.WIDER else mode``; a parameter every construction
        passes from objects whose own construction rewrote it, ``Worker(self.handler.
        mode)``), which can no longer be there once the object is made.

        The construction is ``__init__``, then ``__post_init__`` and the methods
        decorated as validators run after it (found through the class's bases), with
        the methods of ``self`` they call and the functions they give ``self`` to
        (``handle_args(self)``), and the functions of ``normalisers`` (a pack's); a
        member is rewritten when, every store of the attribute read in the order it
        runs, its last value is known and is not the member. Under a test that does
        not read the variant, a ``raise`` makes no object, and a bare ``return`` of the
        construction (``if self.model_path == "dummy": return``) an object that is not
        configured: what runs after them is read as if it always ran.
        """
        key = (owner, attr, variant.qualname, normalisers)
        found = self._normalised.get(key)
        if found is None:
            steps = self.construction(owner, normalisers)
            rewrites: dict[int, Rewrite] = {}
            read: dict[str, None] = {}
            for member in range(len(variant.members)):
                state = _Rewriting(member, read)
                for fn in steps:
                    self._rewrite(fn, attr, variant, state, T, 0)
                if state.values is not None and member not in state.values and state.site:
                    rewrites[member] = state.site
            if rewrites and self._stored_elsewhere(owner, attr, read):
                rewrites = {}  # state the object changes later, not a setting made once
            found = Normalisation(owner, attr, variant, rewrites, tuple(read))
            self._normalised[key] = found
        return found

    def construction(self, owner: str, normalisers: tuple[str, ...]) -> list[FunctionFacts]:
        """The functions that run, in order, when an ``owner`` is made (not the methods
        of ``self`` they call)."""
        model = self.model
        out: list[FunctionFacts] = []
        for name in ("__init__", "__post_init__"):
            qual = model.lookup_method(owner, name)
            if qual is not None:
                out.append(model.functions[qual])
        seen = {fn.qualname for fn in out}
        for klass in model.mro(owner):
            for fn in model.methods_of.get(klass, ()):
                if fn.qualname not in seen and any(
                    d.rsplit(".", 1)[-1] in _AFTER_INIT for d in fn.decorators
                ):
                    seen.add(fn.qualname)
                    out.append(fn)
        out += [model.functions[q] for q in normalisers if q in model.functions and q not in seen]
        return out

    def _stored_elsewhere(self, owner: str, attr: str, read: dict[str, None]) -> bool:
        """Whether a method of ``owner`` (or of a class related to it) other than those
        its construction runs stores ``self.attr``."""
        model = self.model
        target = ("attr", ("name", "self"), attr)
        return any(
            store.target == target and method.qualname not in read
            for klass in (*model.mro(owner), *model.descendants(owner)[:50])
            for method in model.methods_of.get(klass, ())
            for store in method.stores
        )

    def with_construction_strings(
        self, owner: str, attr: str, normalisers: tuple[str, ...]
    ) -> Variant | None:
        """The string variant of ``owner.attr`` with the strings its construction
        compares it with (``self.mode == "nextn"``, ``get_args(Alias)``), which a lazy
        model may not have loaded elsewhere; None when it is compared with none. An
        attribute holding an Enum or a Literal keeps that variant."""
        declared = self.class_attr_variant(owner, attr)
        if declared is not None:
            return declared
        strings: set[str] = set()
        target = ("attr", ("name", "self"), attr)
        for fn in self.construction(owner, normalisers):
            for subject, found in fn.string_compares:
                if subject[2:] == (attr,) and subject[0] == "attr":
                    strings.update(found)
            module = self.model.module_of(fn)
            tests = [n for st in fn.stores for cond, _ in st.guards for n in _walk(cond)]
            for node in tests:
                if node[0] != "cmp" or (target != node[1] and target not in node[3]):
                    continue
                for side in node[3]:
                    if side[0] == "call" and _callee_name(side[1]) == "get_args" and side[2]:
                        literals = self._literals_of_alias(fn, module, side[2][0])
                        strings.update(v for v in literals or () if isinstance(v, str))
        key = f"str:{owner}.{attr}"
        known = self.by_name.get(key)
        members = set(known.members if known is not None else ()) | strings
        if len(members) < 2:
            return known
        if known is None or members != set(known.members):
            ordered = tuple(sorted(members))
            self.by_name[key] = Variant(key, "string", ordered, ordered)
            self._string_names.add(attr)
            self._attr_cache.clear()
            self._mentions.clear()
            self._forget_truths()
            self._normalised.clear()
        return self.by_name[key]

    def may_rewrite(self, owner: str, attr: str, normalisers: tuple[str, ...]) -> bool:
        """Whether making an ``owner`` may rewrite ``attr`` once given, read without the
        variant: a store of it under a test of itself, or of what a function returns
        for it (``self.algo = resolve(self.algo)``)."""
        todo = [(fn, 0) for fn in self.construction(owner, normalisers)]
        seen: set[str] = set()
        while todo:
            fn, depth = todo.pop()
            if fn.qualname in seen:
                continue
            seen.add(fn.qualname)
            for store in fn.stores:
                target = store.target
                if target[0] != "attr" or target[2] != attr:
                    continue
                if _reads_itself(target, store.guards, store.value):
                    return True
            holders = [("name", "self"), *(("name", p) for p, _ in fn.params)]
            for call in fn.calls if depth < 2 else ():
                call_expr = ("call", call.func, call.args, call.kwargs)
                callee = self._construction_callee(fn, call_expr, holders)
                if callee is not None:
                    todo.append((callee, depth + 1))
        return False

    def _rewrite(
        self,
        fn: FunctionFacts,
        attr: str,
        variant: Variant,
        state: _Rewriting,
        reach: Truth,
        depth: int,
    ) -> None:
        """Follow, in ``fn`` (reached under ``reach``), the stores of ``attr`` and the
        calls of methods of ``self`` that may store it, in the order they run."""
        state.read[fn.qualname] = None
        holders = [("name", "self"), *(("name", p) for p, _ in fn.params)]
        events: list[tuple[tuple[int, int, int, int], Expr | None, Guards, Expr]] = [
            (store.span, store.value, store.guards, store.target)
            for store in fn.stores
            if store.target[0] == "attr" and store.target[2] == attr and store.target[1] in holders
        ]
        if depth < 2:
            events += [
                (call.span, None, call.guards, ("call", call.func, call.args, call.kwargs))
                for call in fn.calls
                if _of_self(fn, call.func) or any(arg in holders for arg in call.args)
            ]
        bailouts = self._bailouts(fn, variant, state.member, depth == 0)
        for span, value, guards, target in sorted(events, key=lambda e: e[0]):
            if state.values is None:
                return
            if bailouts:
                guards = tuple(g for g in guards if g[1] or g[0] not in bailouts)
            here = _and([reach, self.guards_truth(guards, fn, variant, state.member)])
            if here is F:
                continue
            if value is None:  # a call of a method of ``self``, or given it
                callee = self._construction_callee(fn, target, holders)
                if callee is not None and callee is not fn:
                    self._rewrite(callee, attr, variant, state, here, depth + 1)
                continue
            if here is UNKNOWN:
                state.values = None
                return
            given = self._given_rewrite(fn, value, variant, state.member)
            if given is not None and here is T:  # made from an object that rewrote it
                state.values, state.site = set(given.into), given
                continue
            stored = self._stored_members(value, fn, variant, state)
            if stored is None:
                state.values = None
                return
            if here is T:
                if (
                    state.member not in stored
                    and not _reads_itself(target, guards, value)
                    and not (  # ``Mode.WIDE if mode is Mode.DEEP else mode``
                        value[0] == "ifexp" and self.mentions(value[1], fn, variant, frozenset())
                    )
                ):
                    # a value set whatever was given (``self.state = State.NEW``): the
                    # attribute is initialised, not a given setting rewritten
                    state.values = None
                    return
                state.values = set(stored)
                if state.member not in stored:
                    state.site = Rewrite(tuple(sorted(stored)), fn.qualname, span)
            else:  # stored only under a condition that does not depend on the variant
                state.values |= stored

    def _looked_up(
        self, table: Expr, default: Expr, fn: FunctionFacts, variant: Variant, state: _Rewriting
    ) -> set[int] | None:
        """The members ``table.get(value, default)`` gives for the values ``state`` holds
        (``self.method = _ALIASES.get(self.method, self.method)``: an alias's entry, or
        the value itself); None when unknown."""
        out: set[int] = set()
        for held in state.values or ():
            entries = self.entry_for(table, fn, variant, held)
            if entries is None:
                return None
            if not entries:
                if self.denotes(default, fn, variant, frozenset()):
                    out.add(held)
                    continue
                entries = [(fn, self.model.module_of(fn), default)]
            for scope, module, entry in entries:
                found = self.members_in(entry, scope, module, variant, 0)
                if found is None:
                    return None
                out.update(found)
        return out

    def _given_rewrite(
        self, fn: FunctionFacts, value: Expr, variant: Variant, member: int
    ) -> Rewrite | None:
        """How the member is rewritten before a constructor is given it in its parameter
        ``value``: every construction passes an attribute of objects whose own
        construction rewrites it (``DraftWorker(self.handler.mode)``, the handler
        having folded the mode); None when one may pass it as it is."""
        if value[0] != "name" or fn.name != "__init__":
            return None
        if all(p != value[1] for p, _ in fn.params) or fn.qualname in self._giving:
            return None
        self._giving.add(fn.qualname)
        try:
            found: Rewrite | None = None
            sites = self.model.passed_arguments(fn, ("param", value[1]))
            for caller, arg in sites:
                if arg[0] != "attr":
                    return None
                owners = self.model.types_of(caller, arg[1])
                if not owners:
                    return None
                for owner in sorted(owners):
                    rewrite = self.normalisation(owner, arg[2], variant).rewrites.get(member)
                    if rewrite is None:
                        return None
                    found = found or rewrite
            return found
        finally:
            self._giving.discard(fn.qualname)

    def _construction_callee(
        self, fn: FunctionFacts, call: Expr, holders: list[Expr]
    ) -> FunctionFacts | None:
        """The function a call of the construction runs: a method of ``self``, or the
        one function given the object being made (``handle_args(self)``)."""
        func = call[1]
        if _of_self(fn, func):
            assert fn.cls is not None
            for qual in self.model.self_methods_named(fn.cls, func[2])[:1]:
                return self.model.functions.get(qual)
            return None
        targets = self.model.call_targets(fn, func)
        if len(targets) != 1 or not any(arg in holders for arg in call[2]):
            return None
        return self.model.functions.get(targets[0])

    def _bailouts(self, fn: FunctionFacts, variant: Variant, member: int, top: bool) -> set[Expr]:
        """The tests, whatever the variant, under which ``fn`` makes no configured
        object: it raises (no object is made), or, ``top`` of the construction, it
        returns at once (``if self.model_path == "dummy": return``)."""
        exits = list(fn.raises)
        if top:
            exits += [(r.span, r.guards) for r in fn.returns if not r.implicit and r.value is None]
        out: set[Expr] = set()
        for _, guards in sorted(exits, key=lambda e: e[0]):
            # past the exits before it (their tests failed), under a test of its own
            left = [g for g in guards if g[1] or g[0] not in out]
            if len(left) == 1 and left[0][1]:
                if self.guards_truth(tuple(left), fn, variant, member) is MAYBE:
                    out.add(left[0][0])
        return out

    def _stored_members(
        self, value: Expr, fn: FunctionFacts, variant: Variant, state: _Rewriting
    ) -> set[int] | None:
        """The members a store of ``value`` leaves in the attribute, while it holds
        ``state``'s values; None when unknown."""
        if value[0] == "name" and any(p == value[1] for p, _ in fn.params):
            return {state.member}  # the setting as it is given
        if value[0] == "ifexp":  # the side the member takes, or either
            truth = self.guards_truth(((value[1], True),), fn, variant, state.member)
            if truth is UNKNOWN:
                return None
            sides: set[int] = set()
            for side, takes in ((value[2], F), (value[3], T)):
                if truth is not takes:
                    taken = self._stored_members(side, fn, variant, state)
                    if taken is None:
                        return None
                    sides |= taken
            return sides
        if value[0] in ("name", "attr") and self.denotes(value, fn, variant, frozenset()):
            return set(state.values or ())  # the value it holds, as it was
        found = self.member_of(value, fn, variant)
        if found is not None:
            return set(found)
        if value[0] != "call":
            return None
        if (
            len(value[2]) == 1
            and not value[3]
            and variant.kind == "enum"
            and value[1][0] in ("name", "attr")
            and self.model.resolve_dotted(fn, self.model.module_of(fn), value[1])
            == variant.qualname
        ):
            # a conversion by the enum itself (``self.kind = Kind(kind)``): the
            # member of what it converts
            return self._stored_members(value[2][0], fn, variant, state)
        if (
            value[1][0] == "attr"
            and value[1][2] == "get"
            and len(value[2]) == 2
            and self.denotes(value[2][0], fn, variant, frozenset())
        ):
            return self._looked_up(value[1][1], value[2][1], fn, variant, state)
        cased = self._recased(value, fn, variant, state)
        if cased is not None:
            return cased
        targets = self.model.call_targets(fn, value[1])
        if len(targets) != 1:
            return None
        callee = self.model.functions[targets[0]]
        bound = frozenset(
            param
            for param, arg in bind_arguments(callee, value[1], value[2])
            if self.denotes(arg, fn, variant, frozenset())
        )
        if not bound:
            return None
        out: set[int] = set()
        for held in state.values or ():  # what the function returns for each value held
            for ret in callee.returns:
                reach = self.guards_truth(ret.guards, callee, variant, held, bound)
                if reach is F:
                    continue
                if reach is UNKNOWN or ret.value is None:
                    return None
                if ret.value[0] == "name" and ret.value[1] in bound:
                    out.add(held)
                    continue
                returned = self.member_of(ret.value, callee, variant)
                if returned is None:
                    return None
                out.update(returned)
        return out

    def _recased(
        self, value: Expr, fn: FunctionFacts, variant: Variant, state: _Rewriting
    ) -> set[int] | None:
        """``self.algo.upper()`` (``lower``, ``strip``...) of a string setting: the
        members the values it holds become; None for another call, or a value that
        becomes no member."""
        func = value[1]
        if variant.kind != "string" or func[0] != "attr" or value[2] or value[3]:
            return None
        if func[1][0] not in ("name", "attr") or _recase(func[2], "") is None:
            return None
        if not self.denotes(func[1], fn, variant, frozenset()):
            return None
        out: set[int] = set()
        for held in state.values or ():
            recased = _recase(func[2], str(variant.values[held]))
            if recased not in variant.values:
                return None
            out.add(variant.values.index(recased))
        return out


def _copied_attribute(value: Expr) -> Expr | None:
    """The attribute ``X.attr`` a stored value copies, when None is all it may hold
    besides (``spec.method if spec else None``, ``spec and spec.method``)."""
    while True:
        if value[0] == "ifexp" and ("const", None) in value[2:]:
            value = value[2] if value[3] == ("const", None) else value[3]
        elif value[0] == "and" and value[1]:
            value = value[1][-1]
        else:
            break
    return value if value[0] == "attr" else None


def _value_reads(fn: FunctionFacts) -> frozenset[str]:
    """The names ``fn`` reads as values where it branches or returns (and in the values
    of the locals those read): compared,
    a key, an argument, formatted, a method's receiver (``algo.is_tree()``), its
    ``.name`` or ``.value``; not those it only reads a plain attribute of
    (``batch.reqs``), which no variant is read through. Asking what callers pass
    for a parameter costs a search of the program's text: only these are asked."""
    out: set[str] = set()
    stack: list[object] = [b[0] for b in fn.branches]
    stack.extend(r.value for r in fn.returns if r.value is not None)
    while stack:
        node = stack.pop()
        if not isinstance(node, tuple) or not node:
            continue
        if node[0] == "name":
            if node[1] not in out:  # and what a local it reads was assigned
                out.add(node[1])
                stack.extend(assigned_values(fn, node[1]))
            continue
        if node[0] == "attr" and node[2] not in ("name", "value") and node[1][0] == "name":
            continue  # ``batch.reqs``: the base is not read as a value
        if node[0] == "call" and len(node) == 4 and node[1][0] == "attr":
            stack.append(node[1][1])  # the receiver of a method called on it
            stack.extend(node[2])
            stack.extend(v for _, v in node[3])
            continue
        stack.extend(p for p in (node[1:] if isinstance(node[0], str) else node))
    return frozenset(out)


def _of_self(fn: FunctionFacts, func: Expr) -> bool:
    """Whether a call of ``func`` in ``fn`` is of a method of ``self``."""
    return fn.cls is not None and func[0] == "attr" and func[1] == ("name", "self")


def _recase(method: str, value: str) -> str | None:
    """What a string method a setting is normalised with makes of ``value`` (None
    for another method)."""
    if method == "upper":
        return value.upper()
    if method == "lower":
        return value.lower()
    if method == "casefold":
        return value.casefold()
    if method == "strip":
        return value.strip()
    return None


def _member_value(value: Expr) -> bool:
    """Enum class-level assignments that are members (not methods or descriptors)."""
    if value[0] == "const":
        return True
    if value[0] == "call":
        func = value[1]
        name = func[1] if func[0] == "name" else func[2] if func[0] == "attr" else ""
        return name in ("auto", "member")
    return value[0] == "seq"


def _reads_itself(target: Expr, guards: Guards, value: Expr) -> bool:
    """Whether a store of ``target`` rewrites what it holds: under a test of it, or of
    what a call returns for it."""
    tests = [node for cond, _ in guards for node in _walk(cond)]
    return target in tests or (value[0] == "call" and target in _walk(value))


def _walk(expr: Expr) -> list[Expr]:
    """The sub-expressions of ``expr`` (itself first)."""
    out: list[Expr] = []
    stack: list[object] = [expr]  # sub-expressions, and the strings and constants in them
    while stack:
        node = stack.pop()
        if isinstance(node, tuple) and node:
            if isinstance(node[0], str):
                out.append(node)
                stack.extend(node[1:])
            else:
                stack.extend(node)
    return out


def _same(a: object, b: object) -> bool:
    """Equal constants of the same type (``1`` is not ``True``)."""
    return a == b and type(a) is type(b)


def _literal_name(value: object) -> str:
    return "None" if value is None else str(value)


def _callee_name(func: Expr) -> str:
    """The name a call of ``func`` is made by (``f`` or ``x.f``); "" for another kind."""
    return func[1] if func[0] == "name" else func[2] if func[0] == "attr" else ""
