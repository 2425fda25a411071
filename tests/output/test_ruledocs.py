"""docs/rules.md: the page every SARIF rule's helpUri points at."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from pdlint_helpers import REPO

from pdlint.checks.catalogue import DOCS_URL, RULES
from pdlint.output.ruledocs import rules_markdown

RULES_DOC = REPO / "docs" / "rules.md"


def github_anchor(heading: str) -> str:
    """The id GitHub gives a Markdown heading: lower case, punctuation other
    than ``-`` and ``_`` dropped, spaces turned into ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_rules_doc_is_generated_from_the_catalogue():
    assert RULES_DOC.read_text(encoding="utf-8") == rules_markdown(), (
        "docs/rules.md is stale: run `python -m pdlint.output.ruledocs > docs/rules.md`"
    )


def test_every_help_uri_lands_on_its_rule_heading():
    text = RULES_DOC.read_text(encoding="utf-8")
    headings = {
        github_anchor(line[3:]): line[3:] for line in text.splitlines() if line.startswith("## ")
    }
    assert urlsplit(DOCS_URL).path.endswith("/docs/rules.md")
    for rule in RULES.values():
        url = urlsplit(rule.help_uri)
        assert f"{url.scheme}://{url.netloc}{url.path}" == DOCS_URL
        assert headings[url.fragment] == f"{rule.code} {rule.name}"
        section = text.split(f"## {rule.code} {rule.name}\n", 1)[1].split("\n## ", 1)[0]
        assert rule.example.splitlines()[0] in section


def test_the_catalogue_is_the_rules_of_the_checks_found_by_walking_the_package() -> None:
    from pdlint.checks.catalogue import checks
    from pdlint.engine.catalogue import RULES as ENGINE_RULES

    found = [rule.code for check in checks() for rule in check.rules]
    assert sorted([*found, *(r.code for r in ENGINE_RULES)]) == list(RULES)
    assert [c.__name__ for c in checks()] == [
        "RelayCheck",
        "ModeCheck",
        "GuardCheck",
        "LayoutCheck",
        "HandoffCheck",
    ]
