"""Glob matching, written once: paths (exclude, per-file ignores) and qualified names.

Patterns are ``fnmatch`` globs, matched case-sensitively as written on every
platform, so a configuration means the same on each.
"""

from __future__ import annotations

import fnmatch
import functools
import re


def path_matches(patterns: tuple[str, ...], relative: str) -> bool:
    """True if a glob matches the relative posix path (``p`` or ``*/p``), or a
    pattern without ``/`` its basename. A trailing ``/`` on a pattern is ignored."""
    path_re, name_re = _compiled(patterns)
    if path_re.match(relative):
        return True
    return name_re is not None and name_re.match(relative.rsplit("/", 1)[-1]) is not None


@functools.lru_cache(maxsize=64)
def _compiled(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[str] | None]:
    """One regex for the path globs (``p`` or ``*/p``), one for the name globs."""
    paths, names = [], []
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        paths += [fnmatch.translate(pattern), fnmatch.translate(f"*/{pattern}")]
        if "/" not in pattern:
            names.append(fnmatch.translate(pattern))
    path_re = re.compile("|".join(f"(?:{p})" for p in paths) or "(?!)")
    name_re = re.compile("|".join(f"(?:{p})" for p in names)) if names else None
    return path_re, name_re


def name_matches(pattern: str, qualname: str) -> bool:
    """True if a pack's or the settings' name pattern picks the qualified name:
    the name itself, a glob of it, or its dotted suffix (``Loop.run``)."""
    return (
        qualname == pattern
        or fnmatch.fnmatchcase(qualname, pattern)
        or qualname.endswith("." + pattern)
    )
