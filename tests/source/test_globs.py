"""The one glob matcher: paths (exclude, per-file ignores) and qualified names."""

from __future__ import annotations

import pytest

from pdlint.source.globs import name_matches, path_matches


@pytest.mark.parametrize(
    ("patterns", "relative", "expected"),
    [
        (("build",), "build", True),
        (("build",), "src/build", True),  # a name pattern matches at any depth
        (("build/",), "src/build", True),  # a trailing slash is ignored
        (("*.egg-info",), "a/pkg.egg-info", True),
        (("gen/*.py",), "gen/x.py", True),
        (("gen/*.py",), "src/gen/x.py", True),  # ``*/p`` too
        (("gen/*.py",), "x.py", False),  # a path pattern is not a name pattern
        (("tests/*",), "tests/a/b.py", True),  # fnmatch's ``*`` crosses ``/``
        (("Build",), "build", False),  # case-sensitive everywhere
        ((), "anything.py", False),
    ],
)
def test_path_matches(patterns, relative, expected):
    assert path_matches(patterns, relative) is expected


@pytest.mark.parametrize(
    ("pattern", "qualname", "expected"),
    [
        ("pkg.mod.Loop.run", "pkg.mod.Loop.run", True),
        ("*event_loop_disagg_decode", "pkg.Mixin.event_loop_disagg_decode", True),
        ("Loop.run", "pkg.mod.Loop.run", True),  # a dotted suffix
        ("oop.run", "pkg.mod.Loop.run", False),  # not a suffix at a dot
        ("pkg.*.run", "pkg.mod.Loop.run", True),
        ("PKG.mod.Loop.run", "pkg.mod.Loop.run", False),
    ],
)
def test_name_matches(pattern, qualname, expected):
    assert name_matches(pattern, qualname) is expected
