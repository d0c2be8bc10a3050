from __future__ import annotations

from cursor_byok.llm.partial_json import parse_complete, parse_partial


def test_partial_string_is_kept_as_far_as_it_goes() -> None:
    assert parse_partial('{"path": "/tmp/fo') == {"path": "/tmp/fo"}


def test_empty_or_broken_buffers_give_an_empty_object() -> None:
    assert parse_partial("") == {}
    assert parse_partial("  ") == {}
    assert parse_partial("}{") == {}


def test_non_object_json_is_not_an_argument_value() -> None:
    assert parse_partial("[1, 2]") == {}
    assert parse_complete('"text"') == {}


def test_complete_parse_falls_back_to_the_readable_prefix() -> None:
    assert parse_complete('{"a": 1, "b": [1, 2]}') == {"a": 1, "b": [1, 2]}
    assert parse_complete('{"a": 1, "b": "unfinished') == {"a": 1, "b": "unfinished"}


def test_numbers_json_cannot_carry_back_are_not_arguments() -> None:
    assert parse_complete('{"timeout": 1e999}') == {}
    assert parse_complete('{"a": [1, NaN]}') == {}
    assert parse_partial('{"a": 1e999, "b": "x') == {}
    assert parse_complete('{"a": 1.5}') == {"a": 1.5}
