"""The value-flow solver's bounds: what keeps a whole release practical."""

from __future__ import annotations

from pdlint.facts.flow import extract
from pdlint.model.valueflow import solve


def test_a_walk_over_an_outside_object_stays_small() -> None:
    """A loop walking an outside object (``node = node.parent``) names each
    attribute once: the names stop where an attribute comes again, instead of
    growing one attribute per round up to the cap (and combining every
    attribute of the loop)."""
    code = (
        "import ext\n\n"
        "def walk(flag):\n"
        "    node = ext.root\n"
        "    while node:\n"
        "        node = node.parent\n"
        "    node.visit()\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.walk"] == {"ext.root.visit", "ext.root.parent.visit"}


def test_two_attributes_walked_give_their_orders_only() -> None:
    code = (
        "import ext\n\n"
        "def walk(flag):\n"
        "    node = ext.root\n"
        "    while node:\n"
        "        node = node.left if flag else node.right\n"
        "    node.visit()\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.walk"] == {
        "ext.root.visit",
        "ext.root.left.visit",
        "ext.root.right.visit",
        "ext.root.left.right.visit",
        "ext.root.right.left.visit",
    }


def test_data_stored_on_self_is_not_the_outside_base_s() -> None:
    """``self.root`` of a class extending an outside class is what the methods
    store there, not an attribute of that base (``abc.ABC.root``)."""
    code = (
        "from abc import ABC\n\n"
        "class Tree(ABC):\n"
        "    def __init__(self):\n"
        "        self.root = None\n\n"
        "    def show(self):\n"
        "        self.root.render()\n"
        "        self.redraw()\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.Tree.show"] == {"abc.ABC.redraw"}


ANNOTATED = """
from typing import TYPE_CHECKING, List, Optional

if TYPE_CHECKING:
    from remote import Remote


class Batch:
    def run(self):
        pass


class Req:
    def finish(self):
        pass


class Other:
    def run(self):
        pass


class Worker:
    running: List[Req]
    current: "Optional[Batch]" = None

    def step(
        self, batch: Batch | None, reqs: list[Req], remote: "Remote", table: dict[str, Batch]
    ) -> None:
        batch.run()
        for r in reqs:
            r.finish()
        remote.fetch()
        table["x"].run()

    def loop(self):
        for r in self.running:
            r.finish()
        self.current.run()

    def make(self) -> "Batch":
        raise NotImplementedError


def use(w: Worker):
    w.make().run()


def given(x: Batch):
    x.run()


given(Other())
"""


def test_annotations_say_what_flows_where_nothing_does() -> None:
    """Parameters, returns and class fields (unions, Optional, X | None, strings,
    list[T], dict[K, V], TYPE_CHECKING imports): what the annotation names is held
    where no value flows, and only there (``given`` gets an Other: no Batch)."""
    edges = solve([extract(ANNOTATED, "main")]).edges
    assert edges["main.Worker.step"] == {"main.Batch.run", "main.Req.finish", "remote.Remote.fetch"}
    assert edges["main.Worker.loop"] == {"main.Req.finish", "main.Batch.run"}
    assert edges["main.use"] == {"main.Worker.make", "main.Batch.run"}
    assert edges["main.given"] == {"main.Other.run"}


def test_an_attribute_a_builtin_value_lacks_reads_nothing() -> None:
    """A tuple has no ``shape``: reading it gives no method of the tuple type (a
    parameter holding tuples and tensors alike would name every pair)."""
    code = "def f(t):\n    t.shape()\n    t.count(1)\n\nf((1, 2))\n"
    graph = solve([extract(code, "main")])
    assert graph.edges["main.f"] == {"<**PyTuple**>.count"}
