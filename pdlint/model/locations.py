"""Where a function's code is, as findings show it: a location from a span, a short name."""

from __future__ import annotations

from pdlint.facts.types import Span
from pdlint.findings import Location
from pdlint.model.names import Model


def location(model: Model, qual: str, span: Span) -> Location:
    """The location of ``span`` in the file that defines function ``qual``."""
    module = model.function_module[qual]
    return Location(model.modules[module].path, *span)


def short_name(qual: str) -> str:
    """The last two parts of a qualified name (``Class.method``), for messages."""
    parts = qual.split(".")
    return ".".join(parts[-2:]) if len(parts) > 1 else qual
