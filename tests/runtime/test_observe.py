"""Metrics bookkeeping and the log line format."""

from __future__ import annotations

from cursor_byok.runtime.observe import MAX_MODEL_LABELS, Metrics, logfmt


def test_client_chosen_model_names_cannot_grow_the_labels_without_bound() -> None:
    metrics = Metrics()
    labels = {metrics.model_label(f"model-{n}") for n in range(MAX_MODEL_LABELS + 10)}
    assert len(labels) == MAX_MODEL_LABELS + 1 and "other" in labels
    assert metrics.model_label("model-0") == "model-0"


def test_logfmt_quotes_what_needs_quoting() -> None:
    line = logfmt("llm_call", model="m 1", ok=3, empty="", ratio=0.5, quote='a"b')
    assert line == 'llm_call model="m 1" ok=3 empty="" ratio=0.500 quote="a\\"b"'
