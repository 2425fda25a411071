"""Render findings for people and tools: concise, full and json formats."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pdlint.checks.catalogue import RULES
from pdlint.findings import Finding, Location
from pdlint.output.names import shown


def concise(findings: Sequence[Finding]) -> str:
    """``path:line:col: CODE summary``, one short line per finding (ruff's concise);
    the whole message, the members and the call path are in ``full``, JSON and SARIF."""
    return "".join(f"{_loc(f.location)}: {f.code} {shown(f.headline)}\n" for f in findings)


def _loc(loc: Location) -> str:
    # A name may hold a newline or bytes that are not UTF-8: escaped, it stays one line.
    return f"{shown(loc.path)}:{loc.line}:{loc.column}"


def full(findings: Sequence[Finding], sources: Mapping[str, Sequence[str]]) -> str:
    """Concise line, the source line with a caret, related locations, call path."""
    out: list[str] = []
    for f in findings:
        loc = f.location
        out.append(f"{_loc(loc)}: {f.code} {shown(f.message)}\n")
        lines = sources.get(loc.path)
        if lines and 0 < loc.line <= len(lines):
            text = lines[loc.line - 1].rstrip("\r\n").expandtabs(1)
            width = loc.end_column - loc.column if loc.end_line == loc.line else 1
            gutter = f"{loc.line:>5} | "
            out.append(f"{gutter}{text}\n")
            caret = "^" * max(width, 1)
            out.append(f"{' ' * (len(gutter) - 2)}| {' ' * (loc.column - 1)}{caret}\n")
        for rel in f.related:
            out.append(f"    = note: {shown(rel.message)} at {_loc(rel.location)}\n")
        if f.path:
            out.append("    = call path:\n")
            for step in f.path:
                out.append(f"        {_loc(step.location)}: {shown(step.message)}\n")
        out.append("\n")
    return "".join(out)


def _location_json(loc: Location) -> dict[str, Any]:
    return {
        "filename": loc.path,
        "location": {"row": loc.line, "column": loc.column},
        "end_location": {"row": loc.end_line, "column": loc.end_column},
    }


def finding_json(f: Finding) -> dict[str, Any]:
    """The JSON object for one finding (schema in the README)."""
    rule = RULES[f.code]
    obj: dict[str, Any] = {
        "code": f.code,
        "name": rule.name,
        "severity": rule.severity,
        "message": f.message,
        "member": f.member,
        **_location_json(f.location),
        "related": [{**_location_json(r.location), "message": r.message} for r in f.related],
        "path": [
            {**_location_json(s.location), "function": s.function, "message": s.message}
            for s in f.path
        ],
    }
    return obj


def to_json(findings: Sequence[Finding]) -> str:
    """A JSON list of findings, stable key order, newline-terminated."""
    return json.dumps([finding_json(f) for f in findings], indent=2) + "\n"


def _counts(findings: Sequence[Finding]) -> list[tuple[str, int]]:
    counts = Counter(f.code for f in findings)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def statistics(findings: Sequence[Finding]) -> str:
    """Count per code, most frequent first (ruff's ``--statistics``)."""
    return "".join(f"{n:>5}\t{code}\t{RULES[code].name}\n" for code, n in _counts(findings))


def statistics_json(findings: Sequence[Finding]) -> str:
    """The counts per code as a JSON list (ruff's ``--statistics --output-format json``)."""
    rows = [{"code": code, "name": RULES[code].name, "count": n} for code, n in _counts(findings)]
    return json.dumps(rows, indent=2) + "\n"


def summary(findings: Sequence[Finding]) -> str:
    """The last line of a run, as ruff's: how many findings and errors, or that all
    checks passed."""
    if not findings:
        return "All checks passed!"
    n = len(findings)
    errors = sum(1 for f in findings if RULES[f.code].severity == "error")
    return f"Found {n} finding{'s' if n != 1 else ''} ({errors} error{'s' if errors != 1 else ''})."
