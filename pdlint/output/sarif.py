"""SARIF 2.1.0 output for GitHub code scanning and other SARIF consumers.

One run, the whole rule catalogue in ``tool.driver.rules``, one result per
finding with its related locations (linked from the message), its call path as
a code flow, and fingerprints that survive edits which move lines: GitHub's
line hash, and ``<sha256 of the logical key>:<n>``, ``n`` numbering findings
that share a key in file order. Artifact URIs are relative to the repository
root (``%SRCROOT%``), as GitHub reads them.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pdlint.checks.catalogue import RULES, Rule
from pdlint.findings import Finding, Location, Step
from pdlint.output.repository import rebase, repository_root
from pdlint.output.ruledocs import rule_markdown, sentence, unwrap
from pdlint.policy.fingerprints import line_hashes, logical_fingerprint
from pdlint.source.discover import not_a_file
from pdlint.source.regular import SOURCE_LIMIT, read_limited

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
INFORMATION_URI = "https://github.com/pdlint/pdlint"
SRCROOT = "%SRCROOT%"
AUTOMATION_ID = "pdlint/"
LOGICAL_FINGERPRINT = "pdlintLogicalFingerprint/v1"
LINE_HASH_FINGERPRINT = "primaryLocationLineHash"

# GitHub rejects or truncates past these (its documented upload limits).
MAX_RELATED_LOCATIONS = 1000
MAX_THREAD_FLOW_LOCATIONS = 10000
MAX_TAGS = 20

_PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "note": "recommendation"}


def render(
    findings: Sequence[Finding],
    *,
    cwd: Path,
    version: str,
    category: str = "",
    project_root: str | None = None,
) -> str:
    """The SARIF text of a run in ``cwd``, whose finding paths are relative to it.

    URIs are relative to the enclosing repository's root (else to ``cwd``);
    ``category`` is the code-scanning category (``automationDetails.id``);
    fingerprints name files relative to ``project_root``.
    """
    root = repository_root(cwd) or cwd
    log = to_sarif(
        findings,
        root=root,
        cwd=cwd,
        sources=None,
        version=version,
        category=category,
        project_root=project_root,
    )
    return dumps(log)


def to_sarif(
    findings: Sequence[Finding],
    *,
    root: Path,
    sources: Mapping[str, str] | None,
    version: str,
    cwd: Path | None = None,
    category: str = "",
    project_root: str | None = None,
) -> dict[str, Any]:
    """Build a SARIF 2.1.0 log (a JSON-ready dict) for ``findings`` under ``root``.

    ``Finding.location.path`` is relative to ``cwd`` (default ``root``), posix,
    or absolute; URIs are made relative to ``root``, and a file outside it gets
    an absolute ``file:`` URI. ``sources`` maps a finding's path to the file's
    text (decoded UTF-8); files missing from it are read from ``cwd / path``.
    ``category`` sets ``automationDetails.id`` (a ``/`` is appended as GitHub
    does; empty means ``pdlint/``). The output is the same for the same input,
    in whatever order the findings come. ``project_root`` (the settings' root)
    keys the logical fingerprints, so they do not depend on ``cwd``.
    """
    cwd = root if cwd is None else cwd
    rules = list(RULES.values())
    rule_index = {rule.code: i for i, rule in enumerate(rules)}
    hashes = _LineHashes(cwd, sources)
    artifacts = _Artifacts(root, cwd)
    occurrences: Counter[str] = Counter()
    results = []
    for finding in sorted(findings, key=_order):
        # Findings that share a logical key (two dereferences in one consumer)
        # are numbered in file order, as GitHub numbers equal line hashes.
        logical = logical_fingerprint(finding, project_root)
        occurrences[logical] += 1
        fingerprint = f"{logical}:{occurrences[logical]}"
        results.append(_result(finding, rule_index, hashes, artifacts, fingerprint))
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "pdlint",
                "version": version,
                "informationUri": INFORMATION_URI,
                "rules": [_rule_descriptor(rule) for rule in rules],
            }
        },
        "automationDetails": {"id": automation_id(category)},
        # Only when a URI is relative to it: a log whose files all lie outside
        # ``root`` (analysed from elsewhere) must not name that directory.
        **(
            {"originalUriBaseIds": {SRCROOT: {"uri": _root_uri(root)}}}
            if artifacts.uses_root
            else {}
        ),
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def automation_id(category: str) -> str:
    """``automationDetails.id`` for a code-scanning category, as GitHub's upload
    action builds it: the category with a trailing ``/``."""
    category = category.strip() or AUTOMATION_ID
    return category if category.endswith("/") else category + "/"


def dumps(log: Mapping[str, Any]) -> str:
    """Serialize a SARIF log as stable, indented JSON text ending in a newline."""
    # A name that is not UTF-8 leaves surrogates in messages: as JSON escapes
    # (inside strings, the only place they can be) the text can be written.
    return _SURROGATE_JSON.sub(_json_escape, json.dumps(log, indent=2, ensure_ascii=False)) + "\n"


_SURROGATE_JSON = re.compile("[\ud800-\udfff]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_message(text: str) -> str:
    """Escape ``\\``, ``[`` and ``]`` so a consumer never reads them as a link.

    SARIF 2.1.0 section 3.11.6 (messages with embedded links).
    """
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _order(finding: Finding) -> tuple[Any, ...]:
    loc = finding.location
    return (
        finding.sort_key(),
        loc.end_line,
        loc.end_column,
        finding.key,
        finding.member or "",
    )


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    explanation = unwrap(rule.explanation)
    example = rule.example.rstrip("\n")
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": sentence(rule.summary)},
        "fullDescription": {"text": explanation},
        "help": {
            "text": f"{explanation}\n\nExample:\n\n{example}\n",
            "markdown": rule_markdown(rule),
        },
        "helpUri": rule.help_uri,
        "defaultConfiguration": {"level": rule.severity},
        "properties": {
            "tags": list(rule.tags[:MAX_TAGS]),
            "precision": rule.precision,
            "problem.severity": _PROBLEM_SEVERITY.get(rule.severity, "warning"),
        },
    }


def _root_uri(root: Path) -> str:
    uri = root.resolve().as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _region(loc: Location) -> dict[str, int]:
    # SARIF lines and columns start at 1; an unknown position (0) means the
    # start of the file or line. endColumn is exclusive, like Location's.
    line = max(loc.line, 1)
    column = max(loc.column, 1)
    end_line = max(loc.end_line, line)
    end_column = max(loc.end_column, 1)
    if end_line == line:
        end_column = max(end_column, column)
    return {
        "startLine": line,
        "startColumn": column,
        "endLine": end_line,
        "endColumn": end_column,
    }


class _Artifacts:
    """Artifact locations: repository-relative where possible."""

    def __init__(self, root: Path, cwd: Path) -> None:
        self._root = root
        self._cwd = cwd
        self._cache: dict[str, dict[str, str]] = {}
        self.uses_root = False

    def location(self, path: str) -> dict[str, str]:
        if path not in self._cache:
            self._cache[path] = self._compute(path)
        return dict(self._cache[path])

    def _compute(self, path: str) -> dict[str, str]:
        relative = rebase(path, self._cwd, self._root)
        if relative is None:
            return {"uri": (self._cwd / path).resolve().as_uri()}
        self.uses_root = True
        # Percent-encode the name's bytes, so one that is not UTF-8 keeps them.
        return {"uri": quote(os.fsencode(relative), safe="/"), "uriBaseId": SRCROOT}

    def physical(self, loc: Location) -> dict[str, Any]:
        return {"artifactLocation": self.location(loc.path), "region": _region(loc)}


def _message(finding: Finding, related_count: int) -> str:
    text = escape_message(finding.message)
    if not related_count:
        return text
    links = ", ".join(
        f"[{escape_message(related.message)}]({i})"
        for i, related in enumerate(finding.related[:related_count], start=1)
    )
    return f"{sentence(text)} See {links}."


def _thread_flow_location(step: Step, artifacts: _Artifacts) -> dict[str, Any]:
    return {
        "location": {
            "physicalLocation": artifacts.physical(step.location),
            "message": {"text": escape_message(step.message or step.function)},
            "logicalLocations": [{"fullyQualifiedName": step.function, "kind": "function"}],
        }
    }


def _result(
    finding: Finding,
    rule_index: Mapping[str, int],
    hashes: _LineHashes,
    artifacts: _Artifacts,
    fingerprint: str,
) -> dict[str, Any]:
    rule = RULES.get(finding.code)
    related = finding.related[:MAX_RELATED_LOCATIONS]
    result: dict[str, Any] = {"ruleId": finding.code}
    if rule is not None:
        result["ruleIndex"] = rule_index[finding.code]
        result["level"] = rule.severity
    else:
        result["level"] = "warning"
    result["message"] = {"text": _message(finding, len(related))}
    result["locations"] = [{"physicalLocation": artifacts.physical(finding.location)}]
    if related:
        result["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": artifacts.physical(item.location),
                "message": {"text": escape_message(item.message)},
            }
            for i, item in enumerate(related, start=1)
        ]
    if finding.path:
        steps = finding.path[:MAX_THREAD_FLOW_LOCATIONS]
        flow = {"locations": [_thread_flow_location(step, artifacts) for step in steps]}
        result["codeFlows"] = [{"threadFlows": [flow]}]
    fingerprints = {LOGICAL_FINGERPRINT: fingerprint}
    line_hash = hashes.get(finding.location.path, max(finding.location.line, 1))
    if line_hash is not None:
        fingerprints[LINE_HASH_FINGERPRINT] = line_hash
    result["partialFingerprints"] = dict(sorted(fingerprints.items()))
    if finding.member is not None:
        result["properties"] = {"member": finding.member}
    return result


class _LineHashes:
    """Per-file line hashes, computed once per file and only when asked for."""

    def __init__(self, cwd: Path, sources: Mapping[str, str] | None) -> None:
        self._cwd = cwd
        self._sources = sources or {}
        self._cache: dict[str, list[str] | None] = {}

    def get(self, path: str, line: int) -> str | None:
        if path not in self._cache:
            self._cache[path] = self._compute(path)
        hashes = self._cache[path]
        if hashes is None or line > len(hashes):
            return None
        return hashes[line - 1]

    def _compute(self, path: str) -> list[str] | None:
        text = self._sources.get(path)
        if text is None:
            if not_a_file(str(self._cwd / path)) is not None:
                return None  # a FIFO named on the command line: read once already
            try:
                data = read_limited(str(self._cwd / path), SOURCE_LIMIT)
            except OSError:
                # codeql-action leaves such results without a line hash too.
                return None
            # Node's Buffer.toString(): UTF-8, bad bytes become U+FFFD, BOM kept.
            text = data.decode("utf-8", errors="replace")
        return line_hashes(text)
