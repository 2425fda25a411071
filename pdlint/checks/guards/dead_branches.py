"""PDL108 dead-variant-branch: a branch that tests a variant setting for a value it
can no longer hold.

A value cannot be there when the holder's construction rewrites it into another
(see :meth:`pdlint.model.variants.Variants.normalisation`), or when it is not one
of a ``Literal``'s values; a pack names how a setting of a framework the code
reads but does not contain is rewritten (``[variants.rewrites]``). A branch is
dead when its condition is such a test, or a conjunction holding one (every
alternative of a disjunction being one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pdlint.checks.guards.settings import Setting, Settings
from pdlint.facts.exprs import nodes, text
from pdlint.facts.types import Expr, FunctionFacts, Span
from pdlint.findings import Finding, Related, Step
from pdlint.model.locations import location, short_name
from pdlint.model.names import Model
from pdlint.model.variants import Variant, Variants
from pdlint.source.globs import name_matches

_POSITIVE = ("==", "is", "in")


@dataclass(frozen=True)
class Impossible:
    """A test of a setting for values it cannot hold, and why."""

    test: Expr
    values: tuple[str, ...]  # the values tested, as written
    why: str  # the reason, for the message
    members: tuple[str, ...]  # the values tested, by member name
    short: str  # the reason, in a few words
    related: tuple[tuple[str, Span, str], ...] = ()  # (function, span, message)


class DeadBranches:
    """Finds the branches whose condition tests a setting for impossible values."""

    def __init__(
        self,
        model: Model,
        variants: Variants,
        settings: Settings,
        rewrites: tuple[tuple[str, str, str], ...],
    ) -> None:
        self.model = model
        self.variants = variants
        self.settings = settings
        self.rewrites = rewrites

    def dead_values(self, setting: Setting) -> list[str]:
        """The values the setting is rewritten from (their files may test them)."""
        found = self.settings.normalisation(setting)
        if found is None:
            return []
        values = (setting.variant.values[m] for m in sorted(found.rewrites))
        return [str(v) for v in values if v is not None]

    def findings(self, fn: FunctionFacts, steps: Callable[[], list[Step]]) -> Iterator[Finding]:
        """A finding for each dead branch of ``fn`` (``steps()``: its path, if reached
        from an entry point)."""
        for cond, span, _guards in fn.branches:
            culprits = self._dead(fn, cond)
            if culprits:
                yield self._finding(fn, cond, span, culprits, steps)

    def _dead(self, fn: FunctionFacts, cond: Expr) -> list[Impossible] | None:
        """The impossible tests that make ``cond`` never hold; None if it may."""
        kind = cond[0]
        if kind == "and":
            for part in cond[1]:
                found = self._dead(fn, part)
                if found:
                    return found
            return None
        if kind == "or":
            out: list[Impossible] = []
            for part in cond[1]:
                found = self._dead(fn, part)
                if not found:
                    return None
                out += found
            return out
        if kind == "cmp":
            found_one = self._impossible(fn, cond)
            return [found_one] if found_one is not None else None
        return None

    def _impossible(self, fn: FunctionFacts, cond: Expr) -> Impossible | None:
        """``X.attr == value`` (``is``, ``in``) where the setting cannot hold any value."""
        if len(cond[2]) != 1 or cond[2][0] not in _POSITIVE:
            return None
        left, right = cond[1], cond[3][0]
        subject, other = (left, right) if left[0] == "attr" else (right, left)
        if subject[0] != "attr" or (other is left and cond[2][0] == "in"):
            return None
        if other == ("const", None):
            return None  # a None test, not a test of the variant
        from_pack = self._rewritten_by_pack(subject, other, cond)
        if from_pack is not None:
            return from_pack
        setting = self.settings.of_attr(fn, subject)
        if setting is None or setting.owner is None:
            return None
        if fn.qualname in self.settings.construction(setting):
            return None  # read before the construction rewrites it
        variant = setting.variant
        members = self.variants.member_of(other, fn, variant)
        if members is None:
            return None
        shown = tuple(text(n) for n in _tested(other))
        owner = setting.owner.rsplit(".", 1)[-1]
        if not members:
            strings = [n for n in _tested(other) if n[0] == "const" and isinstance(n[1], str)]
            if variant.kind != "literal" or len(strings) != len(_tested(other)):
                return None  # a string variant's values are only those compared
            why = f"not one of the values `{owner}.{setting.attr}` holds (`{variant.name}`)"
            names = tuple(str(n[1]) for n in strings)
            return Impossible(cond, shown, why, names, f"not a value of `{variant.name}`")
        found = self.settings.normalisation(setting)
        if found is None or not all(m in found.rewrites for m in members):
            return None
        related = []
        intos: list[str] = []
        for m in members:
            rewrite = found.rewrites[m]
            into = " or ".join(_shown(variant, i) for i in rewrite.into) or "another value"
            intos.append(into)
            related.append(
                (
                    rewrite.function,
                    rewrite.span,
                    f"`{short_name(rewrite.function)}` rewrites {_shown(variant, m)} into {into}",
                )
            )
        why = f"rewritten into {' or '.join(dict.fromkeys(intos))} while a `{owner}` is made"
        names = tuple(variant.members[m] for m in members)
        short = f"`{owner}` rewrites it to {intos[0]}"
        return Impossible(cond, shown, why, names, short, tuple(related))

    def _rewritten_by_pack(self, subject: Expr, other: Expr, cond: Expr) -> Impossible | None:
        """A test of a setting a pack says is rewritten (``speculative_config.method``
        compared with ``"deepseek_mtp"``, every ``*_mtp`` becoming ``"mtp"``)."""
        written = text(subject, brief=True)
        tested = _tested(other)
        strings = [n[1] for n in tested if n[0] == "const" and isinstance(n[1], str)]
        if not strings or len(strings) != len(tested):
            return None
        for setting, old, new in self.rewrites:
            if written != setting and not written.endswith(f".{setting}"):
                continue
            if all(s != new and name_matches(old, s) for s in strings):
                why = f"rewritten into {new!r} (a rule pack says every {old!r} of `{setting}` is)"
                shown = tuple(repr(s) for s in strings)
                short = f"`{setting}` is rewritten to {new!r}"
                return Impossible(cond, shown, why, tuple(strings), short)
        return None

    def _finding(
        self,
        fn: FunctionFacts,
        cond: Expr,
        span: Span,
        culprits: list[Impossible],
        path_to: Callable[[], list[Step]],
    ) -> Finding:
        model = self.model
        first = culprits[0]
        values = [v for c in culprits for v in c.values]
        test = text(first.test)
        message = (
            f"`{test}` can never hold: {', '.join(values)} is {first.why}, so the "
            f"configuration this branch was written for takes the next branch or the "
            f"default; test the value the setting holds once made, or the predicate "
            f"defined over it"
        )
        related = tuple(
            Related(location(model, where, at), said)
            for c in culprits
            for where, at, said in c.related
        )
        here = location(model, fn.qualname, span)
        steps = path_to()
        path = (*steps, Step(here, fn.qualname, f"tests `{test}`")) if steps else ()
        return Finding(
            code="PDL108",
            message=message,
            location=here,
            related=related,
            path=path,
            member=",".join(m for c in culprits for m in c.members),
            key=("PDL108", fn.qualname, text(cond)),
            summary=f"branch on {', '.join(values)} never runs: {first.short}",
        )


def _shown(variant: Variant, member: int) -> str:
    """A member as code writes it: ``Algo.EAGLE``, or the literal ``'eagle'``."""
    if variant.kind == "enum":
        return f"{variant.name}.{variant.members[member]}"
    return repr(variant.values[member])


def _tested(other: Expr) -> tuple[Expr, ...]:
    """The values a test compares with: the elements of a tuple, list or set, or one."""
    if other[0] == "seq":
        return tuple(other[1])
    return (other,)


def branch_strings(fn: FunctionFacts) -> set[str]:
    """The strings ``fn``'s branches compare with (to find the files worth loading)."""
    return {
        n[1]
        for cond, _, _ in fn.branches
        for n in nodes(cond)
        if n[0] == "const" and isinstance(n[1], str)
    }
