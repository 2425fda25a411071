"""Variant settings as the guard check reads them: the attribute of a class that
holds a variant, and the members it may hold once its holder is made."""

from __future__ import annotations

from dataclasses import dataclass

from pdlint.checks.guards.pack import VariantNames
from pdlint.facts.types import Expr, FunctionFacts
from pdlint.model.callgraph import match_entries
from pdlint.model.names import Model, assigned_values
from pdlint.model.variants import Normalisation, Variant, Variants

# The kinds of variant a setting holds (a flag or a count is not one).
KINDS = ("enum", "literal", "string")


@dataclass(frozen=True)
class Setting:
    """``owner.attr`` holds ``variant`` (``owner`` is None when the class is unknown)."""

    variant: Variant
    owner: str | None
    attr: str


class Settings:
    """Finds the setting an attribute read is, and what its construction rewrites."""

    def __init__(self, model: Model, variants: Variants, names: VariantNames) -> None:
        self.model = model
        self.variants = variants
        self.names = names
        self._normalisers: tuple[str, ...] | None = None
        self._predicates: set[str] | None = None
        self._holders: dict[str, str | None] = {}

    def of_attr(self, fn: FunctionFacts, expr: Expr) -> Setting | None:
        """The setting ``X.attr`` reads in ``fn``, if it holds a variant. ``X`` of no
        known class but read as ``Y.holder`` is of the one class any loaded class
        declares its ``holder`` attribute as (``vllm_config.speculative_config``)."""
        if expr[0] != "attr":
            return None
        owner = self.model.type_of(fn, expr[1])
        variant = self.variants.attr_variant(fn, expr)
        if owner is None:
            owner = self._held_class(fn, expr[1])
            if owner is not None:
                variant = self._class_variant(owner, expr[2])
        if variant is None or variant.kind not in KINDS:
            return None
        return Setting(variant, owner, expr[2])

    def rewritten_string(self, fn: FunctionFacts, subject: Expr) -> tuple[str, str] | None:
        """(class, attribute) of ``X.attr``, compared with strings in ``fn``, when its
        class is known and its construction may rewrite it."""
        if subject[0] != "attr":
            return None
        owner = self.model.type_of(fn, subject[1]) or self._held_class(fn, subject[1])
        if owner is None or owner not in self.model.classes:
            return None
        if not self.variants.may_rewrite(owner, subject[2], self.normaliser_names()):
            return None
        return owner, subject[2]

    def _held_class(self, fn: FunctionFacts, receiver: Expr) -> str | None:
        """The class of a receiver of no known class read as ``Y.holder``, or a local
        assigned that once (``spec = self.speculative_config``): the one class any
        loaded class declares its ``holder`` attribute as."""
        if receiver[0] == "name":
            values = assigned_values(fn, receiver[1])
            if len(values) != 1 or values[0][0] != "attr":
                return None
            receiver = values[0]
            found = self.model.type_of(fn, receiver)
            if found is not None:
                return found
        return self._holder_class(receiver[2]) if receiver[0] == "attr" else None

    def named_owners(self) -> list[tuple[str, str]]:
        """(class, attribute) of each setting a pack names whose class is analysed."""
        out = []
        for name in self.names.settings:
            owner, attr = name.rsplit(".", 1)
            self.model.load_defining((owner.rsplit(".", 1)[-1],))
            if owner in self.model.classes:
                out.append((owner, attr))
        return out

    def normaliser_names(self) -> tuple[str, ...]:
        if self._normalisers is None:
            found = match_entries(self.model, self.names.normalisers)
            self._normalisers = tuple(found) if self.names.normalisers else ()
        return self._normalisers

    def _class_variant(self, owner: str, attr: str) -> Variant | None:
        """The variant ``owner.attr`` holds: by its annotation, or the strings compared with it."""
        found = self.variants.class_attr_variant(owner, attr)
        for klass in self.model.mro(owner) if found is None else ():
            found = self.variants.by_name.get(f"str:{klass}.{attr}")
            if found is not None:
                break
        return found

    def _holder_class(self, name: str) -> str | None:
        """The one class the loaded classes declare an attribute ``name`` as."""
        if name not in self._holders:
            model = self.model
            found = {
                cls
                for qual, facts in model.classes.items()
                for attr, ann in facts.annotations
                if attr == name
                and (cls := model.annotation_class(ann, model.class_module[qual])) is not None
            }
            self._holders[name] = next(iter(found)) if len(found) == 1 else None
        return self._holders[name]

    def named(self) -> list[Setting]:
        """The settings the packs name (``pkg.Config.method``) that hold a variant."""
        out = []
        for name in self.names.settings:
            owner, attr = name.rsplit(".", 1)
            self.model.load_defining((owner.rsplit(".", 1)[-1],))
            if owner not in self.model.classes:
                continue
            variant = self.variants.class_attr_variant(owner, attr)
            if variant is None:
                variant = self.variants.by_name.get(f"str:{owner}.{attr}")
            if variant is not None and variant.kind in KINDS:
                out.append(Setting(variant, owner, attr))
        return out

    def normalisation(self, setting: Setting) -> Normalisation | None:
        """What making the setting's holder rewrites (None: its class is unknown)."""
        if setting.owner is None:
            return None
        return self.variants.normalisation(
            setting.owner, setting.attr, setting.variant, self.normaliser_names()
        )

    def construction(self, setting: Setting) -> set[str]:
        """The functions that run while the setting's holder is made (where the value
        is read before it is rewritten)."""
        found = self.normalisation(setting)
        return set(found.functions) if found is not None else set()

    def live(self, setting: Setting) -> list[int]:
        """The members the setting may hold where code reads it (its holder made)."""
        found = self.normalisation(setting)
        if found is None:
            return list(range(len(setting.variant.members)))
        return found.live()

    def is_predicate(self, qual: str) -> bool:
        """Whether a pack names ``qual`` as a predicate over a setting."""
        if self._predicates is None:
            patterns = self.names.predicates
            self._predicates = set(match_entries(self.model, patterns)) if patterns else set()
        return qual in self._predicates
