"""The facts memo a long-lived caller (the language server) keeps between runs:
the facts of the file versions the last runs used, in memory."""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping

from pdlint.engine.loading import IndexOutcome

__all__ = ["MemoKey", "RecentMemo"]

MemoKey = tuple[str, str, str]


class RecentMemo(MutableMapping[MemoKey, IndexOutcome]):
    """A facts memo that keeps only what the last run used.

    Every edit gives a file new content and so a new key; :meth:`sweep` after
    each run drops the facts of the versions no run asked for since.
    """

    def __init__(self) -> None:
        self._old: dict[MemoKey, IndexOutcome] = {}
        self._new: dict[MemoKey, IndexOutcome] = {}
        self.stored = 0  # files indexed (not found here) since this memo was made

    def __getitem__(self, key: MemoKey) -> IndexOutcome:
        if key not in self._new:
            self._new[key] = self._old[key]
        return self._new[key]

    def __setitem__(self, key: MemoKey, value: IndexOutcome) -> None:
        self._new[key] = value
        self.stored += 1

    def __delitem__(self, key: MemoKey) -> None:
        found = self._new.pop(key, None) is not None
        if self._old.pop(key, None) is None and not found:
            raise KeyError(key)

    def __iter__(self) -> Iterator[MemoKey]:
        return iter({**self._old, **self._new})

    def __len__(self) -> int:
        return len({**self._old, **self._new})

    def sweep(self) -> None:
        """Forget every entry the runs since the previous sweep did not use."""
        self._old, self._new = self._new, {}
