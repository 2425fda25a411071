"""The progress line tells the truth: the first message shows once the delay ends,
the count is against the files that will load, and the phases after loading are
named. (The line itself on a real terminal: tests/engine/test_lazy.py.)"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from pdlint_helpers import chdir, fixture

from pdlint.api import analyze
from pdlint.output.progress import TerminalProgress
from pdlint.settings.config import Settings


def test_the_message_sent_before_the_delay_is_shown_when_it_ends() -> None:
    """The run's first message comes at once, and the next one may come seconds
    later: the timer draws the first when the delay ends."""
    stream = io.StringIO()
    progress = TerminalProgress(stream, delay=0.2)
    progress("reading 1 of 4719 files")
    assert stream.getvalue() == ""  # under the delay: nothing yet
    deadline = time.monotonic() + 5
    while "reading" not in stream.getvalue() and time.monotonic() < deadline:
        time.sleep(0.05)
    progress.close()
    drawn = stream.getvalue()
    assert drawn.startswith("\r\x1b[Kpdlint: reading 1 of 4719 files (0.")
    assert drawn.endswith("\r\x1b[K")  # erased before the findings are printed


def test_no_timer_left_behind() -> None:
    import signal

    before = signal.getsignal(signal.SIGALRM)
    progress = TerminalProgress(io.StringIO(), delay=0.05)
    progress.close()
    time.sleep(0.2)  # a timer left running would now raise or draw
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def _messages(name: str, lazy: bool) -> tuple[list[str], int, int]:
    folder: Path = fixture(name)
    messages: list[str] = []
    with chdir(folder):
        result = analyze(
            ["."], Settings(root=str(folder), cache=False), lazy=lazy, progress=messages.append
        )
    return messages, result.files, len(result.loaded_files)


@pytest.mark.parametrize("lazy", [True, False])
def test_the_count_reaches_the_files_that_load(lazy: bool) -> None:
    messages, files, loaded = _messages("layout_halved", lazy)

    reading = [m for m in messages if m.startswith("reading")]
    assert reading[0] == f"reading 1 of {files} files"
    assert reading[-1] == f"reading {files} of {files} files"
    counts = [
        (int(n), int(total))
        for m in messages
        if (found := re.search(r"loading (\d+) of (\d+) files$", m))
        for n, total in [found.groups()]
    ]
    assert all(n <= total for n, total in counts)
    totals = [total for _, total in counts]
    assert totals == sorted(totals)  # grows as a phase asks for more, never shrinks
    assert counts[-1] == (loaded, loaded)
    if lazy:  # not every file: only those the analysis needs
        assert loaded < files


def test_the_phases_after_loading_are_named() -> None:
    messages, _, _ = _messages("layout_halved", lazy=True)

    phases = [m for m in messages if m.startswith("checking") and ":" not in m]
    assert phases == [
        "checking PDL001, PDL101, PDL104, PDL105, PDL106",
        "checking PDL102, PDL103",
        "checking PDL107, PDL108",
        "checking PDL301",
        "checking PDL201",
    ]
    # the files a check asks for are counted under its name
    assert any(m.startswith("checking PDL201: loading ") for m in messages)
    assert messages.index("scanning the text of 7 files") < messages.index(phases[0])
