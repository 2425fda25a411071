"""``respect-gitignore``: what git ignores is not analysed, as in ruff.

Every file of the trees below has a syntax error, so each analysed file is
reported (PDL900) and the list of reported files is what the walk took.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from pdlint_helpers import run_pdlint

from pdlint.source.discover import would_walk
from pdlint.source.gitignore import GITIGNORE, Layer, Rules, _compile, _quick

BAD = "def (\n"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A home of its own: the user's global excludes file must not change a test."""
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


def files(root: Path, *rels: str) -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(BAD)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True, timeout=60)


def reported(root: Path, home: Path, *args: str, cwd: Path | None = None) -> list[str]:
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    res = run_pdlint("check", "--no-cache", *args, cwd=cwd or root, env=env)
    assert res.returncode in (0, 1), res.stderr
    return sorted({line.split(":", 1)[0] for line in res.stdout.splitlines()})


def git_listed(root: Path, home: Path) -> list[str]:
    """The Python files git neither ignores nor lacks (tracked or untracked), as the
    oracle: ``git ls-files`` with the same home folder."""
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*.py"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.split()
    return sorted(listed)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    git_init(root)
    files(
        root,
        "app/main.py",
        "app/generated/api.py",
        "app/proto/x_pb2.py",
        "app/proto/keep_pb2.py",
        "scratch.py",
        "tools/local.py",
        "tools/deep/local.py",
    )
    write(root / ".gitignore", "generated/\n*_pb2.py\n!keep_pb2.py\n/scratch.py\n")
    write(root / "tools" / ".gitignore", "/local.py\n")
    return root


KEPT = ["app/main.py", "app/proto/keep_pb2.py", "tools/deep/local.py"]
EVERY = sorted(
    KEPT + ["app/generated/api.py", "app/proto/x_pb2.py", "scratch.py", "tools/local.py"]
)


def test_git_ignored_files_are_not_analysed(repo, home):
    assert reported(repo, home, ".") == KEPT


def test_the_same_files_as_git_lists(repo, home):
    assert git_listed(repo, home) == KEPT


def test_no_respect_gitignore_analyses_everything(repo, home):
    assert reported(repo, home, ".", "--no-respect-gitignore") == EVERY


def test_respect_gitignore_false_in_the_config(repo, home):
    write(repo / "pyproject.toml", "[tool.pdlint]\nrespect-gitignore = false\n")
    assert reported(repo, home, ".") == EVERY
    assert reported(repo, home, ".", "--respect-gitignore") == KEPT  # the flag wins


def test_a_subfolder_run_keeps_the_rules_above_it(repo, home):
    assert reported(repo, home, ".", cwd=repo / "app") == ["main.py", "proto/keep_pb2.py"]
    assert reported(repo, home, "app/proto", "tools") == [
        "app/proto/keep_pb2.py",
        "tools/deep/local.py",
    ]


def test_a_file_named_on_the_command_line_is_analysed(repo, home):
    assert reported(repo, home, "app/proto/x_pb2.py", "scratch.py") == [
        "app/proto/x_pb2.py",
        "scratch.py",
    ]


def test_an_ignored_folder_named_on_the_command_line_is_walked(repo, home):
    assert reported(repo, home, "app/generated") == ["app/generated/api.py"]


def test_info_exclude(repo, home):
    write(repo / ".git" / "info" / "exclude", "app/main.py\n")
    expected = ["app/proto/keep_pb2.py", "tools/deep/local.py"]
    assert reported(repo, home, ".") == expected == git_listed(repo, home)


def test_a_gitignore_negation_wins_over_info_exclude(repo, home):
    write(repo / ".git" / "info" / "exclude", "deep/\n")
    write(repo / "tools" / ".gitignore", "/local.py\n!deep/\n")
    assert reported(repo, home, ".") == KEPT == git_listed(repo, home)


def test_the_global_excludes_file_by_default(repo, home):
    write(home / ".config" / "git" / "ignore", "main.py\n")
    expected = ["app/proto/keep_pb2.py", "tools/deep/local.py"]
    assert reported(repo, home, ".") == expected == git_listed(repo, home)


def test_core_excludes_file_in_the_users_config(repo, home):
    write(home / ".config" / "git" / "ignore", "main.py\n")  # not read: another is named
    write(home / ".gitconfig", '[user]\n\tname = x\n[core]\n\texcludesFile = "~/my ignore"\n')
    write(home / "my ignore", "deep/  \nkeep_pb2.py\n")  # .gitignore's !keep_pb2.py wins
    expected = ["app/main.py", "app/proto/keep_pb2.py"]
    assert reported(repo, home, ".") == expected == git_listed(repo, home)


def test_core_excludes_file_in_the_repositorys_config(repo, home):
    write(home / ".gitconfig", "[core]\n\texcludesfile = ~/user-ignore\n")
    write(home / "user-ignore", "main.py\n")
    subprocess.run(
        ["git", "config", "core.excludesFile", str(home / "repo-ignore")], cwd=repo, check=True
    )
    write(home / "repo-ignore", "deep/\n")
    expected = ["app/main.py", "app/proto/keep_pb2.py"]
    assert reported(repo, home, ".") == expected == git_listed(repo, home)


def test_outside_a_git_repository_gitignore_files_are_not_read(tmp_path, home):
    root = tmp_path / "plain"
    files(root, "a.py", "gen/b.py")
    write(root / ".gitignore", "gen/\n")
    assert reported(root, home, ".") == ["a.py", "gen/b.py"]


def test_ignore_files_apply_everywhere(tmp_path, home):
    root = tmp_path / "plain"
    files(root, "a.py", "gen/b.py")
    write(root / ".ignore", "gen/\n")
    assert reported(root, home, ".") == ["a.py"]


def test_a_nested_repository_has_rules_of_its_own(repo, home):
    nested = repo / "vendor" / "lib"
    git_init(nested)
    files(nested, "scratch.py", "local.py")
    write(nested / ".gitignore", "local.py\n")
    assert reported(repo, home, "vendor") == ["vendor/lib/scratch.py"]


def test_a_worktrees_git_file_leads_to_the_common_info_exclude(tmp_path, home):
    main = tmp_path / "main"
    git_init(main)
    files(main, "a.py")
    subprocess.run(["git", "add", "-A"], cwd=main, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
        cwd=main,
        check=True,
    )
    tree = tmp_path / "tree"
    subprocess.run(["git", "worktree", "add", "-q", str(tree)], cwd=main, check=True)
    files(tree, "b.py", "c.py")
    write(main / ".git" / "info" / "exclude", "b.py\n")
    assert (tree / ".git").is_file()
    assert reported(tree, home, ".") == ["a.py", "c.py"] == git_listed(tree, home)


def test_an_unsaved_buffer_under_an_ignored_folder_is_not_walked(repo, monkeypatch, home):
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    new = str(repo / "app" / "generated" / "new.py")
    assert would_walk(new, str(repo), ())
    assert not would_walk(new, str(repo), (), respect_gitignore=True)
    assert would_walk(str(repo / "app" / "new.py"), str(repo), (), respect_gitignore=True)


def test_a_gitignore_that_cannot_be_read_is_a_warning(repo, home):
    (repo / "tools" / ".gitignore").unlink()
    (repo / "tools" / ".gitignore").mkdir()  # not a file: read_limited refuses it
    res = run_pdlint("check", "--no-cache", ".", cwd=repo, env={"HOME": str(home)})
    assert "tools/.gitignore: cannot read (" in res.stderr
    assert "; it ignores nothing" in res.stderr
    assert "tools/local.py" in res.stdout


def test_git_agrees_on_a_tree_of_tricky_patterns(tmp_path, home):
    root = tmp_path / "tricky"
    git_init(root)
    files(
        root,
        "important.gen.py",
        "x.gen.py",
        "top_only.py",
        "pkg/top_only.py",
        "docs/a/b/conf.py",
        "docs/conf.py",
        "pkg/tmp/t.py",
        "build2/a.py",
        "lib/a.py",
        "lib/keep.py",
        "lib/deep/a.py",
        "#hash.py",
        "sub/a.py",
        "sub/a_test.py",
        "sub/nested/b_test.py",
        "sub/deeper/c_test.py",
        "sub/deeper/c.py",
        "space .py",
    )
    write(
        root / ".gitignore",
        "# a comment\n*.gen.py\n!important.gen.py\n/top_only.py\ndocs/**/conf.py\n"
        "**/tmp/\nbuild*/\nlib/*.py\n!lib/keep.py\n\\#hash.py\nspace\\ .py\n",
    )
    write(root / "sub" / ".gitignore", "*.py\n!*_test.py\nnested/\n")
    expected = git_listed(root, home)
    assert "sub/deeper/c_test.py" in expected and "pkg/top_only.py" in expected  # not vacuous
    assert reported(root, home, ".") == expected


def test_the_one_regex_shortcut_decides_as_the_patterns_do():
    # Rules.ignored skips a file when one joined regex finds nothing: never wrongly
    rnd = random.Random(34)
    atoms = ["a", "b", "/", "*", "**", "?", "[ab]", ".py", "!", "\\"]
    names = ["a", "b", "ab", "a.py", "b.py", "ba"]
    for _ in range(300):
        lines = ["".join(rnd.choice(atoms) for _ in range(rnd.randint(1, 5))) for _ in range(4)]
        spec = _compile(lines)
        quick = _quick(spec)
        assert quick is not None, lines
        fast = Rules((Layer("/r", spec, GITIGNORE, quick),))
        slow = Rules((Layer("/r", spec, GITIGNORE, None),))
        for _ in range(20):
            parts = [rnd.choice(names) for _ in range(rnd.randint(1, 4))]
            path, is_dir = "/r/" + "/".join(parts), rnd.random() < 0.3
            assert fast.ignored(path, is_dir) == slow.ignored(path, is_dir), (lines, path)
