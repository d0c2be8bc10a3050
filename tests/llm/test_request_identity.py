"""A request's identity: equal requests name the same hash, any differing
part names another, and the parts give the request back."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.request_identity import identify, rebuild
from cursor_byok.llm.serialize import (
    canonical_dumps,
    messages_hash,
    request_bytes,
    tool_definition_to_json,
)
from cursor_byok.llm.types import JSONObject, RequestMessages, ToolDefinition
from tests.factories import user

TOOLS = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)


def test_each_part_changes_the_hash_and_equal_parts_do_not() -> None:
    messages = (user("a"), user("b"))
    request = RequestMessages("be brief", messages, TOOLS)
    chain = messages_hash(messages)
    base = identify(request, chain).request_hash
    same_tools_new_list = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)
    assert identify(replace(request, tools=same_tools_new_list), chain).request_hash == base
    assert identify(request, chain).request_hash == base  # the tool list measured once
    others = [
        identify(replace(request, system_prompt="be long"), chain),
        identify(replace(request, system_prompt=None), chain),
        identify(replace(request, tools=()), chain),
        identify(replace(request, messages=messages[:1]), messages_hash(messages[:1])),
    ]
    assert len({o.request_hash for o in others} | {base}) == 5


def test_the_parts_give_back_the_same_bytes() -> None:
    messages = (user("a"), user("ü"))
    request = RequestMessages(None, messages, TOOLS)
    found = identify(request, messages_hash(messages))
    back = rebuild(
        "c",
        (*messages, user("later")),
        2,
        found.messages_hash,
        found.system,
        found.tools,
        found.request_hash,
    )
    assert request_bytes(back) == request_bytes(request)


def test_tool_bytes_kept_per_schema_still_follow_name_and_description() -> None:
    """A new definition sharing a schema object with one seen before, but
    named or described otherwise, gets its own bytes, equal to the list's
    canonical JSON."""
    schema: JSONObject = {"type": "object", "properties": {"path": {"type": "string"}}}
    first = (ToolDefinition("read_file", "Read a file.", schema),)
    renamed = (ToolDefinition("open_file", "Read a file.", schema),)
    described = (ToolDefinition("read_file", "Read one file.", schema),)
    for tools in (first, renamed, described, first, ()):
        expected = canonical_dumps([tool_definition_to_json(t) for t in tools])
        assert identify(RequestMessages(None, (), tools), "").tools == expected
