"""``--write-baseline`` and ``--baseline`` mistakes get a message naming them (exit 2),
never an internal error, and before the analysis."""

from __future__ import annotations

import json

from pdlint_helpers import run_pdlint


def test_write_baseline_into_a_missing_folder_says_so(relay_gap):
    res = run_pdlint("check", ".", "--write-baseline", "nowhere/b.json", cwd=relay_gap)

    assert res.returncode == 2
    assert res.stderr == (
        "pdlint: error: nowhere/b.json: cannot write the baseline: "
        "folder 'nowhere' does not exist (create it first)\n"
    )
    assert res.stdout == ""
    assert "internal error" not in res.stderr
    assert not list(relay_gap.glob("**/*.tmp"))


def test_write_baseline_under_a_file_or_onto_a_folder(relay_gap):
    (relay_gap / "plain").write_text("x")
    (relay_gap / "folder").mkdir()

    under = run_pdlint("check", ".", "--write-baseline", "plain/b.json", cwd=relay_gap)
    onto = run_pdlint("check", ".", "--write-baseline", "folder", cwd=relay_gap)

    assert (under.returncode, onto.returncode) == (2, 2)
    assert under.stderr == (
        "pdlint: error: plain/b.json: cannot write the baseline: 'plain' is not a folder\n"
    )
    assert onto.stderr == "pdlint: error: folder: cannot write the baseline: it is a folder\n"


def test_write_baseline_into_an_existing_folder_works(relay_gap):
    (relay_gap / "out").mkdir()

    res = run_pdlint("check", ".", "--write-baseline", "out/b.json", cwd=relay_gap)

    assert res.returncode == 0, res.stderr
    assert res.stderr == "pdlint: wrote 2 findings to out/b.json\n"
    assert len(json.loads((relay_gap / "out" / "b.json").read_text())["entries"]) == 2


def test_baseline_and_write_baseline_together_are_refused(relay_gap):
    run_pdlint("check", ".", "--write-baseline", "a.json", cwd=relay_gap)
    before = (relay_gap / "a.json").read_text()

    res = run_pdlint(
        "check", ".", "--baseline", "a.json", "--write-baseline", "b.json", cwd=relay_gap
    )

    assert res.returncode == 2
    assert res.stderr == (
        "pdlint: error: --baseline and --write-baseline cannot be used together: "
        "--write-baseline records every current finding, so run it alone to refresh "
        "a baseline\n"
    )
    assert not (relay_gap / "b.json").exists()
    assert (relay_gap / "a.json").read_text() == before
