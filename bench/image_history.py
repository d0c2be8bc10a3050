"""Images in history: does the same screenshot, attached again and again,
cost its size once?

Commits a conversation of 20 user messages, each attaching the same ~1 MB
PNG (incompressible pixels, as a screenshot's are to the database), into a
real SQLite file through the real loop, then loads it back. Prints:
  image_mb = X                        (the PNG's size)
  db_mb[20 messages] = X              (database file, WAL checkpointed)
  db_over_one_image_ratio = X         (~1: the image is stored once; inline
                                       base64 in every row would be ~27)
  commit_ms_median = X, load_ms_median = X   (load: the 20 messages, images put back)
"""

from __future__ import annotations

import base64
import os
import statistics
import struct
import sys
import tempfile
import time
import zlib
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cursor_byok.llm.types import ImageContent, TextContent, UserMessage
from cursor_byok.loop import ConversationState, RuntimeState, Start, Status, transition
from cursor_byok.loop.state import TurnSettings
from cursor_byok.store.sqlite import SQLiteStore

MESSAGES = 20
SIDE = 1024


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def screenshot() -> bytes:
    """A grey PNG of random pixels: it does not compress, as a real one barely does."""
    pixels = os.urandom(SIDE * SIDE)
    rows = b"".join(b"\x00" + pixels[y * SIDE : (y + 1) * SIDE] for y in range(SIDE))
    header = struct.pack(">IIBBBBB", SIDE, SIDE, 8, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 1))
        + _chunk(b"IEND", b"")
    )


def main() -> None:
    png = screenshot()
    image = ImageContent(base64.b64encode(png).decode("ascii"), "image/png")
    folder = Path(tempfile.mkdtemp())
    store = SQLiteStore(folder / "db.sqlite3", synchronous="NORMAL")
    state = ConversationState("c")
    commits = []
    for index in range(MESSAGES):
        runtime = RuntimeState(replace(state, status=Status.READY))
        message = UserMessage((image, TextContent(f"and now? ({index})")), index)
        started = Start(message, settings=TurnSettings(model="m"))
        state = replace(transition(runtime, started).state.committed, status=Status.READY)
        began = time.perf_counter()
        store.commit_input(f"in-{index}", index, state, None)
        commits.append(time.perf_counter() - began)
    loads = []
    for _ in range(7):
        began = time.perf_counter()
        loaded = store.load("c")
        loads.append(time.perf_counter() - began)
    assert loaded is not None and loaded.state.messages == state.messages
    store.close()
    size = sum(path.stat().st_size for path in folder.iterdir())
    print(f"image_mb = {len(png) / 1e6:.2f}")
    print(f"db_mb[{MESSAGES} messages] = {size / 1e6:.2f}")
    print(f"db_over_one_image_ratio = {size / len(png):.2f}")
    print(f"commit_ms_median = {statistics.median(commits) * 1000:.2f}")
    print(f"load_ms_median = {statistics.median(loads) * 1000:.2f}")


if __name__ == "__main__":
    main()
