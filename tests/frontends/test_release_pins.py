"""The install lines users copy name this version's release tag, never ``main``:
the README's and docs' pip, pipx, pre-commit and GitHub Action lines."""

from __future__ import annotations

import re

from github_assets import load_yaml
from pdlint_helpers import REPO

import pdlint

TAG = f"v{pdlint.__version__}"
URL = "https://github.com/pdlint/pdlint"
DOCUMENTS = [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]

# Each way a document names a version of pdlint to install.
PINS = (
    re.compile(r"git\+https://github\.com/pdlint/pdlint@([\w.-]+)"),
    re.compile(r"\buses: pdlint/pdlint@([\w.-]+)"),
)


def pins() -> list[tuple[str, str]]:
    """(document, the ref it names) for every pin of every document."""
    found = []
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for pattern in PINS:
            found += [(path.name, ref) for ref in pattern.findall(text)]
    return found


def test_every_install_line_names_this_versions_tag():
    found = pins()
    assert {name for name, _ in found} >= {"README.md", "integrations.md"}
    assert [(name, ref) for name, ref in found if ref != TAG] == []


def test_the_readme_pins_pre_commit_and_the_action_to_the_tag():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = [load_yaml(b) for b in re.findall(r"```yaml\n(.*?)```", text, flags=re.S)]
    (hook_repo,) = [r for b in blocks if "repos" in b for r in b["repos"]]
    assert (hook_repo["repo"], hook_repo["rev"]) == (URL, TAG)
    steps = [s for b in blocks if "jobs" in b for j in b["jobs"].values() for s in j["steps"]]
    assert [s["uses"] for s in steps if s["uses"].startswith("pdlint/")] == [f"pdlint/pdlint@{TAG}"]


def test_the_release_step_tags_the_version():
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    release = text.split("\n## Release\n", 1)[1].split("\n## ", 1)[0]
    assert "git tag -a vX.Y.Z" in release and "git push origin vX.Y.Z" in release
    assert "pdlint/__init__.py" in release
