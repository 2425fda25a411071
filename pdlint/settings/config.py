"""Settings: defaults, ``[tool.pdlint]`` in pyproject.toml, ``--config`` files.

Keys mirror the command-line flags in kebab-case. Every problem raises
:class:`ConfigError` naming the file, the line where known, and the key.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pdlint.checks.catalogue import RULES
from pdlint.settings.packs import bundled
from pdlint.settings.toml import ConfigError, key_location, parse_toml, read_toml
from pdlint.source.globs import PathGlob, anchored
from pdlint.source.regular import SETTINGS_LIMIT, read_limited

OUTPUT_FORMATS = ("concise", "full", "json", "sarif", "github")
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".pdlint_cache",
    "node_modules",
    "site-packages",
    "build",
    "dist",
    "__pypackages__",
)


@dataclass(frozen=True)
class Settings:
    """Everything that decides what a run analyses and reports."""

    # None: not given, every PDL code is selected *implicitly* (flake8's
    # extended default select), so any explicit ignore prefix beats it.
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    # Path globs: a config's are anchored to its folder, a bare str (the command
    # line's) is relative to the current directory.
    per_file_ignores: tuple[tuple[PathGlob, tuple[str, ...]], ...] = ()
    exclude: tuple[PathGlob, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[PathGlob, ...] = ()
    respect_gitignore: bool = True
    # a lazy run parses only what the checks need; this parses the rest too, for
    # their syntax errors (PDL900)
    check_syntax: bool = False
    packs: tuple[str, ...] | None = None  # None: every bundled pack
    entry_points: tuple[str, ...] = ()
    # folders named as packages, with every folder below them (absolute paths)
    namespace_packages: tuple[str, ...] = ()
    output_format: str = "concise"
    exit_zero: bool = False
    cache: bool = True
    # ``-vv``: each dropped call of the call graph is counted with its reason
    explain_dropped: bool = False
    cache_dir: str | None = None
    config_file: str | None = None
    root: str = field(default=".")


# key -> (kind, Settings attribute)
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("codes", "select"),
    "extend-select": ("codes", "extend_select"),
    "ignore": ("codes", "ignore"),
    "per-file-ignores": ("per-file", "per_file_ignores"),
    "exclude": ("globs", "exclude"),
    "extend-exclude": ("globs", "extend_exclude"),
    "respect-gitignore": ("bool", "respect_gitignore"),
    "check-syntax": ("bool", "check_syntax"),
    "packs": ("strings", "packs"),
    "entry-points": ("strings", "entry_points"),
    "namespace-packages": ("paths", "namespace_packages"),
    "output-format": ("format", "output_format"),
    "exit-zero": ("bool", "exit_zero"),
    "cache": ("bool", "cache"),
    "cache-dir": ("string", "cache_dir"),
}

_CODE_RE = re.compile(r"^[A-Z]+[0-9]*$")


def is_known_selector(code: str) -> bool:
    """True if ``code`` is ``ALL`` or a prefix of at least one rule code."""
    if code == "ALL":
        return True
    return bool(_CODE_RE.match(code)) and any(c.startswith(code) for c in RULES)


def check_codes(codes: list[str] | tuple[str, ...], where: str) -> tuple[str, ...]:
    """Normalise rule selectors; raise ConfigError for an unknown one."""
    out = []
    for raw in codes:
        code = raw.strip().upper()
        if not is_known_selector(code):
            raise ConfigError(f"{where}: unknown rule code or prefix '{raw}'")
        out.append("PDL" if code == "ALL" else code)
    return tuple(out)


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\0" in value
    if isinstance(value, list):
        return any(_has_nul(v) for v in value)
    if isinstance(value, dict):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    return False


def _convert(kind: str, value: Any, where: str, folder: Path) -> Any:
    """The setting's value checked and converted; path globs anchored to ``folder``."""
    if _has_nul(value):  # a path, glob or name never holds a NUL (the OS refuses it)
        raise ConfigError(f"{where}: a NUL character (\\u0000) cannot be part of a value")
    if kind == "codes":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: expected a list of rule codes")
        return check_codes(value, where)
    if kind == "paths":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: expected a list of folders")
        return tuple(os.path.normpath(os.path.join(folder, v)) for v in value)
    if kind in ("strings", "globs"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}: expected a list of strings")
        return anchored(value, folder) if kind == "globs" else tuple(value)
    if kind == "string":
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a string")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: expected true or false")
        return value
    if kind == "format":
        if value not in OUTPUT_FORMATS:
            raise ConfigError(f"{where}: expected one of {', '.join(OUTPUT_FORMATS)}")
        return value
    if kind == "per-file":
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a table of glob = [codes]")
        pairs = []
        for glob, codes in value.items():
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise ConfigError(f"{where}: '{glob}' expects a list of rule codes")
            (anchored_glob,) = anchored((glob,), folder)
            pairs.append((anchored_glob, check_codes(codes, where)))
        return tuple(pairs)
    raise AssertionError(kind)


def settings_from_table(
    table: dict[str, Any], path: Path, text: str, section: str, base: Settings
) -> Settings:
    """Apply a ``[tool.pdlint]``-style table on top of ``base``."""
    changes: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(
                f"{key_location(path, text, key, section)}: unknown key (known keys: {known})"
            )
        kind, attr = _KEYS[key]
        changes[attr] = _convert(kind, value, key_location(path, text, key, section), path.parent)
        if key == "packs":
            _check_packs(changes[attr], path.parent, key_location(path, text, key, section))
    return replace(base, config_file=str(path), **changes)


def _check_packs(items: tuple[str, ...], directory: Path, where: str) -> None:
    """Every pack a config names is bundled or a file (relative to the config)."""
    available = bundled()
    for item in items:
        candidate = Path(item) if Path(item).is_absolute() else directory / item
        if item not in available and not candidate.is_file():
            known = ", ".join(available) or "none"
            raise ConfigError(
                f"{where}: rule pack '{item}' is neither a bundled pack ({known}) nor a file"
            )


def load_config_file(path: Path, base: Settings) -> Settings:
    """Load ``--config PATH``: a pyproject.toml's [tool.pdlint] or a bare table."""
    data, text = read_toml(path)
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        table = tool.get("pdlint", {}) if isinstance(tool, dict) else {}
        section = "[tool.pdlint]"
    else:
        table, section = data, "the top level"
    if not isinstance(table, dict):
        raise ConfigError(f"{key_location(path, text, None, section)}: must be a table")
    return settings_from_table(table, path, text, section, base)


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.pdlint] table (however the TOML writes
    it), at or above ``start``; raise ConfigError for one that is not TOML."""
    start = Path(os.path.realpath(start))  # Path.resolve raises on a symlink loop
    directory = start if start.is_dir() else start.parent
    for candidate in (directory, *directory.parents):
        pyproject = candidate / "pyproject.toml"
        if pyproject.is_file():
            try:
                text = read_limited(str(pyproject), SETTINGS_LIMIT).decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                # It may be the configuration: running without it could report
                # what the project's settings exclude (or miss what they select).
                raise ConfigError(
                    f"{pyproject}: cannot read it to look for [tool.pdlint]: {exc}; "
                    "make it readable, or name the configuration with --config"
                ) from None
            # Parsed, not searched: ``pdlint.ignore = [...]`` under ``[tool]`` is the
            # table too; a file that is not TOML may be the configuration (as in ruff).
            tool = parse_toml(pyproject, text).get("tool")
            if isinstance(tool, dict) and "pdlint" in tool:
                return pyproject
    return None


def project_root(path: str) -> str:
    """The folder of the project ``path`` (a file, which need not exist) is part of:
    that of the nearest pyproject.toml with [tool.pdlint], else the nearest folder
    with a pyproject.toml or a .git, else the file's folder, or the folder above
    its top-level package when it is a package (not the current directory, which
    may hold far more than the project). The home folder and the filesystem root
    are never taken (a walk of them would take every project below): ``path``
    itself then."""
    configured = find_pyproject(Path(path))
    if configured is not None:
        return str(configured.parent)
    where = Path(os.path.realpath(path))
    directory = where if where.is_dir() else where.parent
    avoid = {Path(directory.anchor), Path(os.path.realpath(os.path.expanduser("~")))}
    for candidate in (directory, *directory.parents):
        if candidate in avoid:
            break
        if (candidate / "pyproject.toml").is_file() or (candidate / ".git").exists():
            return str(candidate)
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return str(where if directory in avoid else directory)


def resolve_settings(paths: list[str], config: str | None, base: Settings = Settings()) -> Settings:
    """Settings for a run: ``--config`` if given, else the nearest pyproject.toml."""
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise ConfigError(f"{config}: configuration file does not exist")
        settings = load_config_file(path, base)
        return replace(settings, root=str(path.resolve().parent))
    first = next((p for p in paths if p != "-"), ".")
    pyproject = find_pyproject(Path(first))
    if pyproject is None:
        # the project's folder, not the current directory: a finding's baseline key
        # and fingerprint are the same from a subfolder or the parent
        return replace(base, root=project_root(first))
    settings = load_config_file(pyproject, base)
    return replace(settings, root=str(pyproject.resolve().parent))
