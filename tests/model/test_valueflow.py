"""The value-flow solver's bounds: what keeps a whole release practical."""

from __future__ import annotations

import json
from pathlib import Path

from pdlint_helpers import run_pdlint

from pdlint.facts.flow import extract
from pdlint.model.valueflow import WIDENED, solve


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


def _many_outside_names(count: int) -> str:
    """A helper called with the results of ``count`` outside functions and with
    instances of the analysed code, which it forwards to another helper. Half the
    outside names reach it late (through calls found as the solver goes): it has
    read the first half by then."""
    half = count // 2
    first = "\n".join(f"    fill(torch.op{i}(), torch.op{i}())" for i in range(half))
    late = "\n".join(
        f"    fill(relay(call, torch.late{i}), relay(call, torch.late{i}))"
        for i in range(count - half)
    )
    return (
        "import torch\n\n"
        "def call(make):\n"
        "    return make()\n\n"
        "def relay(fn, arg):\n"
        "    return fn(arg)\n\n"
        "class Meta:\n"
        "    def copy_from(self, other):\n"
        "        other.run()\n\n"
        "class Local:\n"
        "    def run(self):\n"
        "        pass\n\n"
        "def fill(dst, src):\n"
        "    dst.copy_(src)\n"
        "    dst.copy_from(src)\n"
        "    forward(src)\n\n"
        "def forward(value):\n"
        "    value.run()\n\n"
        "def few(x):\n"
        "    x.size()\n\n"
        "def build():\n"
        "    fill(Meta(), Local())\n"
        "    few(torch.a())\n"
        "    few(torch.b())\n"
        f"{first}\n"
        f"{late}\n"
    )


def test_a_parameter_given_many_outside_names_is_widened() -> None:
    """Past the bound, a node holds "some outside value" instead of each outside
    name, and so does what flows from it: calls on it are dropped (counted), never
    guessed; the calls on the analysed code's values it also holds still resolve,
    and a parameter given a few outside names keeps them."""
    graph = solve([extract(_many_outside_names(40), "main")])
    # the names fill saw before it was widened are gone too
    assert graph.edges["main.fill"] == {"main.Meta.copy_from", "main.forward"}
    assert graph.edges["main.forward"] == {"main.Local.run"}
    assert graph.edges["main.Meta.copy_from"] == {"main.Local.run"}
    assert graph.edges["main.few"] == {"torch.a.size", "torch.b.size"}
    below = solve([extract(_many_outside_names(3), "main")])
    assert {"torch.op0.copy_", "torch.late1.copy_"} <= below.edges["main.fill"]
    assert "torch.late1.run" in below.edges["main.forward"]
    assert graph.calls == below.calls + 3 * 37
    # dst.copy_ in fill resolves to nothing now (value.run still reaches Local.run)
    assert (below.dropped, graph.dropped) == (0, 1)


def test_the_widened_graph_does_not_depend_on_the_hash_seed(tmp_path: Path) -> None:
    """Which nodes are widened is a property of the program, not of the order the
    solver meets the names in (set order changes with the hash seed): the output
    is the same byte for byte."""
    (tmp_path / "main.py").write_text(_many_outside_names(80))
    outputs = set()
    for seed in ("1", "2", "3"):
        proc = run_pdlint(
            "graph", "--all", "--format", "json", "-vv", cwd=tmp_path, env={"PYTHONHASHSEED": seed}
        )
        assert proc.returncode == 0, proc.stderr
        outputs.add((proc.stdout, proc.stderr))
    assert len(outputs) == 1
    stdout, stderr = outputs.pop()
    # -vv tells each dropped call with why: dst.copy_ on the widened parameter, and
    # make() in call (given 40 outside functions)
    lines = _many_outside_names(80).splitlines()
    for caller, text in (("main.fill", "    dst.copy_(src)"), ("main.call", "    return make()")):
        line = lines.index(text) + 1
        assert f"dropped call: main.py:{line}: in `{caller}`: {WIDENED}" in stderr
    assert "2 dropped (callee unknown; 2 of them on widened values)" in stderr
    graph = json.loads(stdout)
    edges = {(e["source"], e["target"]) for e in graph["edges"]}
    assert ("main.forward", "main.Local.run") in edges
    assert not [e for e in edges if e[0] != "main.build" and e[1].startswith("torch.op")]


def test_a_parameter_given_many_constants_and_containers_is_widened() -> None:
    """Data is bounded as outside names are: a helper given 40 dicts holding 40
    strings holds one opaque value, not 80; the handler it is also given is still
    called, and a container of few values keeps its contents."""
    calls = "\n".join(f"    show({{'k{i}': 'v{i}'}}, Handler())" for i in range(40))
    code = (
        "class Handler:\n"
        "    def run(self, value):\n"
        "        pass\n\n"
        "def show(data, handler):\n"
        "    for key in data:\n"
        "        handler.run(data[key])\n"
        "    data.items()\n\n"
        "def small(data):\n"
        "    data.items()\n\n"
        "def main():\n"
        "    small({'a': 1})\n"
        f"{calls}\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.show"] == {"main.Handler.run"}
    assert graph.edges["main.small"] == {"<**PyDict**>.items"}


def test_strings_stay_names_past_the_bound() -> None:
    """Strings are not widened: a helper given 40 field names still finds the
    attribute getattr reads by one of them (a container of them is widened)."""
    names = ", ".join(f"'x{i}'" for i in range(40))
    code = (
        "class Handler:\n"
        "    def copy_(self):\n"
        "        pass\n\n"
        "class Holder:\n"
        "    def __init__(self):\n"
        "        self.f0 = Handler()\n\n"
        "def copy_fields(obj, fields):\n"
        "    for name in fields:\n"
        "        getattr(obj, name).copy_()\n\n"
        "def main():\n"
        f"    copy_fields(Holder(), ['f0', {names}])\n"
    )
    graph = solve([extract(code, "main")])
    assert "main.Handler.copy_" in graph.edges["main.copy_fields"]


def test_an_annotation_naming_a_call_s_attribute_says_nothing() -> None:
    """``backend.current().Handle`` names the type of a value, not a class the flow
    can hold: the annotation is ignored (the extraction used to fail on it) and the
    rest of the module is solved."""
    code = (
        "import backend\n\n"
        "class Sink:\n    def put(self):\n        pass\n\n"
        "def wait(h: backend.current().Handle, hs: list[backend.current().Handle]) -> "
        "dict[int, backend.current().Handle] | None:\n"
        "    Sink().put()\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.wait"] == {"main.Sink.put"}


def test_a_name_built_by_concatenation_is_looked_up() -> None:
    """``getattr(self, "on_" + event)``: each string the parts may be, joined."""
    code = (
        "class Router:\n"
        "    def on_open(self):\n        pass\n\n"
        "    def on_close(self):\n        pass\n\n"
        "    def on_error(self):\n        pass\n\n"
        "    def route(self, event):\n"
        "        name = 'on_'\n"
        "        name += event\n"
        "        getattr(self, name)()\n\n\n"
        "r = Router()\nfor e in ('open', 'close'):\n    r.route(e)\n"
    )
    graph = solve([extract(code, "main")])
    assert graph.edges["main.Router.route"] >= {"main.Router.on_open", "main.Router.on_close"}
    assert "main.Router.on_error" not in graph.edges["main.Router.route"]


def test_an_enum_subscripted_by_an_unknown_name_is_any_member() -> None:
    """``cls[text.strip().upper()]`` in an enum's classmethod may be any member: the
    members' methods are reached."""
    code = (
        "import enum\nimport sys\n\n\n"
        "class Phase(enum.Enum):\n    PREFILL = 1\n    DECODE = 2\n\n"
        "    @classmethod\n    def of(cls, text):\n        return cls[text.strip().upper()]\n\n"
        "    def other(self):\n        return Phase.DECODE\n\n\n"
        "def run(raw):\n    Phase.of(raw).other()\n\n\nrun(sys.argv[1])\n"
    )
    graph = solve([extract(code, "main")])
    assert "main.Phase.other" in graph.edges["main.run"]


def test_an_enum_subscripted_by_a_name_nothing_passes_is_any_member() -> None:
    """A server's constructor called from outside parses its setting with
    ``cls[name.upper()]``: nothing flows into ``name``, so any member."""
    code = (
        "import enum\n\n\n"
        "class Kind(enum.Enum):\n    TREE = 1\n    CHAIN = 2\n\n"
        "    @classmethod\n    def parse(cls, name):\n"
        "        if name is None:\n            return None\n"
        "        return cls[name.upper()]\n\n"
        "    def restore(self):\n        pass\n\n\n"
        "class Server:\n    def __init__(self, config):\n"
        "        self.kind = Kind.parse(config.get('kind'))\n\n"
        "    def run(self):\n        self.kind.restore()\n"
    )
    graph = solve([extract(code, "main")])
    assert "main.Kind.restore" in graph.edges["main.Server.run"]


def test_a_kwargs_dict_merged_in_replaces_no_entry() -> None:
    """``defaults.update(overrides)`` with ``**overrides``: one call may pass a key and
    another not, so the entry it would replace is still called."""
    code = (
        "def plain():\n    pass\n\n\n"
        "def fancy():\n    pass\n\n\n"
        "def render(**hooks):\n"
        "    table = {'style': plain}\n"
        "    table.update(hooks)\n"
        "    table['style']()\n\n\n"
        "render()\nrender(style=fancy)\n"
    )
    graph = solve([extract(code, "main")])
    assert {"main.plain", "main.fancy"} <= graph.edges["main.render"]


def test_async_with_binds_what_awaiting_aenter_gives() -> None:
    """``async with Pool() as p``: ``p`` is what ``__aenter__``'s coroutine returns."""
    code = (
        "class Lease:\n    def release(self):\n        pass\n\n\n"
        "class Pool:\n"
        "    async def __aenter__(self):\n        return Lease()\n\n"
        "    async def __aexit__(self, *exc):\n        return False\n\n\n"
        "async def serve():\n"
        "    async with Pool() as lease:\n        lease.release()\n"
    )
    graph = solve([extract(code, "main")])
    assert "main.Lease.release" in graph.edges["main.serve"]
