"""Rule packs: framework knowledge kept as TOML data (entry points, validators...).

Bundled packs live in ``rules/`` (shipped in the wheel as ``pdlint/packs``).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pdlint.checks.guards.pack import VariantNames
from pdlint.checks.handoff.pack import HandoffNames
from pdlint.checks.layout.pack import LayoutNames
from pdlint.settings.toml import ConfigError, key_location, read_toml

_SECTIONS: dict[str, set[str]] = {
    "pack": {"name", "description", "detect"},
    "relay": {
        "entry-points",
        "startup-validators",
        "placeholder-factories",
        "bypass-modes",
        "idle-runs",
    },
    "layout": {"handoff-lists", "peer-copies", "role-local", "peer-prefixes"},
    "variants": {"settings", "predicates", "normalisers", "rewrites"},
    "handoff": {"payloads", "preconditions"},
}

# Keys of earlier packs that pdlint no longer reads, and why: still checked as
# they were (a pack rejected before is rejected still), then warned about.
_RETIRED: dict[tuple[str, str], str] = {
    ("relay", "states"): (
        "the relay check finds the per-request state where a builder's result is stored"
    ),
}


@dataclass(frozen=True)
class Pack:
    """One rule pack's data."""

    name: str
    path: str
    detect: tuple[str, ...]
    entry_points: tuple[str, ...]
    startup_validators: tuple[str, ...]
    placeholder_factories: tuple[str, ...]
    digest: str
    bypass_modes: tuple[str, ...] = ()
    layout: LayoutNames = field(default_factory=LayoutNames)
    idle_runs: tuple[str, ...] = ()  # functions running a batch no handoff made
    variants: VariantNames = field(default_factory=VariantNames)
    handoff: HandoffNames = field(default_factory=HandoffNames)
    warnings: tuple[str, ...] = ()  # keys no longer read, with their file and line


def packs_dir() -> Path:
    """Where the bundled packs are: inside the wheel, else the source tree."""
    installed = Path(__file__).parent.parent / "packs"
    if installed.is_dir():
        return installed
    return Path(__file__).resolve().parent.parent.parent / "rules"


def bundled() -> dict[str, Path]:
    """Name -> path of every bundled pack."""
    directory = packs_dir()
    if not directory.is_dir():
        return {}
    return {p.stem: p for p in sorted(directory.glob("*.toml"))}


def _strings(
    table: dict[str, Any], key: str, path: Path, section: str, text: str
) -> tuple[str, ...]:
    value = table.get(key, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        where = key_location(path, text, key, f"[{section}]")
        raise ConfigError(f"{where}: expected a list of strings")
    return tuple(value)


def _identifiers(table: dict[str, Any], key: str, path: Path, text: str) -> tuple[str, ...]:
    value = table.get(key, [])
    where = key_location(path, text, key, "[layout]")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings")
    for item in value:
        if not item.isidentifier():
            raise ConfigError(f"{where}: '{item}' is not a Python identifier")
    return tuple(value)


def _layout(table: dict[str, Any], path: Path, text: str) -> LayoutNames:
    """Validate ``[layout]``; errors name the file, the line and the key."""
    copies = table.get("peer-copies", {})
    where = key_location(path, text, "peer-copies", "[layout]")
    if not isinstance(copies, dict):
        raise ConfigError(f'{where}: expected a table of peer copy name = "handoff list"')
    pairs = []
    for name, handoff in copies.items():
        if not isinstance(handoff, str) or not handoff.isidentifier() or not name.isidentifier():
            raise ConfigError(
                f"{where}: '{name}' expects the name of a handoff list (a Python identifier)"
            )
        pairs.append((name, handoff))
    prefixes = table.get("peer-prefixes", [])
    if isinstance(prefixes, list) and any(
        isinstance(p, str) and not p.endswith("_") for p in prefixes
    ):
        where = key_location(path, text, "peer-prefixes", "[layout]")
        raise ConfigError(f"{where}: a prefix ends with '_' (like \"dst_\")")
    return LayoutNames(
        handoff_lists=_identifiers(table, "handoff-lists", path, text),
        peer_copies=tuple(pairs),
        role_local=_identifiers(table, "role-local", path, text),
        peer_prefixes=_identifiers(table, "peer-prefixes", path, text),
    )


def _variants(table: dict[str, Any], path: Path, text: str) -> VariantNames:
    """Validate ``[variants]``; errors name the file, the line and the key."""
    settings = _strings(table, "settings", path, "variants", text)
    for setting in settings:
        if "." not in setting or not all(p.isidentifier() for p in setting.split(".")):
            where = key_location(path, text, "settings", "[variants]")
            raise ConfigError(f"{where}: '{setting}' is not a qualified attribute (pkg.Class.attr)")
    rewrites = table.get("rewrites", {})
    where = key_location(path, text, "rewrites", "[variants]")
    if not isinstance(rewrites, dict):
        raise ConfigError(f'{where}: expected a table of "setting" = {{ "old" = "new" }}')
    found = []
    for setting, pairs in rewrites.items():
        if not all(p.isidentifier() for p in setting.split(".")) or not isinstance(pairs, dict):
            raise ConfigError(
                f"{where}: '{setting}' expects a setting as code reads it (config.method) "
                f'and a table of "old" = "new" values'
            )
        for old, new in pairs.items():
            if not isinstance(new, str):
                raise ConfigError(f"{where}: '{setting}': '{old}' is rewritten to a string")
            found.append((setting, old, new))
    return VariantNames(
        settings=settings,
        predicates=_strings(table, "predicates", path, "variants", text),
        normalisers=_strings(table, "normalisers", path, "variants", text),
        rewrites=tuple(found),
    )


def _handoff(table: dict[str, Any], path: Path, text: str) -> HandoffNames:
    """Validate ``[handoff]``; errors name the file, the line and the key."""
    return HandoffNames(
        payloads=_strings(table, "payloads", path, "handoff", text),
        preconditions=_strings(table, "preconditions", path, "handoff", text),
    )


def _retired(data: dict[str, Any], path: Path, text: str) -> tuple[str, ...]:
    """A warning for each key no longer read, naming the file, line and key."""
    warnings = []
    for (section, key), why in _RETIRED.items():
        table = data.get(section, {})
        if key in table:
            _strings(table, key, path, section, text)
            where = key_location(path, text, key, f"[{section}]")
            warnings.append(f"{where}: no longer read ({why}); remove it")
    return tuple(warnings)


def load_pack(path: Path) -> Pack:
    """Read and validate a pack; ConfigError names the file and key."""
    data, text = read_toml(path)
    for section, value in data.items():
        if section not in _SECTIONS:
            known = ", ".join(f"[{s}]" for s in _SECTIONS)
            if isinstance(value, dict):
                where = key_location(path, text, None, f"[{section}]")
                raise ConfigError(f"{where}: unknown section (known: {known})")
            raise ConfigError(
                f"{key_location(path, text, section, 'the top level')}: unknown key "
                f"(known sections: {known})"
            )
        if not isinstance(value, dict):
            raise ConfigError(
                f"{key_location(path, text, section, 'the top level')}: must be a table"
            )
        for key in value:
            if key not in _SECTIONS[section] and (section, key) not in _RETIRED:
                known = ", ".join(sorted(_SECTIONS[section]))
                where = key_location(path, text, key, f"[{section}]")
                raise ConfigError(f"{where}: unknown key (known keys: {known})")
    meta = data.get("pack", {})
    relay = data.get("relay", {})
    name = meta.get("name", path.stem)
    if not isinstance(name, str):
        raise ConfigError(f"{key_location(path, text, 'name', '[pack]')}: expected a string")
    detect = _strings(meta, "detect", path, "pack", text)
    entry_points = _strings(relay, "entry-points", path, "relay", text)
    warnings = _retired(data, path, text)  # checked where `states` was, after entry-points
    return Pack(
        name=name,
        path=str(path),
        detect=detect,
        entry_points=entry_points,
        startup_validators=_strings(relay, "startup-validators", path, "relay", text),
        placeholder_factories=_strings(relay, "placeholder-factories", path, "relay", text),
        digest=hashlib.sha256(text.encode()).hexdigest(),
        bypass_modes=_strings(relay, "bypass-modes", path, "relay", text),
        layout=_layout(data.get("layout", {}), path, text),
        idle_runs=_strings(relay, "idle-runs", path, "relay", text),
        variants=_variants(data.get("variants", {}), path, text),
        handoff=_handoff(data.get("handoff", {}), path, text),
        warnings=warnings,
    )


def load_packs(requested: tuple[str, ...] | None, root: str) -> list[Pack]:
    """Packs named by the settings (names of bundled packs or TOML paths).

    ``None`` loads every bundled pack; each is used only when its ``detect``
    modules are among the analysed ones.
    """
    available = bundled()
    if requested is None:
        return [load_pack(p) for p in available.values()]
    out = []
    for item in requested:
        if item in available:
            out.append(load_pack(available[item]))
            continue
        path = Path(item) if Path(item).is_absolute() else Path(root) / item
        if not path.is_file():
            known = ", ".join(available) or "none"
            raise ConfigError(f"rule pack '{item}' is neither a bundled pack ({known}) nor a file")
        out.append(load_pack(path))
    return out


def line_of(pack: Pack, name: str) -> int | None:
    """The line of a pack file where ``name`` is written as a string."""
    try:
        with open(pack.path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if f'"{name}"' in line or f"'{name}'" in line:
                    return number
    except (OSError, UnicodeDecodeError):
        pass
    return None
