"""The indexer: facts of small modules, checked field by field."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path
from typing import Any

import pytest

from pdlint.facts import indexer as index
from pdlint.facts.exprs import text
from pdlint.facts.types import FACT_TYPES, FunctionFacts, ModuleFacts, packed, unpacked


def facts_of(tmp_path: Path, source: str) -> ModuleFacts:
    path = tmp_path / "mod.py"
    path.write_text(source, encoding="utf-8")
    return index.index_module(str(path), "mod.py", ast.parse(source), source)


def function(facts: ModuleFacts, name: str) -> FunctionFacts:
    return next(f for f in facts.functions if f.name == name)


ALL_KINDS = """
import os
from typing import Literal

class Batch:
    mode: Literal["a", "b"] = "a"

    def run(self, batch, items: list[int]) -> int | None:
        total = len(items) + self.offset
        if batch.mode == "a":
            assert batch.state is not None
            for item in batch.items:
                if item:
                    batch.buffers.append(item)
            batch.state = batch.build(total, k=items[total:])
            return batch.state.run()
        buffers = []
        buffers += batch.extra
        raise ValueError(os.sep)
"""


def test_facts_are_the_named_tuples_they_claim_field_by_field(tmp_path: Path) -> None:
    facts = facts_of(tmp_path, ALL_KINDS)
    seen: set[str] = set()
    stack: list[Any] = [facts]
    while stack:
        item = stack.pop()
        if isinstance(item, FACT_TYPES):
            seen.add(type(item).__name__)
            assert len(item) == len(item._fields)
            rebuilt = type(item)(*item)  # through the named tuple's own __new__
            assert item == rebuilt and hash(item) == hash(rebuilt)
            assert pickle.dumps(item, 5) == pickle.dumps(rebuilt, 5)
            loaded = pickle.loads(pickle.dumps(item, 5))
            assert type(loaded) is type(item) and loaded == item
            with pytest.raises(AttributeError):
                item.span = None
            stack.extend(item)
        elif isinstance(item, tuple):
            stack.extend(item)
    assert seen >= {
        "ModuleFacts",
        "ClassFacts",
        "FunctionFacts",
        "CallFact",
        "DerefFact",
        "BindFact",
        "ReturnFact",
        "StoreFact",
        "IndexFact",
        "GrowFact",
    }


def kinds_in(item: Any) -> list[str]:
    """The type of every tuple in ``item``, depth first (facts by their class)."""
    out: list[str] = []
    stack = [item]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            out.append(type(item).__name__)
            stack.extend(item)
    return out


def test_the_packed_form_holds_plain_tuples_and_unpacks_to_the_same_facts(
    tmp_path: Path,
) -> None:
    facts = facts_of(tmp_path, ALL_KINDS)
    plain = pickle.loads(pickle.dumps(packed(facts), 5))
    assert set(kinds_in(plain)) == {"tuple"}
    back = unpacked(plain)
    assert back == facts
    assert kinds_in(back) == kinds_in(facts)  # every fact of its own class again
    assert len(set(kinds_in(facts))) == 11  # ten kinds of facts, and plain tuples
    with pytest.raises(ValueError):
        unpacked(plain[:5])


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
    targets = {text(c.func): c.target for c in calls}
    assert targets == {
        "self.make": "b",
        "g": None,
        "self.build": "c",
        "self.other": None,
        "self.pair": None,
        "self.last": "h",
    }


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
