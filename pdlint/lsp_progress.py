"""Work done progress (``$/progress``) while the language server first analyses a project.

The token is created with ``window/workDoneProgress/create`` (only for a client
that declares ``window.workDoneProgress``); once the client accepts it, ``begin``
is sent, then the analysis process's messages as reports ("120 of 900 files
loaded", with a percentage), then ``end``. The analysis process sends its
messages through a pipe, at most one each :data:`INTERVAL` seconds.
"""

from __future__ import annotations

import re
import time
import uuid
from concurrent.futures import Future
from multiprocessing.connection import Connection
from typing import Any

from lsprotocol import types

TITLE = "pdlint"
INTERVAL = 0.1  # seconds between two messages of the analysis process
_LOADED = re.compile(r"^(\d+) of (\d+) files loaded")


def supported(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client takes server-created work done progress."""
    window = capabilities.window if capabilities is not None else None
    return bool(window is not None and window.work_done_progress)


class AnalysisProgress:
    """One analysis's progress in the client: created, begun, reported, ended.

    ``server`` is the pygls language server. Runs in the thread that handles the
    client's messages, which is where the client's answer arrives.
    """

    def __init__(self, server: Any, message: str) -> None:
        self.server = server
        self.token = f"pdlint-{uuid.uuid4()}"
        self.message = message
        self.begun = False
        self.ended: str | None = None  # the end message, once the analysis ended
        params = types.WorkDoneProgressCreateParams(token=self.token)
        future = server.protocol.send_request(types.WINDOW_WORK_DONE_PROGRESS_CREATE, params)
        future.add_done_callback(self._created)

    def _created(self, future: Future[Any]) -> None:
        if future.cancelled() or future.exception() is not None:
            return  # the client refused the token: no progress shown
        begin = types.WorkDoneProgressBegin(title=TITLE, message=self.message, percentage=0)
        self.server.work_done_progress.begin(self.token, begin)
        self.begun = True
        if self.ended is not None:  # done before the client answered
            self.end(self.ended)

    def report(self, message: str) -> None:
        """Show one of the analysis's messages (with a percentage when it counts files)."""
        self.message = message
        if not self.begun or self.ended is not None:
            return
        match = _LOADED.match(message)
        percentage = None
        if match is not None and int(match.group(2)):
            percentage = min(100, 100 * int(match.group(1)) // int(match.group(2)))
        report = types.WorkDoneProgressReport(message=message, percentage=percentage)
        self.server.work_done_progress.report(self.token, report)

    def end(self, message: str) -> None:
        """The analysis ended: close the progress (at once, or once it begins)."""
        self.ended = message
        if self.begun:
            self.begun = False
            self.server.work_done_progress.end(
                self.token, types.WorkDoneProgressEnd(message=message)
            )


class Sender:
    """In the analysis process: a run's progress messages, sent to the server through
    ``channel`` (the first of the run, then at most one each :data:`INTERVAL` seconds)."""

    def __init__(self, channel: Connection) -> None:
        self.channel = channel
        self.last = -INTERVAL

    def __call__(self, message: str) -> None:
        now = time.monotonic()
        if now - self.last < INTERVAL:
            return
        self.last = now
        try:
            self.channel.send(message)
        except (OSError, ValueError):  # the server is gone: the analysis goes on
            pass
