"""The words PDL201 reads names by: a peer's copy, a role's own setting, a grow, a setup."""

from __future__ import annotations

from collections.abc import Iterable

PEER_PREFIXES = ("dst_", "peer_", "remote_")
LOCAL_PREFIXES = ("src_", "local_", "own_", "my_", "self_")
ROLE_LOCAL_WORDS = ("draft", "speculative", "eagle", "mtp", "nextn", "medusa")
# "spec" alone is often a specification (``layer_spec``, ``kv_cache_spec``); it is
# role-local only followed by one of these (``spec_algorithm``, ``spec_info``).
SPEC_FOLLOWERS = ("algorithm", "algo", "decode", "decoding", "info", "draft", "tokens", "steps")
GROW_WORDS = ("append", "extend", "+=")
BUILTINS = ("len", "int", "round", "min", "max", "abs", "sum", "range", "slice")
SETUP_WORDS = ("init", "setup", "register", "bootstrap", "handshake", "prepare", "build")


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
