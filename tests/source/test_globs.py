"""The one glob matcher: paths (exclude, per-file ignores) and qualified names."""

from __future__ import annotations

import pytest

from pdlint.source.globs import Anchored, anchored, name_matches, path_matches


@pytest.mark.parametrize(
    ("patterns", "relative", "expected"),
    [
        (("build",), "build", True),
        (("build",), "src/build", True),  # a name pattern matches at any depth
        (("build/",), "src/build", True),  # a trailing slash is ignored
        (("*.egg-info",), "a/pkg.egg-info", True),
        (("gen/*.py",), "gen/x.py", True),
        (("gen/*.py",), "src/gen/x.py", False),  # anchored: not another gen deeper down
        (("**/gen/*.py",), "src/gen/x.py", True),  # ``**/`` starts anywhere
        (("**/gen/*.py",), "gen/x.py", True),  # ... the folder itself too
        (("gen/*.py",), "x.py", False),  # a path pattern is not a name pattern
        (("tests/*",), "tests/a/b.py", True),  # fnmatch's ``*`` crosses ``/``
        (("Build",), "build", False),  # case-sensitive everywhere
        ((), "anything.py", False),
    ],
)
def test_path_matches(patterns, relative, expected):
    assert path_matches(patterns, relative) is expected


def test_a_configs_glob_is_anchored_to_its_folder(tmp_path):
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (glob,) = anchored(["regeng/workers"], project)
    assert glob == Anchored("regeng/workers", str(project.resolve()))
    worker = f"{project.resolve()}/regeng/workers"
    # the same path, whatever the current directory
    for cwd in (project, project / "sub", tmp_path):
        assert path_matches((glob,), worker, cwd=cwd)
    assert not path_matches((glob,), f"{project.resolve()}/sub/regeng/workers")
    # relative to the current directory, a bare str glob's folder
    assert path_matches(("regeng/workers",), "regeng/workers", cwd=project / "sub")
    assert not path_matches(("regeng/workers",), worker, cwd=project / "sub")
    (up,) = anchored(["../shared/*.py"], project / "sub")
    assert path_matches((up,), f"{project.resolve()}/shared/x.py")
    (name,) = anchored(["test*"], project)
    assert path_matches((name,), f"{project.resolve()}/tests/a.py")  # from its folder on
    assert path_matches((name,), "/elsewhere/test_a.py")  # a name, at any depth


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
