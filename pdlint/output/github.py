"""GitHub Actions workflow commands: one annotation line per finding.

``::error file=pkg/x.py,line=4,col=5,endLine=4,endColumn=37,title=PDL101::message``

GitHub places an annotation by its repository-relative ``file``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pdlint.checks.catalogue import RULES
from pdlint.findings import Finding
from pdlint.output.names import without_surrogates
from pdlint.output.repository import rebase, repository_root

_COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape_data(text: str) -> str:
    """Escape a workflow command's message (``%``, CR and LF; bytes not UTF-8)."""
    return without_surrogates(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value: data escapes, ``:``, ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, file: str | None = None) -> str:
    """The workflow command line (without newline) that annotates ``finding``.

    ``file`` overrides the finding's path (a repository-relative one).
    """
    rule = RULES.get(finding.code)
    command = _COMMAND.get(rule.severity if rule else "warning", "warning")
    loc = finding.location
    properties = [("file", loc.path if file is None else file)]
    if loc.line >= 1:
        properties.append(("line", str(loc.line)))
        if loc.column >= 1:
            properties.append(("col", str(loc.column)))
        if loc.end_line >= loc.line:
            properties.append(("endLine", str(loc.end_line)))
            if loc.end_column >= 1:
                properties.append(("endColumn", str(loc.end_column)))
    properties.append(("title", finding.code))
    rendered = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
    return f"::{command} {rendered}::{escape_data(finding.message)}"


def to_github(findings: Iterable[Finding], cwd: Path | None = None) -> str:
    """Render findings as workflow commands, one per line, sorted by location.

    With ``cwd`` (the directory finding paths are relative to) inside a git
    repository, ``file`` is relative to the repository root.
    """
    root = repository_root(cwd) if cwd is not None else None
    lines = []
    for finding in sorted(findings, key=lambda f: f.sort_key()):
        file = None
        if root is not None and cwd is not None:
            file = rebase(finding.location.path, cwd, root)
        lines.append(annotation(finding, file))
    return "".join(line + "\n" for line in lines)
