"""Every fixture package gives exactly the findings in its expected.txt."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdlint_helpers import (
    FIXTURES,
    REPO,
    fixture,
    fixture_dirs,
    json_findings,
    run_pdlint,
    summary,
)

CASES = sorted(p.name for p in fixture_dirs() if (p / "expected.txt").is_file())


def test_there_are_fixtures() -> None:
    assert len(CASES) >= 10


@pytest.mark.parametrize("name", CASES)
def test_fixture_findings(name: str) -> None:
    folder = fixture(name)
    expected = sorted(
        line for line in (folder / "expected.txt").read_text().splitlines() if line.strip()
    )
    assert summary(json_findings(".", cwd=folder)) == expected


@pytest.mark.parametrize("name", CASES)
def test_fixture_readme_says_what_it_imitates(name: str) -> None:
    assert (fixture(name) / "README.md").read_text().strip()


def test_pdl101_carries_path_and_related() -> None:
    findings = [f for f in json_findings(".", cwd=fixture("relay_gap")) if f["code"] == "PDL101"]
    assert len(findings) == 1
    finding = findings[0]
    steps = [s["message"] for s in finding["path"]]
    assert steps[0].startswith("entry point") and "event_loop_disagg_decode" in steps[0]
    assert steps[-1] == "dereferences `batch.draft_input`"
    assert any("spec_prepare_decode" in s for s in steps)
    related = [r["message"] for r in finding["related"]]
    assert any("returns None for DFLASH" in r for r in related)
    assert any("relay stores" in r for r in related)
    assert "raise for DFLASH" in finding["message"]


def test_whole_demo_folder() -> None:
    """Analysing all fixtures at once gives the union of their findings."""
    expected = []
    for name in CASES:
        for line in (fixture(name) / "expected.txt").read_text().splitlines():
            if line.strip():
                code, loc, member = line.split()
                expected.append(f"{code} {fixture(name).relative_to(REPO)}/{loc} {member}")
    assert summary(json_findings("fixtures", cwd=FIXTURES.parent)) == sorted(expected)


def test_pdl102_path_runs_from_entry_through_origin_to_consumer() -> None:
    (finding,) = [
        f for f in json_findings(".", cwd=fixture("idle_bypass")) if f["code"] == "PDL102"
    ]
    steps = [s["message"] for s in finding["path"]]
    assert steps[0].startswith("entry point") and "event_loop_disagg_decode" in steps[0]
    assert "a batch of mode StepMode.IDLE is made" in steps
    assert steps.index("a batch of mode StepMode.IDLE is made") < len(steps) - 2
    assert steps[-1] == "dereferences `batch.draft`"
    assert finding["member"] == "IDLE"
    related = [r["message"] for r in finding["related"]]
    assert "the batch gets mode StepMode.IDLE here" in related
    assert any(r["filename"].endswith("batch.py") for r in finding["related"])


def test_path_starts_at_the_loop_that_takes_it() -> None:
    """The consumer runs only with overlap on (``self.prefetching = config.overlap``):
    the path starts at the loop the launcher runs with ``config.overlap`` true, not at
    the blocking loop the call graph reaches it from first."""
    (finding,) = [
        f for f in json_findings(".", cwd=fixture("loop_choice")) if f["code"] == "PDL101"
    ]
    assert (
        finding["path"][0]["function"]
        == "twinloop.worker.DecodeWorker.event_loop_overlap_disagg_decode"
    )
    assert [s["message"] for s in finding["path"][1:]] == [
        "calls `DecodeWorker.step`",
        "calls `DecodeWorker.prefetch`",
        "dereferences `self.state`",
    ]


def test_placeholder_behind_a_crash_is_a_note_of_it() -> None:
    """MEDUSA crashes in the preparation before the forward's placeholder: the
    placeholder is a related location of that PDL101, not a PDL103; HYDRA, which
    skips the preparation, still gets its PDL103."""
    findings = json_findings(".", cwd=fixture("crash_then_placeholder"))
    (crash,) = [f for f in findings if f["code"] == "PDL101"]
    assert crash["member"] == "MEDUSA"
    notes = [r for r in crash["related"] if "idle placeholder" in r["message"]]
    assert [(r["filename"], r["location"]["row"]) for r in notes] == [("headloop/loop.py", 35)]
    assert "were this guarded" in notes[0]["message"]
    masked = [(f["member"], f["location"]["row"]) for f in findings if f["code"] == "PDL103"]
    assert masked == [("HYDRA", 35)]


def test_pdl103_names_member_builder_and_placeholder() -> None:
    (finding,) = [
        f for f in json_findings(".", cwd=fixture("masked_placeholder")) if f["code"] == "PDL103"
    ]
    assert finding["member"] == "MEDUSA"
    message = finding["message"]
    assert "create_idle_input" in message and "draft_from_handoff" in message
    assert "raise for MEDUSA" in message
    assert finding["severity"] == "warning"


def test_verbose_counts_builders_relays_and_calls() -> None:
    """``check -v`` says what the analysis found: builders, relays, calls resolved
    and dropped (relay_gap: one builder, one relay)."""
    proc = run_pdlint("check", ".", "-v", cwd=fixture("relay_gap"))
    counts = dict(
        line.removeprefix("pdlint: ").rsplit(": ", 1)
        for line in proc.stderr.splitlines()
        if line.startswith("pdlint: ") and line.rsplit(": ", 1)[-1].isdigit()
    )
    assert counts["builders found"] == "1"
    assert counts["relays found"] == "1"
    assert int(counts["calls resolved"]) > 0
    assert "calls dropped (unresolved)" in counts


def _dropped_lines(stderr: str) -> list[str]:
    return [
        line.removeprefix("pdlint: dropped call: ")
        for line in stderr.splitlines()
        if line.startswith("pdlint: dropped call: ")
    ]


def test_very_verbose_lists_each_dropped_call_with_its_reason(tmp_path: Path) -> None:
    """``check -vv`` adds one line per dropped call (file:line, the callee, why), as
    many as ``-v`` counts; a warm run that reuses the results still has them, and
    ``-v`` alone never prints them."""
    root = shutil.copytree(fixture("namespace_relay"), tmp_path / "namespace-relay")
    for _ in range(2):  # cold, then from the run's record
        proc = run_pdlint("check", ".", "-vv", cwd=root)
        assert _dropped_lines(proc.stderr) == [
            "orbit/spec/drafting.py:21: `list`: a builtin",
            "orbit/spec/state.py:11: `self.tokens.pop`: the value of `self.tokens` is unknown",
        ]
        assert "pdlint: calls dropped (unresolved): 2" in proc.stderr
    proc = run_pdlint("check", ".", "-v", cwd=root)
    assert "pdlint: calls dropped (unresolved): 2" in proc.stderr
    assert _dropped_lines(proc.stderr) == []


def test_a_dropped_call_names_the_module_not_analysed(tmp_path: Path) -> None:
    """A callee imported from a module outside the analysed files, and one imported
    from an analysed module that does not define it, each say so."""
    pkg = tmp_path / "eng" / "eng"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "util.py").write_text("VALUE = 1\n")
    (pkg / "loop.py").write_text(
        "import torch\n"
        "from eng.util import missing\n\n\n"
        "def event_loop_disagg_decode(batch):\n"
        "    torch.cat(batch)\n"
        "    missing()\n"
    )
    proc = run_pdlint("check", ".", "-vv", "--no-cache", cwd=tmp_path / "eng")
    assert _dropped_lines(proc.stderr) == [
        "eng/loop.py:6: `torch.cat`: `torch.cat`: module `torch` is not analysed",
        "eng/loop.py:7: `missing`: `eng.util.missing`: module `eng.util` defines no "
        "function or class `missing`",
    ]
