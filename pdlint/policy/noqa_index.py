"""The ``# noqa`` comments naming pdlint codes in every analysed file, kept in the
cache by content hash: a run that reads no file (their stamps vouch for them)
still knows every comment, so PDL902 never depends on what the cache held."""

from __future__ import annotations

import json
from collections.abc import Mapping

from pdlint.cache.store import FactStore, make_key
from pdlint.policy.noqa import NOQA_RE, Directive, directives
from pdlint.source.regular import SOURCE_LIMIT, read_limited

_KEY = make_key("noqa-directives", NOQA_RE.pattern)

Found = dict[str, tuple[Directive, ...]]  # content hash -> the file's comments


def noqa_directives(
    digests: Mapping[str, str],
    texts: Mapping[str, bytes],
    paths: Mapping[str, str],
    store: FactStore,
) -> dict[str, tuple[Directive, ...]]:
    """Display path -> its ``# noqa`` comments naming pdlint codes, for the files of
    ``digests`` (display path -> content hash); a file whose hash the cache does not
    know is scanned from ``texts`` or read from its path in ``paths``."""
    known = _load(store)
    now: Found = {}
    out: dict[str, tuple[Directive, ...]] = {}
    for display, digest in digests.items():
        found = known.get(digest)
        if found is None:
            data = texts.get(display)
            if data is None and display in paths:
                try:
                    data = read_limited(paths[display], SOURCE_LIMIT)
                except OSError:
                    continue  # read before, gone now: the run reports what it read
            found = directives(data or b"")
        now[digest] = found
        if found:
            out[display] = found
    if now.keys() != known.keys():
        _save(store, now)
    return out


def _load(store: FactStore) -> Found:
    blob = store.get(_KEY, kind="blob")
    try:
        table = json.loads(blob) if blob is not None else {}
        return {
            digest: tuple(Directive(line, col, end, tuple(codes)) for line, col, end, codes in rows)
            for digest, rows in table.items()
        }
    except (ValueError, TypeError, AttributeError):
        return {}  # written by another version: scanned again


def _save(store: FactStore, found: Found) -> None:
    table = {
        digest: [[d.line, d.column, d.end_column, list(d.codes)] for d in rows]
        for digest, rows in sorted(found.items())
    }
    store.put(_KEY, json.dumps(table, separators=(",", ":")).encode(), kind="blob")
