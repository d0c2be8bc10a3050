"""Text from clients and providers, made safe to write to a log or a terminal.

A newline in a logged value would start a forged log line; an escape
sequence would reach the operator's terminal. Both are written as visible
backslash escapes instead. Nothing here imports more than `logging`, so the
command line can use it without paying for the server's imports.
"""

from __future__ import annotations

import logging


def printable(text: str) -> str:
    """`text` with every non-printable character (newline, ESC, U+2028, ...)
    written as its Python escape, e.g. `\\n`, `\\x1b`."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def logfmt_value(value: object) -> str:
    """One logfmt value: bare when it can be, else quoted and escaped."""
    text = f"{value:.3f}" if isinstance(value, float) else str(value)
    if text and text.isprintable() and not any(c in text for c in ' "=\\'):
        return text
    return '"' + printable(text.replace("\\", "\\\\").replace('"', '\\"')) + '"'


class PrintableLogs(logging.Filter):
    """Escapes control characters in every record's message, whatever logged
    it; tracebacks (formatted separately) keep their lines."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        if not text.isprintable():
            record.msg, record.args = printable(text), None
        return True
