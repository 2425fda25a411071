"""Baselines: record today's findings so that only new ones are reported.

A finding is recorded by its code and logical fingerprint (from its key, never
its line), so edits that move code keep it baselined. Matching counts: each
entry absorbs one finding, so a second copy of a baselined problem is new.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pdlint.findings import Finding
from pdlint.policy.fingerprints import logical_fingerprint, project_path
from pdlint.settings.toml import deep_line
from pdlint.source.regular import SETTINGS_LIMIT, read_limited

BASELINE_VERSION = 1
_FINGERPRINT = re.compile(r"[0-9a-f]{64}")
_MAX_DEPTH = 100  # a baseline is three levels deep; past this, say where it goes wrong


class BaselineError(Exception):
    """A baseline file that cannot be read or is not a pdlint baseline."""


@dataclass(frozen=True, order=True)
class BaselineEntry:
    """One recorded finding; ``file`` and ``message`` are hints for people."""

    code: str
    fingerprint: str
    file: str = ""
    message: str = ""


@dataclass(frozen=True)
class Baseline:
    """The entries of a baseline file, in file order."""

    entries: tuple[BaselineEntry, ...] = ()

    def __len__(self) -> int:
        return len(self.entries)


def entry_for(finding: Finding, root: str | None = None) -> BaselineEntry:
    """The baseline entry that records ``finding`` (its file relative to ``root``)."""
    path = finding.location.path
    return BaselineEntry(
        code=finding.code,
        fingerprint=logical_fingerprint(finding, root),
        file=path if root is None else project_path(path, root),
        message=finding.message,
    )


def write_baseline(findings: Iterable[Finding], path: Path, root: str | None = None) -> None:
    """Write a baseline of ``findings`` to ``path`` (stable, sorted JSON), keyed
    relative to the project ``root``."""
    entries = sorted(
        (entry_for(f, root) for f in findings),
        key=lambda e: (e.file, e.code, e.fingerprint, e.message),
    )
    document = {
        "version": BASELINE_VERSION,
        "tool": "pdlint",
        "entries": [
            {
                "code": e.code,
                "fingerprint": e.fingerprint,
                "file": e.file,
                "message": e.message,
            }
            for e in entries
        ],
    }
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    path = Path(path)
    check_target(path)
    # Write beside the target, then rename: a crash never leaves half a file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise BaselineError(f"{path}: cannot write the baseline: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def check_target(path: Path) -> None:
    """Raise BaselineError naming the problem if a baseline cannot be written to
    ``path`` (its folder missing or not a folder, the path a folder): checked before
    the analysis, so the mistake is told at once."""
    folder = path.parent
    if not folder.exists():
        raise BaselineError(
            f"{path}: cannot write the baseline: folder '{folder}' does not exist (create it first)"
        )
    if not folder.is_dir():
        raise BaselineError(f"{path}: cannot write the baseline: '{folder}' is not a folder")
    if path.is_dir():
        raise BaselineError(f"{path}: cannot write the baseline: it is a folder")


def load_baseline(path: Path) -> Baseline:
    """Read a baseline file; raise BaselineError naming the file and the problem."""
    path = Path(path)
    try:
        text = read_limited(str(path), SETTINGS_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc}") from exc
    try:
        document = json.loads(text)
    except RecursionError:
        line = deep_line(text, _MAX_DEPTH)
        raise BaselineError(
            f"{path}:{line}: baseline is not valid JSON: arrays or objects nested too deeply"
        ) from None
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{path}:{exc.lineno}:{exc.colno}: baseline is not valid JSON: {exc.msg}"
        ) from exc
    return Baseline(tuple(_parse(document, path)))


def _parse(document: Any, path: Path) -> list[BaselineEntry]:
    if not isinstance(document, dict):
        raise BaselineError(f"{path}: baseline must be a JSON object")
    version = document.get("version")
    if version != BASELINE_VERSION:
        raise BaselineError(
            f"{path}: unsupported baseline version {version!r} (expected {BASELINE_VERSION})"
        )
    raw_entries = document.get("entries")
    if not isinstance(raw_entries, list):
        raise BaselineError(f"{path}: 'entries' must be a list")
    entries = []
    for i, raw in enumerate(raw_entries):
        where = f"{path}: entries[{i}]"
        if not isinstance(raw, dict):
            raise BaselineError(f"{where} must be an object")
        code = raw.get("code")
        fingerprint = raw.get("fingerprint")
        if not isinstance(code, str) or not code:
            raise BaselineError(f"{where}: 'code' must be a non-empty string")
        if not isinstance(fingerprint, str) or not _FINGERPRINT.fullmatch(fingerprint):
            raise BaselineError(f"{where}: 'fingerprint' must be 64 lowercase hex digits")
        hints = {}
        for name in ("file", "message"):
            value = raw.get(name, "")
            if not isinstance(value, str):
                raise BaselineError(f"{where}: '{name}' must be a string")
            hints[name] = value
        entries.append(BaselineEntry(code, fingerprint, **hints))
    return entries


def apply_baseline(
    findings: Sequence[Finding], baseline: Baseline, root: str | None = None
) -> tuple[list[Finding], int, int]:
    """Drop baselined findings (keyed relative to the project ``root``).

    Returns ``(kept, matched, stale)``: the findings not in the baseline (in
    their input order), how many were matched, and how many baseline entries
    matched nothing.
    """
    remaining = Counter((e.code, e.fingerprint) for e in baseline.entries)
    matched: set[int] = set()
    # Decide in a fixed order, so which duplicate stays does not depend on
    # the order the findings arrived in.
    order = sorted(range(len(findings)), key=lambda i: findings[i].sort_key())
    for i in order:
        ident = (findings[i].code, logical_fingerprint(findings[i], root))
        if remaining[ident] > 0:
            remaining[ident] -= 1
            matched.add(i)
    kept = [f for i, f in enumerate(findings) if i not in matched]
    return kept, len(matched), sum(remaining.values())
