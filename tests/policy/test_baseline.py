"""Baselines: record findings by logical fingerprint, report only new ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint

from pdlint.findings import Finding, Location
from pdlint.policy.baseline import (
    Baseline,
    BaselineError,
    apply_baseline,
    load_baseline,
    write_baseline,
)
from pdlint.policy.fingerprints import logical_fingerprint


def finding(member: str, line: int, code: str = "PDL101") -> Finding:
    return Finding(
        code=code,
        message=f"{member} reaches batch.draft_input.prepare() unset",
        location=Location("pkg/scheduler.py", line, 13, line, 45),
        member=member,
        key=(code, "pkg.scheduler.run_batch", member),
    )


def roundtrip(findings: list[Finding], tmp_path: Path) -> Baseline:
    path = tmp_path / "pdlint-baseline.json"
    write_baseline(findings, path)
    return load_baseline(path)


def test_line_shift_stays_baselined(tmp_path: Path):
    baseline = roundtrip([finding("DFLASH", 11)], tmp_path)
    kept, matched, stale = apply_baseline([finding("DFLASH", 57)], baseline)
    assert (kept, matched, stale) == ([], 1, 0)


def test_new_key_is_reported(tmp_path: Path):
    baseline = roundtrip([finding("DFLASH", 11)], tmp_path)
    new = finding("NGRAM", 11)
    kept, matched, stale = apply_baseline([finding("DFLASH", 11), new], baseline)
    assert (kept, matched, stale) == ([new], 1, 0)


def test_same_key_under_another_code_is_new(tmp_path: Path):
    baseline = roundtrip([finding("DFLASH", 11)], tmp_path)
    other = Finding(
        "PDL103",
        "masked",
        Location("pkg/scheduler.py", 11, 13, 11, 45),
        key=("PDL101", "pkg.scheduler.run_batch", "DFLASH"),
    )
    kept, matched, stale = apply_baseline([other], baseline)
    assert (kept, matched, stale) == ([other], 0, 1)


def test_stale_entries_are_counted(tmp_path: Path):
    baseline = roundtrip(
        [finding("DFLASH", 11), finding("NGRAM", 20), finding("EAGLE3", 30)], tmp_path
    )
    kept, matched, stale = apply_baseline([finding("NGRAM", 21)], baseline)
    assert (kept, matched, stale) == ([], 1, 2)


def test_each_entry_absorbs_one_finding(tmp_path: Path):
    baseline = roundtrip([finding("DFLASH", 11), finding("DFLASH", 12)], tmp_path)
    assert len(baseline) == 2
    three = [finding("DFLASH", 11), finding("DFLASH", 12), finding("DFLASH", 13)]
    kept, matched, stale = apply_baseline(three, baseline)
    assert (matched, stale) == (2, 0)
    assert kept == [three[2]]


def test_file_records_code_fingerprint_and_hints_but_no_lines(tmp_path: Path):
    path = tmp_path / "b.json"
    write_baseline([finding("NGRAM", 20), finding("DFLASH", 11)], path)
    text = path.read_text(encoding="utf-8")
    document = json.loads(text)
    assert document["version"] == 1
    entries = document["entries"]
    assert [set(e) for e in entries] == [{"code", "fingerprint", "file", "message"}] * 2
    assert entries == sorted(
        entries, key=lambda e: (e["file"], e["code"], e["fingerprint"], e["message"])
    )
    assert {e["fingerprint"] for e in entries} == {
        logical_fingerprint(finding("NGRAM", 20)),
        logical_fingerprint(finding("DFLASH", 11)),
    }
    # Same findings, another order: the same bytes.
    again = tmp_path / "again.json"
    write_baseline([finding("DFLASH", 11), finding("NGRAM", 20)], again)
    assert again.read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[]", "must be a JSON object"),
        ('{"entries": []}', "unsupported baseline version"),
        ('{"version": 99, "entries": []}', "unsupported baseline version"),
        ('{"version": 1}', "'entries' must be a list"),
        ('{"version": 1, "entries": [7]}', "entries[0] must be an object"),
        ('{"version": 1, "entries": [{"fingerprint": "' + "a" * 64 + '"}]}', "'code'"),
        ('{"version": 1, "entries": [{"code": "PDL101", "fingerprint": "12"}]}', "hex"),
        (
            '{"version": 1, "entries": [{"code": "PDL101", "fingerprint": "'
            + "a" * 64
            + '", "file": 3}]}',
            "'file' must be a string",
        ),
    ],
)
def test_malformed_baseline_raises_baseline_error(tmp_path: Path, content: str, problem: str):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(BaselineError) as info:
        load_baseline(path)
    assert problem in str(info.value)
    assert str(path) in str(info.value)


def test_missing_or_undecodable_baseline_raises_baseline_error(tmp_path: Path):
    with pytest.raises(BaselineError, match="cannot read baseline"):
        load_baseline(tmp_path / "absent.json")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(BaselineError, match="cannot read baseline"):
        load_baseline(binary)


def test_empty_baseline_keeps_everything(tmp_path: Path):
    findings = [finding("DFLASH", 11)]
    baseline = roundtrip([], tmp_path)
    assert apply_baseline(findings, baseline) == (findings, 0, 0)


# --- the CLI on a copy of fixtures/relay/relay_gap ---------------------------


def _shift_lines(path: Path, count: int) -> None:
    path.write_text("# moved\n" * count + path.read_text(encoding="utf-8"), encoding="utf-8")


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_cli_baseline_survives_line_shifts_and_reports_a_new_gap(relay_gap: Path):
    pkg = relay_gap / "relay_gap_engine"
    written = run_pdlint("check", "--write-baseline", "pdlint-baseline.json", ".", cwd=relay_gap)
    assert (written.returncode, written.stdout) == (0, "")
    assert "wrote 2 findings to pdlint-baseline.json" in written.stderr

    # Builder and consumer move down; both findings stay known.
    _shift_lines(pkg / "spec_info.py", 7)
    _shift_lines(pkg / "spec_utils.py", 3)
    moved = run_pdlint("check", "--baseline", "pdlint-baseline.json", ".", cwd=relay_gap)
    assert (moved.returncode, moved.stdout) == (0, "")
    assert "pdlint: baseline pdlint-baseline.json: 2 known, 0 stale, 0 new" in moved.stderr
    unbaselined = run_pdlint("check", ".", cwd=relay_gap)
    assert "relay_gap_engine/spec_utils.py:23:9: PDL101 DFLASH" in unbaselined.stdout

    # EAGLE3 leaves the builder's eagle family: a new gap at the eagle consumer, and
    # the builder's PDL001 now names one more member (a new finding: the baseline's
    # PDL001 named fewer, and must not hide the wider gap).
    _edit(
        pkg / "spec_info.py",
        "return self in (DraftAlgorithm.EAGLE, DraftAlgorithm.EAGLE3)",
        "return self == DraftAlgorithm.EAGLE",
    )
    new = run_pdlint("check", "--baseline", "pdlint-baseline.json", ".", cwd=relay_gap)
    assert new.returncode == 1
    assert [line.split(" ")[:3] for line in new.stdout.splitlines()] == [
        ["relay_gap_engine/spec_info.py:55:5:", "PDL001", "`build_disagg_draft_input`"],
        ["relay_gap_engine/spec_utils.py:16:12:", "PDL101", "EAGLE3"],
    ]
    assert "EAGLE3" in new.stdout.splitlines()[0]
    assert "1 known, 1 stale, 2 new" in new.stderr


def test_cli_baseline_counts_stale_entries_once_fixed(relay_gap: Path):
    run_pdlint("check", "--write-baseline", "b.json", ".", cwd=relay_gap)
    _edit(
        relay_gap / "relay_gap_engine" / "spec_info.py",
        "        if self.is_eagle():\n",
        "        if self.is_eagle() or self.is_dflash() or self.is_none():\n",
    )
    fixed = run_pdlint("check", "--baseline", "b.json", ".", cwd=relay_gap)
    assert (fixed.returncode, fixed.stdout) == (0, "")
    assert "pdlint: baseline b.json: 0 known, 2 stale, 0 new" in fixed.stderr
