"""PDL107 when the resource is read from a property of the configuration
(``self.num_lookahead_slots = config.num_lookahead_slots``, vLLM 0.33's
``VllmConfig.num_lookahead_tokens``): the members the property returns a nonzero
value for are those that set it. The lookahead_guard fixture, its stores moved into
a property."""

from __future__ import annotations

import shutil
from pathlib import Path

from pdlint_helpers import fixture, json_findings

PROPERTY = """

    @property
    def num_lookahead_slots(self) -> int:
        draft = self.draft_config
        if draft is None:
            return 0
        if draft.uses_tree_head() or draft.uses_draft_model():
            return draft.num_draft_tokens
        return 0
"""

STORES = """\
        self.num_lookahead_slots = 0
        if draft is not None:
            if draft.uses_tree_head():
                self.use_tree_head = True
                self.num_lookahead_slots = draft.num_draft_tokens
            if draft.uses_draft_model():
                self.num_lookahead_slots = draft.num_draft_tokens
"""

READ = """\
        self.num_lookahead_slots = config.num_lookahead_slots
        if draft is not None and draft.uses_tree_head():
            self.use_tree_head = True
"""


def _findings(tmp_path: Path, prop: str = PROPERTY, guard: str = "") -> list[tuple]:
    root = shutil.copytree(fixture("lookahead_guard"), tmp_path / "engine")
    config = root / "slot_engine" / "config.py"
    config.write_text(config.read_text() + prop)
    scheduler = root / "slot_engine" / "scheduler.py"
    text = scheduler.read_text().replace(STORES, READ)
    if guard:
        text = text.replace("load_async and self.use_tree_head", guard)
    scheduler.write_text(text)
    found = json_findings("slot_engine", "--no-cache", "--select", "PDL107", cwd=root)
    return [
        (
            f["filename"],
            f["location"]["row"],
            f["member"],
            [(r["filename"], r["location"]["row"]) for r in f["related"]],
        )
        for f in found
    ]


def test_a_guard_narrower_than_the_property_it_limits(tmp_path: Path) -> None:
    assert _findings(tmp_path) == [
        (
            "slot_engine/scheduler.py",
            43,
            "draft_model",
            [
                ("slot_engine/scheduler.py", 44),  # the limit
                ("slot_engine/scheduler.py", 32),  # the store reading the property
                ("slot_engine/config.py", 39),  # its return for draft_model
            ],
        )
    ]


def test_the_resource_itself_as_the_guard(tmp_path: Path) -> None:
    assert _findings(tmp_path, guard="load_async and self.num_lookahead_slots > 0") == []


def test_a_property_nonzero_for_every_member(tmp_path: Path) -> None:
    # which members need the lookahead is then unknown: no finding
    every = PROPERTY.replace(
        "        if draft.uses_tree_head() or draft.uses_draft_model():\n"
        "            return draft.num_draft_tokens\n        return 0\n",
        "        return draft.num_draft_tokens\n",
    )
    assert every != PROPERTY
    assert _findings(tmp_path, every) == []


CHOSEN = """\
        limit_slots = load_async and self.use_tree_head
        slots = 0 if limit_slots else self.num_lookahead_slots
"""


def _returned(tmp_path: Path, helper: str) -> list[tuple[str, int, str]]:
    """The lookahead_guard fixture with its limit moved into a helper method."""
    root = shutil.copytree(fixture("lookahead_guard"), tmp_path / "engine")
    scheduler = root / "slot_engine" / "scheduler.py"
    text = scheduler.read_text()
    assert CHOSEN in text
    scheduler.write_text(text.replace(CHOSEN, "        slots = self.slots(load_async)\n") + helper)
    found = json_findings("slot_engine", "--no-cache", "--select", "PDL107", cwd=root)
    return [(f["filename"], f["location"]["row"], f["member"]) for f in found]


def test_a_limit_returned_from_a_conditional_expression(tmp_path: Path) -> None:
    # ``return 0 if limit else self.r`` is indexed as two returns under the test
    helper = """
    def slots(self, load_async: bool) -> int:
        limit = load_async and self.use_tree_head
        return 0 if limit else self.num_lookahead_slots
"""
    assert _returned(tmp_path, helper) == [("slot_engine/scheduler.py", 60, "draft_model")]


def test_a_limit_returned_from_if_and_else(tmp_path: Path) -> None:
    helper = """
    def slots(self, load_async: bool) -> int:
        limit = load_async and self.use_tree_head
        if limit:
            return 0
        else:
            return self.num_lookahead_slots
"""
    assert _returned(tmp_path, helper) == [("slot_engine/scheduler.py", 60, "draft_model")]


def test_the_property_read_where_it_is_limited(tmp_path: Path) -> None:
    """No attribute stores the resource: the limit reads the configuration's property
    itself, under an ``if`` statement, and only when the configuration is there
    (blind probe10 p61)."""
    root = shutil.copytree(fixture("lookahead_guard"), tmp_path / "engine")
    config = root / "slot_engine" / "config.py"
    config.write_text(config.read_text() + PROPERTY)
    scheduler = root / "slot_engine" / "scheduler.py"
    text = scheduler.read_text()
    kept = "        self.connector = BlockConnector()\n"
    assert CHOSEN in text and kept in text
    scheduler.write_text(
        text.replace(kept, "        self.config = config\n" + kept).replace(
            CHOSEN,
            "        if load_async and self.use_tree_head:\n"
            "            slots = 0\n"
            "        else:\n"
            "            slots = self.config.num_lookahead_slots if self.config else 0\n",
        )
    )
    found = json_findings("slot_engine", "--no-cache", "--select", "PDL107", cwd=root)
    # at the ``if`` that limits it, as a flag's limit is at the flag
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("slot_engine/scheduler.py", 48, "draft_model")
    ]
    related = [(r["filename"], r["location"]["row"]) for r in found[0]["related"]]
    assert ("slot_engine/scheduler.py", 51) in related  # where it is read unlimited
    assert ("slot_engine/config.py", 39) in related  # the property's return for it
