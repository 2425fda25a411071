"""A condition's truth is asked once per member of a variant; when its evaluation
read no member (``x is None``), the answer is shared by every member. Sharing
must give what asking each member alone gives, settled settings included."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture, fixture_dirs

from pdlint import api
from pdlint.checks.relay import graph
from pdlint.facts.types import FunctionFacts, Guards
from pdlint.model.names import Model
from pdlint.model.variants import Truth, Variant, Variants
from pdlint.settings.config import Settings

PACKAGES = sorted(p for p in fixture_dirs() if p.is_dir())


def _variants_after_a_run(package: Path, monkeypatch: pytest.MonkeyPatch) -> Variants:
    """The variant tables of a full run's last round, as its checks left them."""
    made: list[Variants] = []

    class Recording(Variants):
        def __init__(self, model: Model) -> None:
            super().__init__(model)
            made.append(self)

    monkeypatch.setattr(graph, "Variants", Recording)
    with chdir(package):
        api.analyze(["."], Settings(root=str(package), cache=False), lazy=False)
    assert made
    return made[-1]


def _table(
    variants: Variants,
    variant: Variant,
    asked: list[tuple[FunctionFacts, Guards]],
    members: list[int],
    *,
    alone: bool,
) -> dict[tuple[int, int], Truth]:
    out = {}
    for member in members:
        for i, (fn, guards) in enumerate(asked):
            if alone:  # nothing remembered from another question
                variants._guard_memo.clear()
                variants._member_free.clear()
            out[(member, i)] = variants.guards_truth(guards, fn, variant, member)
    return out


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.name)
def test_shared_answers_are_each_members_own(
    package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    variants = _variants_after_a_run(package, monkeypatch)
    model = variants.model
    asked = [
        (fn, fact.guards)
        for fn in model.functions.values()
        for fact in (*fn.calls, *fn.derefs, *fn.returns)
        if fact.guards
    ]
    found = {id(v): v for v in list(variants.by_name.values())}
    for variant in found.values():
        members = list(range(len(variant.members)))
        alone = _table(variants, variant, asked, members, alone=True)
        for order in (members, members[::-1]):
            variants._guard_memo.clear()
            variants._member_free.clear()
            assert _table(variants, variant, asked, order, alone=False) == alone


def test_a_settled_setting_is_read_per_member(monkeypatch: pytest.MonkeyPatch) -> None:
    """conditional_validator settles a setting for some members only: a condition
    on it is true for one member and unknown-or-maybe for another, so it is never
    shared (the fixture would not test the sharing otherwise)."""
    variants = _variants_after_a_run(fixture("conditional_validator"), monkeypatch)
    assert variants.settled
    assert any(variants._settled_anywhere.get(variant) for variant, _member in variants.settled)
