"""Objects whose class a variant picks (``cls = algo.create_worker(); self.w = cls()``).

Engines choose a worker class per speculative algorithm through a factory that
returns a class for each member, or an instance of one (``self.proposer =
method.create_proposer()``, a factory function given the variant, the object
made elsewhere and passed to the constructor). Calls on such an attribute
(``self.w.forward(batch)``) reach the method of every class the factory can
return, each only for the members that get that class. The call graph keeps
that member set on the edge, so a check following member M only walks the
edges M can take.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pdlint.facts.exprs import nodes
from pdlint.facts.indexer import lambda_name
from pdlint.facts.types import Expr, FunctionFacts, Guards
from pdlint.model.binding import bind_arguments
from pdlint.model.names import Model, assigned_values
from pdlint.model.variants import UNKNOWN, F, T, Variant, Variants

SELF: Expr = ("name", "self")
# the variants whose tests choose a class or a table entry: an enum's members, and a
# Literal alias's strings (vLLM names its speculative methods so), and a setting string
# compared with literals (``self.method == "eagle"``)
_CHOOSING = ("enum", "literal", "string")


@dataclass(frozen=True)
class Choice:
    """The classes an attribute may hold, each with the members that get it."""

    variant: Variant
    options: tuple[tuple[str, frozenset[int]], ...]  # (class, members)


class ClassFactories:
    """Finds variant-dispatched class factories and the attributes they fill."""

    def __init__(self, model: Model, variants: Variants) -> None:
        self.model = model
        self.variants = variants
        self._factories: dict[str, tuple[Variant, dict[int, frozenset[str]]] | None] = {}
        self.attrs: dict[tuple[str, str], Choice] = {}
        self._classes_done: set[str] = set()
        # (class, attribute) -> the instances the stores of ``self.<attribute>`` make
        self._made_attrs: dict[tuple[str, str], Choice | None] = {}
        # the variants of factory functions' parameters compared with strings
        self.made_variants: dict[str, Variant] = {}
        # (function, variant, bound parameters) -> per member, the classes it returns
        # instances of (None: a guard it cannot evaluate)
        self._makers: dict[tuple[str, str, frozenset[str]], dict[int, frozenset[str]] | None] = {}
        # (function, id of a call's callee) -> (the callee, what :meth:`receivers` found)
        self._receivers: dict[
            tuple[str, int],
            tuple[Expr, tuple[str, tuple[tuple[str, frozenset[int]], ...]] | None],
        ] = {}

    def factory(self, qual: str) -> tuple[Variant, dict[int, frozenset[str]]] | None:
        """Per member, the classes an enum method returns (when it returns classes)."""
        if qual in self._factories:
            return self._factories[qual]
        fn = self.model.functions[qual]
        found: tuple[Variant, dict[int, frozenset[str]]] | None = None
        variant = self.variants.by_name.get(fn.cls or "")
        if variant is not None and variant.kind == "enum":
            per_member: dict[int, frozenset[str]] = {}
            for member in range(len(variant.members)):
                classes = self._returned_classes(fn, variant, member)
                if classes is None:
                    per_member = {}
                    break
                if classes:
                    per_member[member] = classes
            if len(set().union(*per_member.values()) if per_member else ()) >= 2:
                found = (variant, per_member)
        self._factories[qual] = found
        return found

    def _returned_classes(
        self, fn: FunctionFacts, variant: Variant, member: int
    ) -> frozenset[str] | None:
        """Classes ``fn`` may return for the member; None when a guard is unknown."""
        out: set[str] = set()
        module = self.model.module_of(fn)
        bound = frozenset({"self"})
        for ret in sorted(fn.returns, key=lambda r: r.span):
            reach = self.variants.guards_truth(ret.guards, fn, variant, member, bound)
            if reach is F:
                continue
            if reach is UNKNOWN:
                return None
            value = ret.value
            if value is not None and value[0] in ("name", "attr"):
                target = self.model.resolve_dotted(fn, module, value)
                if target is not None and target in self.model.classes:
                    out.add(target)
            if reach is T:
                break
        return frozenset(out)

    def _find_attrs(self, owner: str) -> None:
        """``self.a = Cls(...)`` with ``Cls`` from a factory; ``self.b = self.a`` aliases.

        Per class, when first asked: the stores are in the class's own methods, so
        a lazy model has them loaded (and an eager one need not scan them all).
        """
        if owner in self._classes_done:
            return
        self._classes_done.add(owner)
        aliases: list[tuple[FunctionFacts, str, str]] = []
        for fn in self.model.methods_of.get(owner, ()):
            for store in fn.stores:
                target, value = store.target, store.value
                if target[0] != "attr" or target[1] != SELF:
                    continue
                if value[0] == "attr" and value[1] == SELF:
                    aliases.append((fn, target[2], value[2]))
                    continue
                if value[0] != "call" or value[1][0] != "name":
                    continue
                made = assigned_values(fn, value[1][1])
                if len(made) != 1 or made[0][0] != "call" or made[0][1][0] != "attr":
                    continue
                func = made[0][1]
                held = self._held_variant(fn, func[1])
                if held is None or held.kind != "enum":
                    continue
                method = f"{held.qualname}.{func[2]}"
                found = self.factory(method) if method in self.model.functions else None
                if found is None:
                    continue
                variant, per_member = found
                by_class: dict[str, set[int]] = {}
                for member, classes in per_member.items():
                    for cls in classes:
                        by_class.setdefault(cls, set()).add(member)
                options = tuple((c, frozenset(m)) for c, m in sorted(by_class.items()))
                self.attrs[(owner, target[2])] = Choice(variant, options)
        for fn, name, source in aliases:
            choice = self.attrs.get((fn.cls or "", source))
            if choice is not None and (fn.cls or "", name) not in self.attrs:
                self._add_alias(fn, name, choice)
        self._find_branch_stores(owner)

    def _held_variant(self, fn: FunctionFacts, expr: Expr, depth: int = 0) -> Variant | None:
        """The variant ``expr`` holds in ``fn``: an attribute holding one, a parameter
        annotated with one (``algo.worker_class()`` in ``__init__(self, algo: Algo)``) or
        that every caller passes a member of one enum for, a conversion to the enum
        (``Method(name)``) and a local assigned once from one of these."""
        if expr[0] == "attr":
            return self.variants.attr_variant(fn, expr)
        if expr[0] == "name":
            params = dict(fn.params)
            ann = params.get(expr[1])
            if ann is not None:
                return self.variants.variant_of_annotation(ann, self.model.module_of(fn), fn)
            if expr[1] not in params and depth < 4:
                held = assigned_values(fn, expr[1])  # ``method = Method(name)``
                if len(held) == 1 and held[0] != expr:
                    return self._held_variant(fn, held[0], depth + 1)
            elif expr[1] != "self":
                # what the callers pass when they all pass instances of one enum
                classes = self.model.types_of(fn, expr)
                if len(classes) == 1:
                    variant = self.variants.by_name.get(next(iter(classes)))
                    if variant is not None and variant.kind == "enum":
                        return variant
        if expr[0] == "call" and expr[1][0] in ("name", "attr"):
            # ``Method(name)``: a value converted to the enum
            named = self.model.resolve_dotted(fn, self.model.module_of(fn), expr[1])
            variant = self.variants.by_name.get(named) if named is not None else None
            if variant is not None and variant.kind == "enum":
                return variant
        return None

    def _find_branch_stores(self, owner: str) -> None:
        """``if kind is K.A: self.a = A() elif ...: self.a = B()``: an attribute the
        class stores different classes in under tests of one variant holds each class
        for the members whose tests reach its store."""
        stores: dict[str, list[tuple[FunctionFacts, Expr, Guards]]] = {}
        for fn in self.model.methods_of.get(owner, ()):
            for store in fn.stores:
                target = store.target
                if (
                    target[0] == "attr"
                    and target[1] == SELF
                    and (owner, target[2]) not in self.attrs
                ):
                    for value, tests in self._alternatives(fn, store.value):
                        if value == ("const", None):
                            continue  # None picks no class (``cls(a) if cls else None``)
                        alternative = (fn, value, (*store.guards, *tests))
                        stores.setdefault(target[2], []).append(alternative)
        for name, found in sorted(stores.items()):
            if not any(guards for _, _, guards in found):
                continue
            classes = [self.model.types_of(fn, value) for fn, value, _ in found]
            if not all(classes) or len(frozenset().union(*classes)) < 2:
                continue  # a store of an unknown class, or one class for every member
            for variant in self._tested_variants(found):
                options = self._options(variant, found, classes)
                if options is not None:
                    self.attrs[(owner, name)] = Choice(variant, options)
                    break

    def _alternatives(
        self, fn: FunctionFacts, value: Expr, depth: int = 0
    ) -> list[tuple[Expr, Guards]]:
        """The values a stored expression may be, each with the tests that choose it:
        both sides of ``a if c else b``; each value of a table looked up by a key
        (``KINDS[k]``, ``KINDS.get(k)``), chosen when ``k == <its key>``; through a
        local assigned once, and a call of what it holds (``cls = KINDS.get(k)``,
        then ``cls(...)``)."""
        if depth > 4:
            return [(value, ())]
        kind = value[0]
        if kind == "ifexp":
            test = value[1]
            return [
                *((v, ((test, True), *g)) for v, g in self._alternatives(fn, value[2], depth + 1)),
                *((v, ((test, False), *g)) for v, g in self._alternatives(fn, value[3], depth + 1)),
            ]
        lookup: tuple[Expr, Expr] | None = None  # (table, key)
        if kind == "subscript":
            lookup = (value[1], value[2])
        elif kind == "call" and value[1][0] == "attr" and value[1][2] == "get" and value[2]:
            lookup = (value[1][1], value[2][0])
        if lookup is not None and lookup[1][0] in ("name", "attr"):
            table, key = lookup
            entries = self.model.entries(fn, self.model.module_of(fn), table)
            if entries and all(k is not None for k, _ in entries):
                return [
                    (v, ((("cmp", key, ("==",), (k,)), True),)) for k, v in entries if k is not None
                ]
        if kind == "call" and lookup is None:
            found = self._returned_lookup(fn, value)
            if found:
                return found
        if kind == "name":
            held = assigned_values(fn, value[1])
            if len(held) == 1 and held[0] != value:
                found = self._alternatives(fn, held[0], depth + 1)
                if len(found) > 1:
                    return found
        if kind == "call" and value[1][0] in ("name", "subscript", "ifexp", "call"):
            found = self._alternatives(fn, value[1], depth + 1)
            if len(found) > 1:
                return [(("call", f, value[2], value[3]), g) for f, g in found]
        return [(value, ())]

    def _returned_lookup(self, fn: FunctionFacts, call: Expr) -> list[tuple[Expr, Guards]]:
        """The alternatives of a call of a function that returns a lookup in a table by
        its parameter (``def drafter_class(name): return _DRAFTERS[name]``): each value
        of the table, chosen when the argument the call binds to that parameter equals
        its key; [] for any other call."""
        targets = self.model.call_targets(fn, call[1])
        callee = self.model.functions[targets[0]] if len(targets) == 1 else None
        if callee is None or len(callee.returns) != 1 or callee.returns[0].value is None:
            return []
        returned = callee.returns[0].value
        if returned[0] == "subscript":
            table, key = returned[1], returned[2]
        elif returned[0] == "call" and returned[1][0] == "attr" and returned[1][2] == "get":
            if len(returned[2]) != 1:
                return []
            table, key = returned[1][1], returned[2][0]
        else:
            return []
        if key[0] != "name" or table[0] not in ("name", "attr"):
            return []
        bound = dict(bind_arguments(callee, call[1], call[2], call[3]))
        arg = bound.get(key[1])
        if arg is None or arg[0] not in ("name", "attr"):
            return []
        where = self.model.module_of(callee)
        entries = self.model.entries(callee, where, table)
        if not entries or any(k is None for k, _ in entries):
            return []
        out: list[tuple[Expr, Guards]] = []
        for k, v in entries:
            assert k is not None
            k, v = (_in_scope(callee.qualname, where, e) for e in (k, v))
            out.append((v, ((("cmp", arg, ("==",), (k,)), True),)))
        return out

    def _tested_variants(self, stores: list[tuple[FunctionFacts, Expr, Guards]]) -> list[Variant]:
        """The enum and Literal variants the guards of the stores test (parameters annotated with
        one, attributes holding one), in the order they first occur."""
        out: list[Variant] = []
        for fn, _, guards in stores:
            for expr, _ in guards:
                for node in nodes(expr):
                    variant = self._held_variant(fn, node)
                    if variant is not None and variant.kind in _CHOOSING and variant not in out:
                        out.append(variant)
        return out

    def _options(
        self,
        variant: Variant,
        stores: list[tuple[FunctionFacts, Expr, Guards]],
        classes: list[frozenset[str]],
    ) -> tuple[tuple[str, frozenset[int]], ...] | None:
        """Each class with the members whose guards reach a store of it (and, where
        the stored value is itself chosen by the variant, ``make(self.kind) if
        self.kind.drafts() else None``, that choose the class); None when a guard's
        truth for a member is unknown."""
        by_class: dict[str, set[int]] = {}
        for (fn, value, guards), made in zip(stores, classes, strict=True):
            inner = self.made_choice(fn, value)
            chosen = dict(inner.options) if inner is not None and inner.variant is variant else None
            for member in range(len(variant.members)):
                truth = self.variants.guards_truth(guards, fn, variant, member)
                if truth is UNKNOWN:
                    return None
                if truth is not F:
                    for cls in made:
                        if chosen is None or member in chosen.get(cls, ()):
                            by_class.setdefault(cls, set()).add(member)
        return tuple((c, frozenset(m)) for c, m in sorted(by_class.items()))

    def _add_alias(self, fn: FunctionFacts, name: str, choice: Choice) -> None:
        """``self.name = self.<choice attr>`` under guards; other stores of ``name``
        with a single known class add that class for the members their guards allow."""
        variant = choice.variant
        options: dict[str, set[int]] = {}
        for other in self.model.methods_of.get(fn.cls or "", ()):
            for store in other.stores:
                if store.target != ("attr", SELF, name):
                    continue
                allowed = {
                    m
                    for m in range(len(variant.members))
                    if self.variants.guards_truth(store.guards, other, variant, m) is not F
                }
                value = store.value
                if value[0] == "attr" and value[1] == SELF:
                    source = self.attrs.get((fn.cls or "", value[2]))
                    if source is not None and source.variant is variant:
                        for cls, members in source.options:
                            options.setdefault(cls, set()).update(members & allowed)
                        continue
                classes = self._classes(other, value)
                if not classes:
                    return  # a store pdlint cannot type: leave the attribute unknown
                for cls in classes:
                    options.setdefault(cls, set()).update(allowed)
        packed = tuple((c, frozenset(m)) for c, m in sorted(options.items()) if m)
        if packed:
            self.attrs[(fn.cls or "", name)] = Choice(variant, packed)

    def _classes(self, fn: FunctionFacts, value: Expr) -> set[str]:
        """Classes ``value`` may have: every store of ``self.<attr>`` when it is one."""
        if value[0] == "attr" and value[1] == SELF and fn.cls is not None:
            out: set[str] = set()
            for other in self.model.methods_of.get(fn.cls, ()):
                for store in other.stores:
                    if store.target == value:
                        cls = self.model.type_of(other, store.value)
                        if cls is None:
                            return set()
                        out.add(cls)
            return out
        cls = self.model.type_of(fn, value)
        return {cls} if cls else set()

    def targets(self, fn: FunctionFacts, func: Expr) -> list[tuple[str, str, frozenset[int]]]:
        """``(method, variant, members)`` for ``x.<attr>.<method>(...)`` on a chosen
        attribute, and for a dispatch table keyed by members: ``TABLE[v](...)`` (its
        callables) and ``TABLE[v].<method>(...)`` (the methods of its objects), looked
        up in place or through a local (``step = TABLE.get(v)``, then ``step(...)``)."""
        members_of: dict[str, set[int]] = {}
        if func[0] != "attr":
            found = self._chosen_entries(fn, func)
            if found is None:
                return []
            variant = found[0]
            for value, members in found[1]:
                for target in self.model.callables_of(fn, value):
                    members_of.setdefault(target, set()).update(members)
        else:
            chosen = self.receivers(fn, func)
            if chosen is None:
                return []
            variant = chosen[0]
            for cls, members in chosen[1]:
                for method in self.model.methods_named(cls, func[2]):
                    members_of.setdefault(method, set()).update(members)
        return [(t, variant, frozenset(m)) for t, m in sorted(members_of.items())]

    def receivers(
        self, fn: FunctionFacts, func: Expr
    ) -> tuple[str, tuple[tuple[str, frozenset[int]], ...]] | None:
        """``(variant, ((class, members), ...))``: the classes the receiver of a method
        call ``func`` may be, each with the members that give it that class, when a
        variant chooses it (a chosen attribute, a table of objects keyed by members)."""
        key = (fn.qualname, id(func))
        kept = self._receivers.get(key)
        if kept is not None and kept[0] is func:
            return kept[1]
        found = self._find_receivers(fn, func)
        self._receivers[key] = (func, found)
        return found

    def _find_receivers(
        self, fn: FunctionFacts, func: Expr
    ) -> tuple[str, tuple[tuple[str, frozenset[int]], ...]] | None:
        if func[0] != "attr":
            return None
        entries = self._chosen_entries(fn, func[1])
        made = entries is None  # an object made of a class an entry holds
        if made:
            entries = self._made_from_entries(fn, func[1])
        if entries is not None:
            by_class: dict[str, set[int]] = {}
            for value, members in entries[1]:
                if made:
                    classes = self.model.held_classes(fn, value)
                else:
                    classes = self.model.instance_classes(fn, value)
                for cls in classes:
                    by_class.setdefault(cls, set()).update(members)
            options = tuple((c, frozenset(m)) for c, m in sorted(by_class.items()))
            return (entries[0], options) if options else None
        receiver = func[1]
        if receiver[0] == "name" and all(p != receiver[1] for p, _ in fn.params):
            held = assigned_values(fn, receiver[1])  # ``proposer = self.proposer``
            if len(held) == 1 and held[0][0] == "attr":
                receiver = held[0]
        if receiver[0] != "attr":
            return None
        owner = self.model.type_of(fn, receiver[1])
        if owner is None:
            return None
        for klass in self.model.mro(owner):
            self._find_attrs(klass)
            choice = self.attrs.get((klass, receiver[2]))
            if choice is None:
                choice = self._made_attr(klass, receiver[2])
            if choice is not None:
                return (choice.variant.qualname, choice.options)
        return None

    # objects a variant picks the class of ------------------------------------------
    def _made_attr(self, owner: str, name: str) -> Choice | None:
        """``self.<name>`` holding an object whose class a variant picks, from the stores
        of its class (:meth:`made_choice`); a store of ``None`` leaves it unset. None when
        a store makes anything else, or the stores pick by different variants."""
        key = (owner, name)
        if key in self._made_attrs:
            return self._made_attrs[key]
        self._made_attrs[key] = None  # a store reading the attribute itself: unknown
        choices: list[Choice] = []
        for fn in self.model.methods_of.get(owner, ()):
            for store in fn.stores:
                if store.target != ("attr", SELF, name) or store.value == ("const", None):
                    continue
                choice = self.made_choice(fn, store.value)
                if choice is None:
                    return None
                choices.append(choice)
        found = _merged(choices)
        self._made_attrs[key] = found
        return found

    def made_choice(self, fn: FunctionFacts, value: Expr, depth: int = 0) -> Choice | None:
        """The classes of the object ``value`` is in ``fn``, each with the members that
        get it, when a variant picks the class: a method of the variant's enum making an
        instance per member (``method.create_proposer()``), a function making one per
        member of the variant it is given (``make_proposer(self.method)``), a function
        returning one of these (``return Method(name).create_proposer()``), through a
        local assigned once, and a constructor's parameter every construction of its
        class passes one for (the object made elsewhere and injected). None otherwise:
        what is not known picks nothing."""
        if depth > 4:
            return None
        if value[0] == "name":
            if any(p == value[1] for p, _ in fn.params):
                return self._passed_choice(fn, value[1], depth)
            held = assigned_values(fn, value[1])
            if len(held) == 1 and held[0] != value:
                return self.made_choice(fn, held[0], depth + 1)
            return None
        if value[0] == "ifexp":  # ``make(cfg) if cfg is not None else None``
            sides = [v for v in value[2:4] if v != ("const", None)]
            return _merged([self.made_choice(fn, v, depth + 1) for v in sides])
        if value[0] != "call":
            return None
        func, args, kwargs = value[1], value[2], value[3]
        if func[0] == "attr":
            variant = self._held_variant(fn, func[1])
            if variant is not None and variant.kind == "enum":
                method = self.model.lookup_method(variant.qualname, func[2])
                if method is None:
                    return None
                return self._choice(variant, self._made(method, variant, frozenset({"self"})))
        targets = self.model.call_targets(fn, func)
        if len(targets) != 1 or targets[0].endswith(".__init__"):
            return None
        callee = self.model.functions[targets[0]]
        module = self.model.module_of(callee)
        for param, arg in bind_arguments(callee, func, args, kwargs):
            ann = dict(callee.params).get(param)
            wanted = self.variants.variant_of_annotation(ann, module, callee) if ann else None
            if wanted is None and arg[0] != "const":
                # the caller's own string variant (``make(self.cfg.method)``) when it
                # has one, for the tests of it elsewhere to tell its members apart
                passed = self._held_variant(fn, arg)
                if passed is not None:  # the caller passes the variant itself
                    wanted = passed
                else:
                    wanted = self._compared_parameter(callee, param)
            elif (
                wanted is None or wanted.kind != "enum" or self._held_variant(fn, arg) is not wanted
            ):
                continue
            if wanted is None:
                continue
            made = self._made(callee.qualname, wanted, frozenset({param}))
            choice = self._choice(wanted, made)
            if choice is not None:
                return choice
        for wanted in self._read_variants(callee):
            # a setting the callee reads off what it is given (``create(spec_config)``,
            # then ``TABLE[spec_config.method]``): the setting's members pick
            choice = self._choice(wanted, self._made(callee.qualname, wanted, frozenset()))
            if choice is not None:
                return choice
        returned = [r.value for r in callee.returns if not r.implicit]
        if not returned or any(v is None for v in returned):
            return None
        return _merged([self.made_choice(callee, v, depth + 1) for v in returned if v is not None])

    def _read_variants(self, fn: FunctionFacts) -> list[Variant]:
        """The enum and Literal variants held by attributes that choose what ``fn``
        returns: read in the tests guarding its returns (or by a local assigned once
        from one), or as the key of the table entry a return calls (``cls =
        TABLE[cfg.method]; return cls(cfg)``)."""
        read: list[Expr] = []
        for ret in fn.returns:
            read.extend(expr for expr, _ in ret.guards)
            if ret.value is not None and ret.value[0] == "call":
                lookup = self._lookup(fn, ret.value[1])
                if lookup is not None:
                    read.append(lookup[1])
        out: list[Variant] = []
        for expr in read:
            for node in nodes(expr):
                if node[0] == "name" and all(p != node[1] for p, _ in fn.params):
                    held = assigned_values(fn, node[1])  # ``method = cfg.spec.method``
                    node = held[0] if len(held) == 1 else node
                if node[0] != "attr":
                    continue
                variant = self.variants.attr_variant(fn, node)
                if variant is not None and variant.kind in _CHOOSING and variant not in out:
                    out.append(variant)
        return out

    def _compared_parameter(self, fn: FunctionFacts, param: str) -> Variant | None:
        """A parameter ``fn`` compares with two strings or more (``if method == "eagle":
        return EagleProposer()``), given a value the caller does not fix: a variant whose
        members are those strings (a setting passed in, as a string variant of an
        attribute is), kept here: it names the members of the classes ``fn`` picks."""
        strings = {
            s for subject, found in fn.string_compares if subject == ("name", param) for s in found
        }
        if len(strings) < 2:
            return None
        qual = f"str:{fn.qualname}.{param}"
        variant = self.made_variants.get(qual)
        if variant is None:
            ordered = tuple(sorted(strings))
            variant = self.made_variants[qual] = Variant(qual, "string", ordered, ordered)
        return variant

    def variant(self, qual: str) -> Variant | None:
        """The variant named ``qual``: the model's, or a compared parameter's."""
        return self.made_variants.get(qual) or self.variants.by_name.get(qual)

    def _passed_choice(self, fn: FunctionFacts, param: str, depth: int) -> Choice | None:
        """A parameter of a constructor: what every construction of its class (in the
        modules building it, see :meth:`Model.modules_building`) passes for it."""
        if fn.name != "__init__" or fn.cls is None:
            return None
        cls = fn.cls
        modules = {self.model.module_of(fn), *self.model.modules_building(cls)}
        name = cls.rsplit(".", 1)[-1]
        choices: list[Choice | None] = []
        for module in sorted(modules):
            for caller, call in self.model.module_calls_named(module).get(name, ()):
                if self.model.constructed_class(caller, call.func) != cls:
                    continue
                bound = dict(
                    bind_arguments(fn, call.func, call.args, call.kwargs, skip_receiver_always=True)
                )
                arg = bound.get(param)
                choices.append(None if arg is None else self.made_choice(caller, arg, depth + 1))
        return _merged(choices)

    def _choice(
        self, variant: Variant, per_member: dict[int, frozenset[str]] | None
    ) -> Choice | None:
        """The choice a factory's classes per member make (two classes at least)."""
        if not per_member:
            return None
        by_class: dict[str, set[int]] = {}
        for member, classes in per_member.items():
            for cls in classes:
                by_class.setdefault(cls, set()).add(member)
        if len(by_class) < 2:
            return None
        return Choice(variant, tuple((c, frozenset(m)) for c, m in sorted(by_class.items())))

    def _made(
        self, qual: str, variant: Variant, bound: frozenset[str]
    ) -> dict[int, frozenset[str]] | None:
        """Per member, the classes whose instances ``qual`` returns with the variant in
        ``bound`` (``return EagleProposer(...)`` under ``self is Method.EAGLE``); None
        when a guard is unknown."""
        key = (qual, variant.qualname, bound)
        if key in self._makers:
            return self._makers[key]
        fn = self.model.functions[qual]
        out: dict[int, frozenset[str]] | None = {}
        for member in range(len(variant.members)):
            made: set[str] = set()
            for ret in sorted(fn.returns, key=lambda r: r.span):
                reach = self.variants.guards_truth(ret.guards, fn, variant, member, bound)
                if reach is F:
                    continue
                if reach is UNKNOWN:
                    out = None
                    break
                value = ret.value
                cls = None
                if value is not None and value[0] == "call":
                    cls = self.model.constructed_class(fn, value[1])
                    lookup = self._lookup(fn, value[1]) if cls is None else None
                    if lookup is not None:
                        # ``HANDLERS[mode](...)``, ``cls = HANDLERS.get(mode); cls(...)``:
                        # the class the member's entry holds
                        tabled = self._table_classes(fn, lookup, variant, member, bound)
                        if tabled is not None:
                            made.update(tabled)
                            if reach is T:
                                break
                            continue
                if cls is None and value not in (None, ("const", None)):
                    out = None  # an object of a class not known: it picks nothing
                    break
                if cls is not None:
                    made.add(cls)
                if reach is T:
                    break
            if out is None:
                break
            if made:
                out[member] = frozenset(made)
        self._makers[key] = out
        return out

    def _table_classes(
        self,
        fn: FunctionFacts,
        lookup: tuple[Expr, Expr, Expr | None],
        variant: Variant,
        member: int,
        bound: frozenset[str],
    ) -> frozenset[str] | None:
        """The classes the entry of the member in a table of classes holds (``TABLE[m]``
        or ``TABLE.get(m, default)`` with ``m`` the variant): the default's when it has no
        entry, none without a default; None when not known."""
        table, key, default = lookup
        if not self.variants.denotes(key, fn, variant, bound):
            return None
        entries = self.variants.entry_for(table, fn, variant, member)
        if entries is None:
            return None
        if not entries and default is not None and default != ("const", None):
            entries = [(fn, self.model.module_of(fn), default)]
        out: set[str] = set()
        for scope, module, value in entries:
            made = self._entry_classes(scope, module, value)
            if made is None:
                return None
            out.update(made)
        return frozenset(out)

    def _entry_classes(
        self, scope: FunctionFacts | None, module: str, value: Expr
    ) -> frozenset[str] | None:
        """The classes a table's entry makes when called: the class it names, one a
        ``functools.partial`` wraps, or those a lambda's body constructs (``lambda c, d:
        MedusaProposer(c, d)``); None when any is not known."""
        model = self.model
        if value[0] in ("name", "attr"):
            named = model.resolve_dotted(scope, module, value)
            if named is None or named not in model.classes:
                return None
            return frozenset((named,))
        if value[0] == "call" and value[2]:
            called = model.resolve_dotted(scope, module, value[1])
            if called == "functools.partial" or value[1] == ("name", "partial"):
                return self._entry_classes(scope, module, value[2][0])
            return None
        if value[0] != "lambda":
            return None
        where = scope.qualname if scope is not None else module
        lam = model.functions.get(f"{where}.{lambda_name(value[1], value[2])}")
        if lam is None or not lam.returns:
            return None
        out: set[str] = set()
        for ret in lam.returns:
            cls = (
                model.constructed_class(lam, ret.value[1])
                if ret.value is not None and ret.value[0] == "call"
                else None
            )
            if cls is None:
                return None
            out.add(cls)
        return frozenset(out)

    def _chosen_entries(
        self, fn: FunctionFacts, expr: Expr
    ) -> tuple[str, list[tuple[Expr, frozenset[int]]]] | None:
        """``(variant, [(value, members), ...])`` when ``expr`` is an entry of a
        container a variant fills: a table keyed by members (:meth:`_table_entries`),
        or an element of an attribute's list added to under tests of the variant
        (:meth:`_added_entries`)."""
        lookup = self._lookup(fn, expr)
        if lookup is not None:
            return self._table_entries(fn, *lookup)
        held = assigned_values(fn, expr[1]) if expr[0] == "name" else []
        if len(held) == 1 and held[0][0] == "elem":  # ``for hook in self._hooks``
            return self._added_entries(fn, held[0][1])
        return None

    def _made_from_entries(
        self, fn: FunctionFacts, expr: Expr, depth: int = 0
    ) -> tuple[str, list[tuple[Expr, frozenset[int]]]] | None:
        """:meth:`_chosen_entries` of the class objects an object is made of: ``expr``
        a call of an entry (``KINDS[algo]()``), or a local assigned once from one
        (``kind = KINDS[algo]()``, then ``kind.run(b)``)."""
        if expr[0] == "name" and depth < 4 and all(p != expr[1] for p, _ in fn.params):
            held = assigned_values(fn, expr[1])
            if len(held) == 1 and held[0] != expr:
                return self._made_from_entries(fn, held[0], depth + 1)
            return None
        if expr[0] != "call":
            return None
        return self._chosen_entries(fn, expr[1])

    def _added_entries(
        self, fn: FunctionFacts, container: Expr
    ) -> tuple[str, list[tuple[Expr, frozenset[int]]]] | None:
        """The elements of ``self.<attr>`` (a list of hooks, of workers), each with the
        members whose tests reach where it is added (``if algo.uses_x():
        self._hooks.append(hook)``) or stored in a literal; None when no test of a
        variant chooses them."""
        if container[0] != "attr" or container[1] != SELF or fn.cls is None:
            return None
        name = container[2]
        added: list[tuple[FunctionFacts, Expr, Guards]] = []
        for klass in self.model.mro(self.model.self_class(fn) or fn.cls):
            for method in self.model.methods_of.get(klass, ()):
                for call in method.calls:
                    func = call.func
                    if (
                        func[0] == "attr"
                        and func[2] in ("append", "appendleft", "add", "insert")
                        and func[1] == ("attr", SELF, name)
                        and call.args
                    ):
                        added.append((method, call.args[-1], call.guards))
                for store in method.stores:
                    if store.target == ("attr", SELF, name) and store.value[0] == "seq":
                        added.extend((method, v, store.guards) for v in store.value[1])
        if not any(guards for _, _, guards in added):
            return None
        for variant in self._tested_variants(added):
            out: list[tuple[Expr, frozenset[int]]] = []
            for method, value, guards in added:
                members = set()
                for member in range(len(variant.members)):
                    truth = self.variants.guards_truth(guards, method, variant, member)
                    if truth is UNKNOWN:
                        return None
                    if truth is not F:
                        members.add(member)
                where = self.model.module_of(method)
                out.append((("scoped", method.qualname, where, value), frozenset(members)))
            return (variant.qualname, out)
        return None

    def _lookup(
        self, fn: FunctionFacts, expr: Expr, depth: int = 0
    ) -> tuple[Expr, Expr, Expr | None] | None:
        """(table, key, default) when ``expr`` looks a key up in a table: ``T[k]``,
        ``T.get(k)`` or ``T.get(k, default)``, or a local assigned once from one."""
        kind = expr[0]
        if kind == "subscript":
            return (expr[1], expr[2], None)
        if kind == "call" and expr[1][0] == "attr" and expr[1][2] == "get" and expr[2]:
            default = expr[2][1] if len(expr[2]) > 1 else None
            return (expr[1][1], expr[2][0], default)
        if kind == "name" and depth < 4 and all(p != expr[1] for p, _ in fn.params):
            held = assigned_values(fn, expr[1])
            if len(held) == 1 and held[0] != expr:
                return self._lookup(fn, held[0], depth + 1)
        return None

    def _table_entries(
        self, fn: FunctionFacts, table: Expr, key: Expr, default: Expr | None
    ) -> tuple[str, list[tuple[Expr, frozenset[int]]]] | None:
        """``(variant, [(value, members), ...])`` for a lookup in a table keyed by the
        members of a variant: each value with the members its key names, and a default
        given to ``get`` with the members no key names. None for a table with a key
        that names no member (left to the model, which reaches every value)."""
        variant = self._held_variant(fn, key)
        if variant is None or variant.kind not in _CHOOSING:
            return None
        out: list[tuple[Expr, frozenset[int]]] = []
        keyed: set[int] = set()
        for entry_key, value in self.model.entries(fn, self.model.module_of(fn), table):
            if entry_key is None:
                return None
            where: FunctionFacts | None = fn
            module, written = self.model.module_of(fn), entry_key
            while written[0] == "scoped":
                where = self.model.functions.get(written[1]) if written[1] else None
                module, written = written[2], written[3]
            members = self.variants.members_in(written, where, module, variant, 0)
            if members is None:
                return None
            keyed.update(members)
            out.append((value, frozenset(members)))
        rest = frozenset(range(len(variant.members))) - keyed
        if default is not None and rest:
            out.append((default, rest))
        return (variant.qualname, out)


def _in_scope(function: str, module: str, expr: Expr) -> Expr:
    """``expr`` marked with the scope it is written in, unless it is marked already."""
    return expr if expr[0] == "scoped" else ("scoped", function, module, expr)


def _merged(choices: Sequence[Choice | None]) -> Choice | None:
    """The choices of several stores or calls of one variant, together; None when one
    is unknown or they pick by different variants."""
    if not choices or any(c is None for c in choices):
        return None
    known = [c for c in choices if c is not None]
    if any(c.variant != known[0].variant for c in known):
        return None
    by_class: dict[str, frozenset[int]] = {}
    for choice in known:
        for cls, members in choice.options:
            by_class[cls] = by_class.get(cls, frozenset()) | members
    return Choice(known[0].variant, tuple(sorted(by_class.items())))
