"""The program's ``defining`` query (one search of all modules' joined names) against
``may_define`` on each module's scan, on generated packages."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from pdlint.cache import FactStore
from pdlint.discover import discover
from pdlint.program import Program
from pdlint.scan import may_define

NAMES = st.text(alphabet="abcDE_x", min_size=1, max_size=8).filter(str.isidentifier)
MODULES = st.lists(st.lists(NAMES, max_size=4), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(MODULES, st.booleans(), st.data())
def test_defining_is_may_define_of_each_module(
    modules: list[list[str]], ignore_case: bool, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        package = Path(folder) / "pkg_x"
        package.mkdir()
        (package / "__init__.py").write_text("")
        for i, names in enumerate(modules):
            text = "".join(f"def {n}():\n    pass\n" for n in names)
            (package / f"mod_{i}.py").write_text(text)
        files, _ = discover([str(package)], ())
        program = Program([(f, None) for f in files], FactStore(None), "salt")
        scans = program.scans()
        # pieces cut from the modules' own names and defined names, and others
        words = [*scans, *(n for names in modules for n in names), "pkg", "zz"]
        piece = st.builds(
            lambda word, start, size: word[start : start + size],
            st.sampled_from(words),
            st.integers(0, 4),
            st.integers(0, 6),
        )
        for pieces in data.draw(st.lists(st.lists(piece, min_size=1, max_size=3), max_size=8)):
            expected = [
                m
                for m, scan in scans.items()
                if may_define(scan, m, pieces, ignore_case=ignore_case)
            ]
            assert program.defining(pieces, ignore_case=ignore_case) == expected
