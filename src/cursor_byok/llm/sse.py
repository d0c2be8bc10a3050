"""A lenient, incremental Server-Sent Events parser: bytes in, events out.

Providers and proxies bend the SSE grammar: `data:` with or without a space,
CRLF, LF or lone CR line ends (Gemini separates events with CRLF CRLF), comment
lines (OpenRouter's `: OPENROUTER PROCESSING`), events without an `event:`
line. The parser accepts all of them and never raises: a line it does not
understand is skipped, as the SSE specification says.

It is sans-I/O (fed bytes, no socket) so the same object serves the HTTP
stream, the fixture tests and the CPU benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event. `event` is empty when the server sent no `event:` line."""

    event: str
    data: str


class SSEParser:
    """Feed arbitrary byte chunks with `feed`; call `flush` at end of stream."""

    __slots__ = ("_buffer", "_data", "_event", "_has_data", "_skip_lf")

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []
        self._has_data = False
        self._skip_lf = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if self._skip_lf and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self._skip_lf = False
        buffer = self._buffer + chunk if self._buffer else chunk
        start = 0
        size = len(buffer)
        while start < size:
            lf = buffer.find(b"\n", start)
            cr = buffer.find(b"\r", start, lf if lf >= 0 else size)
            if cr >= 0:
                end, next_start = cr, cr + 1
                if next_start < size:
                    if buffer[next_start] == 0x0A:
                        next_start += 1
                elif lf < 0:
                    # A CR at the very end: the LF of a CRLF may still come.
                    self._skip_lf = True
            elif lf >= 0:
                end, next_start = lf, lf + 1
            else:
                break
            self._line(buffer[start:end], events)
            start = next_start
        self._buffer = buffer[start:]
        return events

    def flush(self) -> list[SSEEvent]:
        """End of stream: a last line without a newline still counts, and an
        event whose blank line never came is dispatched (servers that close
        the connection right after the final `data:` line)."""
        events: list[SSEEvent] = []
        if self._buffer:
            self._line(self._buffer, events)
            self._buffer = b""
        self._line(b"", events)
        return events

    def _line(self, raw: bytes, events: list[SSEEvent]) -> None:
        if not raw:
            if self._has_data:
                events.append(SSEEvent(self._event, "\n".join(self._data)))
            self._event = ""
            self._data = []
            self._has_data = False
            return
        line = raw.decode("utf-8", "replace")
        if line[0] == ":":
            return
        field, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if field == "data":
            self._data.append(value)
            self._has_data = True
        elif field == "event":
            self._event = value
