"""A lenient, incremental Server-Sent Events parser: bytes in, events out.

Providers and proxies bend the SSE grammar: `data:` with or without a space,
CRLF, LF or lone CR line ends (Gemini separates events with CRLF CRLF), comment
lines (OpenRouter's `: OPENROUTER PROCESSING`), events without an `event:`
line. The parser accepts all of them: a line it does not understand is
skipped, as the SSE specification says. What it never does is hold more than
`MAX_PENDING_BYTES` of a line not yet ended or an event not yet dispatched:
past that it raises `SSETooLarge` (a provider that never ends a line would
otherwise fill the server's memory).

It is sans-I/O (fed bytes, no socket) so the same object serves the HTTP
stream, the fixture tests and the CPU benchmark.
"""

from __future__ import annotations

from typing import NamedTuple

MAX_PENDING_BYTES = 32 * 1024 * 1024
"""The most one line, or one event's lines, may hold before it ends: far
above any provider's event (a long answer, an image as base64)."""


class SSETooLarge(ValueError):
    """A line or an event grew past the cap; the message says which and
    names the cap ("a line of more than 32 MiB without ending it ...")."""


class SSEEvent(NamedTuple):
    """One dispatched event. `event` is empty when the server sent no `event:` line.
    (Immutable as a tuple: one is made per streamed event, and a named tuple is
    built in about two thirds of a frozen dataclass's time.)"""

    event: str
    data: str


class SSEParser:
    """Feed arbitrary byte chunks with `feed`; call `flush` at end of stream.

    Hot path: one decode per chunk of complete lines and a tight loop over
    them; line ends are normalized to LF first (a CR at the very end of a
    chunk is held back, since it may be the first half of a CRLF)."""

    __slots__ = ("_buffer", "_data", "_data_size", "_event", "_max", "_parked", "_parked_size")

    def __init__(self, max_pending: int = MAX_PENDING_BYTES) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []
        self._data_size = 0
        self._parked: list[bytes] = []
        self._parked_size = 0
        self._max = max_pending

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if b"\n" not in chunk and b"\r" not in chunk:
            # No line ends: park the chunk; joining once later keeps long
            # lines linear (each byte is copied a fixed number of times).
            self._parked.append(chunk)
            self._parked_size += len(chunk)
            if self._parked_size + len(self._buffer) > self._max:
                self._too_large("a line")
            return []
        if self._parked:
            self._parked.append(chunk)
            chunk = b"".join(self._parked)
            self._parked.clear()
            self._parked_size = 0
        buffer = self._buffer + chunk if self._buffer else chunk
        if b"\r" in buffer:
            held = buffer.endswith(b"\r")
            if held:
                buffer = buffer[:-1]
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            if held:
                buffer += b"\r"
        end = buffer.rfind(b"\n")
        self._buffer = buffer[end + 1 :] if end >= 0 else buffer
        if len(self._buffer) > self._max:
            self._too_large("a line")
        if end < 0:
            return []
        return self._lines(buffer[:end].decode("utf-8", "replace").split("\n"))

    def flush(self) -> list[SSEEvent]:
        """End of stream: a last line without a newline still counts, and an
        event whose blank line never came is dispatched (servers that close
        the connection right after the final `data:` line)."""
        events = self.feed(b"\n") if self._buffer or self._parked else []
        events.extend(self._lines([""]))
        return events

    def _too_large(self, what: str) -> None:
        self._buffer, self._data, self._data_size = b"", [], 0
        self._parked.clear()
        self._parked_size = 0
        raise SSETooLarge(
            f"{what} of more than {self._max / 2**20:g} MiB without ending it "
            "(the SSE line and event cap)"
        )

    def _lines(self, lines: list[str]) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        data = self._data
        size = self._data_size  # characters of `data`: an event is capped too
        event = self._event
        for line in lines:
            if not line:
                if data:
                    events.append(SSEEvent(event, data[0] if len(data) == 1 else "\n".join(data)))
                    data = []
                    size = 0
                event = ""
            elif line.startswith("data:"):
                data.append(line[6:] if line.startswith(" ", 5) else line[5:])
                size += len(line)
                if size > self._max:
                    self._too_large("an event")
            elif line.startswith("event:"):
                event = line[7:] if line.startswith(" ", 6) else line[6:]
            # Comments (":") and other fields (id, retry) are ignored.
        self._data = data
        self._data_size = size
        self._event = event
        return events
