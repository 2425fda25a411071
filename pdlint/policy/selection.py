"""Decide which findings are reported: select/ignore, per-file ignores, ``# noqa``."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from pdlint.findings import Finding
from pdlint.settings.config import Settings
from pdlint.source.globs import path_matches, real_path

DEFAULT_SELECT = "PDL"

# flake8's inline suppression comment, bare or with a colon and a list of codes.
NOQA_RE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.I)
_SPLIT_RE = re.compile(r"[,\s]+")


def _longest_prefix(code: str, selectors: Iterable[str]) -> str | None:
    best = None
    for sel in selectors:
        if code.startswith(sel) and (best is None or len(sel) > len(best)):
            best = sel
    return best


def is_enabled(code: str, settings: Settings) -> bool:
    """Whether ``code`` is selected, with flake8's ``DecisionEngine`` semantics.

    Explicit selectors (``select``, ``extend-select``) and ``ignore`` compete by
    length, the more specific winning and ignore winning a tie, so
    ``--select PDL1 --ignore PDL101`` keeps PDL102. When ``select`` is not given,
    every code is selected only implicitly, and any matching ``ignore`` wins
    (``--ignore PD`` turns everything off, as in flake8).
    """
    explicit = _longest_prefix(code, (settings.select or ()) + settings.extend_select)
    implicit = settings.select is None and code.startswith(DEFAULT_SELECT)
    ignored = _longest_prefix(code, settings.ignore)
    if ignored is None:
        return explicit is not None or implicit
    return explicit is not None and len(explicit) > len(ignored)


def noqa_codes(line: str) -> tuple[str, ...] | None:
    """Codes named by a ``# noqa`` comment on ``line``: () means all, None no noqa."""
    match = NOQA_RE.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return ()
    # Codes are case-sensitive, as in flake8: a lower-case "pdl101" after the
    # colon names no rule, so it suppresses nothing (nor is it a blanket noqa).
    return tuple(c for c in _SPLIT_RE.split(codes.strip()) if c)


def is_suppressed(finding: Finding, lines: list[str] | None) -> bool:
    """True if the reported line carries a ``# noqa`` matching the code (prefix)."""
    if not lines or finding.location.line > len(lines):
        return False
    codes = noqa_codes(lines[finding.location.line - 1])
    if codes is None:
        return False
    return not codes or finding.code.startswith(codes)


def apply_policy(
    findings: Iterable[Finding],
    settings: Settings,
    sources: Mapping[str, list[str]],
) -> list[Finding]:
    """Findings that survive selection, per-file ignores and noqa, sorted. A finding's
    path is relative to the current directory (or absolute), as reported; a per-file
    ignore's glob is anchored to its own folder (see :func:`path_matches`)."""
    kept = []
    real: dict[str, str] = {}  # a displayed path -> the path globs are matched against
    for finding in findings:
        if not is_enabled(finding.code, settings):
            continue
        path = finding.location.path
        if settings.per_file_ignores:
            if path not in real:
                real[path] = real_path(path)
            if any(
                finding.code.startswith(codes) and path_matches((glob,), real[path])
                for glob, codes in settings.per_file_ignores
            ):
                continue
        if is_suppressed(finding, sources.get(path)):
            continue
        kept.append(finding)
    return sorted(set(kept), key=Finding.sort_key)
