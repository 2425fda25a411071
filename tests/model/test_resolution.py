"""The resolution idioms of issue 31 as capabilities, each on a package written
otherwise than its fixture under fixtures/flow/: what a user sees is the
findings (code, file, line, member), with the correct variant silent."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from pdlint_helpers import invoke, summary

# shared by the packages below: an enum with a builder that has nothing for LOOKUP
DRAFTING = """
    import enum
    from typing import Optional


    class Draft:
        def __init__(self, tokens):
            self.tokens = tokens


    class Algo(enum.Enum):
        TREE = 1
        LOOKUP = 2

        def is_lookup(self):
            return self is Algo.LOOKUP

        def draft_for(self, handoff) -> Optional[Draft]:
            if self is Algo.TREE:
                return Draft(handoff)
            return None
"""


def _findings(root: Path, files: dict[str, str]) -> list[str]:
    """``CODE path:line MEMBER`` of ``pdlint check`` on a package made of ``files``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    done = invoke("check", "--no-cache", "--output-format", "json", ".", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    return summary(json.loads(done.stdout))


def test_relay_on_a_mixin_reaches_a_consumer_typed_with_a_sibling_base(tmp_path: Path) -> None:
    # the relay's class and the consumer's share only a grandchild; a class that
    # inherits neither (Chunk) holds an attribute of the same name and stays silent
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/parts.py": """
                from eng.drafting import Algo


                class Fields:
                    draft = None

                    def __init__(self, algo: Algo):
                        self.algo = algo


                class Relay:
                    def take(self, handoff):
                        built = self.algo.draft_for(handoff)
                        if built is not None:
                            self.draft = built


                class Chunk:
                    def __init__(self):
                        self.draft = None
            """,
            "eng/batch.py": """
                from eng.parts import Fields, Relay


                class Middle(Relay, Fields):
                    pass


                class Batch(Middle):
                    pass
            """,
            "eng/loop.py": """
                from eng.batch import Batch
                from eng.parts import Chunk, Fields


                def step(b: Fields, c: Chunk):
                    if b.algo.is_lookup():
                        c.draft.tokens.clear()
                        return b.draft.tokens


                def event_loop_disagg_decode(algo, handoffs):
                    for h in handoffs:
                        b = Batch(algo)
                        b.take(h)
                        step(b, Chunk())
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:8 LOOKUP"]


def test_variant_found_only_inside_a_tested_local(tmp_path: Path) -> None:
    # a module-level builder: the variant is read through a chain of locals, and the
    # registry's key is a parameter's attribute
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/build.py": """
                from eng.drafting import Algo, Draft

                MAKERS = {Algo.TREE: Draft}


                class Cfg:
                    def __init__(self, algo: Algo):
                        self.algo = algo


                def rebuild(cfg: Cfg, handoff):
                    algo = cfg.algo
                    maker = MAKERS.get(algo)
                    if not maker:
                        return None
                    return maker(handoff)


                class Batch:
                    def __init__(self, cfg: Cfg):
                        self.cfg = cfg
                        self.draft = None

                    def take(self, handoff):
                        d = rebuild(self.cfg, handoff)
                        if d is not None:
                            self.draft = d
            """,
            "eng/loop.py": """
                from eng.build import Batch


                def event_loop_disagg_decode(cfg, handoffs):
                    for h in handoffs:
                        b = Batch(cfg)
                        b.take(h)
                        if b.cfg.algo.is_lookup():
                            b.draft.tokens.pop()
            """,
        },
    )
    assert found == ["PDL001 eng/build.py:11 LOOKUP", "PDL101 eng/loop.py:9 LOOKUP"]


def test_predicates_written_as_module_functions(tmp_path: Path) -> None:
    # a builder method testing a module-level predicate of its own config attribute,
    # and a consumer testing another one through a local
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/preds.py": """
                from eng.drafting import Algo


                class Spec:
                    algo: Algo


                def uses_tree(spec: Spec) -> bool:
                    return spec.algo in (Algo.TREE,)


                def uses_lookup(spec: Spec) -> bool:
                    return not uses_tree(spec)
            """,
            "eng/batch.py": """
                from eng.drafting import Draft
                from eng.preds import Spec, uses_lookup, uses_tree


                class Batch:
                    def __init__(self, spec: Spec):
                        self.spec = spec
                        self.draft = None

                    def rebuild(self, handoff):
                        if not uses_tree(self.spec):
                            return None
                        return Draft(handoff)

                    def take(self, handoff):
                        d = self.rebuild(handoff)
                        if d is not None:
                            self.draft = d


                def event_loop_disagg_decode(spec, handoffs):
                    for h in handoffs:
                        b = Batch(spec)
                        b.take(h)
                        lookup = uses_lookup(b.spec)
                        if lookup:
                            b.draft.tokens.pop()
                        elif uses_tree(b.spec):
                            b.draft.tokens.clear()
            """,
        },
    )
    assert found == ["PDL001 eng/batch.py:10 LOOKUP", "PDL101 eng/batch.py:27 LOOKUP"]


def test_inline_literal_annotations_are_variants(tmp_path: Path) -> None:
    # a builder taking the method as a parameter annotated with an Optional inline
    # Literal; the member only the annotation names ("m3") reaches the consumer
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/run.py": """
                from typing import Literal, Optional


                class State:
                    rows = ()


                def state_for(method: Optional[Literal["m1", "m2", "m3"]]):
                    if method == "m1" or method == "m2":
                        return State()
                    if method is None:
                        raise ValueError("no method")


                class Worker:
                    method: Literal["m1", "m2", "m3"]

                    def __init__(self, method):
                        self.method = method
                        self.state = None

                    def take(self):
                        s = state_for(self.method)
                        if s is not None:
                            self.state = s

                    def event_loop_disagg_decode(self):
                        self.take()
                        if self.method not in ("m1",):
                            return len(self.state.rows)
            """,
        },
    )
    assert found == ["PDL001 eng/run.py:8 m3", "PDL101 eng/run.py:30 m3"]


def test_class_objects_held_and_instantiated_later(tmp_path: Path) -> None:
    # a class object kept in an attribute, one in a local through a module-level
    # table, one returned by a function: none of them has an ``__init__``
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/steps.py": """
                class Drain:
                    def run(self, b):
                        return b.draft.tokens.pop()


                class Count:
                    def run(self, b):
                        return len(b.draft.tokens)


                class Peek:
                    def run(self, b):
                        return b.draft.tokens[0]


                class Skip:
                    def run(self, b):
                        return b.draft.tokens


                FINISHERS = {"peek": Peek}
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.steps import FINISHERS, Count, Drain, Skip


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, h):
                        d = self.algo.draft_for(h)
                        if d is not None:
                            self.draft = d


                class Loop:
                    def __init__(self):
                        self.step_cls = Drain
                        self.unused_cls = Skip

                    def counter(self):
                        return Count

                    def event_loop_disagg_decode(self, algo: Algo, handoffs):
                        for h in handoffs:
                            b = Batch(algo)
                            b.take(h)
                            if algo.is_lookup():
                                self.step_cls().run(b)
                                self.counter()().run(b)
                                finish = FINISHERS.get("peek")
                                finish().run(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/steps.py:13 LOOKUP",
        "PDL101 eng/steps.py:3 LOOKUP",
        "PDL101 eng/steps.py:8 LOOKUP",
    ]


def test_conditional_expressions_are_value_sets(tmp_path: Path) -> None:
    # a callable and an instance, each chosen by a conditional expression: both
    # sides are reached (the test does not name the variant)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Fast:
                    def go(self, b):
                        return b.draft.tokens[0]


                class Slow:
                    def go(self, b):
                        return 0


                class Loop:
                    def __init__(self, algo: Algo, fast: bool):
                        self.algo = algo
                        self.draft = None
                        self.runner = Fast() if fast else Slow()

                    def _short(self):
                        return self.draft.tokens[:1]

                    def _long(self):
                        return list(self.draft.tokens)

                    def event_loop_disagg_decode(self, h, short):
                        d = self.algo.draft_for(h)
                        if d is not None:
                            self.draft = d
                        if self.algo.is_lookup():
                            pick = self._short if short else self._long
                            pick()
                            self.runner.go(self)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/loop.py:21 LOOKUP",
        "PDL101 eng/loop.py:24 LOOKUP",
        "PDL101 eng/loop.py:6 LOOKUP",
    ]


def test_lambdas_are_functions(tmp_path: Path) -> None:
    # a lambda in a local, one passed as an argument and called by the callee, one
    # chosen by a conditional expression, one handed to code outside the analysed
    # package (``sorted``'s key, called on each element); no lambda is an entry
    # point of its own
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                def apply(fn, b):
                    return fn(b)


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, h):
                        d = self.algo.draft_for(h)
                        if d is not None:
                            self.draft = d


                def event_loop_disagg_decode(algo: Algo, handoffs, wide):
                    key = lambda b: b.draft.tokens[0]
                    for h in handoffs:
                        b = Batch(algo)
                        b.take(h)
                        if not b.algo.is_lookup():
                            continue
                        key(b)
                        apply(lambda x: x.draft.tokens[-1], b)
                        pick = (lambda x: len(x.draft.tokens)) if wide else (lambda x: 0)
                        pick(b)
                        sorted([b], key=lambda x: x.draft.tokens[1])
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/loop.py:20 LOOKUP",
        "PDL101 eng/loop.py:27 LOOKUP",
        "PDL101 eng/loop.py:28 LOOKUP",
        "PDL101 eng/loop.py:30 LOOKUP",
    ]


def test_properties_read_as_attributes(tmp_path: Path) -> None:
    # a property annotated with the variant, one returning the variant's member by
    # name, one returning another attribute (its class from that attribute's store)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Runner:
                    def run(self, b):
                        return b.draft.tokens[0]


                class Cfg:
                    def __init__(self, name):
                        self.name = name

                    @property
                    def algo(self):
                        return Algo[self.name]


                class Batch:
                    def __init__(self, cfg: Cfg):
                        self.cfg = cfg
                        self.draft = None
                        self._runner = Runner()

                    @property
                    def runner(self):
                        return self._runner

                    def take(self, h):
                        d = self.cfg.algo.draft_for(h)
                        if d is not None:
                            self.draft = d


                def event_loop_disagg_decode(cfg: Cfg, handoffs):
                    for h in handoffs:
                        b = Batch(cfg)
                        b.take(h)
                        if b.cfg.algo is Algo.LOOKUP:
                            b.runner.run(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:6 LOOKUP"]


def test_property_returning_an_attribute_reads_it_on_the_receivers_class(tmp_path: Path) -> None:
    # the base class's property is annotated with the helpers' base; each worker
    # stores its own helper: the tree worker's call must not reach the lookup helper
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from typing import Optional

                from eng.drafting import Algo


                class Helper:
                    def go(self, b):
                        return 0


                class TreeHelper(Helper):
                    def go(self, b):
                        return len(b.draft.tokens)


                class LookupHelper(Helper):
                    def go(self, b):
                        return b.draft.tokens[0]


                class Worker:
                    _helper = None

                    @property
                    def helper(self) -> Optional[Helper]:
                        return self._helper


                class TreeWorker(Worker):
                    def __init__(self):
                        self._helper = TreeHelper()

                    def step(self, b):
                        return self.helper.go(b)


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None
                        d = algo.draft_for({})
                        if d is not None:
                            self.draft = d


                def event_loop_disagg_decode(algo: Algo, worker: TreeWorker):
                    b = Batch(algo)
                    if b.algo.is_lookup():
                        worker.step(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:13 LOOKUP"]


def test_class_chosen_by_a_table_or_a_test_carries_its_members(tmp_path: Path) -> None:
    # a table of classes in another module, its keys written through an alias of the
    # enum, looked up through a chain of locals; and a class chosen by a conditional
    # expression on the variant: each class is reached for its own members only
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/steps.py": """
                from eng import drafting as d


                class Fine:
                    def run(self, b):
                        return len(b.draft.tokens)


                class Broken:
                    def run(self, b):
                        return b.draft.tokens[0]


                class Other:
                    def run(self, b):
                        return b.draft.tokens[1]


                STEPS = {d.Algo.TREE: Fine, d.Algo.LOOKUP: Broken, d.Algo.CHAIN: Fine}
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.steps import STEPS, Fine, Other


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None
                        d = algo.draft_for({})
                        if d is not None:
                            self.draft = d


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        table = STEPS
                        found = table[algo]
                        self.step = found()
                        self.other = (Fine if algo is Algo.TREE else Other)()

                    def event_loop_disagg_decode(self):
                        b = Batch(self.algo)
                        self.step.run(b)
                        self.other.run(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/steps.py:11 LOOKUP",
        "PDL101 eng/steps.py:16 CHAIN",
        "PDL101 eng/steps.py:16 LOOKUP",
        "PDL101 eng/steps.py:6 CHAIN",
    ]


def test_with_targets_and_assignment_expressions_bind_locals(tmp_path: Path) -> None:
    # ``async with ... as`` (what ``__aenter__`` returns, awaited), a walrus in a
    # loop's condition holding the builder's result, a tuple of ``with`` targets
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, pending):
                        while (d := self.algo.draft_for(pending.pop())) is not None:
                            self.draft = d

                    def finish(self):
                        return self.draft.tokens[0]


                class Open:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    async def __aenter__(self) -> Batch:
                        return Batch(self.algo)

                    async def __aexit__(self, *exc):
                        return False


                class Pair:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def __enter__(self) -> "tuple[int, Batch]":
                        return 0, Batch(self.algo)

                    def __exit__(self, *exc):
                        return False


                async def event_loop_disagg_decode(algo: Algo, pending):
                    async with Open(algo) as b:
                        b.take(pending)
                        if b.algo.is_lookup():
                            b.draft.tokens.pop()
                    with Pair(algo) as (n, other):
                        if other.algo.is_lookup():
                            other.finish()
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/loop.py:14 LOOKUP",
        "PDL101 eng/loop.py:43 LOOKUP",
    ]


def test_literal_string_variants_choose_classes_and_table_entries(tmp_path: Path) -> None:
    # the variant is a Literal alias of strings (as vLLM names its methods): an
    # attribute stored per string in if/else, and a table of bound methods keyed by
    # the strings, each reached only by the strings that choose it
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/kinds.py": """
                from typing import Literal, Optional

                Kind = Literal["tree", "chain", "lookup"]


                class Draft:
                    def __init__(self, tokens):
                        self.tokens = tokens


                def draft_for(kind: Kind, handoff) -> Optional[Draft]:
                    if kind == "tree" or kind == "chain":
                        return Draft(handoff)
                    return None
            """,
            "eng/heads.py": """
                class TreeHead:
                    def score(self, b):
                        return b.draft.tokens[0]


                class LookupHead:
                    def score(self, b):
                        return len(b.tokens)
            """,
            "eng/loop.py": """
                from eng.heads import LookupHead, TreeHead
                from eng.kinds import Kind, draft_for


                class Batch:
                    def __init__(self, tokens):
                        self.tokens = tokens
                        self.draft = None


                class Loop:
                    def __init__(self, kind: Kind):
                        self.kind = kind
                        if kind == "lookup":
                            self.head = LookupHead()
                        else:
                            self.head = TreeHead()
                        self.steps = {"tree": self.wide, "chain": self.wide, "lookup": self.narrow}

                    def wide(self, b):
                        return b.draft.tokens[-1]

                    def narrow(self, b):
                        return b.tokens[-1]

                    def event_loop_disagg_decode(self, tokens):
                        b = Batch(tokens)
                        d = draft_for(self.kind, tokens)
                        if d is not None:
                            b.draft = d
                        self.head.score(b)
                        self.steps[self.kind](b)
            """,
        },
    )
    assert found == ["PDL001 eng/kinds.py:11 lookup"]


def test_tables_of_objects_and_returned_lists(tmp_path: Path) -> None:
    # a module-level table of runner objects keyed by the batch mode, read with a
    # default; the batches come from a helper returning list[Batch]: the IDLE runner
    # (the default) is reached by IDLE batches alone, the decode runner by the others
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/runners.py": """
                import enum


                class Phase(enum.Enum):
                    DECODE = 1
                    IDLE = 2


                class DecodeRunner:
                    def run(self, b):
                        if b.algo.is_lookup():
                            return b.draft.tokens[0]
                        return 0


                class IdleRunner:
                    def run(self, b):
                        return b.draft.tokens


                RUNNERS = {Phase.DECODE: DecodeRunner()}
                FALLBACK = IdleRunner()
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.runners import FALLBACK, RUNNERS, Phase


                class Batch:
                    def __init__(self, algo: Algo, phase: Phase):
                        self.algo = algo
                        self.phase = phase
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def _ready(self, handoffs) -> list[Batch]:
                        out = []
                        for h in handoffs:
                            b = Batch(self.algo, Phase.DECODE)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            out.append(b)
                        return out or [Batch(self.algo, Phase.IDLE)]

                    def event_loop_disagg_decode(self, handoffs):
                        for b in self._ready(handoffs):
                            RUNNERS.get(b.phase, FALLBACK).run(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/runners.py:12 LOOKUP",
        "PDL102 eng/runners.py:18 IDLE",
    ]


def test_template_method_reaches_each_chosen_classs_hooks_for_its_members(tmp_path: Path) -> None:
    # the class comes from a table keyed by members; the base's template method calls
    # a second base method, which calls the hook on self: each hook is reached by the
    # members whose class inherits it, not by every member
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/stages.py": """
                from eng.drafting import Algo


                class Stage:
                    def run(self, b):
                        return self._inner(b)

                    def _inner(self, b):
                        return self._hook(b)

                    def _hook(self, b):
                        return 0


                class TreeStage(Stage):
                    def _hook(self, b):
                        return b.draft.tokens[0]


                class ChainStage(TreeStage):
                    pass


                class LookupStage(Stage):
                    def _hook(self, b):
                        return len(b.draft.tokens)


                STAGES = {Algo.TREE: TreeStage, Algo.CHAIN: ChainStage, Algo.LOOKUP: LookupStage}
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.stages import STAGES


                class Batch:
                    def __init__(self):
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.stage = STAGES[algo]()

                    def event_loop_disagg_decode(self, handoff):
                        b = Batch()
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            b.draft = d
                        self.stage.run(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/stages.py:17 CHAIN",
        "PDL101 eng/stages.py:26 LOOKUP",
    ]


def test_generic_containers_bind_their_type_variables(tmp_path: Path) -> None:
    # a subclass binding the base's type variable (with a string), and a generic of
    # two variables declared with an annotation: the methods' -> Optional[T] and
    # -> list[V] are read as the classes bound
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/holders.py": """
                from typing import Generic, Optional, TypeVar

                T = TypeVar("T")
                K = TypeVar("K")
                V = TypeVar("V")


                class Box(Generic[T]):
                    def __init__(self):
                        self.item = None

                    def take(self) -> Optional[T]:
                        return self.item


                class Registry(Generic[K, V]):
                    def __init__(self):
                        self.items = {}

                    def values_(self) -> list[V]:
                        return list(self.items.values())
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.holders import Box, Registry


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def step(self):
                        if self.algo.is_lookup():
                            return self.draft.tokens

                    def finish(self):
                        return self.draft.tokens[-1]


                class BatchBox(Box["Batch"]):
                    pass


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.box = BatchBox()
                        self.reg: Registry[str, Batch] = Registry()

                    def event_loop_disagg_decode(self, handoff):
                        b = Batch(self.algo)
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            b.draft = d
                        self.box.item = b
                        self.reg.items["r"] = b
                        got = self.box.take()
                        got.step()
                        for each in self.reg.values_():
                            each.finish()
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/loop.py:12 LOOKUP",
        "PDL101 eng/loop.py:15 LOOKUP",
    ]


def test_predicates_read_as_properties(tmp_path: Path) -> None:
    # a property of a settings object that tests the variant it holds, read in a
    # guard: true for LOOKUP only, so CHAIN (no draft either) never reaches the
    # dereference
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                from functools import cached_property

                from eng.drafting import Algo


                class Settings:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    @cached_property
                    def looks_up(self):
                        return self.algo is Algo.LOOKUP


                class Batch:
                    def __init__(self):
                        self.draft = None


                class Loop:
                    def __init__(self, settings: Settings):
                        self.settings = settings

                    def event_loop_disagg_decode(self, handoff):
                        b = Batch()
                        d = self.settings.algo.draft_for(handoff)
                        if d is not None:
                            b.draft = d
                        if self.settings.looks_up:
                            return b.draft.tokens
                        return None
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:18 LOOKUP,CHAIN", "PDL101 eng/loop.py:30 LOOKUP"]


def test_constructor_arguments_are_named_by_the_attributes_they_fill(tmp_path: Path) -> None:
    # the mode is a positional argument stored under another name, through the base
    # constructor; the idle batch is made by a factory classmethod (cls(...)) and the
    # other by a second one: only the idle batch is reported, where it has no draft
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/batch.py": """
                import enum


                class Phase(enum.Enum):
                    RUN = 1
                    IDLE = 2


                class Base:
                    def __init__(self, phase: Phase, algo):
                        self.forward_phase = phase
                        self.algo = algo
                        self.draft = None


                class Batch(Base):
                    def __init__(self, phase, algo, rows):
                        super().__init__(phase, algo)
                        self.rows = rows

                    @classmethod
                    def idle(cls, algo):
                        return cls(Phase.IDLE, algo, [])

                    @classmethod
                    def running(cls, algo, rows):
                        return cls(Phase.RUN, algo, rows)
            """,
            "eng/loop.py": """
                from eng.batch import Batch, Phase
                from eng.drafting import Algo


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def event_loop_disagg_decode(self, handoffs):
                        if not handoffs:
                            b = Batch.idle(self.algo)
                            self.forward(b)
                            return
                        b = Batch.running(self.algo, handoffs)
                        d = self.algo.draft_for(handoffs)
                        if d is not None:
                            b.draft = d
                        self.forward(b)

                    def forward(self, b: Batch):
                        if b.algo is Algo.TREE:
                            return b.draft.tokens
                        return None
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL102 eng/loop.py:22 IDLE"]


def test_builder_on_a_parameter_compared_with_members(tmp_path: Path) -> None:
    # the builder's parameter has no annotation and its enum is imported inside it:
    # the members it is compared with make it a builder
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/kinds.py": """
                import enum


                class Head(enum.Enum):
                    WIDE = 1
                    NARROW = 2
                    NONE = 3
            """,
            "eng/build.py": """
                def head_state(head, payload):
                    from eng import kinds

                    if head in (kinds.Head.WIDE,):
                        return list(payload)
                    return None
            """,
            "eng/loop.py": """
                from eng.build import head_state
                from eng.kinds import Head


                class Batch:
                    def __init__(self):
                        self.state = None


                class Loop:
                    def __init__(self, head: Head):
                        self.head = head

                    def event_loop_disagg_decode(self, payload):
                        b = Batch()
                        s = head_state(self.head, payload)
                        if s is not None:
                            b.state = s
                        if self.head is not Head.NONE:
                            return b.state[0]
                        return None
            """,
        },
    )
    assert found == [
        "PDL001 eng/build.py:1 NARROW,NONE",
        "PDL101 eng/loop.py:20 NARROW",
    ]


def test_nested_functions_read_their_enclosing_variables(tmp_path: Path) -> None:
    # the relay and the consumer are nested functions using the batch of the
    # function they are written in (a closure), one of them a lambda
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Batch:
                    def __init__(self):
                        self.draft = None

                    def tokens(self):
                        return self.draft.tokens


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def event_loop_disagg_decode(self, handoff):
                        batch = Batch()

                        def fill():
                            d = self.algo.draft_for(handoff)
                            if d is not None:
                                batch.draft = d

                        fill()
                        if self.algo.is_lookup():
                            read = lambda: batch.tokens()
                            return read()
                        return None
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:9 LOOKUP"]


def test_lists_filled_under_variant_tests_carry_their_members(tmp_path: Path) -> None:
    # stage objects appended per algorithm and a literal list made under a test:
    # iterating the list reaches each stage's method for the members that add it
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/stages.py": """
                class Verify:
                    def run(self, b):
                        return b.draft.tokens


                class Count:
                    def run(self, b):
                        return 1


                class Probe:
                    def run(self, b):
                        return b.draft.tokens[0]
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.stages import Count, Probe, Verify


                class Batch:
                    def __init__(self):
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        if algo is Algo.CHAIN:
                            self.stages = [Probe()]
                        else:
                            self.stages = [Count()]
                        if algo in (Algo.TREE, Algo.LOOKUP):
                            self.stages.append(Verify())

                    def event_loop_disagg_decode(self, handoff):
                        b = Batch()
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            b.draft = d
                        for stage in self.stages:
                            stage.run(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/stages.py:13 CHAIN",
        "PDL101 eng/stages.py:3 LOOKUP",
    ]


def test_elements_through_comprehensions_generators_and_unpacking(tmp_path: Path) -> None:
    # batches made by a generator expression a generator yields from, walked with
    # zip, kept in a dict comprehension walked by .values(), passed on as
    # **named: Batch; a tuple attribute unpacked item by item (its second item's
    # class is never the first's)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def relay(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def step(self):
                        if self.algo.is_lookup():
                            return self.draft.tokens

                    def close(self):
                        return self.draft.tokens.clear()


                class Plain:
                    def run(self, b):
                        return 0


                class Probe:
                    def run(self, b):
                        return b.draft.tokens[0]


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.stages = (Plain(), Probe())
                        self.made = []

                    def _batches(self, handoffs):
                        yield from (Batch(self.algo) for h in handoffs)

                    def _finish(self, **named: Batch):
                        for b in named.values():
                            b.close()

                    def event_loop_disagg_decode(self, handoffs):
                        for handoff, b in zip(handoffs, self._batches(handoffs)):
                            b.relay(handoff)
                            self.made.append(b)
                        first, _ = self.stages
                        for b in {id(b): b for b in self.made}.values():
                            first.run(b)
                            b.step()
                        self._finish(last=self.made[-1])
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/loop.py:16 LOOKUP",
        "PDL101 eng/loop.py:19 LOOKUP",
    ]


def test_callables_handed_to_outside_calls_are_reached(tmp_path: Path) -> None:
    # a thread's target, an executor's job and a partial run in an event loop's
    # executor are called by code outside the analysed package; a callable only kept
    # (appended, looked at) is not run where it is handed over; a method of an enum
    # member stored as a value is reached through the member
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/phase.py": """
                import enum


                class Phase(enum.Enum):
                    PREFILL = 1
                    DECODE = 2

                    def finish(self, batch):
                        if self is Phase.DECODE:
                            return batch.draft.tokens[-1]
            """,
            "eng/loop.py": """
                import asyncio
                import functools
                import threading
                from concurrent.futures import ThreadPoolExecutor

                from eng.drafting import Algo
                from eng.phase import Phase


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None
                        self.phase = Phase.DECODE

                    def close(self):
                        return self.phase.finish(self)


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.pool = ThreadPoolExecutor(1)
                        self.hooks = []

                    def _watch(self, b: Batch):
                        if b.algo is Algo.LOOKUP:
                            return b.draft.tokens

                    def _score(self, b: Batch):
                        if b.algo is Algo.CHAIN:
                            return len(b.draft.tokens)

                    def _log(self, b: Batch):
                        return b.draft.tokens

                    def _sample(self, b: Batch, k: int):
                        if b.algo is Algo.TREE:
                            return b.draft.tokens[:k]

                    async def event_loop_disagg_decode(self, handoff):
                        b = Batch(self.algo)
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            b.draft = d
                        threading.Thread(target=self._watch, args=(b,)).start()
                        self.pool.submit(self._score, b).result()
                        self.hooks.append(self._log)
                        loop = asyncio.get_running_loop()
                        await loop.run_in_executor(None, functools.partial(self._sample, b, 2))
                        b.close()
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:28 LOOKUP",
        "PDL101 eng/loop.py:32 CHAIN",
        "PDL101 eng/phase.py:10 CHAIN",
        "PDL101 eng/phase.py:10 LOOKUP",
    ]


def test_containers_filled_by_appends_and_item_stores(tmp_path: Path) -> None:
    # a local list filled by appends, a local dict and an attribute dict filled by
    # item stores (read back with .get, a subscript and .values())
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def first(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]

                    def last(self):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1]

                    def size(self):
                        if self.algo is not Algo.TREE:
                            return len(self.draft.tokens)


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.by_rid = {}

                    def event_loop_disagg_decode(self, handoffs):
                        made = []
                        for rid, handoff in enumerate(handoffs):
                            req = Req(self.algo)
                            req.take(handoff)
                            made.append(req)
                            self.by_rid[rid] = req
                        local = {}
                        for req in made:
                            local[id(req)] = req
                        local[0].first()
                        self.by_rid.get(0).last()
                        for req in self.by_rid.values():
                            req.size()
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:16 LOOKUP",
        "PDL101 eng/loop.py:20 CHAIN",
        "PDL101 eng/loop.py:24 CHAIN",
        "PDL101 eng/loop.py:24 LOOKUP",
    ]


def test_parameters_without_annotation_take_what_their_callers_pass(tmp_path: Path) -> None:
    # a helper method, a nested function, a static method called through its class
    # and a decorated method, each calling a method on an unannotated parameter:
    # what the calls in their module (on self, by name, on the class) pass for it
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                import functools

                from eng.drafting import Algo


                def timed(f):
                    @functools.wraps(f)
                    def wrapper(*args, **kwargs):
                        return f(*args, **kwargs)
                    return wrapper


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def first(self):
                        return self.draft.tokens[0]

                    def last(self):
                        return self.draft.tokens[-1]

                    def size(self):
                        return len(self.draft.tokens)

                    def probe(self):
                        return self.draft.tokens[1]


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def _first(self, batch):
                        if batch.algo is Algo.LOOKUP:
                            batch.first()

                    @staticmethod
                    def _last(batch):
                        if batch.algo is Algo.CHAIN:
                            batch.last()

                    @timed
                    def _size(self, batch):
                        if batch.algo is not Algo.TREE:
                            batch.size()

                    def event_loop_disagg_decode(self, handoff):
                        b = Batch(self.algo)
                        b.take(handoff)

                        def check(batch):
                            if batch.algo.is_lookup():
                                batch.probe()

                        self._first(b)
                        Loop._last(b)
                        self._size(b)
                        check(b)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:24 LOOKUP",
        "PDL101 eng/loop.py:27 CHAIN",
        "PDL101 eng/loop.py:30 CHAIN",
        "PDL101 eng/loop.py:30 LOOKUP",
        "PDL101 eng/loop.py:33 LOOKUP",
    ]


def test_callables_mapped_over_a_container_take_its_elements(tmp_path: Path) -> None:
    # a lambda as a sort key, a lambda filtering, a module function mapped by an
    # executor: each is called with the elements of the list, its parameter
    # unannotated; a check behind a None test stays silent
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                from concurrent.futures import ThreadPoolExecutor

                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def rank(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]
                        return 0

                    def step(self):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1]

                    def alive(self):
                        return self.draft is not None and self.draft.tokens


                def finish(req):
                    return req.step()


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.pool = ThreadPoolExecutor(1)

                    def event_loop_disagg_decode(self, handoffs):
                        reqs = []
                        for handoff in handoffs:
                            req = Req(self.algo)
                            req.take(handoff)
                            reqs.append(req)
                        ordered = sorted(reqs, key=lambda r: r.rank())
                        live = [r for r in filter(lambda r: r.alive(), ordered)]
                        return list(self.pool.map(finish, live))
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:18 LOOKUP",
        "PDL101 eng/loop.py:23 CHAIN",
    ]


def test_arguments_handed_with_a_callable_bind_its_parameters(tmp_path: Path) -> None:
    # a thread's args and kwargs, a job of asyncio.to_thread, a partial run in an
    # executor with one more argument: the arguments given with the callable bind
    # its unannotated parameters, by position and by keyword (those of the partial's
    # call go after its own); a callback scheduled with no argument takes nothing
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                import asyncio
                import threading
                from functools import partial

                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def first(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]

                    def last(self):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1]

                    def size(self):
                        if self.algo is not Algo.TREE:
                            return len(self.draft.tokens)

                    def probe(self):
                        return self.draft.tokens[1]


                def watch(tag, req=None):
                    if req is not None:
                        req.first()


                def tally(req):
                    req.probe()


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def _finish(self, req, log):
                        log.append(req.last())

                    def _measure(self, req):
                        req.size()

                    async def event_loop_disagg_decode(self, handoff):
                        req = Req(self.algo)
                        req.take(handoff)
                        threading.Thread(target=watch, args=("w",), kwargs={"req": req}).start()
                        job = partial(self._finish, req)
                        loop = asyncio.get_running_loop()
                        await loop.run_in_executor(None, job, [])
                        await asyncio.to_thread(self._measure, req)
                        loop.call_soon(tally)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:20 LOOKUP",
        "PDL101 eng/loop.py:24 CHAIN",
        "PDL101 eng/loop.py:28 CHAIN",
        "PDL101 eng/loop.py:28 LOOKUP",
    ]


def test_arguments_forwarded_with_star_args_and_kwargs_bind_the_callee(tmp_path: Path) -> None:
    # wrappers passing their own *args and **kwargs on, through two levels and to a
    # module function; a dict parameter spread with ** is not a forwarded **kwargs
    # (what it holds is unknown: nothing is bound)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/loop.py": """
                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def first(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]

                    def last(self):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1]

                    def probe(self):
                        return self.draft.tokens[1]


                def settle(tag, req, *, limit=0):
                    return req.first()


                def retried(*args, **kwargs):
                    return settle(*args, **kwargs)


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def _leaf(self, req):
                        return req.last()

                    def _middle(self, **kw):
                        return self._leaf(**kw)

                    def _outer(self, **kw):
                        return self._middle(**kw)

                    def _spread(self, options):
                        return self._peek(**options)

                    def _peek(self, req):
                        return req.probe()

                    def event_loop_disagg_decode(self, handoff):
                        req = Req(self.algo)
                        req.take(handoff)
                        retried("t", req, limit=2)
                        self._outer(req=req)
                        self._spread({"req": req})
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/loop.py:16 LOOKUP",
        "PDL101 eng/loop.py:20 CHAIN",
    ]


def test_constructor_arguments_from_another_module_bind_init(tmp_path: Path) -> None:
    # the request is built by a factory function in the loop's module, positionally,
    # with the sink it drains into later; its class takes both unannotated: the
    # variant and the sink's class come from the call in the other module
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/sinks.py": """
                from eng.drafting import Algo


                class Sink:
                    def drain(self, req):
                        if req.algo is Algo.CHAIN:
                            return req.draft.tokens[-1]
                        return None
            """,
            "eng/req.py": """
                class Req:
                    def __init__(self, algo, sink=None):
                        self.algo = algo
                        self.sink = sink
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def flush(self):
                        return self.sink.drain(self)
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.req import Req
                from eng.sinks import Sink


                def make(algo):
                    return Req(algo, Sink())


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def event_loop_disagg_decode(self, handoff):
                        req = make(self.algo)
                        req.take(handoff)
                        return req.flush()
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/sinks.py:7 CHAIN",
    ]


def test_callables_held_in_locals_and_attributes_bind_what_their_calls_pass(
    tmp_path: Path,
) -> None:
    # a module function held in a local and handed to an executor, a partial of one
    # held in an attribute and called, a bound method held in a local as a sort key:
    # each callable's parameter is unannotated and takes the request; a check behind
    # a None test stays silent
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/req.py": """
                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def head(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]
                        return 0

                    def tail(self, scale):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1] * scale
                        return 0

                    def size(self):
                        return len(self.draft.tokens) if self.draft is not None else 0
            """,
            "eng/loop.py": """
                import functools
                from concurrent.futures import ThreadPoolExecutor

                from eng.drafting import Algo
                from eng.req import Req


                def finish(scale, req):
                    return req.tail(scale)


                def first(req):
                    return req.head()


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.pool = ThreadPoolExecutor(1)
                        self._finish = functools.partial(finish, 2)

                    def _order(self, req):
                        return req.size()

                    def event_loop_disagg_decode(self, handoffs):
                        reqs = []
                        for handoff in handoffs:
                            req = Req(self.algo)
                            req.take(handoff)
                            reqs.append(req)
                        order = self._order
                        job = first
                        out = [self.pool.submit(job, r).result() for r in sorted(reqs, key=order)]
                        return out + [self._finish(r) for r in reqs]
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/req.py:16 LOOKUP",
        "PDL101 eng/req.py:21 CHAIN",
    ]


def test_methods_called_on_a_held_instance_take_the_arguments(tmp_path: Path) -> None:
    # the checker is a local of a module function, the sink an attribute annotated in
    # the class body and built by a factory classmethod, its method held in a local:
    # the calls bind the request to the methods' unannotated parameters, which call
    # back into it
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING.replace("LOOKUP = 2", "LOOKUP = 2\n        CHAIN = 3"),
            "eng/req.py": """
                from eng.drafting import Algo


                class Req:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None

                    def take(self, handoff):
                        d = self.algo.draft_for(handoff)
                        if d is not None:
                            self.draft = d

                    def verified(self):
                        if self.algo is Algo.LOOKUP:
                            return self.draft.tokens[0]
                        return 0

                    def drained(self):
                        if self.algo is Algo.CHAIN:
                            return self.draft.tokens[-1]
                        return 0

                    def size(self):
                        return len(self.draft.tokens) if self.draft is not None else 0
            """,
            "eng/parts.py": """
                class Checker:
                    def check(self, req):
                        return req.verified() + req.size()


                class Sink:
                    def drain(self, req):
                        return req.drained()
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.parts import Checker, Sink
                from eng.req import Req


                def check_one(req):
                    checker = Checker()
                    return checker.check(req)


                class Loop:
                    sink: Sink

                    def __init__(self, algo: Algo, sink):
                        self.algo = algo
                        self.sink = sink

                    @classmethod
                    def create(cls, algo: Algo):
                        return cls(algo, Sink())

                    def event_loop_disagg_decode(self, handoff):
                        drain = self.sink.drain
                        req = Req(self.algo)
                        req.take(handoff)
                        return check_one(req) + drain(req)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:18 LOOKUP,CHAIN",
        "PDL101 eng/req.py:16 LOOKUP",
        "PDL101 eng/req.py:21 CHAIN",
    ]


def test_registries_filled_at_import_time_give_their_classes_per_key(tmp_path: Path) -> None:
    # an empty table filled by module-level item stores and by a registering function
    # called at import time, read through a local with ``get``: each handler class is
    # reached only for the member its key names (TREE's handler, which reads the
    # draft too, stays silent)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/handlers.py": """
                from eng.drafting import Algo

                HANDLERS = dict()


                def add_handler(algo, handler_cls):
                    HANDLERS[algo] = handler_cls


                class TreeHandler:
                    def handle(self, b):
                        return len(b.draft.tokens)


                class LookupHandler:
                    def handle(self, b):
                        return b.draft.tokens[0]


                HANDLERS[Algo.TREE] = TreeHandler
                add_handler(Algo.LOOKUP, LookupHandler)
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.handlers import HANDLERS


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        handler_cls = HANDLERS.get(algo)
                        self.handler = handler_cls()

                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            self.handler.handle(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/handlers.py:17 LOOKUP"]


def test_functions_registered_by_a_keyword_decorator_are_called_per_key(tmp_path: Path) -> None:
    # step functions registered by a decorator taking the member by keyword, in a
    # module of their own, called through the table in place: the LOOKUP step is
    # reached for LOOKUP alone, the TREE step (reading the draft too) for TREE
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/table.py": """
                STEPS: dict = {}


                def on_step(*, algo):
                    def wrap(fn):
                        STEPS[algo] = fn
                        return fn

                    return wrap
            """,
            "eng/steps.py": """
                from eng.drafting import Algo
                from eng.table import on_step


                @on_step(algo=Algo.TREE)
                def tree_step(b):
                    return b.draft.tokens[-1]


                @on_step(algo=Algo.LOOKUP)
                def lookup_step(b):
                    return b.draft.tokens[0]
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.table import STEPS


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            STEPS[self.algo](b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/steps.py:12 LOOKUP"]


def test_a_partial_called_where_it_is_made_binds_both_argument_lists(tmp_path: Path) -> None:
    # a bound method and a function wrapped with ``partial`` (imported by name, one
    # given its first argument by keyword) and called at once: the batch binds the
    # parameter after the partial's; the method testing for None stays silent
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/helpers.py": """
                def last_token(b, offset):
                    return b.draft.tokens[-offset]
            """,
            "eng/loop.py": """
                from functools import partial

                from eng.drafting import Algo
                from eng.helpers import last_token


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def _size(self, scale, b):
                        if b.draft is None:
                            return 0
                        return scale * len(b.draft.tokens)

                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            partial(self._size, 2)(b)
                            partial(last_token, offset=1)(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/helpers.py:2 LOOKUP"]


def test_a_component_injected_into_an_inherited_constructor_is_followed(tmp_path: Path) -> None:
    # the loop class inherits its base's ``__init__``, built through a module alias
    # with the component in a keyword; the base keeps the parameter or a default:
    # both the injected class and the default are reached
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/checks.py": """
                class SizeCheck:
                    def check(self, b):
                        return len(b.draft.tokens)


                class LastCheck:
                    def check(self, b):
                        return b.draft.tokens[-1]
            """,
            "eng/loop.py": """
                from eng.checks import SizeCheck
                from eng.drafting import Algo


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class LoopBase:
                    def __init__(self, algo: Algo, checker=None):
                        self.algo = algo
                        self.checker = checker or SizeCheck()


                class Loop(LoopBase):
                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            self.checker.check(b)
            """,
            "eng/main.py": """
                import eng.loop as loop_mod
                from eng.checks import LastCheck


                def main(algo, handoffs):
                    checker = LastCheck()
                    loop_mod.Loop(algo, checker=checker).event_loop_disagg_decode(handoffs)
            """,
        },
    )
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/checks.py:3 LOOKUP",
        "PDL101 eng/checks.py:8 LOOKUP",
    ]


def test_a_function_made_by_a_method_and_kept_is_called_later(tmp_path: Path) -> None:
    # a method returns a lambda and another a nested function; a setup method keeps
    # them on the instance and the loop calls them: the lambda reads the draft
    # unguarded, the nested function after a None test
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.head = None
                        self.size = None

                    def _head_reader(self, at):
                        return lambda b: b.draft.tokens[at]

                    def _size_reader(self):
                        def size(b):
                            return 0 if b.draft is None else len(b.draft.tokens)

                        return size

                    def setup(self):
                        self.head = self._head_reader(0)
                        self.size = self._size_reader()

                    def event_loop_disagg_decode(self, handoffs):
                        self.setup()
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            self.size(b)
                            self.head(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:17 LOOKUP"]


def test_a_bare_class_decorator_registers_under_a_class_attribute(tmp_path: Path) -> None:
    # ``@handler`` stores each class under the member its body assigns (one through
    # a base): the lookup by the member reaches each class for that member alone
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/handlers.py": """
                from eng.drafting import Algo

                REGISTRY = {}


                def handler(cls):
                    REGISTRY[cls.algo] = cls
                    return cls


                @handler
                class TreeHandler:
                    algo = Algo.TREE

                    def handle(self, b):
                        return len(b.draft.tokens)


                class LookupBase:
                    algo = Algo.LOOKUP


                @handler
                class LookupHandler(LookupBase):
                    def handle(self, b):
                        return b.draft.tokens[0]
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.handlers import REGISTRY


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.handler = REGISTRY[self.algo]()

                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            b = Batch(self.algo)
                            d = self.algo.draft_for(h)
                            if d is not None:
                                b.draft = d
                            self.handler.handle(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/handlers.py:26 LOOKUP"]


def test_a_table_filled_from_the_bodies_of_other_modules(tmp_path: Path) -> None:
    # each plugin module stores its class into the imported table at import time
    # (an item store, ``update`` with a literal): each is reached for its key alone
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "from eng import lookup_plugin, tree_plugin  # noqa: F401\n",
            "eng/drafting.py": DRAFTING,
            "eng/table.py": "KINDS: dict = {}\n",
            "eng/tree_plugin.py": """
                from eng import table
                from eng.drafting import Algo


                class TreeKind:
                    def run(self, b):
                        return b.draft.tokens[1]


                table.KINDS.update({Algo.TREE: TreeKind})
            """,
            "eng/lookup_plugin.py": """
                from eng.drafting import Algo
                from eng.table import KINDS


                class LookupKind:
                    def run(self, b):
                        return b.draft.tokens[2]


                KINDS[Algo.LOOKUP] = LookupKind
            """,
            "eng/loop.py": """
                from eng.drafting import Algo
                from eng.table import KINDS


                class Batch:
                    def __init__(self, algo: Algo):
                        self.algo = algo
                        self.draft = None


                def event_loop_disagg_decode(algo: Algo, handoffs):
                    kind = KINDS[algo]()
                    for h in handoffs:
                        b = Batch(algo)
                        d = algo.draft_for(h)
                        if d is not None:
                            b.draft = d
                        kind.run(b)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/lookup_plugin.py:7 LOOKUP"]


def test_module_helper_called_from_another_module_reads_its_callers_arguments(
    tmp_path: Path,
) -> None:
    # ``finish(req=self)`` in the request's module: the helper's parameter holds a
    # Request, whose ``algo`` (an enum member made from its value) is the variant, so
    # ``req.algo.is_lookup()`` is decided per member. ``drain`` is never called by name
    # (only through ``getattr``): its receiver is unknown, and a predicate of the
    # variant on an unknown receiver is unknown, never taken for every member (silent)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/helpers.py": """
                def finish(req):
                    if req.algo.is_lookup():
                        return len(req.draft.tokens)
                    return 0


                def drain(req):
                    if not req.algo.is_lookup():
                        req.draft.tokens.clear()
            """,
            "eng/request.py": """
                from eng import helpers
                from eng.drafting import Algo


                class Request:
                    def __init__(self, name):
                        self.algo = Algo(name)
                        self.draft = None

                    def complete(self):
                        getattr(helpers, "drain")(self)
                        return helpers.finish(req=self)


                def event_loop_disagg_decode(name, handoffs):
                    for h in handoffs:
                        r = Request(name)
                        d = r.algo.draft_for(h)
                        if d is not None:
                            r.draft = d
                        r.complete()
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/helpers.py:3 LOOKUP"]


def test_builtin_getattr_with_a_constant_name_calls_that_attribute(tmp_path: Path) -> None:
    # ``getattr(self, "_finish", None)(batch)``: the method named (the default adds
    # nothing); a name computed at run time stays unknown (silent)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo


                class Batch:
                    draft = None


                class Loop:
                    def __init__(self, algo: Algo, hook: str):
                        self.algo = algo
                        self.hook = hook

                    def _finish(self, batch):
                        return batch.draft.tokens[0]

                    def _other(self, batch):
                        return batch.draft.tokens[-1]

                    def event_loop_disagg_decode(self, handoffs):
                        for h in handoffs:
                            batch = Batch()
                            batch.draft = self.algo.draft_for(h)
                            getattr(self, "_finish", None)(batch)
                            getattr(self, self.hook)(batch)
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:14 LOOKUP"]


def test_enum_members_looked_up_by_name_and_stored(tmp_path: Path) -> None:
    # ``self.algo = Algo[name]`` (and ``Algo.__members__[name]``, ``getattr(Algo, name)``)
    # in constructors with unannotated parameters: the attribute holds a member
    loops = {
        "by_subscript": "Algo[name]",
        "by_members": "Algo.__members__[name.upper()]",
        "by_getattr": "getattr(Algo, name)",
    }
    files = {"eng/__init__.py": "", "eng/drafting.py": DRAFTING}
    for module, lookup in loops.items():
        files[f"eng/{module}.py"] = f"""
            from eng.drafting import Algo


            class Request:
                def __init__(self):
                    self.draft = None

                def take(self, algo, handoff):
                    made = algo.draft_for(handoff)
                    if made is not None:
                        self.draft = made


            class Engine:
                def __init__(self, name):
                    self.algo = {lookup}

                def event_loop_disagg_decode(self, handoffs):
                    for h in handoffs:
                        req = Request()
                        req.take(self.algo, h)
                        if self.algo.is_lookup():
                            req.draft.tokens.pop()
        """
    found = _findings(tmp_path, files)
    assert found == [
        "PDL001 eng/drafting.py:17 LOOKUP",
        "PDL101 eng/by_getattr.py:23 LOOKUP",
        "PDL101 eng/by_members.py:23 LOOKUP",
        "PDL101 eng/by_subscript.py:23 LOOKUP",
    ]


# a loop that keeps what a builder makes and reads it for every member but OFF;
# the builders below are written in other idioms
_MODE_LOOP = """
    from eng.build import make_state
    from eng.modes import Mode


    class Req:
        def __init__(self, handoff):
            self.handoff = handoff
            self.state = None


    class Loop:
        def __init__(self, mode: Mode):
            self.mode = mode

        def _read(self, req):
            if self.mode is not Mode.OFF:
                return req.state.width
            return 0

        def event_loop_disagg_decode(self, handoffs):
            for handoff in handoffs:
                req = Req(handoff)
                made = make_state(self.mode, handoff)
                if made is not None:
                    req.state = made
                self._read(req)
"""
_MODES = """
    import enum


    class Mode(enum.Enum):
        WIDE_TREE = "wide"
        DEEP_TREE = "deep"
        CHAIN = "chain"
        OFF = "off"


    class State:
        def __init__(self, width):
            self.width = width
"""


def _mode_builder(tmp_path: Path, build: str) -> list[str]:
    """The findings of the loop above with ``build`` as eng/build.py."""
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": _MODE_LOOP}
    return _findings(tmp_path, {**files, "eng/build.py": build})


def test_an_unannotated_parameter_holds_the_variant_its_callers_pass(tmp_path: Path) -> None:
    # make_state's `mode` is unannotated and tested only through a helper's parameter,
    # itself unannotated: both hold what the loop passes (self.mode, a Mode)
    found = _mode_builder(
        tmp_path,
        """
        from eng.modes import Mode, State


        def _tree(mode):
            return mode in (Mode.WIDE_TREE, Mode.DEEP_TREE)


        def make_state(mode, handoff):
            if _tree(mode):
                return State(len(handoff))
            return None
        """,
    )
    assert found == ["PDL001 eng/build.py:8 CHAIN,OFF", "PDL101 eng/loop.py:17 CHAIN"]


def test_a_parameter_passed_a_constant_member_is_not_the_variant(tmp_path: Path) -> None:
    # the only call passes Mode.CHAIN itself: the function never sees the request's
    # member, so its None for the others is no gap
    found = _mode_builder(
        tmp_path,
        """
        from eng.modes import Mode, State


        def _state_for(mode, handoff):
            if mode is Mode.CHAIN:
                return State(len(handoff))
            return None


        def make_state(mode, handoff):
            return _state_for(Mode.CHAIN, handoff)
        """,
    )
    assert found == []


def test_tables_keyed_by_members_are_builders(tmp_path: Path) -> None:
    # membership in a module table, a table written inline with a conditional
    # return, and a table of lambdas an instance builds: each has nothing for OFF
    # and CHAIN, found per member as an if/elif would be
    spellings = [
        """
        from eng.modes import Mode, State

        _WIDTHS = {Mode.WIDE_TREE: lambda h: State(8), Mode.DEEP_TREE: lambda h: State(2)}


        def make_state(mode, handoff):
            if mode not in _WIDTHS:
                return None
            return _WIDTHS[mode](handoff)
        """,
        """
        from eng.modes import Mode, State


        def make_state(mode, handoff):
            width = {Mode.WIDE_TREE: 8, Mode.DEEP_TREE: 2}.get(mode)
            return State(width) if width else None
        """,
        """
        from eng.modes import Mode, State


        class _Makers:
            def __init__(self):
                self.table = {Mode.WIDE_TREE: lambda h: State(8), Mode.DEEP_TREE: self._deep}

            def _deep(self, handoff):
                return State(2)

            def make(self, mode, handoff):
                maker = self.table.get(mode)
                if maker is None:
                    return None
                return maker(handoff)


        def make_state(mode, handoff):
            return _Makers().make(mode, handoff)
        """,
    ]
    for i, build in enumerate(spellings):
        found = _mode_builder(tmp_path / str(i), build)
        assert "PDL101 eng/loop.py:17 CHAIN" in found, (i, found)
        assert [f for f in found if f.startswith("PDL101")] == ["PDL101 eng/loop.py:17 CHAIN"]


def test_a_method_found_by_a_name_made_from_the_member(tmp_path: Path) -> None:
    # getattr with a name built by concatenating the member's value, and a builder
    # testing the member's name with endswith: CHAIN has neither method nor suffix
    by_name = _mode_builder(
        tmp_path / "getattr",
        """
        from eng.modes import State


        class _Factory:
            def make(self, mode, handoff):
                made = getattr(self, "_make_" + mode.value, None)
                if made is None:
                    return None
                return made(handoff)

            def _make_wide(self, handoff):
                return State(8)

            def _make_deep(self, handoff):
                return State(2)


        def make_state(mode, handoff):
            return _Factory().make(mode, handoff)
        """,
    )
    assert "PDL101 eng/loop.py:17 CHAIN" in by_name
    assert [f for f in by_name if f.startswith("PDL101")] == ["PDL101 eng/loop.py:17 CHAIN"]
    suffix = _mode_builder(
        tmp_path / "suffix",
        """
        from eng.modes import State


        def make_state(mode, handoff):
            if mode.name.endswith("_TREE"):
                return State(len(handoff))
            return None
        """,
    )
    assert suffix == ["PDL001 eng/build.py:4 CHAIN,OFF", "PDL101 eng/loop.py:17 CHAIN"]


def test_a_store_under_a_test_of_a_local_named_as_the_state_may_not_run(tmp_path: Path) -> None:
    # the relay reads the state right after storing it under a None test of the local
    # holding the builder's result (named as the state): LOOKUP reads None there; the
    # second loop fills the state itself when it is missing, so it reads it set
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/drafting.py": DRAFTING,
            "eng/loop.py": """
                from eng.drafting import Algo, Draft


                class Req:
                    def __init__(self, handoff):
                        self.handoff = handoff
                        self.draft = None


                class Loop:
                    def __init__(self, algo: Algo):
                        self.algo = algo

                    def event_loop_disagg_decode(self, handoffs):
                        for handoff in handoffs:
                            req = Req(handoff)
                            draft = self.algo.draft_for(handoff)
                            if draft is not None:
                                req.draft = draft
                            yield req.draft.tokens


                class FillingLoop(Loop):
                    def event_loop_disagg_decode(self, handoffs):
                        for handoff in handoffs:
                            req = Req(handoff)
                            draft = self.algo.draft_for(handoff)
                            if draft is not None:
                                req.draft = draft
                            if req.draft is None:
                                req.draft = Draft([])
                            yield req.draft.tokens
            """,
        },
    )
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/loop.py:20 LOOKUP"]


def test_an_enum_made_by_its_own_classmethod_from_a_setting(tmp_path: Path) -> None:
    # the enum's factory reads `cls`: `cls.OFF` for no setting, `cls[name.upper()]`
    # otherwise; the loop keeps what it returns unannotated
    loop = _MODE_LOOP.replace(
        "def __init__(self, mode: Mode):\n            self.mode = mode",
        "def __init__(self, setting):\n            self.mode = Mode.parse(setting)",
    )
    modes = _MODES.replace(
        '        OFF = "off"\n',
        '        OFF = "off"\n\n        @classmethod\n        def parse(cls, name):\n'
        "            if not name:\n                return cls.OFF\n"
        "            return cls[name.upper()]\n",
    )
    build = """
        from eng.modes import Mode, State


        def make_state(mode: Mode, handoff):
            if mode in (Mode.WIDE_TREE, Mode.DEEP_TREE):
                return State(len(handoff))
            return None
    """
    files = {"eng/__init__.py": "", "eng/modes.py": modes, "eng/loop.py": loop}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert found == ["PDL001 eng/build.py:4 CHAIN,OFF", "PDL101 eng/loop.py:17 CHAIN"]


def test_an_attribute_holding_what_an_annotated_function_returns_narrows_tests(
    tmp_path: Path,
) -> None:
    # self.mode is stored from a helper annotated to return Mode (nothing else says
    # what it holds): the consumer's test of it keeps OFF and the trees out
    loop = (
        _MODE_LOOP.replace(
            "def __init__(self, mode: Mode):\n            self.mode = mode",
            "def __init__(self, settings):\n            self.mode = pick_mode(settings)",
        )
        .replace(
            "from eng.modes import Mode\n",
            "from eng.modes import Mode\n\n\n    def pick_mode(settings) -> Mode:\n"
            '        return Mode(settings.get("mode", "off"))\n',
        )
        .replace("if self.mode is not Mode.OFF:", "if self.mode is Mode.CHAIN:")
    )
    build = """
        from eng.modes import Mode, State


        def make_state(mode: Mode, handoff):
            if mode is Mode.WIDE_TREE or mode is Mode.DEEP_TREE:
                return State(len(handoff))
            return None
    """
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": loop}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert found == ["PDL001 eng/build.py:4 CHAIN,OFF", "PDL101 eng/loop.py:21 CHAIN"]


def test_a_table_of_callables_called_with_the_member(tmp_path: Path) -> None:
    # TABLE[mode](handoff): each member's entry is a function; those returning None
    # are the gaps, one that raises is no gap (the request fails loudly there)
    build = """
        from eng.modes import Mode, State


        def _tree(handoff):
            return State(len(handoff))


        def _nothing(handoff):
            return None


        def _refuse(handoff):
            raise NotImplementedError("no chain on decode")


        _MAKERS = {
            Mode.WIDE_TREE: _tree,
            Mode.DEEP_TREE: _tree,
            Mode.CHAIN: _refuse,
            Mode.OFF: _nothing,
        }


        def make_state(mode: Mode, handoff):
            return _MAKERS[mode](handoff)
    """
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": _MODE_LOOP}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert found == ["PDL001 eng/build.py:24 OFF"]


def test_state_kept_under_a_constant_key_of_a_dict(tmp_path: Path) -> None:
    # the request is a dict: its state is the entry "state", stored from the builder
    # and read by the consumer; another key of the same name on an object is unrelated,
    # and a read under a test of the entry stays silent
    loop = """
        from eng.build import make_state
        from eng.modes import Mode


        class Loop:
            def __init__(self, mode: Mode):
                self.mode = mode
                self.state = None

            def _read(self, req):
                if self.mode is not Mode.OFF:
                    return req["state"].width
                return 0

            def _checked(self, req):
                if req["state"] is not None:
                    return req["state"].width
                return self.state.width

            def event_loop_disagg_decode(self, handoffs):
                for handoff in handoffs:
                    req = {"handoff": handoff}
                    req["state"] = make_state(self.mode, handoff)
                    self._read(req)
                    self._checked(req)
    """
    build = """
        from eng.modes import Mode, State


        def make_state(mode: Mode, handoff):
            if mode in (Mode.WIDE_TREE, Mode.DEEP_TREE):
                return State(len(handoff))
            return None
    """
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": loop}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert found == ["PDL001 eng/build.py:4 CHAIN,OFF", "PDL101 eng/loop.py:12 CHAIN"]


def test_a_validator_nothing_calls_rejects_nothing(tmp_path: Path) -> None:
    # the same validator, called at startup or left unwired: only the wired one keeps
    # CHAIN out of the consumer
    validator = """
        from eng.modes import Mode


        def check_decode_mode(mode: Mode, role):
            if role == "decode" and mode is Mode.CHAIN:
                raise ValueError("chain drafting has no decode-side state")
    """
    build = """
        from eng.modes import Mode, State


        def make_state(mode: Mode, handoff):
            if mode in (Mode.WIDE_TREE, Mode.DEEP_TREE):
                return State(len(handoff))
            return None
    """
    wired = _MODE_LOOP.replace(
        "from eng.modes import Mode\n",
        "from eng.modes import Mode\n    from eng.checks import check_decode_mode\n",
    ).replace(
        "def __init__(self, mode: Mode):\n            self.mode = mode",
        'def __init__(self, mode: Mode):\n            check_decode_mode(mode, "decode")\n'
        "            self.mode = mode",
    )
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/build.py": build}
    files["eng/checks.py"] = validator
    called = _findings(tmp_path / "wired", {**files, "eng/loop.py": wired})
    assert [f for f in called if f.startswith("PDL101")] == []
    unwired = _findings(tmp_path / "unwired", {**files, "eng/loop.py": _MODE_LOOP})
    assert "PDL101 eng/loop.py:17 CHAIN" in unwired


def test_a_state_rebuilt_for_every_handed_off_batch_is_missing_from_an_idle_one(
    tmp_path: Path,
) -> None:
    # no builder: the relay makes the state for every batch it receives; the idle
    # batch a classmethod makes keeps the dataclass default None. One consumer reads
    # it unguarded (PDL102), one after returning for idle batches (silent)
    files = {
        "eng/__init__.py": "",
        "eng/batch.py": """
            import enum
            from dataclasses import dataclass, field
            from typing import Optional


            class Mode(enum.Enum):
                DECODE = 1
                IDLE = 2


            class Stats:
                def __init__(self, seen):
                    self.seen = seen


            @dataclass
            class Batch:
                mode: Mode
                items: list = field(default_factory=list)
                stats: Optional[Stats] = field(default=None)

                @classmethod
                def idle(cls):
                    return cls(Mode.IDLE)
        """,
        "eng/loop.py": """
            from eng.batch import Batch, Mode, Stats


            def receive(items):
                batch = Batch(Mode.DECODE, items)
                batch.stats = Stats(len(items))
                return batch


            def count(batch):
                return batch.stats.seen


            def count_checked(batch):
                if batch.mode is Mode.IDLE:
                    return 0
                return batch.stats.seen


            class Loop:
                def event_loop_disagg_decode(self, queue):
                    batch = receive(queue.pop()) if queue else Batch.idle()
                    return count(batch) + count_checked(batch)
        """,
    }
    found = _findings(tmp_path, files)
    assert found == ["PDL102 eng/loop.py:11 IDLE"]


def test_an_idle_batch_yielded_by_a_generator_with_its_mode_unannotated(tmp_path: Path) -> None:
    # the batch's phase is an unannotated constructor parameter; the idle batch is
    # yielded by the generator the loop iterates, and reaches an unguarded read
    files = {
        "eng/__init__.py": "",
        "eng/batch.py": """
            import enum


            class Phase(enum.Enum):
                RUN = "run"
                IDLE = "idle"


            class Totals:
                def __init__(self, n):
                    self.n = n


            class Batch:
                def __init__(self, items, phase):
                    self.items = items
                    self.phase = phase
                    self.totals = None
        """,
        "eng/loop.py": """
            from eng.batch import Batch, Phase, Totals


            def finish(batch):
                return batch.totals.n


            class Loop:
                def __init__(self, incoming):
                    self.incoming = incoming

                def _admit(self, items):
                    batch = Batch(items, Phase.RUN)
                    batch.totals = Totals(len(items))
                    return batch

                def _batches(self):
                    for items in self.incoming:
                        yield self._admit(items)
                    yield Batch([], phase=Phase.IDLE)

                def event_loop_disagg_decode(self):
                    return [finish(batch) for batch in self._batches()]
        """,
    }
    found = _findings(tmp_path, files)
    assert found == ["PDL102 eng/loop.py:5 IDLE"]


def test_a_member_made_by_value_passed_to_an_unannotated_parameter(tmp_path: Path) -> None:
    # self.mode = Mode(setting), nothing annotated on the way to the builder
    loop = _MODE_LOOP.replace(
        "def __init__(self, mode: Mode):\n            self.mode = mode",
        "def __init__(self, setting):\n            self.mode = Mode(setting)",
    )
    build = """
        from eng.modes import Mode, State


        _WIDTHS = {Mode.WIDE_TREE: 8, Mode.DEEP_TREE: 2}


        def make_state(mode, handoff):
            width = _WIDTHS.get(mode)
            if width is None:
                return None
            return State(width)
    """
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": loop}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert found == ["PDL001 eng/build.py:7 CHAIN,OFF", "PDL101 eng/loop.py:17 CHAIN"]


def test_an_object_made_from_a_table_of_classes_keyed_by_members(tmp_path: Path) -> None:
    # maker_for(mode) makes the class the member's entry holds; the base's make()
    # returns None and only the tree makers override it
    files = {
        "eng/__init__.py": "",
        "eng/modes.py": _MODES,
        "eng/makers.py": """
            from eng.modes import Mode, State


            class Maker:
                def make(self, handoff):
                    return None


            class WideMaker(Maker):
                def make(self, handoff):
                    return State(8)


            class DeepMaker(Maker):
                def make(self, handoff):
                    return State(2)


            _MAKERS = {
                Mode.WIDE_TREE: WideMaker,
                Mode.DEEP_TREE: DeepMaker,
                Mode.CHAIN: Maker,
                Mode.OFF: Maker,
            }


            def maker_for(mode):
                return _MAKERS[mode]()
        """,
        "eng/loop.py": """
            from eng.makers import maker_for
            from eng.modes import Mode


            class Req:
                def __init__(self, handoff):
                    self.state = None


            class Loop:
                def __init__(self, mode: Mode):
                    self.mode = mode
                    self.maker = maker_for(mode)

                def event_loop_disagg_decode(self, handoffs):
                    for handoff in handoffs:
                        req = Req(handoff)
                        made = self.maker.make(handoff)
                        if made is not None:
                            req.state = made
                        if self.mode is Mode.CHAIN:
                            yield req.state.width
        """,
    }
    found = _findings(tmp_path, files)
    assert found == ["PDL001 eng/makers.py:5 CHAIN,OFF", "PDL101 eng/loop.py:22 CHAIN"]


def test_a_registry_filled_for_each_key_a_decorator_is_given(tmp_path: Path) -> None:
    # @maker_of(Mode.WIDE_TREE, Mode.DEEP_TREE) registers one function under every key
    # its *args hold; CHAIN and OFF have no entry
    build = """
        from eng.modes import Mode, State

        _BY_MODE = {}


        def maker_of(*modes):
            def register(fn):
                for mode in modes:
                    _BY_MODE[mode] = fn
                return fn

            return register


        @maker_of(Mode.WIDE_TREE, Mode.DEEP_TREE)
        def _tree(handoff):
            return State(len(handoff))


        def make_state(mode: Mode, handoff):
            maker = _BY_MODE.get(mode)
            return maker(handoff) if maker is not None else None
    """
    files = {"eng/__init__.py": "", "eng/modes.py": _MODES, "eng/loop.py": _MODE_LOOP}
    found = _findings(tmp_path, {**files, "eng/build.py": build})
    assert "PDL101 eng/loop.py:17 CHAIN" in found
    assert [f for f in found if f.startswith("PDL001")] == ["PDL001 eng/build.py:20 CHAIN,OFF"]


def test_constructor_input_made_outside_is_of_the_one_class_defining_its_methods(
    tmp_path: Path,
) -> None:
    # nothing in the package makes a Server: a launcher gives it its settings, of the
    # one class defining the method the constructor calls on them; with a second
    # class defining it, what the settings are is unknown (silent)
    settings = """
        from eng.drafting import Algo


        class Settings:
            def __init__(self, name):
                self.name = name

            def algorithm(self):
                return Algo[self.name.upper()]
    """
    server = """
        class Batch:
            def __init__(self):
                self.draft = None


        class Server:
            def __init__(self, settings):
                self.algo = settings.algorithm()

            def event_loop_disagg_decode(self, handoffs):
                for h in handoffs:
                    b = Batch()
                    d = self.algo.draft_for(h)
                    if d is not None:
                        b.draft = d
                    if self.algo.is_lookup():
                        b.draft.tokens.pop()
    """
    files = {
        "eng/__init__.py": "",
        "eng/drafting.py": DRAFTING,
        "eng/settings.py": settings,
        "eng/server.py": server,
    }
    found = _findings(tmp_path / "one", files)
    assert found == ["PDL001 eng/drafting.py:17 LOOKUP", "PDL101 eng/server.py:17 LOOKUP"]
    other = """
        class Replay:
            def algorithm(self):
                return None
    """
    assert _findings(tmp_path / "two", {**files, "eng/replay.py": other}) == []


@pytest.mark.parametrize("made", ["Route.parse(route_name)", "Route(route_name)"])
def test_attribute_made_by_the_enum_or_its_normalising_classmethod(
    tmp_path: Path, made: str
) -> None:
    # nothing annotates ``self.route``: it holds the enum because the enum makes it,
    # called or through its own factory (which maps a setting string first)
    found = _findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/kinds.py": """
                import enum


                class Sink:
                    def __init__(self, name):
                        self.name = name


                class Route(str, enum.Enum):
                    FAST = "FAST"
                    SLOW = "SLOW"

                    @classmethod
                    def parse(cls, text):
                        text = (text or "FAST").upper()
                        if text == "DEFAULT":
                            text = "FAST"
                        return cls(text)
            """,
            "eng/worker.py": f"""
                from eng.kinds import Route, Sink


                class Worker:
                    def __init__(self, route_name):
                        self.route = {made}
                        self.sink = None

                    def accept_disagg_decode(self, handoff):
                        if self.route is Route.FAST:
                            self.sink = Sink(handoff)
                        return self.flush()

                    def flush(self):
                        return self.sink.name
            """,
        },
    )
    assert found == ["PDL001 eng/worker.py:9 SLOW", "PDL101 eng/worker.py:15 SLOW"]


def test_a_table_read_with_get_holds_its_values_as_callables(tmp_path: Path) -> None:
    # ``builder = BUILDERS.get(mode)`` then ``builder(...)``: the table's functions
    # are called, so a per-member builder left out of the table is unwired (PDL106)
    found = _findings(
        tmp_path,
        {
            "tbl/__init__.py": "",
            "tbl/modes.py": """
                import enum


                class Mode(enum.IntEnum):
                    TREE = 1
                    CHAIN = 2
                    LOOKUP = 3
            """,
            "tbl/states.py": """
                from tbl.modes import Mode


                class State:
                    pass


                class TreeState(State):
                    pass


                class ChainState(State):
                    pass


                class LookupState(State):
                    pass


                def build_tree_state(req):
                    return TreeState()


                def build_chain_state(req):
                    return ChainState()


                def build_lookup_state(req):
                    return LookupState()


                BUILDERS = {Mode.TREE: build_tree_state, Mode.CHAIN: build_chain_state}


                def make_state(mode: Mode, req):
                    builder = BUILDERS.get(mode)
                    if builder is None:
                        return None
                    return builder(req)
            """,
            "tbl/server.py": """
                from tbl.modes import Mode
                from tbl.states import make_state


                class Server:
                    def __init__(self, mode: Mode):
                        self.mode = mode

                    def event_loop_disagg_decode(self, reqs):
                        for req in reqs:
                            req.state = make_state(self.mode, req)
            """,
        },
    )
    assert found == [
        "PDL001 tbl/states.py:35 LOOKUP",
        "PDL106 tbl/states.py:28 LOOKUP",
    ]
