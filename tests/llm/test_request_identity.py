"""A request's identity: equal requests name the same hash, any differing
part names another, and the parts give the request back."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.request_identity import identify, rebuild
from cursor_byok.llm.serialize import messages_hash, request_bytes
from cursor_byok.llm.types import RequestMessages, ToolDefinition
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
