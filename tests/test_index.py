"""The indexer: facts of small modules, checked field by field."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pdlint import index
from pdlint.facts import (
    BindFact,
    CallFact,
    DerefFact,
    FunctionFacts,
    IndexFact,
    ModuleFacts,
    ReturnFact,
    StoreFact,
)


def facts_of(tmp_path: Path, source: str) -> ModuleFacts:
    path = tmp_path / "mod.py"
    path.write_text(source, encoding="utf-8")
    return index.index_module(str(path), "mod.py", ast.parse(source), source)


def function(facts: ModuleFacts, name: str) -> FunctionFacts:
    return next(f for f in facts.functions if f.name == name)


HELPERS: list[tuple[Callable[..., Any], type]] = [
    (index._call_fact, CallFact),
    (index._deref_fact, DerefFact),
    (index._bind_fact, BindFact),
    (index._return_fact, ReturnFact),
    (index._store_fact, StoreFact),
    (index._index_fact, IndexFact),
]


@pytest.mark.parametrize(("helper", "cls"), HELPERS, ids=lambda x: getattr(x, "__name__", ""))
def test_fact_helpers_build_the_dataclass_itself(helper: Callable[..., Any], cls: type) -> None:
    names = [f.name for f in dataclasses.fields(cls)]
    assert list(inspect.signature(helper).parameters) == names
    values = [(i, ("name", f"v{i}")) for i in range(len(names))]
    made, built = helper(*values), cls(*values)
    assert type(made) is cls
    assert made == built and hash(made) == hash(built)
    assert pickle.dumps(made, 5) == pickle.dumps(built, 5)
    assert pickle.loads(pickle.dumps(made, 5)) == built
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.span = None


def test_columns_count_characters_on_non_ascii_lines(tmp_path: Path) -> None:
    source = (
        "def f(batch):\n"
        '    label = "héllo"; batch.spec.run()\n'  # é is two bytes in UTF-8
        "    batch.spec.run()\n"
    )
    facts = function(facts_of(tmp_path, source), "f")
    spans = [c.span for c in facts.calls]
    assert spans == [(2, 22, 2, 38), (3, 5, 3, 21)]
    derefs = {(d.span, d.kind) for d in facts.derefs}
    assert ((2, 22, 2, 32), "call") in derefs  # batch.spec
    assert ((3, 5, 3, 15), "call") in derefs


def test_a_call_result_is_named_after_the_last_name_it_is_assigned_to(tmp_path: Path) -> None:
    source = (
        "def f(self):\n"
        "    a = b = self.make(g())\n"
        "    c: int = self.build()\n"
        "    self.x = self.other()\n"
        "    d, e = self.pair()\n"
        "    self.y = h = self.last()\n"
    )
    calls = function(facts_of(tmp_path, source), "f").calls
    targets = {index_text(c.func): c.target for c in calls}
    assert targets == {
        "self.make": "b",
        "g": None,
        "self.build": "c",
        "self.other": None,
        "self.pair": None,
        "self.last": "h",
    }


def index_text(expr: tuple[Any, ...]) -> str:
    from pdlint.exprs import text

    return text(expr)


def test_expressions_deeper_than_the_limit_are_cut(tmp_path: Path) -> None:
    depth = index.MAX_DEPTH + 20
    source = "x = a" + ".b" * depth + "\n"
    (name, value, _), *_ = facts_of(tmp_path, source).assigns
    levels = 0
    while value[0] == "attr":
        value, levels = value[1], levels + 1
    assert name == "x" and value == ("other",) and levels == index.MAX_DEPTH + 1


def test_annotations_convert_outside_a_run() -> None:
    assert index.annotation_expr(ast.Constant("list[int] | None")) == (
        "union",
        ("subscript", ("name", "list"), ("name", "int")),
        ("const", None),
    )
    assert index.to_expr(ast.parse("f(a, k=b.c)", mode="eval").body) == (
        "call",
        ("name", "f"),
        (("name", "a"),),
        (("k", ("attr", ("name", "b"), "c")),),
    )
