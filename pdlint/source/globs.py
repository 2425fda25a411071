"""Glob matching, written once: paths (exclude, per-file ignores) and qualified names.

Path globs are anchored to the folder of the configuration that declares them
(the command line's to the current directory), as ruff anchors its own, so a
project's excludes and per-file ignores mean the same from any directory.

Patterns are ``fnmatch`` globs, matched case-sensitively as written on every
platform, so a configuration means the same on each. They are translated here,
to the regular expressions ``fnmatch.translate`` gives, in time linear in their
length: ``fnmatch`` scans to the end of the pattern for each ``[`` that nothing
closes, so a configuration or pack of 50,000 ``[`` took it minutes.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from typing import NamedTuple


class Anchored(NamedTuple):
    """A path glob and the folder it is written relative to: the folder of the
    configuration file that declares it (a bare ``str`` glob is relative to the
    current directory, as the command line's are)."""

    pattern: str
    base: str


PathGlob = str | Anchored


def anchored(patterns: Iterable[str], base: str | os.PathLike[str]) -> tuple[Anchored, ...]:
    """``patterns`` anchored to the folder ``base`` (made absolute, links resolved)."""
    folder = os.path.realpath(base)
    return tuple(Anchored(p, folder) for p in patterns)


def real_path(path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> str:
    """``path`` (relative to ``cwd``) made absolute with its folder's links resolved, posix:
    the form globs are matched against (the file's own name stays: a link is matched by
    its name, as git does)."""
    absolute = os.path.join(os.path.realpath(cwd or os.getcwd()), path)
    head, name = os.path.split(os.path.normpath(absolute))
    return posix(os.path.join(os.path.realpath(head), name))


def path_matches(
    patterns: tuple[PathGlob, ...], path: str, cwd: str | os.PathLike[str] | None = None
) -> bool:
    """True if a glob matches ``path`` (absolute, or relative to ``cwd``), as ruff
    matches ``exclude`` and ``per-file-ignores``: a glob with a ``/`` is anchored to its
    folder (``legacy/*.py`` is the folder's ``legacy``, not another one deeper down;
    ``**/`` starts anywhere); one without matches the path's name at any depth, and
    the path from its folder on (``*`` crosses ``/``: ``test*`` takes ``tests/a.py``).
    A trailing ``/`` on a glob is ignored. An absolute ``path`` is taken as written
    (see :func:`real_path`)."""
    base, path_re, name_re = _compiled(patterns, os.fspath(cwd or os.getcwd()))
    if not os.path.isabs(path):
        path = os.path.normpath(os.path.join(base, path))
    path = posix(path)
    if path_re.match(path):
        return True
    return name_re is not None and name_re.match(path.rsplit("/", 1)[-1]) is not None


def posix(path: str) -> str:
    """``path`` with ``/`` separators (as globs are written)."""
    return path.replace(os.sep, "/") if os.sep != "/" else path


@functools.lru_cache(maxsize=64)
def _compiled(
    patterns: tuple[PathGlob, ...], cwd: str
) -> tuple[str, re.Pattern[str], re.Pattern[str] | None]:
    """The real current directory, one regex for the globs anchored to their folders
    (matched against the whole absolute path), one for the name globs (matched
    against the last part)."""
    real_cwd = posix(os.path.realpath(cwd))
    paths, names = [], []
    for glob in patterns:
        if isinstance(glob, str):
            pattern, base = glob, real_cwd
        else:
            pattern, base = glob.pattern, posix(glob.base)
        pattern = pattern.rstrip("/")
        if "/" not in pattern:
            names.append(translate(pattern))
        parts = pattern.split("/")
        while len(parts) > 1 and parts[0] in (".", ".."):  # ./x, ../shared/x
            if parts.pop(0) == "..":
                base = base.rsplit("/", 1)[0] or "/"
        pattern = "/".join(parts)
        if pattern.startswith("/"):  # already absolute
            paths.append(translate(pattern))
            continue
        anchor = re.escape(base.rstrip("/") + "/")
        paths.append(anchor + translate(pattern))
        if pattern.startswith("**/"):  # zero folders too, as in ruff and git
            paths.append(anchor + translate(pattern[3:]))
    path_re = re.compile("|".join(f"(?:{p})" for p in paths) or "(?!)")
    name_re = re.compile("|".join(f"(?:{p})" for p in names)) if names else None
    return real_cwd, path_re, name_re


def name_matches(pattern: str, qualname: str) -> bool:
    """True if a pack's or the settings' name pattern picks the qualified name:
    the name itself, a glob of it, or its dotted suffix (``Loop.run``)."""
    return (
        qualname == pattern
        or _name_regex(pattern).match(qualname) is not None
        or qualname.endswith("." + pattern)
    )


@functools.lru_cache(maxsize=32768)
def _name_regex(pattern: str) -> re.Pattern[str]:
    return re.compile(translate(pattern))


def translate(pattern: str) -> str:
    """The regular expression ``fnmatch.translate(pattern)`` gives, in linear time."""
    star = object()  # consecutive stars are one
    parts: list[object] = []
    # Where the last "]" is: a "[" after it is a literal, with no scan to the end.
    last_close = pattern.rfind("]")
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        i += 1
        if char == "*":
            if not parts or parts[-1] is not star:
                parts.append(star)
        elif char == "?":
            parts.append(".")
        elif char == "[":
            j = i
            if j < n and pattern[j] == "!":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            j = pattern.find("]", j) if j <= last_close else -1
            if j < 0:
                parts.append("\\[")
            else:
                parts.append(_char_set(pattern, i, j))
                i = j + 1
        else:
            parts.append(re.escape(char))
    return _join(parts, star)


def _char_set(pattern: str, i: int, j: int) -> str:
    """The regular expression of the set ``pattern[i:j]`` (between its brackets)."""
    stuff = pattern[i:j]
    if "-" not in stuff:
        stuff = stuff.replace("\\", r"\\")
    else:
        chunks = []
        k = i + 2 if pattern[i] == "!" else i + 1
        while True:
            k = pattern.find("-", k, j)
            if k < 0:
                break
            chunks.append(pattern[i:k])
            i = k + 1
            k = k + 3
        chunk = pattern[i:j]
        if chunk:
            chunks.append(chunk)
        else:
            chunks[-1] += "-"
        for k in range(len(chunks) - 1, 0, -1):  # empty ranges are invalid in a regex
            if chunks[k - 1][-1] > chunks[k][0]:
                chunks[k - 1] = chunks[k - 1][:-1] + chunks[k][1:]
                del chunks[k]
        stuff = "-".join(s.replace("\\", r"\\").replace("-", r"\-") for s in chunks)
    stuff = re.sub(r"([&~|])", r"\\\1", stuff)  # set operations
    if not stuff:
        return "(?!)"  # an empty set never matches
    if stuff == "!":
        return "."  # a negated empty set matches any character
    if stuff[0] == "!":
        stuff = "^" + stuff[1:]
    elif stuff[0] in ("^", "["):
        stuff = "\\" + stuff
    return f"[{stuff}]"


def _join(parts: list[object], star: object) -> str:
    """The pieces joined as fnmatch does: an inner ``*`` matches lazily in an atomic
    group, so no pattern backtracks."""
    out: list[str] = []
    i, n = 0, len(parts)
    while i < n and parts[i] is not star:
        out.append(str(parts[i]))
        i += 1
    while i < n:
        i += 1  # a star
        if i == n:
            out.append(".*")
            break
        fixed = []
        while i < n and parts[i] is not star:
            fixed.append(str(parts[i]))
            i += 1
        if i == n:
            out.append(".*" + "".join(fixed))
        else:
            out.append(f"(?>.*?{''.join(fixed)})")
    return rf"(?s:{''.join(out)})\Z"
