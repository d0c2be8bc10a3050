from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.common import (
    arguments_text,
    encode_body,
    frozen_tools,
    loads,
    safe_id,
)
from cursor_byok.llm.providers.render_cache import FrozenMessage
from cursor_byok.llm.serialize import canonical_dumps, request_bytes, request_from_json
from cursor_byok.llm.types import JSONObject, ToolCall, ToolDefinition
from tests.llm.conversation import reply, standard_turns, three_requests
from tests.llm.request_digests import CALL, CASES


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


def test_request_bytes_do_not_depend_on_the_hash_seed() -> None:
    """The same history renders to the same bytes in any process (prefix
    caches are keyed on bytes, and a restarted server must hit them)."""
    root = Path(__file__).resolve().parents[2]
    outputs = []
    for seed in ("0", "12345"):
        done = subprocess.run(
            [sys.executable, "-m", "tests.llm.request_digests"],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
        outputs.append(done.stdout.split())
    assert len(outputs[0]) == 12  # 4 APIs x 3 requests
    assert outputs[0] == outputs[1]
    assert len(set(outputs[0])) == 12


def test_a_request_reloaded_from_the_store_renders_the_same_bytes() -> None:
    """Stored requests come back with sorted keys (canonical JSON); a retry
    or a resumed call must still send exactly the original bytes."""
    for api, build, spec in CASES:

        def make(*content: Any, api: str = api, spec: ModelSpec = spec) -> Any:
            return reply(api, spec.provider, spec.model, *content)

        for request in three_requests(standard_turns(make, CALL)):
            reloaded = request_from_json(json.loads(request_bytes(request)))
            original = encode_body(build(spec, request, None))
            assert encode_body(build(spec, reloaded, None)) == original, api


def test_frozen_items_are_spliced_into_the_canonical_bytes() -> None:
    """Frozen items (rendered history, tool definitions) keep their bytes; a
    body made of them encodes to `canonical_dumps` of its plain form, byte
    for byte, wherever the frozen lists sit among the keys."""
    one, two = FrozenMessage({"role": "user", "é": "\ud800"}), FrozenMessage({"b": [1, 2.5]})
    bodies: list[dict[str, Any]] = [
        {"a": 1, "messages": [{"x": None}, one, two], "z": True},
        {"messages": [one], "tools": [two], "a": {"k": "v"}},
        {"tools": [two, one], "b": "s", "messages": [one]},
        {"messages": [one, two]},
        {"model": "m", "tools": [], "messages": [one]},
    ]
    for body in bodies:
        plain = json.loads(json.dumps(body))
        assert encode_body(body) == canonical_dumps(plain) == encode_body(plain)


def test_tool_definitions_are_rendered_once_per_schema_object() -> None:
    schema: JSONObject = {"type": "object", "properties": {"p": {"type": "string"}}}

    def render(tool: ToolDefinition) -> dict[str, Any]:
        return {"name": tool.name, "schema": tool.parameters}

    def other(tool: ToolDefinition) -> dict[str, Any]:
        return {"other": tool.name}

    first = frozen_tools([ToolDefinition("read", "Reads.", schema)], render)
    again = frozen_tools([ToolDefinition("read", "Reads.", schema)], render)
    assert again[0] is first[0] and first[0] == {"name": "read", "schema": schema}
    renamed = frozen_tools([ToolDefinition("look", "Reads.", schema)], render)
    assert renamed[0] == {"name": "look", "schema": schema}
    equal = frozen_tools([ToolDefinition("look", "Reads.", dict(schema))], render)
    assert equal[0] == renamed[0] and equal[0] is not renamed[0]
    assert frozen_tools([ToolDefinition("look", "Reads.", schema)], other)[0] == {"other": "look"}
    assert first is not again  # each request gets its own list to mark
