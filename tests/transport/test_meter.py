"""The checkpoint's token_details: the real service's breakdown shape (the
recorded official checkpoint), categories that add up to the counted usage."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from google.protobuf import json_format

from cursor_byok.llm.images import PNG
from cursor_byok.llm.serialize import message_bytes
from cursor_byok.llm.types import (
    ImageContent,
    Message,
    TextContent,
    ToolResultMessage,
    UserMessage,
)
from cursor_byok.loop.compaction import IMAGE_TOKENS, summary_message
from cursor_byok.loop.state import ConversationState
from cursor_byok.transport.dialect import meter
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.factories import assistant
from tests.transport.shared_fixtures import load_cursor_fixture

CHARACTERS = {"system_prompt": 1877, "tools": 35298, "rules": 13436, "mcp": 12383}


def official() -> dict[str, Any]:
    loaded: dict[str, Any] = load_cursor_fixture("checkpoint_token_details_official.json")
    return loaded


def details_of(message: pb.AgentServerMessage) -> pb.ConversationTokenDetails:
    return message.conversation_checkpoint_update.token_details


def test_the_breakdown_has_the_official_categories_in_order() -> None:
    ours = details_of(meter.checkpoint(105094, 256000, CHARACTERS))
    recorded = json_format.ParseDict(official(), pb.ConversationTokenDetails())
    assert [(c.id, c.label) for c in ours.breakdown.categories] == [
        (c.id, c.label) for c in recorded.breakdown.categories
    ]
    as_json = json_format.MessageToDict(ours, preserving_proto_field_name=True)
    assert set(as_json) == set(official())
    assert set(as_json["breakdown"]) == set(official()["breakdown"])


def test_categories_add_up_to_the_counted_prompt() -> None:
    ours = details_of(meter.checkpoint(105094, 256000, CHARACTERS))
    assert ours.used_tokens == ours.breakdown.total_used_tokens == 105094
    assert ours.max_tokens == ours.breakdown.max_tokens == 256000
    tokens = {c.id: c.estimated_tokens for c in ours.breakdown.categories}
    assert sum(tokens.values()) == 105094
    assert tokens["tools"] == 35298 // 4 and tokens["rules"] == 13436 // 4
    assert tokens["conversation"] == 105094 - sum(c // 4 for c in CHARACTERS.values())
    characters = {c.id: c.character_count for c in ours.breakdown.categories}
    assert characters["system_prompt"] == 1877 and characters["skills"] == 0


def test_estimates_larger_than_the_count_are_scaled_down() -> None:
    ours = details_of(meter.checkpoint(1000, 8000, CHARACTERS))
    tokens = [c.estimated_tokens for c in ours.breakdown.categories]
    assert sum(tokens) == ours.used_tokens == 1000


def test_before_any_count_the_meter_is_estimated_from_characters() -> None:
    characters = {**CHARACTERS, "conversation": 4000}
    ours = details_of(meter.checkpoint(0, 8000, characters))
    assert ours.used_tokens == sum(c // 4 for c in characters.values())
    assert ours.used_tokens == sum(c.estimated_tokens for c in ours.breakdown.categories)


def test_history_characters_count_the_summary_apart() -> None:
    summary = summary_message("we read a.txt", 5)
    later = UserMessage("and b.txt?")
    state = ConversationState(
        "c", messages=(UserMessage("q"), assistant(TextContent("a")), summary, later), resets=(2,)
    )
    counted = meter.history_characters(state)
    assert counted["summarized_conversation"] == len("we read a.txt")
    assert counted["conversation"] > len("and b.txt?")
    whole = meter.history_characters(ConversationState("c", messages=(later,)))
    assert whole["summarized_conversation"] == 0


def test_a_message_is_measured_once_and_an_equal_new_one_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    measured: list[object] = []
    real = message_bytes

    def counting(message: Message) -> bytes:
        measured.append(message)
        return real(message)

    monkeypatch.setattr(meter, "message_bytes", counting)
    first = UserMessage(content="hello there", timestamp=1)
    assert meter.message_characters(first) == len(real(first))
    assert meter.message_characters(first) == len(real(first))
    twin = UserMessage(content="hello there", timestamp=1)
    assert meter.message_characters(twin) == len(real(twin))
    assert measured == [first, twin] and measured[1] is twin


def test_a_growing_conversation_is_counted_from_its_last_count_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each run adds only its new messages to the conversation's count, and
    any window that is not the last one grown (a compaction, a reload with
    new message objects) is counted whole: the figure is always the sum."""
    messages: list[Message] = []
    looked_at: list[Message] = []
    real = meter.message_characters

    def counting(message: Message) -> int:
        looked_at.append(message)
        return real(message)

    monkeypatch.setattr(meter, "message_characters", counting)

    def counted(state: ConversationState) -> int:
        looked_at.clear()
        return meter.history_characters(state)["conversation"]

    for turn in range(30):
        messages += [UserMessage(f"question {turn}"), assistant(TextContent(f"answer {turn}"))]
        state = ConversationState("grows", messages=tuple(messages))
        assert counted(state) == sum(len(message_bytes(m)) for m in messages)
        assert looked_at == messages[-2:]  # the new messages only
    reloaded = tuple(UserMessage(m.content) if isinstance(m, UserMessage) else m for m in messages)
    assert counted(ConversationState("grows", messages=reloaded)) == sum(
        len(message_bytes(m)) for m in reloaded
    )
    assert len(looked_at) == len(reloaded)  # new first object: counted whole
    summary = summary_message("all of it", 9)
    compacted = ConversationState("grows", messages=(*reloaded, summary), resets=(len(reloaded),))
    assert counted(compacted) == 0 and looked_at == []  # only the summary is left
    other = ConversationState("other", messages=tuple(messages[:3]))
    assert counted(other) == sum(len(message_bytes(m)) for m in messages[:3])


def test_an_image_counts_what_a_provider_counts_for_it_not_its_base64_length() -> None:
    data = base64.b64encode(bytes(300_000)).decode("ascii")
    text = ToolResultMessage("t1", "read_file", (TextContent("shot.png: an image"),))
    shot = ToolResultMessage("t1", "read_file", (*text.content, ImageContent(data, PNG)))
    extra = meter.message_characters(shot) - meter.message_characters(text)
    counted = IMAGE_TOKENS * meter.CHARS_PER_TOKEN
    assert counted <= extra < counted + 100  # the block's own few keys besides
