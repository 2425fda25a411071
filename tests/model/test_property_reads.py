"""A property read as an attribute is a call of its getter (issue 31 point 1): an edge
of the check's call graph and of ``pdlint graph``, so a dereference in the getter is a
consumer, for the members that read it. Written otherwise than
fixtures/relay/property_consumer."""

from __future__ import annotations

import json
from pathlib import Path

from pdlint_helpers import invoke, package_findings

PLAN = """
    from enum import Enum


    class Tiles:
        def __init__(self, rows):
            self.rows = rows


    class Layout(Enum):
        FLAT = "flat"
        TILED = "tiled"
        SPARSE = "sparse"

        def tiles_from(self, blob):
            if self is Layout.TILED:
                return Tiles(blob)
            return None
"""

SLOT = """
    class Metrics:
        @property
        def tile_rows(self):
            return self.tiles.rows

        def area(self):
            return self.tile_rows * 2


    class Slot(Metrics):
        def __init__(self, ident):
            self.ident = ident
            self.tiles = None


    class Ledger:
        def __init__(self):
            self.tile_rows = 0
"""

LOOP = """
    from eng.plan import Layout
    from eng.slot import Ledger, Slot


    class Runner:
        def __init__(self, layout: Layout):
            self.layout = layout
            self.ledger = Ledger()

        def adopt(self, blob) -> Slot:
            slot = Slot(blob["id"])
            tiles = self.layout.tiles_from(blob["rows"])
            if tiles is not None:
                slot.tiles = tiles
            return slot

        def loop_disagg_decode(self, blobs):
            for blob in blobs:
                slot = self.adopt(blob)
                seen = self.ledger.tile_rows
                if self.layout is Layout.SPARSE:
                    seen = slot.area()
                print(seen)
"""


def _check(root: Path, files: dict[str, str]) -> list[str]:
    return package_findings(root, {"eng/__init__.py": "", **files})


def test_inherited_property_read_on_self_is_a_consumer_for_the_member_reading_it(
    tmp_path: Path,
) -> None:
    # SPARSE reads the mixin's property through ``self.tile_rows`` in ``area``; FLAT has
    # no tiles either but never reads them; ``ledger.tile_rows`` is a plain attribute
    found = _check(tmp_path, {"eng/plan.py": PLAN, "eng/slot.py": SLOT, "eng/loop.py": LOOP})
    assert found == ["PDL001 eng/plan.py:14 FLAT,SPARSE", "PDL101 eng/slot.py:4 SPARSE"]


def test_a_read_on_an_object_of_unknown_class_is_no_call(tmp_path: Path) -> None:
    # the slot comes from a parameter nothing passes: which ``tile_rows`` it reads is
    # not known, and a property of that name elsewhere is not guessed
    loop = (
        LOOP.replace("seen = slot.area()", "seen = self.other(slot)")
        .replace(
            "        def loop_disagg_decode",
            "        def other(self, thing):\n"
            "            return thing.tile_rows\n\n        def loop_disagg_decode",
        )
        .replace("seen = self.other(slot)", "seen = self.other(blob)")
    )
    found = _check(tmp_path, {"eng/plan.py": PLAN, "eng/slot.py": SLOT, "eng/loop.py": loop})
    assert found == ["PDL001 eng/plan.py:14 FLAT,SPARSE"]


def test_graph_has_the_getter_of_a_property_read(tmp_path: Path) -> None:
    _check(tmp_path, {"eng/plan.py": PLAN, "eng/slot.py": SLOT, "eng/loop.py": LOOP})
    done = invoke("graph", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    edges = json.loads(done.stdout)
    assert "eng.slot.Metrics.tile_rows" in edges["eng.slot.Metrics.area"]
