"""Fingerprints that identify a finding across runs.

Two kinds: the logical fingerprint (from the finding's key, never from line
numbers), used by baselines and SARIF; and GitHub's per-line rolling hash
(``primaryLocationLineHash``), computed exactly as github/codeql-action does
when it uploads SARIF, so that alerts keep their identity when lines move.
"""

from __future__ import annotations

import hashlib
import os
import sys
from array import array
from pathlib import PurePath

from pdlint.findings import Finding

_BLOCK_SIZE = 100
_MOD = 37
_MASK = (1 << 64) - 1
_FIRST_MOD = pow(_MOD, _BLOCK_SIZE, 1 << 64)
_TAB = 0x09
_LF = 0x0A
_CR = 0x0D
_SPACE = 0x20
_EOF = 0xFFFF


def project_path(path: str, root: str) -> str:
    """``path`` (relative to the current directory, or absolute) relative to the
    project ``root``, posix; absolute when it lies outside ``root``."""
    absolute = os.path.abspath(path)
    base = os.path.abspath(root)
    for candidate in (
        absolute,
        os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute)),
    ):
        relative = os.path.relpath(candidate, base)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return PurePath(relative).as_posix()
    return PurePath(absolute).as_posix()


def logical_key(finding: Finding, root: str | None = None) -> tuple[str, ...]:
    """The parts that make up a finding's identity: its key, else a fallback.

    With the project ``root``, the finding's file is named relative to it, so
    the identity does not depend on the directory pdlint runs in.
    """
    path = finding.location.path
    key = finding.key or (finding.code, path, finding.member or "", finding.message)
    if root is None:
        return key
    keyed = project_path(path, root)
    return tuple(keyed if part == path else part for part in key)


def logical_fingerprint(finding: Finding, root: str | None = None) -> str:
    """sha256 hex of the NUL-joined logical key; independent of line numbers
    (and, given the project ``root``, of the current directory)."""
    data = "\0".join(logical_key(finding, root)).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def _utf16_units(text: str) -> array[int]:
    # JavaScript strings are sequences of UTF-16 code units, and codeql-action
    # hashes ``charCodeAt`` values, so characters beyond the BMP count as two.
    units = array("H")
    units.frombytes(text.encode("utf-16-le", "surrogatepass"))
    if sys.byteorder == "big":
        units.byteswap()
    return units


def line_hashes(text: str) -> list[str]:
    """Return ``primaryLocationLineHash`` for every line of ``text`` (index 0 = line 1).

    A port of ``hash()`` in github/codeql-action ``src/fingerprints.ts``: a
    rolling hash (mod 2**64) over the next 100 characters from each line start,
    skipping spaces and tabs, with ``\\r``, ``\\n`` and ``\\r\\n`` all read as
    ``\\n``; identical hashes get the suffix ``:2``, ``:3``... in file order.
    ``text`` is the file decoded as UTF-8 (a byte-order mark kept, as Node does).
    """
    window = [0] * _BLOCK_SIZE
    line_numbers = [-1] * _BLOCK_SIZE
    hashes: dict[int, str] = {}
    counts: dict[str, int] = {}
    value = 0
    index = 0
    line_number = 0
    line_start = True
    prev_cr = False

    def output() -> None:
        hex_value = format(value, "x")
        counts[hex_value] = counts.get(hex_value, 0) + 1
        hashes[line_numbers[index]] = f"{hex_value}:{counts[hex_value]}"
        line_numbers[index] = -1

    def update(current: int) -> None:
        nonlocal value, index
        begin = window[index]
        window[index] = current
        value = (_MOD * value + current - _FIRST_MOD * begin) & _MASK
        index = (index + 1) % _BLOCK_SIZE

    units = _utf16_units(text)
    units.append(_EOF)
    for current in units:
        if current == _SPACE or current == _TAB or (prev_cr and current == _LF):
            prev_cr = False
            continue
        if current == _CR:
            current = _LF
            prev_cr = True
        else:
            prev_cr = False
        if line_numbers[index] != -1:
            output()
        if line_start:
            line_start = False
            line_number += 1
            line_numbers[index] = line_number
        if current == _LF:
            line_start = True
        update(current)

    for _ in range(_BLOCK_SIZE):
        if line_numbers[index] != -1:
            output()
        update(0)

    return [hashes[number] for number in range(1, line_number + 1)]
