"""The words PDL201 reads names by: a peer's copy, a role's own setting, a grow, a setup."""

from __future__ import annotations

from collections.abc import Iterable

PEER_PREFIXES = ("dst_", "peer_", "remote_")
LOCAL_PREFIXES = ("src_", "local_", "own_", "my_", "self_")
ROLE_LOCAL_WORDS = ("draft", "speculative", "eagle", "mtp", "nextn", "medusa")
# "spec" alone is often a specification (``layer_spec``, ``kv_cache_spec``); it is
# role-local only followed by one of these (``spec_algorithm``, ``spec_info``).
SPEC_FOLLOWERS = (
    "algorithm",
    "algo",
    "decode",
    "decoding",
    "info",
    "draft",
    "tokens",
    "steps",
    "enabled",  # ``spec_enabled``: speculative decoding on, in this role's configuration
)
GROW_WORDS = ("append", "extend", "+=")
BUILTINS = ("len", "int", "round", "min", "max", "abs", "sum", "range", "slice")
SETUP_WORDS = ("init", "setup", "register", "bootstrap", "handshake", "prepare", "build")


# Scanned (and cached) with the checks' relevant words, loaded only by
# :meth:`LoadingPlan.load_related`: the files that name a peer's copy by its prefix
# (``dst_``, ``peer_`` or ``remote_``: where offsets into it are computed,
# with ``len(`` or with a helper elsewhere that returns one), and the files
# that can grow a list under a role-local setting (a grow word and a
# draft/speculative word; of those, the query loads the files where the
# latter is in a branch's condition with a grow word after it, see
# load_next). The files that can name a peer's copy (a peer word, in any
# case) are scanned too, never loaded.
MEASURING_WORDS: tuple[tuple[str, ...], ...] = tuple((prefix,) for prefix in PEER_PREFIXES)
GROWING_WORDS: tuple[tuple[str, ...], ...] = tuple(
    (grow, word) for grow in GROW_WORDS for word in ROLE_LOCAL_WORDS
)
NAMING_WORDS: tuple[tuple[str, ...], ...] = tuple((prefix.rstrip("_"),) for prefix in PEER_PREFIXES)
SCANNED_WORDS: tuple[tuple[str, ...], ...] = (*MEASURING_WORDS, *GROWING_WORDS, *NAMING_WORDS)
# load_related's first query, (gate, starts) of Program.with_text: its files are
# parsed ahead. A name gives a stem only when it starts with a peer prefix (see
# peer_word), so the files whose text holds one inside an identifier alone
# (``is_remote_``, ``NVML_REMOTE_``: a third of those the scan selects on sglang
# 0.5.23) are not loaded for it
LOADED_LATER: tuple[tuple[tuple[str, ...], ...], tuple[str, ...]] = (
    MEASURING_WORDS,
    PEER_PREFIXES,
)


def growing_near(role_words: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Groups of a grow word and a role-local word besides :data:`ROLE_LOCAL_WORDS`."""
    own = [w.lower() for w in role_words if w.lower() not in ROLE_LOCAL_WORDS]
    return tuple((grow, word) for grow in GROW_WORDS for word in own)


def setup_name(name: str) -> bool:
    """A function that sets a role up, by its name alone."""
    return name in ("__init__", "__post_init__") or any(w in name.lower() for w in SETUP_WORDS)


def subsequence(short: list[str], long: list[str]) -> bool:
    """Whether the words of ``short`` stand in ``long`` in the same order."""
    it = iter(long)
    return all(any(w == x for x in it) for w in short)
