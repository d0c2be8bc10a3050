"""Metrics bookkeeping and the log line format."""

from __future__ import annotations

import io
import logging
from typing import Any

import prometheus_client
import pytest

from cursor_byok.runtime.logsafe import PrintableLogs
from cursor_byok.runtime.observe import MAX_MODEL_LABELS, Metrics, logfmt


def test_client_chosen_model_names_cannot_grow_the_labels_without_bound() -> None:
    metrics = Metrics()
    labels = {metrics.model_label(f"model-{n}") for n in range(MAX_MODEL_LABELS + 10)}
    assert len(labels) == MAX_MODEL_LABELS + 1 and "other" in labels
    assert metrics.model_label("model-0") == "model-0"


def test_logfmt_quotes_what_needs_quoting() -> None:
    line = logfmt("llm_call", model="m 1", ok=3, empty="", ratio=0.5, quote='a"b')
    assert line == 'llm_call model="m 1" ok=3 empty="" ratio=0.500 quote="a\\"b"'


def test_a_value_with_a_newline_or_escape_codes_stays_on_one_quoted_line() -> None:
    line = logfmt("llm_call", conversation="c1\nllm_call outcome=done \x1b[2J", path="C:\\x")
    assert "\n" not in line and "\x1b" not in line
    assert line == ('llm_call conversation="c1\\nllm_call outcome=done \\x1b[2J" path="C:\\\\x"')


def test_every_log_message_has_its_control_characters_escaped() -> None:
    record = logging.LogRecord(
        "cursor_byok", logging.INFO, __file__, 1, "request %s failed", ("a\nb\x1b[31m",), None
    )
    assert PrintableLogs().filter(record)
    assert record.getMessage() == "request a\\nb\\x1b[31m failed"


def test_secrets_are_taken_out_before_escaping_and_the_message_is_formatted_once() -> None:
    formatted: list[str] = []

    class Arg:
        def __str__(self) -> str:
            formatted.append("once")
            return "key sk-SECRET-1234\x1b[2J" if len(formatted) == 1 else "plain"

    record = logging.LogRecord("cursor_byok", logging.INFO, __file__, 1, "sent %s", (Arg(),), None)
    handler = logging.StreamHandler(io.StringIO())
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(PrintableLogs(lambda text: text.replace("sk-SECRET-1234", "***")))
    handler.handle(record)
    assert handler.stream.getvalue() == "INFO cursor_byok: sent key ***\\x1b[2J\n"
    assert formatted == ["once"]
    plain = logging.LogRecord("cursor_byok", logging.INFO, __file__, 1, "%s", (Arg(),), None)
    handler.filters = [PrintableLogs()]  # nothing to redact, nothing to escape
    handler.handle(plain)
    assert formatted == ["once", "once"]


def test_a_logged_traceback_is_redacted_and_its_messages_escaped() -> None:
    """What an exception says (a provider's reply, a client's value) goes
    through the same redaction and escaping as a message; the traceback's
    own lines stay lines."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(PrintableLogs(lambda text: text.replace("sk-SECRET-1234", "***")))
    logger = logging.getLogger("cursor_byok.test_traceback")
    logger.propagate = False
    logger.addHandler(handler)
    try:
        try:
            try:
                raise KeyError("sk-SECRET-1234")
            except KeyError as inner:
                raise ValueError("bad key sk-SECRET-1234\nINFO forged: line\x1b[2J") from inner
        except ValueError:
            logger.exception("call failed", stack_info=True)
    finally:
        logger.removeHandler(handler)
    written = stream.getvalue()
    assert "sk-SECRET-1234" not in written and "\x1b" not in written
    lines = written.splitlines()
    assert lines[0] == "ERROR cursor_byok.test_traceback: call failed"
    assert "ValueError: bad key ***\\nINFO forged: line\\x1b[2J" in lines
    assert "KeyError: '***'" in lines
    assert "The above exception was the direct cause of the following exception:" in lines
    assert not any(line.startswith("INFO forged") for line in lines)
    assert any(line.startswith("Stack (most recent call last):") for line in lines)


def test_logfmt_values_keep_their_form() -> None:
    line = logfmt("turn", n=-3, flag=True, big=10**20, name="naïve", space="a b", eq="a=b")
    assert line == 'turn n=-3 flag=True big=100000000000000000000 name=naïve space="a b" eq="a=b"'


def test_a_labelled_child_is_looked_up_in_prometheus_once(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[object, ...]] = []
    original = prometheus_client.Counter.labels

    def counting(self: Any, *values: object, **named: object) -> Any:
        asked.append(values)
        return original(self, *values, **named)

    monkeypatch.setattr(prometheus_client.Counter, "labels", counting)
    metrics = Metrics()
    first = metrics.requests.labels("/x", "200")
    first.inc()
    metrics.requests.labels("/x", "200").inc()
    assert metrics.requests.labels(path="/x", status="200") is first
    assert asked == [("/x", "200"), ()]  # the named form is not kept
    assert b'cursor_byok_requests_total{path="/x",status="200"} 2.0' in metrics.render()
