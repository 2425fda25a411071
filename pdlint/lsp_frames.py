"""Reading LSP frames from a stream that may be broken: resynchronise, never go deaf.

pygls's loop trusts each ``Content-Length``: one too large swallows the frames
after it (the server hears nothing again, not even ``shutdown``), a huge one
runs out of memory, and a header line it does not expect is skipped only
while its length is unknown. This reader keeps what it has read in a buffer,
takes a frame only when its header and body are whole, and where a frame is
wrong (no or a bad length, a length past :data:`MAX_FRAME`, garbage, a body
that is not JSON) it logs what it dropped and starts again at the next
``Content-Length`` header. A JSON body never holds a raw line break after
``Content-Length: N`` (JSON strings cannot hold one), so the next header inside
a body that is still waiting for bytes shows that its length was wrong.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

MAX_FRAME = 256 * 1024 * 1024  # bytes of one message body; an editor sends far less
CHUNK = 64 * 1024

_HEADER = re.compile(rb"Content-Length:[ \t]*(\d{1,20})[ \t]*\r?\n", re.IGNORECASE)
_END = re.compile(rb"\r?\n\r?\n")
# How far back of what arrived last a body is searched again for a header (one
# longer than this, parted by the seam, is found once the body is whole).
_SEAM = 4096
_HEADER_LINES = re.compile(rb"(?:[A-Za-z][A-Za-z0-9-]*:[^\r\n]*\r?\n)*")


class FrameReader:
    """Split a byte stream into JSON-RPC message bodies, dropping what is not one.

    The bytes wait in one buffer, grown in place; a body still arriving is searched
    for the next header only in what arrived since the last look (from a little
    before, for a header parted by the seam), so a frame of N bytes costs time and
    memory linear in N, however small the chunks it comes in.
    """

    def __init__(self, read: Callable[[], Awaitable[bytes]], warn: Callable[[str], None]) -> None:
        self._read = read
        self._warn = warn
        self._buffer = bytearray()
        self._eof = False
        self._checked = 0  # the buffer's bytes the pending body was searched up to

    def _drop(self, count: int, why: str) -> None:
        dropped = bytes(self._buffer[:count])
        # Other headers (Content-Type) before Content-Length are no fault.
        if count and not _HEADER_LINES.fullmatch(dropped) and dropped.strip():
            self._warn(f"dropped {count} bytes from the client: {why}")
        del self._buffer[:count]
        self._checked = 0

    async def _more(self) -> bool:
        if self._eof:
            return False
        data = await self._read()
        if not data:
            self._eof = True
            return False
        self._buffer += data
        return True

    async def next_body(self) -> bytes | None:
        """The next frame's body, or None at the end of the stream."""
        while True:
            body = self._take()
            if body is not None:
                return body
            if not await self._more():
                if self._buffer.strip():
                    self._drop(len(self._buffer), "an incomplete frame at the end of input")
                return None

    def _take(self) -> bytes | None:
        """A whole frame's body from the buffer, after dropping what precedes it."""
        while True:
            header = _HEADER.search(self._buffer)
            if header is None:
                # Keep a tail that may be the start of a header still arriving.
                keep = self._buffer.rfind(b"\n") + 1
                if len(self._buffer) - keep > 4096:
                    keep = len(self._buffer)
                self._drop(keep, "not an LSP frame (no Content-Length header)")
                return None
            start = self._buffer.rfind(b"\n", 0, header.start()) + 1  # its line
            if start:
                self._drop(start, "not an LSP frame (no Content-Length header)")
                continue
            end = _END.search(self._buffer, header.start())
            if end is None:
                if len(self._buffer) > 64 * 1024:  # headers are a few short lines
                    self._drop(header.end(), "a header that never ends")
                    continue
                return None
            length = int(header.group(1))
            if length > MAX_FRAME:
                self._drop(end.end(), f"a frame of {length} bytes (more than {MAX_FRAME})")
                continue
            first, stop = end.end(), end.end() + length
            arrived = min(stop, len(self._buffer))
            # a whole body is searched whole, once
            since = first if arrived == stop else max(first, self._checked - _SEAM)
            following = _HEADER.search(self._buffer, since, arrived)
            if following is not None:
                # The next frame's header inside this body: its length was wrong.
                cut = self._buffer.rfind(b"\n", first, following.start()) + 1
                self._drop(cut if cut else first, "a frame whose Content-Length is wrong")
                continue
            if arrived < stop:
                self._checked = arrived
                return None
            body = bytes(self._buffer[first:stop])
            del self._buffer[:stop]
            self._checked = 0
            return body


def parse_body(body: bytes, hook: Callable[[dict[str, Any]], Any]) -> Any:
    """The message in a frame body (UTF-8 JSON); ValueError when it is not one."""
    return json.loads(body.decode("utf-8"), object_hook=hook)


async def serve_frames(
    reader: FrameReader,
    handle: Callable[[bytes], None],
    stopped: Callable[[], bool],
) -> None:
    """Hand each frame body to ``handle`` until the stream ends or ``stopped()``."""
    while not stopped():
        body = await reader.next_body()
        if body is None:
            return
        handle(body)
        await asyncio.sleep(0)  # let the handlers the message scheduled start
