"""Role-local conditions: tests of a setting each role reads from its own configuration
(a draft pool, a speculative algorithm), under which a role grows a handoff list."""

from __future__ import annotations

from pdlint.checks.layout.words import SPEC_FOLLOWERS
from pdlint.facts.exprs import holds, identifiers, words
from pdlint.facts.types import Expr, Guards


class RoleLocal:
    """Which expressions and guards read a role-local setting (memoized)."""

    def __init__(self, role_words: tuple[str, ...]) -> None:
        self.role_words = role_words
        self._role_local_ident: dict[str, bool] = {}
        self._role_local_expr: dict[Expr, bool] = {}
        self._conditions: dict[int, tuple[Guards, str | None]] = {}  # by id, object kept
        self._idents: dict[Expr, tuple[str, ...]] = {}

    def role_local(self, expr: Expr) -> bool:
        """Whether a condition reads a role's own setting (a draft, speculative...)."""
        found = self._role_local_expr.get(expr)
        if found is None:
            found = any(self._role_local_ident_of(i) for i in self.identifiers(expr))
            self._role_local_expr[expr] = found
        return found

    def _role_local_ident_of(self, ident: str) -> bool:
        found = self._role_local_ident.get(ident)
        if found is None:
            parts = words(ident)
            found = (
                ident.lower() in self.role_words
                or any(w in self.role_words for w in parts)
                or any(
                    a == "spec" and b in SPEC_FOLLOWERS
                    for a, b in zip(parts, parts[1:], strict=False)
                )
            )
            self._role_local_ident[ident] = found
        return found

    def identifiers(self, expr: Expr) -> tuple[str, ...]:
        """:func:`identifiers` of ``expr``, computed once per expression."""
        found = self._idents.get(expr)
        if found is None:
            found = self._idents[expr] = tuple(identifiers(expr))
        return found

    def condition(self, guards: Guards) -> str | None:
        """The first role-local test among ``guards``, as it holds there (None: none)."""
        # by identity: equal guards can differ in their text (``== 1``, ``== True``)
        found = self._conditions.get(id(guards))
        if found is None:
            found = self._conditions[id(guards)] = (guards, self._role_local_condition(guards))
        return found[1]

    def _role_local_condition(self, guards: Guards) -> str | None:
        for expr, polarity in guards:
            if expr[0] == "and" and polarity:
                parts = [e for e in expr[1] if self.role_local(e)]
                if parts:
                    return holds(parts[0], True)
            if self.role_local(expr):
                return holds(expr, polarity)
        return None
