"""Plain data for what pdlint reports: locations, call-path steps, findings."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Location:
    """A span in a file; lines and columns are 1-based, columns in characters."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Related:
    """A secondary location that explains a finding (builder, relay, entry)."""

    location: Location
    message: str


@dataclass(frozen=True)
class Step:
    """One step of a call path: the call site (or definition) in ``function``."""

    location: Location
    function: str
    message: str


@dataclass(frozen=True)
class Finding:
    """One reported problem.

    ``key`` is the logical identity of the finding (code, entry, member,
    consumer qualified name...): it never contains line numbers, so baselines
    and fingerprints survive edits that shift lines. ``summary`` is the one-line
    form the concise output shows (the message when empty); ``message`` keeps
    the whole explanation and the suggestion.
    """

    code: str
    message: str
    location: Location
    related: tuple[Related, ...] = ()
    path: tuple[Step, ...] = ()
    member: str | None = None
    key: tuple[str, ...] = field(default=())
    summary: str = ""

    @property
    def headline(self) -> str:
        """The short message: the summary, or the message when there is none."""
        return self.summary or self.message

    def sort_key(self) -> tuple[str, int, int, str, str]:
        loc = self.location
        return (loc.path, loc.line, loc.column, self.code, self.message)


def listed(names: list[str], most: int = 2) -> str:
    """``names`` for a one-line summary: at most ``most`` of them, then how many more."""
    if len(names) <= most:
        return ", ".join(names)
    return f"{', '.join(names[:most])} and {len(names) - most} more"
