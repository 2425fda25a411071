"""The rule documentation as Markdown: ``docs/rules.md`` and SARIF ``help.markdown``.

Both come from the rule catalogue, so a rule's ``helpUri`` (``docs/rules.md#<anchor>``)
always lands on the text that SARIF consumers show. Regenerate the file with
``python -m pdlint.output.ruledocs > docs/rules.md``.
"""

from __future__ import annotations

from pdlint.checks.catalogue import RULES, Rule


def unwrap(text: str) -> str:
    """Join hard-wrapped lines into paragraphs separated by blank lines."""
    paragraphs = [" ".join(p.split()) for p in text.strip().split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)


def sentence(text: str) -> str:
    """``text`` ending with a full stop (or its own final punctuation)."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def rule_markdown(rule: Rule) -> str:
    """One rule's section: heading (whose anchor ``help_uri`` names), summary,
    severity, explanation and example."""
    example = rule.example.rstrip("\n")
    return (
        f"## {rule.code} {rule.name}\n\n{sentence(rule.summary)}\n\n"
        f"Severity: {rule.severity}.\n\n{unwrap(rule.explanation)}"
        f"\n\n### Example\n\n```python\n{example}\n```\n"
    )


def rules_markdown() -> str:
    """The whole of ``docs/rules.md``."""
    header = (
        "# pdlint rules\n\n"
        "Generated from the rule catalogue (`pdlint/checks/catalogue.py`) by "
        "`python -m pdlint.output.ruledocs > docs/rules.md`; `pdlint rule CODE` prints the same "
        "text. SARIF results link here through each rule's `helpUri`.\n"
    )
    return header + "".join(f"\n{rule_markdown(rule)}" for rule in RULES.values())


if __name__ == "__main__":
    print(rules_markdown(), end="")
