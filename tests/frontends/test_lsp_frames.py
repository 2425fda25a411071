"""The language server's frame reader: whole bodies, however the bytes arrive, in
time linear in the frame's size (a 20 MB document must not cost minutes or a copy
per chunk), and a wrong ``Content-Length`` found as the next header arrives."""

from __future__ import annotations

import asyncio
import json
import time

from pdlint.lsp_frames import FrameReader


def frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


def bodies(stream: bytes, chunk: int) -> tuple[list[bytes], list[str]]:
    """What a reader gives of ``stream`` arriving ``chunk`` bytes at a time, and its warnings."""
    pieces = [stream[i : i + chunk] for i in range(0, len(stream), chunk)]
    warnings: list[str] = []

    async def read() -> bytes:
        return pieces.pop(0) if pieces else b""

    async def run() -> list[bytes]:
        reader = FrameReader(read, warnings.append)
        out = []
        while (body := await reader.next_body()) is not None:
            out.append(body)
        return out

    return asyncio.run(run()), warnings


def message(n: int, text: str = "") -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": n, "params": {"text": text}}).encode()


def test_bodies_are_whole_however_the_bytes_arrive():
    stream = b"".join(frame(message(n, "x" * n * 7)) for n in range(20))
    for chunk in (1, 2, 3, 7, 64, 4096, len(stream)):
        assert bodies(stream, chunk) == ([message(n, "x" * n * 7) for n in range(20)], [])


def test_a_wrong_length_is_found_when_the_next_header_arrives():
    # the first frame claims more bytes than it has; the next header comes later
    stream = frame(message(1), 10_000_000) + frame(message(2))
    for chunk in (5, 100, 10_000):
        got, warnings = bodies(stream, chunk)
        assert got == [message(2)], chunk
        assert any("Content-Length is wrong" in w for w in warnings)


def test_a_large_frame_in_small_chunks_costs_linear_time():
    text = "def f(a):\n    return a.b\n" * 400_000  # 10 MB, as an editor sends a document
    small = frame(message(1, text[: len(text) // 16]))
    large = frame(message(1, text))
    start = time.perf_counter()
    assert bodies(small, 4096)[0] == [message(1, text[: len(text) // 16])]
    middle = time.perf_counter()
    assert bodies(large, 4096)[0] == [message(1, text)]
    end = time.perf_counter()
    # 16 times the bytes: linear costs about 16 times as much, quadratic 256 times
    assert end - middle < 50 * (middle - start) + 1.0
