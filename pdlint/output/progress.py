"""Progress on a terminal: one self-erasing line on stderr for runs over a second.

Only the command line shows it, only when stderr is a terminal, and never with
a machine-readable output format (the caller decides; see :mod:`pdlint.cli`).
A message sent before the delay is kept and shown when the delay ends; where
the platform has interval timers, a timer shows it then (and keeps the elapsed
time current) even when the run sends nothing for a while.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any, TextIO

# how often the timer redraws the line (its elapsed time) between messages
TICK = 0.25


class TerminalProgress:
    """Callable reporter: ``progress("parsing 120 of 578 files")``; :meth:`close`
    erases the line (and stops the timer)."""

    def __init__(
        self,
        stream: TextIO,
        delay: float = 1.0,
        interval: float = 0.1,
        clock: Callable[[], float] = time.monotonic,
        timer: bool = True,
    ) -> None:
        """``timer``: redraw from a SIGALRM interval timer (the main thread only;
        without one, the line is drawn only when a message comes)."""
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.start = clock()
        self.last = -1.0
        self.shown = False
        self.message: str | None = None  # the latest message, shown or not yet
        self._drawing = False  # a draw in progress: the timer's signal must not nest one
        self._previous: Any = None  # the SIGALRM handler before ours
        self._timed = False
        if timer and hasattr(signal, "setitimer"):
            if threading.current_thread() is threading.main_thread():
                self._previous = signal.signal(signal.SIGALRM, self._tick)
                signal.setitimer(signal.ITIMER_REAL, delay, TICK)
                self._timed = True

    def __call__(self, message: str) -> None:
        self.message = message
        self._draw(self.clock())

    def _draw(self, now: float) -> None:
        elapsed = now - self.start
        if self.message is None or elapsed < self.delay or now - self.last < self.interval:
            return
        self.last = now
        self.shown = True
        self._drawing = True
        try:
            self.stream.write(f"\r\x1b[Kpdlint: {self.message} ({elapsed:.1f} s)")
            self.stream.flush()
        finally:
            self._drawing = False

    def _tick(self, signum: int, frame: FrameType | None) -> None:
        if self._drawing:
            return
        try:
            self._draw(self.clock())
        except (OSError, ValueError, RuntimeError):
            pass  # a closed or busy stream: the next message draws again

    def close(self) -> None:
        if self._timed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self._previous)
            self._timed = False
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
