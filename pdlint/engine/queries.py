"""The program's queries as per-file tests: which files a text, defining or
class-header query selects, from a file's scan and bytes (the program answers
with them, and a run record tests a changed file with them)."""

from __future__ import annotations

from collections.abc import Callable

from pdlint.engine.textscan import (
    Branches,
    FileScan,
    in_condition,
    may_define,
    starts_identifier,
)


def text_test(
    query: tuple[object, ...], branch_memo: dict[tuple[object, str], bool] | None = None
) -> Callable[[FileScan | None, bytes, str], bool]:
    """The per-file test of a ``("text", ...)`` query (see :meth:`Program.with_text`),
    of a file's scan, bytes and content hash. ``branch_memo`` keeps the branch part's
    answers by content hash (two queries of a run often ask the same of a file)."""
    _, indices, folded, any_of, all_of, starts, branches = query
    assert isinstance(indices, tuple) and isinstance(folded, tuple)
    assert isinstance(any_of, tuple) and isinstance(all_of, tuple)
    assert isinstance(starts, tuple) and isinstance(branches, tuple)
    gated = bool(indices or folded)
    folded_bytes = [[w.lower().encode() for w in group] for group in folded]
    any_bytes = [w.encode() for w in any_of]
    all_bytes = [[w.encode() for w in group] for group in all_of]
    starts_bytes = [w.encode() for w in starts]
    branch_bytes = [[w.encode() for w in part] for part in branches]

    def test(scan: FileScan | None, data: bytes, digest: str) -> bool:
        lower: bytes | None = None
        if gated:
            passed = scan is not None and any(scan.groups[i] for i in indices)
            if not passed and folded_bytes:
                lower = data.lower()
                passed = any(all(w in lower for w in group) for group in folded_bytes)
            if not passed:
                return False
        if any_bytes and not any(w in data for w in any_bytes):
            return False
        if starts_bytes and not any(starts_identifier(data, w) for w in starts_bytes):
            return False
        if all_bytes and not any(all(w in data for w in group) for group in all_bytes):
            return False
        if not branch_bytes:
            return True
        hit = None if branch_memo is None else branch_memo.get((branches, digest))
        if hit is None:
            hit = in_condition(data.lower() if lower is None else lower, *branch_bytes)
            if branch_memo is not None:
                branch_memo[branches, digest] = hit
        return hit

    return test


def branch_part(branches: Branches) -> tuple[tuple[str, ...], ...]:
    """The ``branches`` part of a text query: () when it selects every file."""
    words, later = (tuple(sorted({w.lower() for w in part})) for part in branches)
    return (words, later) if words or later else ()


def selects(
    query: tuple[object, ...], module: str, scan: FileScan, data: bytes | None = None
) -> bool:
    """Whether the file of ``module`` (scanned as ``scan``, with bytes ``data``) is in
    a query's answer."""
    kind = query[0]
    if kind == "text":
        return text_test(query)(scan, data or b"", "")
    if kind == "defining":
        pieces, ignore_case = query[1], query[2]
        assert isinstance(pieces, tuple) and isinstance(ignore_case, bool)
        return may_define(scan, module, pieces, ignore_case=ignore_case)
    if kind == "headers":
        words = set(query[1])  # type: ignore[call-overload]
        return any(not words.isdisjoint(header) for _name, header in scan.headers)
    raise ValueError(f"unknown query {query!r}")
