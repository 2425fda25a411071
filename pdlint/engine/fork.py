"""Run one part of the analysis in a forked process while this one does the rest.

The child starts with this process's memory as it is (copy on write): the facts
loaded so far are shared, not sent. Its result comes back pickled through a
pipe. Only where forking is safe and cheap: Linux, and no other thread (a
thread holding a lock at the fork would leave it held in the child), so never
while worker processes parse (their executor runs threads).
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")
# children that sent their value and are still exiting (a large one takes tens of
# milliseconds to unmap its memory): reaped later, not waited for
_exiting: list[int] = []


def can_fork() -> bool:
    """Whether :func:`aside` may fork here."""
    return sys.platform == "linux" and threading.active_count() == 1


class Aside(Generic[T]):
    """A forked child computing one value."""

    def __init__(self, pid: int, pipe: int) -> None:
        self._pid = pid
        self._pipe = pipe
        self._joined = False

    def join(self) -> T | None:
        """The child's value; None when it failed (the caller computes it itself).

        A child writes only once its work is done, so a whole value means success:
        the child is then left to exit, and reaped later.
        """
        self._joined = True
        try:
            with os.fdopen(self._pipe, "rb") as pipe:
                data = pipe.read()
            kind, value = pickle.loads(data)
        except Exception:  # it failed before writing (or wrote a part)
            kind, value = None, None
        except BaseException:  # interrupted here: the child is not left behind
            os.waitpid(self._pid, 0)
            raise
        if kind != "done":
            os.waitpid(self._pid, 0)
            return None
        _exiting.append(self._pid)
        _reap()
        return value

    def cancel(self) -> None:
        """Stop the child (this process gave up before :meth:`join`)."""
        if self._joined:
            return
        self._joined = True
        try:
            os.kill(self._pid, signal.SIGKILL)
        except OSError:
            pass
        os.close(self._pipe)
        os.waitpid(self._pid, 0)


def _reap() -> None:
    """Reap the children that have exited since they sent their value."""
    for pid in list(_exiting):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _exiting.remove(pid)


def aside(work: Callable[[], T]) -> Aside[T] | None:
    """Start ``work()`` in a forked child; None when forking is not possible here."""
    _reap()
    if not can_fork():
        return None
    try:
        read, write = os.pipe()
    except OSError:
        return None
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: never returns
        status = 1
        try:
            # it holds the run's stdout too: a killed run must not leave it open
            # (``pdlint check . | cat`` would wait for the child's whole check)
            from pdlint.engine.workers import killed_with_parent

            killed_with_parent()
            if os.getppid() != parent:  # the run died before the death signal was set
                os._exit(1)
            os.close(read)
            payload = pickle.dumps(("done", work()), pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as pipe:
                pipe.write(payload)
            status = 0
        except BaseException:  # the parent computes it itself
            pass
        finally:
            os._exit(status)  # no atexit, no buffers of the parent's flushed twice
    os.close(write)
    return Aside(pid, read)
