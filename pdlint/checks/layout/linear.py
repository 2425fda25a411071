"""Linear forms over opaque symbols: the values PDL201 computes offsets with.

A value is a rational constant plus symbols with rational coefficients; two
values with different symbols compare as unknown. Division, modulo and shifts
need both sides constant.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Lin:
    """A linear form: a constant plus opaque symbols with rational coefficients."""

    const: Fraction
    terms: tuple[tuple[str, Fraction], ...] = ()

    @staticmethod
    def of(value: int | Fraction) -> Lin:
        return Lin(Fraction(value))

    @staticmethod
    def symbol(name: str) -> Lin:
        return Lin(Fraction(0), ((name, Fraction(1)),))

    def plus(self, other: Lin, sign: int = 1) -> Lin:
        terms = dict(self.terms)
        for name, coeff in other.terms:
            terms[name] = terms.get(name, Fraction(0)) + sign * coeff
        kept = tuple(sorted((n, c) for n, c in terms.items() if c))
        return Lin(self.const + sign * other.const, kept)

    def scaled(self, factor: Fraction) -> Lin:
        if not factor:
            return Lin(Fraction(0))
        return Lin(self.const * factor, tuple((n, c * factor) for n, c in self.terms))

    @property
    def known(self) -> bool:
        return not self.terms


def arith(op: str, a: Lin, b: Lin) -> Lin | None:
    if op == "+":
        return a.plus(b)
    if op == "-":
        return a.plus(b, -1)
    if op == "*":
        if a.known:
            return b.scaled(a.const)
        if b.known:
            return a.scaled(b.const)
        return None
    if not (a.known and b.known):
        return None
    x, y = a.const, b.const
    if op in ("//", "%", "/") and not y:
        return None
    if op == "//":
        return Lin.of(x // y)
    if op == "%":
        return Lin.of(x % y)
    if op == "/":
        return Lin.of(x / y)
    if op in (">>", "<<") and x.denominator == 1 and y.denominator == 1 and 0 <= y < 64:
        return Lin.of(int(x) >> int(y) if op == ">>" else int(x) << int(y))
    return None


def compare(op: str, a: Lin, b: Lin) -> bool | None:
    diff = a.plus(b, -1)
    if not diff.known:
        return None
    d = diff.const
    return {
        "==": d == 0,
        "!=": d != 0,
        "<": d < 0,
        "<=": d <= 0,
        ">": d > 0,
        ">=": d >= 0,
    }.get(op)
