"""Parsing only what the analysis needs gives the findings of parsing everything.

The lazy model (the default on large trees) is compared with a full run on
every fixture and on the public sglang 0.5.16 release; the text scan it relies
on is checked to over-approximate what the indexer finds.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from pdlint_helpers import chdir, fixture, fixture_dirs, run_pdlint
from real_sglang import sglang_tree

from pdlint.api import analyze
from pdlint.checks.relay import decode_tests as relay_module
from pdlint.checks.relay.check import REJECTION_BRANCHES
from pdlint.engine import textscan as scan_module
from pdlint.engine.textscan import (
    in_condition,
    literal_pieces,
    may_define,
    scan_source,
    starts_identifier,
)
from pdlint.facts.exprs import identifiers
from pdlint.facts.indexer import index_module
from pdlint.output.progress import TerminalProgress
from pdlint.settings.config import Settings

CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())


def run(folder: Path, target: str, *, lazy: bool, packs: bool = True) -> list[object]:
    with chdir(folder):
        settings = Settings(root=str(folder), cache=False)
        return list(analyze([target], settings, lazy=lazy, use_packs=packs).findings)


@pytest.mark.parametrize("packs", [True, False], ids=["packs", "no-packs"])
@pytest.mark.parametrize("name", CASES)
def test_lazy_equals_full_on_every_fixture(name: str, packs: bool) -> None:
    folder = fixture(name)
    full = run(folder, ".", lazy=False, packs=packs)
    assert run(folder, ".", lazy=True, packs=packs) == full


@pytest.mark.parametrize("mentions", [1, 4])
def test_callers_of_a_constructor_elsewhere_are_the_same_lazy_or_full(
    tmp_path: Path, mentions: int
) -> None:
    """remote_constructor's batch is built in one other module; modules that only name
    ``StepBatch(`` in a docstring count like callers in both runs (the text is what a
    lazy run can ask without parsing), so past the bound both read no caller; the
    batch's kind is then the one class defining the method the batch calls on it
    (``self.kind.state_for(handoff)``), and both find the gap."""
    folder = Path(shutil.copytree(fixture("remote_constructor"), tmp_path / "tree"))
    for i in range(mentions):
        note = '"""Notes: cross_engine builds each StepBatch(reqs, kind, ...) per step."""\n'
        (folder / "cross_engine" / f"notes_{i}.py").write_text(note)
    full = run(folder, ".", lazy=False)
    assert run(folder, ".", lazy=True) == full
    found = {(f.code, f.member) for f in full}  # type: ignore[attr-defined]
    assert ("PDL101", "LOOKUP") in found


@pytest.mark.parametrize("name", [c for c in CASES if c.startswith("layout_")])
def test_files_parsed_ahead_give_the_same_findings(name: str, tmp_path: Path, monkeypatch) -> None:
    """PDL201's first query (a peer's copy and ``len(``) is parsed ahead by the
    worker processes (forced here on a small tree; three of them, as all but one
    parse ahead), and its next query's files once its first gave the stems: two
    files that only the first query loads are parsed ahead, enter the model at the
    check's own query, and the findings are those of a full run; a warm run
    parses nothing."""
    monkeypatch.setenv("PDLINT_WORKERS", "3")
    folder = tmp_path / name
    shutil.copytree(fixture(name), folder)
    for i in range(2):
        (folder / f"peer_sizes_{i}.py").write_text(
            f"def size_{i}(dst_items):\n    return len(dst_items)\n"
        )
    full = run(folder, ".", lazy=False)
    with chdir(folder):
        settings = Settings(root=str(folder), cache=True)
        cold = analyze(["."], settings, lazy=True, cache_dir=str(tmp_path / "c"))
        warm = analyze(["."], settings, lazy=True, cache_dir=str(tmp_path / "c"))
    assert cold.stats["files parsed ahead of their load"] >= 2
    assert {"peer_sizes_0.py", "peer_sizes_1.py"} <= set(cold.loaded_files)
    assert cold.findings == full
    assert warm.findings == full and "files parsed ahead of their load" not in warm.stats


def test_lazy_finds_an_offset_measured_by_a_helper_elsewhere(tmp_path: Path) -> None:
    """layout_helpers with the length of the local copy also taken by the helper: the
    file that subscripts the peer's copy holds no ``len(``. PDL201's first lazy
    query loaded only files with ``len(`` beside a peer prefix, and missed the
    finding a full run makes; it now loads every file with a peer prefix."""
    folder = tmp_path / "layout_helpers"
    shutil.copytree(fixture("layout_helpers"), folder)
    transport = folder / "relay_regions" / "transport.py"
    text = transport.read_text()
    assert "        half = len(ours) // 2\n" in text
    transport.write_text(text.replace("len(ours) // 2", "groups_of(ours, 2)"))
    full = run(folder, ".", lazy=False)
    assert [f.code for f in full] == ["PDL201"]  # type: ignore[attr-defined]
    assert run(folder, ".", lazy=True) == full


def test_first_query_loads_files_naming_a_copy_by_a_peer_prefix(tmp_path: Path) -> None:
    """PDL201's first query loads a file with an identifier starting with a peer
    prefix (``dst_items``), not one holding the prefix only inside identifiers or in
    upper case (``is_dst_ready``, ``NVML_REMOTE_X``). Editing the latter to name a
    peer's copy makes the next run analyse again, load it, and find what a full
    run finds."""
    folder = tmp_path / "layout_helpers"
    shutil.copytree(fixture("layout_helpers"), folder)
    (folder / "peer_sizes.py").write_text("def size(dst_items):\n    return len(dst_items)\n")
    inside = folder / "inside_words.py"
    inside.write_text(
        "NVML_REMOTE_X = 1\n\n\ndef is_dst_ready(state):\n    return state.is_peer_done\n"
    )
    cache = tmp_path / "cache"

    def lazy_run():  # type: ignore[no-untyped-def]
        with chdir(folder):
            settings = Settings(root=str(folder), cache=True)
            return analyze(["."], settings, lazy=True, cache_dir=str(cache))

    first = lazy_run()
    assert "peer_sizes.py" in first.loaded_files
    assert "inside_words.py" not in first.loaded_files
    assert first.findings == run(folder, ".", lazy=False)
    inside.write_text(
        inside.read_text() + "\n\ndef half(dst_more):\n    return dst_more[len(dst_more) // 2]\n"
    )
    again = lazy_run()
    assert "results reused (nothing they depend on changed)" not in again.stats
    assert "inside_words.py" in again.loaded_files
    assert again.findings == run(folder, ".", lazy=False)


@hypothesis_settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab_.( \nAé", max_size=24), st.sampled_from(["a_", "ab", "_a", "é"]))
def test_starts_identifier_is_the_lookbehind_pattern(text: str, word: str) -> None:
    data, raw = text.encode(), word.encode()
    oracle = re.search(rb"(?<![A-Za-z0-9_\x80-\xff])" + re.escape(raw), data) is not None
    assert starts_identifier(data, raw) == oracle


def test_lazy_finds_a_validator_nothing_else_loads(tmp_path: Path) -> None:
    """conditional_validator with its startup rule moved out of ``ServerArgs`` into a
    launcher's check that nothing imports (its script's ``main`` calls it), and that
    names no decode mode: it tests the
    setting string the program converts to the algorithm, and compares it with the
    only strings it is compared with. A lazy run never loaded that file, so it missed
    the rejection (and the string variant) and reported a PDL103 for LOOKAHEAD that a
    full run does not; it now loads the files that raise and name a converted setting."""
    folder = tmp_path / "conditional_validator"
    shutil.copytree(fixture("conditional_validator"), folder)
    args = folder / "coord_engine" / "server_args.py"
    rule = (
        "            if flags.COORDINATE_RANKS.get():\n"
        '                if self.speculative_algorithm not in ("eagle", "medusa"):\n'
        '                    raise ValueError("rank coordination supports EAGLE and MEDUSA only")\n'
    )
    assert rule in args.read_text()
    args.write_text(args.read_text().replace(rule, ""))
    (folder / "coord_engine" / "launch_checks.py").write_text(
        "from coord_engine.flags import flags\n\n\n"
        "def check_coordination(args) -> None:\n"
        "    if flags.COORDINATE_RANKS.get():\n"
        '        if args.speculative_algorithm not in ("eagle", "medusa"):\n'
        '            raise ValueError("rank coordination supports EAGLE and MEDUSA only")\n'
        "\n\n"
        "def main(args) -> None:  # the launcher script runs it\n"
        "    check_coordination(args)\n"
    )
    full = run(folder, ".", lazy=False)
    shown = [(f.code, f.location.line, f.member) for f in full]  # type: ignore[attr-defined]
    assert ("PDL103", 52, "LOOKAHEAD") not in shown and ("PDL103", 52, "MEDUSA") in shown
    assert run(folder, ".", lazy=True) == full


def test_lazy_finds_a_string_member_compared_in_a_file_nothing_else_loads(
    tmp_path: Path,
) -> None:
    """string_methods with an offline tool, which nothing imports, comparing the
    config's method with "lookahead": a member of the method's string variant (the
    strings it is compared with anywhere), which the factory returns None for. A lazy
    run did not load the tool, and reported the PDL001 without that member."""
    folder = tmp_path / "string_methods"
    shutil.copytree(fixture("string_methods"), folder)
    (folder / "strdec" / "tools.py").write_text(
        "from strdec.config import SpeculativeConfig\n\n\n"
        "def describe(cfg: SpeculativeConfig) -> str:\n"
        '    if cfg.method == "lookahead":\n'
        '        return "lookahead decoding"\n'
        '    return "other"\n'
    )
    full = run(folder, ".", lazy=False)
    assert [(f.code, f.member) for f in full] == [  # type: ignore[attr-defined]
        ("PDL001", "lookahead,mtp"),
        ("PDL101", "mtp"),
    ]
    assert run(folder, ".", lazy=True) == full


def test_lazy_loads_only_what_is_needed(tmp_path: Path) -> None:
    """A module nothing reaches is not parsed; its syntax error goes unreported."""
    folder = tmp_path / "relay_gap"
    shutil.copytree(fixture("relay_gap"), folder)
    (folder / "relay_gap_engine" / "unrelated.py").write_text("def broken(:\n")
    with chdir(folder):
        settings = Settings(root=str(folder), cache=False)
        lazy = analyze(["."], settings, lazy=True)
        full = analyze(["."], settings, lazy=False)
    assert "relay_gap_engine/unrelated.py" not in lazy.loaded_files
    assert [f.code for f in full.findings if f.code == "PDL900"] == ["PDL900"]
    assert [f for f in full.findings if f.code != "PDL900"] == lazy.findings


# --- the text scan over-approximates the indexer --------------------------------

TRICKY = '''\
"""class Fake(NotABase): in a docstring."""
from enum import Enum as _E, IntEnum
import pkg.mod as \\
    m
from .base import (
    Base as B,
    Mixin,
)
from .deep import (  # see helper() below
    Deep as D,  # (not the end)
)
x = 1; import pkg.other as o
from pkg.lazy_import import Lazy as L  # "import" ends a word first
with open("f") as handle:
    pass
try:
    pass
except ValueError as error:
    pass
# Real as comment: not an import

@dataclass
class Plain:
    x: int

class Multi(  # a comment (with a paren
    B, m.Other,
    metaclass=Meta,
):
    pass

class Spaced \\
    (Mixin):
    def méthode(self): ...

    async def fetch(self): ...

class Gen(Base[int], Generic[T]): pass
class Ünïcode(_E): A = 1
def \\
    continued(): pass
'''


def _expected(source: str) -> tuple[set[str], dict[str, set[str]], set[tuple[str, str]]]:
    """Defined names, class -> names in its bases, and ``as`` aliases, from ast."""
    tree = ast.parse(source)
    defs, bases, aliases = set(), {}, set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs.add(node.name)
        if isinstance(node, ast.ClassDef) and node.bases:
            names = set()
            for base in node.bases:
                names |= {n.id for n in ast.walk(base) if isinstance(n, ast.Name)}
                names |= {n.attr for n in ast.walk(base) if isinstance(n, ast.Attribute)}
            bases[node.name] = names
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname:
                    aliases.add((alias.name.rsplit(".", 1)[-1], alias.asname))
    return defs, bases, aliases


def assert_scan_covers(source: str) -> None:
    scan = scan_source(source.encode("utf-8"))
    defs, bases, aliases = _expected(source)
    assert defs <= scan.defs
    headers: dict[str, set[str]] = {}
    for name, words in scan.headers:
        headers.setdefault(name, set()).update(words)
    for name, names in bases.items():
        assert names <= headers.get(name, set()), name
    assert aliases <= set(scan.aliases)


def test_scan_covers_a_tricky_file() -> None:
    assert_scan_covers(TRICKY)
    scan = scan_source(TRICKY.encode())
    assert {"Plain", "Multi", "Spaced", "méthode", "fetch", "Gen", "Ünïcode"} <= scan.defs
    assert ("Enum", "_E") in scan.aliases and ("mod", "m") in scan.aliases
    assert {("Deep", "D"), ("other", "o"), ("Lazy", "L")} <= set(scan.aliases)
    # only an import aliases a name: on sglang 0.5.23 the words of comments chained
    # "Req" to the class headers of 200 files
    assert not {"handle", "error", "comment"} & {alias for _, alias in scan.aliases}


@pytest.mark.parametrize("name", CASES)
def test_scan_covers_every_fixture_file(name: str) -> None:
    for path in sorted(fixture(name).rglob("*.py")):
        assert_scan_covers(path.read_text())


# --- a word in a branch condition (PDL201's query for the files growing a list) ---

ROLE = (b"draft", b"eagle")
GROWS = (b"append", b"extend", b"+=")

BRANCHES = [
    # (source, whether a role word may stand in a condition with a grow word after it)
    ("if self.draft_pool is not None:\n    ptrs.append(p)\n", True),
    ("def f():\n    if not use_eagle:\n        return\n    ptrs.extend(more)\n", True),
    ("if a:\n    pass\nelif b and (\n    c or\n    self.draft_pool  # (\n):\n    n += 1\n", True),
    ("while x and \\\n        is_draft:\n    out.append(1)\n", True),
    ('if name == ")" and (\n    spec_draft\n):\n    out.append(1)\n', True),
    ('if msg == """(\n    draft""":\n    out.append(1)\n', True),  # a string over lines
    ("x = 1; assert eagle_ok\nout.append(1)\n", True),
    ("match algo:\n    case Algo.EAGLE:\n        out.append(1)\n", True),
    ("if x:\r    draft = 1\rout.append(1)\r", True),  # lone carriage returns
    ("if draft:\n    pass\n", False),  # no grow after it
    ("out.append(1)\nif draft:\n    pass\n", False),  # the grow comes first
    ("self.draft_pool = make()\nptrs.append(self.draft_pool)\n", False),  # no branch
    ("if ready:  # draft\n    out.append(1)\n", True),  # a comment counts (a superset)
    ("if ready(\n    x):\n    y = draft\n    out.append(1)\n", False),  # in the body only
    ("x = a if draft else b\nout.append(x)\n", False),  # an expression, not a branch
]


@pytest.mark.parametrize(("source", "expected"), BRANCHES)
def test_in_condition_finds_a_word_in_a_branch_condition(source: str, expected: bool) -> None:
    assert in_condition(source.encode().lower(), ROLE, GROWS) is expected


def _guarded_grows(source: str, path: str = "m.py") -> set[bytes]:
    """The role words standing in the guards of a grow the indexer finds (one written
    with a grow word: what the query's gate selects)."""
    facts = index_module(path, path, ast.parse(source), source)
    lines = source.splitlines()
    found = set()
    for fn in facts.functions:
        for grow in fn.grows:
            written = "\n".join(lines[grow.span[0] - 1 : grow.span[2]]).lower().encode()
            if not any(w in written for w in GROWS):
                continue
            for expr, _ in grow.guards:
                for name in identifiers(expr):
                    found.update(w for w in ROLE if w in name.lower().encode())
    return found


def test_in_condition_selects_every_case_the_indexer_guards() -> None:
    """Each case, as a function's body: a grow the indexer finds under a condition
    naming a role word is selected (cases with lone carriage returns left out)."""
    guarded = 0
    for source, _ in BRANCHES:
        if "\r" in source:
            continue
        body = "".join(f"    {line}\n" for line in source.splitlines())
        wrapped = f"def f(self, algo, out, ptrs, x, a, b, c, n, name, msg):\n{body}"
        if _guarded_grows(wrapped):
            guarded += 1
            assert in_condition(wrapped.lower().encode(), ROLE, GROWS), source
    assert guarded >= 7


def _decode_raises(source: str, path: str = "m.py") -> bool:
    """Whether the indexer finds a raise under a decode-mode test (what the relay
    check's ``rejected`` reads)."""
    facts = index_module(path, path, ast.parse(source), source)
    return any(
        polarity and relay_module.is_decode_test(expr)
        for fn in facts.functions
        for _span, guards in fn.raises
        for expr, polarity in relay_module.flatten(guards)
    )


DECODE = tuple(w.encode() for w in REJECTION_BRANCHES[0])
RAISE = tuple(w.encode() for w in REJECTION_BRANCHES[1])


def assert_in_condition_covers(path: Path, source: str) -> None:
    lower = source.lower().encode()
    if _guarded_grows(source, str(path)):
        assert in_condition(lower, ROLE, GROWS), path
    if _decode_raises(source, str(path)):
        assert in_condition(lower, DECODE, RAISE), path


@pytest.mark.parametrize("name", CASES)
def test_in_condition_covers_every_fixture_file(name: str) -> None:
    for path in sorted(fixture(name).rglob("*.py")):
        assert_in_condition_covers(path, path.read_text())


def test_in_condition_reads_the_relay_checks_decode_tests() -> None:
    """A raise under a decode-mode test (a string, a dotted name with disagg and
    decode, a condition over lines) is selected; one elsewhere is not."""
    selected = [
        "if mode == 'decode':\n    raise ValueError(mode)\n",
        "if (\n    self.disaggregation_mode\n    == DisaggregationMode.DECODE\n):\n    raise X\n",
        "assert server_args.is_disagg_decode()\nraise X\n",
        # TensorRT-LLM's generation server, a role enum, a flag naming the role
        "if self.server_role is ServerRole.GENERATION:\n    raise X\n",
        "if self.server_role == 'generation':\n    raise X\n",
        "if role == Role.DECODE:\n    raise X\n",
        "if args.is_decode_server:\n    raise X\n",
        "if cfg.role.is_decode() and cfg.spec == 'lookahead':\n    raise X\n",
    ]
    for source in selected:
        assert _decode_raises(f"def f(self, mode, server_args):\n{_indented(source)}")
        assert in_condition(source.lower().encode(), DECODE, RAISE), source
    assert not in_condition(b"mode = 'decode'\nraise valueerror(mode)\n", DECODE, RAISE)
    # a batch's forward mode, a diffusion pipeline's decoder role, a task named
    # "generation": no decode role
    for source in (
        "if batch.forward_mode == ForwardMode.DECODE:\n    raise X\n",
        "if batch.forward_mode.is_decode_or_idle():\n    raise X\n",
        "if role == RoleType.DECODER:\n    raise X\n",
        "if self.task == 'generation':\n    raise X\n",
    ):
        assert not _decode_raises(f"def f(self, batch, role):\n{_indented(source)}"), source


def _indented(source: str) -> str:
    return "".join(f"    {line}\n" for line in source.splitlines())


@pytest.mark.real
def test_in_condition_covers_a_release(sglang_0_5_16: Path) -> None:
    """Every file of sglang 0.5.16's disaggregation, speculative, managers,
    entrypoints and arg_groups folders, and its server arguments, where the indexer
    finds a grow under a condition naming a role word, or a raise under a
    decode-mode test, is selected."""
    srt = sglang_0_5_16 / "sglang" / "srt"
    folders = ("disaggregation", "speculative", "managers", "entrypoints", "arg_groups")
    paths = [p for f in folders for p in sorted((srt / f).rglob("*.py"))]
    paths.append(srt / "server_args.py")
    grows = raises = 0
    for path in paths:
        source = path.read_text(encoding="utf-8")
        grows += bool(_guarded_grows(source, str(path)))
        raises += _decode_raises(source, str(path))
        assert_in_condition_covers(path, source)
    assert len(paths) > 100 and grows > 5 and raises >= 2


def test_word_groups_match_case_insensitively_with_runs() -> None:
    source = b"if self.disaggregation_mode == DisaggregationMode.DECODE:\n    raise X\n"
    groups = (("raise", "disagg*decode"), ("raise", "'decode'"), ("RAISE", "decode*disagg"))
    assert scan_source(source, groups).groups == (True, False, False)


WORDS = ("dst", "dst_", "'decode'", '"decode"', "decode", "disagg*decode", "raise", "+=", "a_b")
# texts made of the words (a run for each ``*``), their pieces and other characters
PIECES = (*(w.replace("*", "_Mode.") for w in WORDS), "DECODE", "disagg", "_", "'", "+", "b", " ")


@hypothesis_settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=12),
    st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), min_size=1, max_size=5),
)
def test_word_groups_hold_what_searching_each_word_finds(
    pieces: list[str], groups: list[list[str]]
) -> None:
    # the scan searches a word only when the shorter words it holds are there
    text = "".join(pieces)
    lower = text.lower()
    expected = tuple(
        all(
            re.search(r"[\w.]*".join(map(re.escape, w.split("*"))), lower) is not None
            for w in group
        )
        for group in groups
    )
    frozen = tuple(tuple(g) for g in groups)
    assert scan_source(text.encode(), frozen).groups == expected


# The import statement's pattern as first written, one byte per loop (the scan's own
# is unrolled for speed): both must find the same statements, to the same end.
ROLLED_IMPORT = re.compile(
    rb"import(?=[ \t\\(])(?:[ \t]|\\\r?\n)*"
    rb"(?:\((?:[^)#]|#[^\n]*)*\)?"
    rb"|(?:[^\n\\]|\\(?:\r?\n)?)*)"
)
IMPORT_PIECES = ("import ", " as ", "(", ")", "#", "\\", "\\\r\n", "\n", "\r", " ", "x")


@hypothesis_settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(IMPORT_PIECES), max_size=20))
def test_unrolled_import_pattern_matches_as_the_rolled_one(pieces: list[str]) -> None:
    data = ("import " + "".join(pieces)).encode()
    assert [m.span() for m in scan_module._IMPORT_RE.finditer(data)] == [
        m.span() for m in ROLLED_IMPORT.finditer(data)
    ]


def test_entry_point_pieces_select_every_module_that_can_define_it() -> None:
    facts_source = "class Mixin:\n    def event_loop_disagg_decode(self): ...\n"
    scan = scan_source(facts_source.encode())
    for pattern in (
        "engine.scheduler.Mixin.event_loop_disagg_decode",
        "Mixin.event_loop_disagg_decode",
        "engine.*.event_loop_*_decode",
        "engine.sched[ua]ler.*",
    ):
        assert may_define(scan, "engine.scheduler", literal_pieces(pattern)), pattern
    assert not may_define(scan, "engine.scheduler", literal_pieces("engine.other.*"))


# --- progress ---------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_waits_a_second_then_draws_one_erasable_line() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = TerminalProgress(stream, clock=clock)
    progress("reading 10 files")
    clock.now += 0.5
    progress("3 of 10 files loaded")
    assert stream.getvalue() == ""  # a run under a second shows nothing
    clock.now += 0.7
    progress("7 of 10 files loaded")
    assert stream.getvalue() == "\r\x1b[Kpdlint: 7 of 10 files loaded (1.2 s)"
    progress("8 of 10 files loaded")  # within the refresh interval: skipped
    clock.now += 0.2
    progress("9 of 10 files loaded")
    progress.close()
    assert stream.getvalue().endswith("pdlint: 9 of 10 files loaded (1.4 s)\r\x1b[K")


def test_no_progress_when_stderr_is_not_a_terminal(relay_gap: Path) -> None:
    proc = run_pdlint("check", ".", cwd=relay_gap)
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr


def test_lazy_finds_a_stem_named_in_the_body_only(tmp_path: Path) -> None:
    """layout_halved with the peer's copy named only inside the function that indexes
    it (its ``def`` line names no peer): the lazy run skips a function whose lines
    name no peer when it looks for stems, and reads its lines from ``def`` to its
    last call, subscript or assignment; it finds what a full run finds."""
    folder = tmp_path / "layout_halved"
    shutil.copytree(fixture("layout_halved"), folder)
    sender = folder / "halved_engine" / "sender.py"
    text = sender.read_text()
    old_def = "    def layer_pairs(self, dst_buffer_addrs: list[int]) -> list[tuple[int, int]]:\n"
    assert old_def in text and "self.layer_pairs(registration.dst_buffer_addrs)" in text
    text = text.replace(
        old_def,
        "    def layer_pairs(\n        self, registration: PeerRegistration\n"
        "    ) -> list[tuple[int, int]]:\n"
        "        # the decode role's buffers, as it registered them\n"
        "        theirs = registration.dst_buffer_addrs\n",
    )
    text = text.replace("dst_buffer_addrs[", "theirs[").replace(
        "len(dst_buffer_addrs)", "len(theirs)"
    )
    text = text.replace(
        "self.layer_pairs(registration.dst_buffer_addrs)", "self.layer_pairs(registration)"
    )
    sender.write_text(text)
    full = run(folder, ".", lazy=False)
    assert [f.code for f in full] == ["PDL201"]  # type: ignore[attr-defined]
    assert run(folder, ".", lazy=True) == full


@pytest.fixture(scope="module")
def sglang_0_5_16() -> Path:
    return sglang_tree("0.5.16")
