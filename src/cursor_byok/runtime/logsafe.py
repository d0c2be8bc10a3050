"""Text from clients and providers, made safe to write to a log or a terminal.

A newline in a logged value would start a forged log line; an escape
sequence would reach the operator's terminal. Both are written as visible
backslash escapes instead. Nothing here imports more than `logging`, so the
command line can use it without paying for the server's imports.
"""

from __future__ import annotations

import logging
from collections.abc import Callable


def printable(text: str) -> str:
    """`text` with every non-printable character (newline, ESC, U+2028, ...)
    written as its Python escape, e.g. `\\n`, `\\x1b`."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


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


class PrintableLogs(logging.Filter):
    """Escapes control characters in every record's message, whatever logged
    it, after taking secrets out of it when given a `redact`; tracebacks
    (formatted separately) keep their lines. One filter, so a record's
    message is formatted once (the handler's formatter reuses it)."""

    def __init__(self, redact: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.redact = redact

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if self.redact is not None:
            text = self.redact(text)
        if not text.isprintable():
            text = printable(text)
        record.msg, record.args = text, None
        return True
