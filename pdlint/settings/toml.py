"""TOML files of settings and packs: reading them, and where a key is written.

Every problem is a :class:`ConfigError` whose message names the file, the line
where it can be found, and the key.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from pdlint.source.regular import SETTINGS_LIMIT, read_limited

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration problem; the message names the file, line and key."""


def _header(section: str) -> re.Pattern[str] | None:
    """The header line of a ``[a.b]`` table (spaces allowed around dots)."""
    if not section.startswith("["):
        return None
    parts = section.strip("[]").split(".")
    dotted = r"[ \t]*\.[ \t]*".join(re.escape(p.strip()) for p in parts)
    return re.compile(rf"^[ \t]*\[[ \t]*{dotted}[ \t]*\]", re.M)


def _dotted(section: str) -> str:
    """The regex of the dotted-key prefix that writes a key of ``section`` outside its
    table (``pdlint.ignore`` under ``[tool]``, ``tool.pdlint.ignore`` at the top)."""
    dot = r"[ \t]*\.[ \t]*"
    prefix = ""
    for part in (p.strip() for p in section.strip("[]").split(".")):
        # each earlier part may be left out: (?:tool\.)?pdlint\.
        prefix = f"(?:{prefix})?" if prefix else ""
        prefix += f"[\"']?{re.escape(part)}[\"']?{dot}"
    return prefix


def _line_of(text: str, key: str | None, section: str) -> int | None:
    """The line of ``key = ...`` in ``section`` (searched from its header on).

    Only spaces and tabs may precede the key, so a blank line before it does not
    pull the reported line up; and a same-named key in an earlier table
    (``[tool.ruff]``'s ``select``) is not the one reported. Without the section's
    header, the key written with dotted keys (``pdlint.ignore = ...`` under
    ``[tool]``). With no key, the line of the section's header.
    """
    start = 0
    header = _header(section)
    if header is not None:
        found = header.search(text)
        if found and key is None:
            return text.count("\n", 0, found.start()) + 1
        start = found.end() if found else 0
        if found is None and key is not None:
            dotted = re.compile(
                rf"^[ \t]*{_dotted(section)}[\"']?{re.escape(key)}[\"']?[ \t]*(?:=|\.)", re.M
            )
            match = dotted.search(text)
            if match:
                return text.count("\n", 0, match.start()) + 1
    if key is None:
        return None
    pattern = re.compile(rf"^[ \t]*[\"']?{re.escape(key)}[\"']?[ \t]*=", re.M)
    match = pattern.search(text, start)
    sub_table = _header(f"{section[:-1]}.{key}]") if header is not None else None
    if match is None and sub_table is not None:  # [section.key]
        match = sub_table.search(text)
    return text.count("\n", 0, match.start()) + 1 if match else None


def key_location(path: Path | str, text: str, key: str | None, section: str) -> str:
    """``path:line: key 'k' in [section]`` (the line when it can be found)."""
    line = _line_of(text, key, section)
    pos = f"{path}:{line}" if line else str(path)
    return f"{pos}: key '{key}' in {section}" if key is not None else f"{pos}: {section}"


_MAX_DEPTH = 100  # where a too deeply nested document is said to go wrong


def deep_line(text: str, depth: int) -> int:
    """The 1-based line where brackets and braces in ``text`` first nest ``depth`` deep.

    Brackets inside strings count too: this only points a person at the place.
    """
    level, line = 0, 1
    for char in text:
        if char in "[{":
            level += 1
            if level >= depth:
                return line
        elif char in "]}":
            level = max(level - 1, 0)
        elif char == "\n":
            line += 1
    return 1


def read_toml(path: Path) -> tuple[dict[str, Any], str]:
    """Read a TOML file; raise ConfigError with the file and line on failure."""
    try:
        text = read_limited(str(path), SETTINGS_LIMIT).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_toml(path, text), text


def parse_toml(path: Path, text: str) -> dict[str, Any]:
    """The TOML document ``text`` (of the file ``path``); raise ConfigError with the
    file and line when it is not valid TOML."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively.
        line = deep_line(text, _MAX_DEPTH)
        raise ConfigError(
            f"{path}:{line}: invalid TOML: arrays or inline tables nested too deeply"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        at = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        if at:
            pos = f"{path}:{at.group(1)}"
        elif "end of document" in str(exc):
            pos = f"{path}:{len(text.splitlines())}"
        else:
            pos = str(path)
        raise ConfigError(f"{pos}: invalid TOML: {exc}") from None
