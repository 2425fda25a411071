"""Polymorphic calls (issue 31 point 2): a method called on an object whose class a
variant picks reaches each class's override only for the members that get that class,
and a None-returning method some of those classes inherit is a builder whose gap is
those members. Written otherwise than fixtures/relay/override_builder."""

from __future__ import annotations

import json
from pathlib import Path

from pdlint_helpers import invoke, package_findings, write_package

# an attribute annotated with the variant; a module function given it picks the class
KINDS = """
    from enum import Enum


    class Sampler(Enum):
        GREEDY = 0
        BEAM = 1
        TOPK = 2
"""

STRATEGIES = """
    from eng.kinds import Sampler


    class Strategy:
        def resume(self, blob):
            pass

        def sample(self, seq):
            return seq.memo


    class BeamStrategy(Strategy):
        def resume(self, blob):
            return list(blob)

        def sample(self, seq):
            return seq.memo[0]


    class TopkStrategy(Strategy):
        def sample(self, seq):
            return seq.memo.pop()


    class GreedyStrategy(Strategy):
        def resume(self, blob):
            return

        def sample(self, seq):
            return seq.tokens[-1]


    def strategy_for(kind: Sampler) -> Strategy:
        if kind == Sampler.BEAM:
            return BeamStrategy()
        elif kind == Sampler.TOPK:
            return TopkStrategy()
        return GreedyStrategy()
"""

LOOP = """
    from eng.kinds import Sampler
    from eng.strategies import strategy_for


    class Seq:
        def __init__(self, tokens):
            self.tokens = tokens
            self.memo = None


    class Loop:
        def __init__(self, kind: Sampler):
            self.kind: Sampler = kind
            self.strategy = strategy_for(self.kind)

        def take(self, blob):
            seq = Seq(blob["tokens"])
            got = self.strategy.resume(blob["memo"])
            if got is not None:
                seq.memo = got
            return seq

        def run_disagg_decode(self, blobs):
            return [self.strategy.sample(self.take(b)) for b in blobs]
"""


def _package(root: Path, loop: str = LOOP, strategies: str = STRATEGIES) -> Path:
    files = {"eng/__init__.py": "", "eng/kinds.py": KINDS, "eng/strategies.py": strategies}
    return write_package(root, {**files, "eng/loop.py": loop})


def test_inherited_none_method_is_a_builder_for_the_members_whose_class_inherits_it(
    tmp_path: Path,
) -> None:
    # TOPK's class inherits the base's implicit None; GREEDY's override returns None
    # itself (a builder of its own); BEAM's builds. Each consumer is reported only for
    # the member whose class it is in: GREEDY's never reads the state.
    assert package_findings(_package(tmp_path)) == [
        "PDL001 eng/strategies.py:26 GREEDY",
        "PDL001 eng/strategies.py:5 TOPK",
        "PDL101 eng/strategies.py:22 TOPK",
    ]


def test_member_graph_keeps_only_the_override_its_class_has(tmp_path: Path) -> None:
    root = _package(tmp_path)
    for member, kept, gone in (
        ("TOPK", "TopkStrategy.sample", "BeamStrategy.sample"),
        ("BEAM", "BeamStrategy.sample", "TopkStrategy.sample"),
    ):
        done = invoke("graph", "--member", member, ".", cwd=root)
        assert done.returncode == 0, done.stderr
        callees = json.loads(done.stdout)["eng.loop.Loop.run_disagg_decode"]
        assert f"eng.strategies.{kept}" in callees
        assert f"eng.strategies.{gone}" not in callees


def test_a_construction_of_an_unknown_object_picks_nothing(tmp_path: Path) -> None:
    # the strategy also comes from a parameter nothing tells: silent, never guessed
    loop = LOOP.replace(
        "def __init__(self, kind: Sampler):",
        "def __init__(self, kind: Sampler, custom=None):",
    ).replace(
        "self.strategy = strategy_for(self.kind)",
        "self.strategy = custom if custom is not None else strategy_for(self.kind)",
    )
    assert "PDL101" not in " ".join(package_findings(_package(tmp_path, loop)))


def test_an_abstract_base_method_is_no_gap(tmp_path: Path) -> None:
    strategies = STRATEGIES.replace(
        "    class Strategy:\n        def resume(self, blob):\n            pass",
        "    import abc\n\n\n    class Strategy(abc.ABC):\n        @abc.abstractmethod\n"
        "        def resume(self, blob):\n            pass",
    ).replace(
        "    class TopkStrategy(Strategy):\n",
        "    class TopkStrategy(Strategy):\n        def resume(self, blob):\n"
        "            return dict(blob)\n\n",
    )
    assert package_findings(_package(tmp_path, strategies=strategies)) == [
        "PDL001 eng/strategies.py:33 GREEDY",
    ]


# a factory function on a plain setting string, whose result is handed to the loop
NAMED = """
    class Codec:
        def unpack(self, blob):
            return None

        def emit(self, seq):
            return seq.memo.hex()


    class ZipCodec(Codec):
        def unpack(self, blob):
            return bytes(blob)


    class RawCodec(Codec):
        def emit(self, seq):
            return seq.tokens


    class LzCodec(Codec):
        pass


    def codec_named(name):
        match name:
            case "zip":
                return ZipCodec()
            case "raw":
                return RawCodec()
            case "lz":
                return LzCodec()
        raise KeyError(name)
"""

NAMED_LOOP = """
    from eng.codecs import codec_named


    class Seq:
        def __init__(self, tokens):
            self.tokens = tokens
            self.memo = None


    class Loop:
        def __init__(self, codec):
            self.codec = codec

        def take(self, blob):
            seq = Seq(blob["tokens"])
            got = self.codec.unpack(blob["memo"])
            if got is not None:
                seq.memo = got
            return seq

        def run_disagg_decode(self, blobs):
            return [self.codec.emit(self.take(b)) for b in blobs]


    def serve(settings, blobs):
        return Loop(codec_named(settings["codec"])).run_disagg_decode(blobs)
"""


def test_a_factory_on_a_setting_string_picks_a_class_per_string(tmp_path: Path) -> None:
    files = {"eng/__init__.py": "", "eng/codecs.py": NAMED, "eng/loop.py": NAMED_LOOP}
    assert package_findings(write_package(tmp_path, files)) == [
        "PDL001 eng/codecs.py:2 lz,raw",
        "PDL101 eng/codecs.py:6 lz",
    ]


def test_a_factory_given_a_constant_picks_one_class(tmp_path: Path) -> None:
    # ``codec_named("raw")`` is a RawCodec whatever the setting: no member has a gap
    loop = NAMED_LOOP.replace('codec_named(settings["codec"])', 'codec_named("raw")')
    files = {"eng/__init__.py": "", "eng/codecs.py": NAMED, "eng/loop.py": loop}
    assert package_findings(write_package(tmp_path, files)) == []


def test_a_local_holding_the_picked_object_reaches_the_same_overrides(tmp_path: Path) -> None:
    loop = LOOP.replace(
        '            got = self.strategy.resume(blob["memo"])',
        '            strategy = self.strategy\n            got = strategy.resume(blob["memo"])',
    )
    assert package_findings(_package(tmp_path, loop)) == [
        "PDL001 eng/strategies.py:26 GREEDY",
        "PDL001 eng/strategies.py:5 TOPK",
        "PDL101 eng/strategies.py:22 TOPK",
    ]
