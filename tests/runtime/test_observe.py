"""Metrics bookkeeping and the log line format."""

from __future__ import annotations

import logging

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
