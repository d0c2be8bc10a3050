"""Text from clients and providers, made safe to write to a log or a terminal.

A newline in a logged value would start a forged log line; an escape
sequence would reach the operator's terminal. Both are written as visible
backslash escapes instead. Nothing here imports more than `logging`, so the
command line can use it without paying for the server's imports.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterator


def printable(text: str) -> str:
    """`text` with every non-printable character (newline, ESC, U+2028, ...)
    written as its Python escape, e.g. `\\n`, `\\x1b`."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


_C1_ESCAPES = {code: f"\\u{code:04x}" for code in range(0x7F, 0xA0)}


def escape_c1(json_text: str) -> str:
    """A JSON text with DEL and the C1 controls (U+0080..U+009F) escaped as
    `\\u0085`: JSON escapes C0 controls but not these, and U+009B is CSI to
    a terminal, as ESC [ is. The same document, read back."""
    if json_text.isascii() and "\x7f" not in json_text:
        return json_text
    return json_text.translate(_C1_ESCAPES)


_QUOTED = frozenset(' "=\\')
"""Characters that make a logfmt value need quotes."""


def logfmt_value(value: object) -> str:
    """One logfmt value: bare when it can be, else quoted and escaped."""
    if type(value) is int:
        return str(value)  # digits and a sign: always bare
    text = f"{value:.3f}" if isinstance(value, float) else str(value)
    if text and text.isprintable() and _QUOTED.isdisjoint(text):
        return text
    return '"' + printable(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


_CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"


def _chain(error: BaseException) -> Iterator[str]:
    """`error`'s traceback as `traceback` prints it, causes first, each
    exception's own text (its message and notes: anyone's words) on one
    line, escaped, so it cannot start a forged log line."""
    seen: set[int] = set()
    parts: list[str] = []
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        said = "".join(traceback.format_exception_only(current)).rstrip("\n")
        block = [printable(said) + "\n"]
        if current.__traceback__ is not None:
            block[:0] = ["Traceback (most recent call last):\n"]
            block[1:1] = traceback.format_tb(current.__traceback__)
        parts[:0] = block
        if current.__cause__ is not None:
            parts[:0] = [_CAUSE]
            current = current.__cause__
        elif current.__context__ is not None and not current.__suppress_context__:
            parts[:0] = [_CONTEXT]
            current = current.__context__
        else:
            current = None
    yield from parts


class PrintableLogs(logging.Filter):
    """Escapes control characters in every record's message, whatever logged
    it, after taking secrets out of it when given a `redact`; tracebacks
    (`exc_info`, `stack_info`) are redacted and escaped alike, but keep their
    lines. One filter, so a record's message is formatted once (the
    handler's formatter reuses it, and the traceback text set here)."""

    def __init__(self, redact: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.redact = redact

    def _safe(self, text: str) -> str:
        if self.redact is not None:
            text = self.redact(text)
        return text if text.isprintable() else printable(text)

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = self._safe(record.getMessage()), None
        if record.exc_info and record.exc_info[1] is not None:
            text = "".join(_chain(record.exc_info[1])).rstrip("\n")
            record.exc_text = "\n".join(self._safe(line) for line in text.split("\n"))
        if record.stack_info:
            lines = record.stack_info.split("\n")
            record.stack_info = "\n".join(self._safe(line) for line in lines)
        return True
