"""Variant normalisation (issue 33, point 3): a value rewritten while its holder is
made (``if self.method in get_args(MTP) and self.method != "mtp": self.method =
"mtp"``, SGLang's NEXTN into EAGLE) can no longer be there once it is made."""

from __future__ import annotations

from pathlib import Path

from pdlint.api import FactsMemo
from pdlint.cache.store import FactStore
from pdlint.engine.program import Program
from pdlint.model.names import Model
from pdlint.model.variants import Variants
from pdlint.source.discover import discover


def _variants(tmp_path: Path, source: str) -> Variants:
    pkg = tmp_path / "cfgpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "config.py").write_text(source)
    files, _ = discover([str(tmp_path)], ())
    memo: FactsMemo = {}
    program = Program([(f, None) for f in files], FactStore(None), "salt", memo=memo)
    return Variants(Model(program.load_all()))


def _rewritten(
    variants: Variants, attr: str, qual: str = "", normalisers: tuple[str, ...] = ()
) -> dict[str, list[str]]:
    owner = "cfgpkg.config.Config"
    variant = variants.by_name[qual] if qual else variants.class_attr_variant(owner, attr)
    assert variant is not None
    found = variants.normalisation(owner, attr, variant, normalisers)
    members = variant.members
    return {members[m]: [members[i] for i in r.into] for m, r in sorted(found.rewrites.items())}


LITERAL = """\
from dataclasses import dataclass
from typing import Literal, Optional, get_args

HeadMethods = Literal["tree_head", "chain_head", "head"]
Method = Literal["lookup", "draft", HeadMethods]


@dataclass
class Config:
    method: Optional[Method] = None
    draft_path: Optional[str] = None

    def __post_init__(self):
        if self.method is None:
            self.method = "draft"
        if self.method in get_args(HeadMethods) and self.method != "head":
            self.method = "head"
        if self.draft_path is None and self.method == "lookup":
            self.method = "draft"
"""


def test_a_literal_rewritten_in_post_init(tmp_path: Path) -> None:
    variants = _variants(tmp_path, LITERAL)
    # "lookup" becomes "draft" only when no draft path is given: it may still be there
    assert _rewritten(variants, "method") == {"tree_head": ["head"], "chain_head": ["head"]}


ENUM = """\
import enum


class Algo(enum.Enum):
    NEXTN = "nextn"
    EAGLE = "eagle"
    NGRAM = "ngram"


class Config:
    def __init__(self, algo: Algo, fallback: bool = False):
        self.algo = algo
        self._resolve()

    def _resolve(self):
        if self.algo is Algo.NEXTN:
            self.algo = Algo.EAGLE
        if self.algo is Algo.NGRAM and self.fallback_enabled():
            self.algo = Algo.EAGLE

    def fallback_enabled(self) -> bool:
        return False
"""


def test_an_enum_rewritten_by_a_method_init_calls(tmp_path: Path) -> None:
    variants = _variants(tmp_path, ENUM)
    assert _rewritten(variants, "algo") == {"NEXTN": ["EAGLE"]}


STRING = """\
def resolve(name):
    if name == "nextn":
        return "eagle"
    return name


class Config:
    def __init__(self, mode):
        self.mode = mode
        self.mode = resolve(self.mode)

    def is_eagle(self):
        return self.mode == "eagle"

    def is_nextn(self):
        return self.mode == "nextn"

    def is_ngram(self):
        return self.mode == "ngram"
"""


def test_a_string_rewritten_by_a_resolving_function(tmp_path: Path) -> None:
    variants = _variants(tmp_path, STRING)
    assert _rewritten(variants, "mode", "str:cfgpkg.config.Config.mode") == {"nextn": ["eagle"]}


WRITTEN_BACK = """\
class Config:
    def __init__(self, mode, legacy):
        self.mode = mode
        if self.mode == "nextn":
            self.mode = "eagle"
        if legacy:
            self.mode = mode

    def is_nextn(self):
        return self.mode == "nextn" or self.mode == "eagle"
"""


def test_a_value_that_may_be_stored_again_is_not_rewritten(tmp_path: Path) -> None:
    variants = _variants(tmp_path, WRITTEN_BACK)
    assert _rewritten(variants, "mode", "str:cfgpkg.config.Config.mode") == {}


OUTSIDE = """\
class Config:
    def __init__(self, mode):
        self.mode = mode

    def is_nextn(self):
        return self.mode == "nextn" or self.mode == "eagle"


def apply_aliases(config: Config):
    if config.mode == "nextn":
        config.mode = "eagle"
"""


def test_a_normaliser_outside_the_class_counts_when_named(tmp_path: Path) -> None:
    variants = _variants(tmp_path, OUTSIDE)
    qual = "str:cfgpkg.config.Config.mode"
    assert _rewritten(variants, "mode", qual) == {}
    named = ("cfgpkg.config.apply_aliases",)
    assert _rewritten(variants, "mode", qual, named) == {"nextn": ["eagle"]}


BAILOUT = """\
from dataclasses import dataclass


@dataclass
class Config:
    model_path: str
    algorithm: str = "eagle"
    draft_path: str = ""

    def __post_init__(self):
        if self.model_path == "dummy":
            return
        if self.draft_path and not self.model_path:
            raise ValueError("a draft model needs a target model")
        self._handle_speculative()

    def _handle_speculative(self):
        if self.algorithm == "nextn":
            self.algorithm = "eagle"

    def is_eagle(self):
        return self.algorithm == "eagle"

    def is_ngram(self):
        return self.algorithm == "ngram"
"""


def test_a_rewrite_after_an_early_exit_of_the_construction(tmp_path: Path) -> None:
    # a dummy configuration returns before it is configured, and a rejected one is
    # never made: every configured object went through the rewrite
    variants = _variants(tmp_path, BAILOUT)
    qual = "str:cfgpkg.config.Config.algorithm"
    assert _rewritten(variants, "algorithm", qual) == {"nextn": ["eagle"]}


def test_a_rewrite_a_helper_may_return_before_is_not_made(tmp_path: Path) -> None:
    skipped = BAILOUT.replace(
        "    def _handle_speculative(self):\n",
        "    def _handle_speculative(self):\n        if not self.draft_path:\n            return\n",
    )
    variants = _variants(tmp_path, skipped)
    assert _rewritten(variants, "algorithm", "str:cfgpkg.config.Config.algorithm") == {}


HANDED = """\
def resolve_alias(algorithm):
    if algorithm == "NEXTN":
        return "EAGLE"
    return algorithm


def handle_speculative(args: "Config"):
    if args.algorithm is not None:
        args.algorithm = args.algorithm.upper()
    args.algorithm = resolve_alias(args.algorithm)


class Config:
    def __init__(self, algorithm):
        self.algorithm = algorithm
        handle_speculative(self)

    def is_eagle(self):
        return self.algorithm == "EAGLE"

    def is_ngram(self):
        return self.algorithm == "NGRAM"
"""


def test_a_rewrite_by_a_function_the_construction_gives_itself_to(tmp_path: Path) -> None:
    variants = _variants(tmp_path, HANDED)
    qual = "str:cfgpkg.config.Config.algorithm"
    assert _rewritten(variants, "algorithm", qual) == {"NEXTN": ["EAGLE"]}


def test_a_case_change_into_no_known_value_is_unknown(tmp_path: Path) -> None:
    # "nextn".upper() is no value the setting is compared with: nothing is known after
    lowered = HANDED.replace('"NEXTN"', '"nextn"').replace('"EAGLE"', '"eagle"')
    variants = _variants(tmp_path, lowered.replace('"NGRAM"', '"ngram"'))
    assert _rewritten(variants, "algorithm", "str:cfgpkg.config.Config.algorithm") == {}
