"""What a variant's value and its state are, where nothing annotates them
(fixtures/relay/keyed_relay, varied here): an attribute compared with one enum's
members holds that enum; a builder's unannotated parameter looked up in a table keyed
by the members is the variant; a store under a test of the member counts for the
members that pass it and no other; a member the relay never calls the builder for
reaches the consumer with no state (PDL101, beside PDL106). Each variation is run with
CPython: the reported member crashes on the reported line, the silent ones run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import fixture, invoke, summary

DRIVER = (
    "import sys\n"
    "from sluice_engine.decode import Receiver\n"
    "from sluice_engine.guess import Guess\n"
    "print(Receiver(Guess[sys.argv[1]]).serve_disagg_decode([[{'last': 3}]]))\n"
)
MEMBERS = ("OFF", "TREE", "CHAIN", "SKETCH", "LOOKUP")
DECODE = "sluice_engine/decode.py"


def _package(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the fixture with each file's ``(old, new)`` edit made."""
    root = Path(shutil.copytree(fixture("keyed_relay"), tmp_path / "keyed_relay"))
    for name, (old, new) in edits.items():
        path = root / name
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))
    return root


def _findings(root: Path) -> list[dict[str, object]]:
    done = invoke("check", "--no-cache", "--output-format", "json", ".", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def _crashes(root: Path) -> dict[str, str]:
    """member -> ``path:line`` where it fails ("" where it runs through)."""
    out = {}
    for member in MEMBERS:
        run = subprocess.run(
            [sys.executable, "-c", DRIVER, member],
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        where = ""
        if run.returncode:
            assert "'NoneType' object has no attribute" in run.stderr, run.stderr
            frame = run.stderr.rsplit('File "', 1)[1]
            path, line = frame.split('", line ')
            where = f"{os.path.relpath(path, root)}:{line.split(',')[0]}"
        out[member] = where
    return out


def test_the_fixture_as_written(tmp_path: Path) -> None:
    root = _package(tmp_path, {})
    assert summary(_findings(root)) == [
        "PDL001 sluice_engine/guess.py:37 OFF,LOOKUP",
        f"PDL101 {DECODE}:15 SKETCH",
        "PDL106 sluice_engine/guess.py:37 SKETCH",
    ]
    assert _crashes(root) == {m: f"{DECODE}:15" if m == "SKETCH" else "" for m in MEMBERS}


def test_a_store_under_a_member_test_is_that_members_alone(tmp_path: Path) -> None:
    """The helper rebuilds SKETCH's proposal instead of LOOKUP's: SKETCH runs through,
    LOOKUP (no maker, not rebuilt) fails at the verifier."""
    root = _package(
        tmp_path,
        {
            DECODE: (
                "if group.mode == Guess.LOOKUP:\n        group.proposal = LookupTable",
                "if group.mode == Guess.SKETCH:\n        group.proposal = LookupTable",
            )
        },
    )
    found = [f for f in summary(_findings(root)) if f.startswith("PDL101")]
    assert found == [f"PDL101 {DECODE}:15 LOOKUP"]
    assert _crashes(root) == {m: f"{DECODE}:15" if m == "LOOKUP" else "" for m in MEMBERS}


def test_a_store_under_a_test_that_may_fail_is_not_a_rebuild(tmp_path: Path) -> None:
    """The helper rebuilds LOOKUP's proposal only for groups with tokens: LOOKUP may
    reach the verifier without one (an empty handoff crashes it)."""
    root = _package(
        tmp_path,
        {
            DECODE: (
                "if group.mode == Guess.LOOKUP:",
                "if group.mode == Guess.LOOKUP and group.seqs:",
            )
        },
    )
    found = [f for f in summary(_findings(root)) if f.startswith("PDL101")]
    assert found == [f"PDL101 {DECODE}:15 LOOKUP", f"PDL101 {DECODE}:15 SKETCH"]


def test_the_member_the_relay_skips_is_shown_at_the_relays_test(tmp_path: Path) -> None:
    root = _package(tmp_path, {})
    (finding,) = [f for f in _findings(root) if f["code"] == "PDL101"]
    message = str(finding["message"])
    assert "the relay `accept` calls `make_proposal` only under `group.mode in RELAYED`" in message
    related = finding["related"]
    assert isinstance(related, list)
    first = related[0]
    assert (first["filename"].endswith(DECODE), first["location"]["row"]) == (True, 26)
    assert "never for SKETCH" in first["message"]


@pytest.mark.parametrize(
    ("relayed", "reported"),
    [
        # every maker relayed: the makers' gaps alone remain, and no member is left out
        ("frozenset({Guess.TREE, Guess.CHAIN, Guess.SKETCH})", []),
        # a tuple of members, the relay's test written with ``not in``
        ("(Guess.OFF, Guess.LOOKUP, Guess.CHAIN)", ["CHAIN"]),
    ],
)
def test_the_relays_test_is_read_per_member(
    tmp_path: Path, relayed: str, reported: list[str]
) -> None:
    edits = {DECODE: ("frozenset({Guess.TREE, Guess.CHAIN})", relayed)}
    root = _package(tmp_path, edits)
    if relayed.startswith("("):
        path = root / DECODE
        path.write_text(
            path.read_text().replace("group.mode in RELAYED", "group.mode not in RELAYED")
        )
    found = summary(_findings(root))
    assert [f.rsplit(" ", 1)[1] for f in found if f.startswith("PDL101")] == reported
    crashes = _crashes(root)
    assert sorted(m for m, where in crashes.items() if where) == reported


MAKERS = """_MAKERS = {
    Guess.TREE: functools.partial(Proposal, width=4),
    Guess.CHAIN: Proposal,
    Guess.SKETCH: lambda seqs: Proposal(seqs, 2),
}"""
BUILDER = """    maker = _MAKERS.get(mode)
    return maker(seqs) if maker else None"""


@pytest.mark.parametrize(
    ("makers", "builder"),
    [
        # a table written as a comprehension over another table's items
        (
            "_WIDTHS = {Proposal: (Guess.TREE, Guess.CHAIN, Guess.SKETCH)}\n"
            "_MAKERS = {mode: cls for cls, modes in _WIDTHS.items() for mode in modes}",
            BUILDER,
        ),
        # the lookup written in its test (a walrus)
        (
            MAKERS,
            "    if (maker := _MAKERS.get(mode)) is None:\n        return None\n"
            "    return maker(seqs)",
        ),
    ],
)
def test_the_table_as_other_code_writes_it(tmp_path: Path, makers: str, builder: str) -> None:
    guess = "sluice_engine/guess.py"
    root = _package(tmp_path, {guess: (MAKERS, makers)})
    path = root / guess
    path.write_text(path.read_text().replace(BUILDER, builder))
    line = path.read_text().splitlines().index("def make_proposal(mode, seqs):") + 1
    assert summary(_findings(root)) == [
        f"PDL001 {guess}:{line} OFF,LOOKUP",
        f"PDL101 {DECODE}:15 SKETCH",
        f"PDL106 {guess}:{line} SKETCH",
    ]
    assert _crashes(root) == {m: f"{DECODE}:15" if m == "SKETCH" else "" for m in MEMBERS}


def test_a_filtered_comprehension_is_not_read(tmp_path: Path) -> None:
    """``{... for mode in modes if ...}``: which keys it keeps is not known, so the
    builder's gaps are not either (unknown is silent)."""
    makers = (
        "_WIDTHS = {Proposal: (Guess.TREE, Guess.CHAIN, Guess.SKETCH)}\n"
        "_MAKERS = {mode: cls for cls, modes in _WIDTHS.items() for mode in modes if mode}"
    )
    root = _package(tmp_path, {"sluice_engine/guess.py": (MAKERS, makers)})
    assert [f for f in summary(_findings(root)) if "guess.py" in f] == []


def test_a_table_rebuilt_from_itself_is_read_without_end(tmp_path: Path) -> None:
    """``_MAKERS = {k: v for k, v in _MAKERS.items()}`` (a table copied over its own
    name) names itself: the run ends, with the table unknown."""
    makers = MAKERS + "\n_MAKERS = {mode: maker for mode, maker in _MAKERS.items()}"
    root = _package(tmp_path, {"sluice_engine/guess.py": (MAKERS, makers)})
    assert [f for f in summary(_findings(root)) if "guess.py" in f] == []
