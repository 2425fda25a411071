"""Read a file named by untrusted input: a regular file (or a pipe named on the
command line), opened without blocking, never more than a cap.

A repository can hold a link to a device (``/dev/zero``), to a kernel file that
``stat`` calls regular but that blocks (``/proc/kmsg``) or never ends
(``/proc/self/pagemap``), or a FIFO: each is refused with an :class:`OSError`
whose ``strerror`` says why, so that the caller reports it and goes on.
"""

from __future__ import annotations

import errno
import os
import select
import stat
import time

# A module larger than this is not source anyone wrote (generated modules run to
# a few MB); it also bounds what a never-ending kernel file can make pdlint read.
SOURCE_LIMIT = 64 << 20
# A configuration, a rule pack or a baseline.
SETTINGS_LIMIT = 64 << 20
# How long a pipe named on the command line (``<(git show ...)``) may take to
# deliver its text before it is given up.
PIPE_SECONDS = 5.0

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)


def read_limited(path: str, limit: int, size: int = 0, pipes: bool = False) -> bytes:
    """The bytes of the file at ``path``; raises OSError for anything that is not a
    regular file (a FIFO is read, within :data:`PIPE_SECONDS`, when ``pipes``), that
    would block, or that holds more than ``limit`` bytes. ``size``: what ``stat``
    said the file holds (read in one call when right)."""
    fd = os.open(path, _FLAGS)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISFIFO(mode) and pipes and hasattr(select, "poll"):
            return _read_pipe(fd, limit)
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "a special file")
            raise OSError(errno.EINVAL, f"{kind}, not a regular file")
        chunk = min(max(size + 1, 1 << 16), limit + 1)
        parts: list[bytes] = []
        total = 0
        while True:
            try:
                part = os.read(fd, chunk)
            except BlockingIOError:
                raise OSError(errno.EAGAIN, "reading it would block (not a file on disk)") from None
            if not part:
                break
            total += len(part)
            if total > limit:
                raise OSError(errno.EFBIG, _too_large(limit))
            parts.append(part)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _too_large(limit: int) -> str:
    return f"larger than {limit >> 20} MB, the most pdlint reads from a file"


def _read_pipe(fd: int, limit: int) -> bytes:
    """A pipe's bytes up to its end, if it comes within :data:`PIPE_SECONDS`."""
    deadline = time.monotonic() + PIPE_SECONDS
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    parts: list[bytes] = []
    total = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not poller.poll(left * 1000):
            if time.monotonic() >= deadline:
                raise OSError(errno.ETIMEDOUT, f"a FIFO that did not end within {PIPE_SECONDS:g} s")
            continue
        try:
            part = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not part:  # the writer closed it
            return b"".join(parts)
        total += len(part)
        if total > limit:
            raise OSError(errno.EFBIG, _too_large(limit))
        parts.append(part)
