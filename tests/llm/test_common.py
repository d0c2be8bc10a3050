from __future__ import annotations

from cursor_byok.llm.providers.common import arguments_text, loads, safe_id
from cursor_byok.llm.types import ToolCall


def test_payloads_that_jiter_refuses_still_parse() -> None:
    assert loads('{"t": "\\ud83d"}') == {"t": "\ud83d"}
    assert loads('{"a": [1, 2.5, "é"]}') == {"a": [1, 2.5, "é"]}
    assert loads("{not json") is None


def test_arguments_replay_the_raw_string_else_canonical_json() -> None:
    assert arguments_text(ToolCall("i", "n", {"b": 1, "a": "é"}, '{"b": 1,  "a":"é"}')) == (
        '{"b": 1,  "a":"é"}'
    )
    assert arguments_text(ToolCall("i", "n", {"b": 1, "a": "é"})) == '{"a":"é","b":1}'


def test_ids_are_sanitized_and_cut() -> None:
    assert safe_id("call|a+b/c=" + "x" * 80, 20) == "call_a_b_c_xxxxxxxxx"
