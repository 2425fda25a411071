"""PDL902 unused-noqa (ruff's RUF100): a ``# noqa: PDL...`` that suppresses nothing is
reported, only for codes whose check ran, and the same with a warm cache; the line
whose comment stands for a finding follows ruff's mapping."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, chdir, run_pdlint

from pdlint.api import analyze
from pdlint.cache import stat_index
from pdlint.findings import Finding, Location
from pdlint.output.text import concise
from pdlint.policy.noqa import comment_lines, directives
from pdlint.policy.selection import is_suppressed
from pdlint.settings.config import Settings

RELAY_LINE = 20  # CONSUMER's line with the PDL101 dereference
OTHER_LINE = 18  # the function's docstring line above it: no finding there


def _comment(folder: Path, line: int, comment: str) -> None:
    path = folder / CONSUMER
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + f"  {comment}\n"
    path.write_text("".join(lines))


def _pdl902(folder: Path, *args: str) -> list[str]:
    res = run_pdlint("check", ".", *args, cwd=folder)
    assert res.returncode in (0, 1), res.stderr
    return [line for line in res.stdout.splitlines() if " PDL902 " in line]


def test_reported_on_a_noqa_that_suppresses_nothing(relay_gap: Path) -> None:
    _comment(relay_gap, OTHER_LINE, "# noqa: PDL101")

    assert _pdl902(relay_gap) == [
        "relay_gap_engine/spec_utils.py:18:79: PDL902 unused `noqa` directive (unused: `PDL101`)"
    ]


def test_silent_on_a_noqa_that_suppresses_a_finding(relay_gap: Path) -> None:
    _comment(relay_gap, RELAY_LINE, "# noqa: PDL101")

    res = run_pdlint("check", ".", cwd=relay_gap)
    assert "PDL101" not in res.stdout and "PDL902" not in res.stdout


def test_only_the_codes_that_suppress_nothing_are_named(relay_gap: Path) -> None:
    _comment(relay_gap, RELAY_LINE, "# noqa: PDL101, PDL103, E501, PDL999")

    assert _pdl902(relay_gap) == [
        "relay_gap_engine/spec_utils.py:20:43: PDL902 unused `noqa` directive "
        "(unused: `PDL103`; unknown: `PDL999`)"
    ]


@pytest.mark.parametrize(
    "args",
    [
        ("--select", "PDL2,PDL902"),  # PDL101's check did not run
        ("--ignore", "PDL101"),  # PDL101 is not reported, so not judged
        ("--per-file-ignores", "*/spec_utils.py:PDL1"),
        ("--ignore", "PDL902"),
    ],
)
def test_a_code_not_checked_is_not_judged(relay_gap: Path, args: tuple[str, ...]) -> None:
    _comment(relay_gap, OTHER_LINE, "# noqa: PDL101")

    assert _pdl902(relay_gap, *args) == []


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",  # bare: never reported
        "# noqa: E501",  # another tool's code
        "# noqa: PDL101, PDL902",  # silences its own PDL902
        "# noqa: PDL9",
    ],
)
def test_never_reported(relay_gap: Path, comment: str) -> None:
    _comment(relay_gap, OTHER_LINE, comment)

    assert _pdl902(relay_gap) == []


def test_a_noqa_inside_a_string_is_no_comment(relay_gap: Path) -> None:
    path = relay_gap / "relay_gap_engine" / "notes.py"
    path.write_text('HELP = """\nwrite `x = 1  # noqa: PDL101` to silence it\n"""\n')

    assert _pdl902(relay_gap) == []
    assert directives(path.read_bytes()) == ()


def test_the_same_with_a_warm_cache(
    relay_gap: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warm run reads no file (their stamps vouch for them): the comments come
    from the cache, so the finding does not depend on it."""
    monkeypatch.setattr(stat_index, "RACY_NS", -(10**12))  # files just written: trusted
    _comment(relay_gap, OTHER_LINE, "# noqa: PDL101")
    expected = _pdl902(relay_gap, "--no-cache")
    assert len(expected) == 1

    def run() -> tuple[list[str], int]:
        with chdir(relay_gap):
            result = analyze(["."], Settings(root=str(relay_gap)), cache_dir=str(tmp_path / "c"))
        return concise(result.findings).splitlines(), result.stats["files read"]

    cold, read_cold = run()
    warm, read_warm = run()
    assert (read_cold, read_warm) == (5, 0)
    assert cold == warm
    assert [line for line in warm if " PDL902 " in line] == expected


# --- which line's comment stands for a finding (ruff's noqa mapping) ----------------

SOURCE = """\
x = call(a,
         b)
y = '''text
more text'''
z = a + \\
    b + \\
    c
w = f'''{
a}'''  # noqa: PDL101
"""


def test_comment_lines_follow_ruffs_mapping() -> None:
    lines = SOURCE.splitlines()

    # lines in brackets take their own comment; strings spanning lines and lines
    # joined by backslashes take the comment after their last line
    assert comment_lines(lines) == {3: 4, 5: 7, 6: 7, 8: 9}


def test_a_finding_in_a_string_spanning_lines_is_suppressed_after_it() -> None:
    lines = SOURCE.splitlines()
    inside = Finding("PDL101", "m", Location("a.py", 8, 5, 8, 6))

    assert is_suppressed(inside, lines)
    assert not is_suppressed(Finding("PDL101", "m", Location("a.py", 3, 1, 3, 2)), lines)
