"""Progress on a terminal: one self-erasing line on stderr for runs over a second.

Only the command line shows it, only when stderr is a terminal, and never with
a machine-readable output format (the caller decides; see :mod:`pdlint.cli`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO


class TerminalProgress:
    """Callable reporter: ``progress("parsing 120 files")``; :meth:`close` erases it."""

    def __init__(
        self,
        stream: TextIO,
        delay: float = 1.0,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.last = -1.0
        self.shown = False

    def __call__(self, message: str) -> None:
        now = self.clock()
        elapsed = now - self.start
        if elapsed < self.delay or now - self.last < self.interval:
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\r\x1b[Kpdlint: {message} ({elapsed:.1f} s)")
        self.stream.flush()

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
