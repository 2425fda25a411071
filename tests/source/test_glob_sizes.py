"""Globs are matched in time linear in their size (issue 35, point 5).

``fnmatch`` scans to the end of a pattern for each ``[`` nothing closes: a
configuration's 50,000 ``[`` took it 50 s, a pack's 1 MB of ``[a-`` over 300 s.
pdlint's globs mean what fnmatch's do, and a hostile one costs seconds.
"""

from __future__ import annotations

import fnmatch
import random
import time

from pdlint_helpers import GAP_PDL001, GAP_PDL101, run_pdlint

from pdlint.facts.globs import literal_pieces
from pdlint.source.globs import name_matches, path_matches, translate


def test_globs_mean_what_fnmatch_says():
    rnd = random.Random(35)
    alphabet = "[]!-*?a^&~|\\.z/"
    for _ in range(20_000):
        pattern = "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12)))
        assert translate(pattern) == fnmatch.translate(pattern), pattern


def test_unclosed_sets_are_linear():
    started = time.monotonic()
    for pattern in ("[" * 50_000, "[a-" * 20_000, "[]" + "x" * 50_000, "[!]" + "[" * 50_000):
        assert not name_matches(pattern, "pkg.mod.func")
        assert not path_matches((pattern,), "pkg/mod.py")
        literal_pieces(pattern)
    # a few seconds on a loaded 2-core machine; fnmatch took 50 s and over 300 s
    assert time.monotonic() - started < 30


def gap_found(stdout: str) -> bool:
    lines = stdout.splitlines()
    return any(x.startswith(GAP_PDL001) for x in lines) and any(
        x.startswith(GAP_PDL101) for x in lines
    )


def test_a_configured_entry_point_of_50000_brackets(relay_gap):
    (relay_gap / "pyproject.toml").write_text(f'[tool.pdlint]\nentry-points = ["{"[" * 50_000}"]\n')
    started = time.monotonic()
    res = run_pdlint("check", ".", "--no-cache", cwd=relay_gap, timeout=120)

    assert time.monotonic() - started < 30
    assert res.returncode == 1, res.stderr[:500]
    assert gap_found(res.stdout)


def test_a_pack_of_a_megabyte_of_open_ranges(relay_gap):
    pack = relay_gap / "hostile.toml"
    pack.write_text(f'[pack]\nname = "x"\n[relay]\nentry-points = ["{"[a-" * 350_000}"]\n')
    (relay_gap / "pyproject.toml").write_text('[tool.pdlint]\npacks = ["hostile.toml"]\n')
    started = time.monotonic()
    res = run_pdlint("check", ".", "--no-cache", cwd=relay_gap, timeout=300)

    assert time.monotonic() - started < 60
    assert res.returncode == 1, res.stderr[:500]
    assert gap_found(res.stdout)
