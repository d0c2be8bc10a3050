"""Canonical serialization: one byte form, pi-ai's field names, chained hashes."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cursor_byok.llm import canonical, serialize
from cursor_byok.llm.encodings import Encodings
from cursor_byok.llm.serialize import (
    EMPTY_MESSAGES_HASH,
    DecodeError,
    canonical_dumps,
    extend_messages_hash,
    message_bytes,
    message_from_json,
    message_hash,
    message_to_json,
    messages_hash,
    request_bytes,
    request_from_json,
    request_hash,
    request_to_json,
    serialize_messages,
)
from cursor_byok.llm.types import (
    AssistantMessage,
    Cost,
    ImageContent,
    JSONValue,
    Message,
    RequestMessages,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from tests.factories import READ_TOOL, assistant, result, tool_call, user

RICH = AssistantMessage(
    content=(
        ThinkingContent("plan", "sig=="),
        ThinkingContent("[redacted]", "opaque", redacted=True),
        TextContent("héllo ✓", text_signature="msg_1"),
        ToolCall("t1", "read_file", {"path": "a.txt", "n": [1, 2.5]}, '{"path":"a.txt"}', "ts"),
    ),
    api="anthropic-messages",
    provider="anthropic",
    model="claude",
    usage=Usage(1, 2, 3, 4, 10, 1, Cost(0.1, 0.2, 0.3, 0.4, 1.0)),
    stop_reason="toolUse",
    response_id="msg_abc",
    error_message=None,
    timestamp=1_700_000_000_000,
)


def test_canonical_bytes_sort_keys_and_drop_whitespace() -> None:
    assert canonical_dumps({"b": 1, "a": [1, {"d": None, "c": "é"}]}) == (
        '{"a":[1,{"c":"é","d":null}],"b":1}'.encode()
    )


def test_canonical_bytes_reject_nan() -> None:
    with pytest.raises(ValueError):
        canonical_dumps({"x": float("nan")})


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=())),  # lone surrogates too
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(
            st.text(st.characters(exclude_categories=()), max_size=6), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_canonical_bytes_are_json_dumps_bytes(value: object) -> None:
    """The reused encoder gives, byte for byte, what `json.dumps` with the
    canonical options gives: stored hashes never move."""
    slow = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
    )
    assert canonical_dumps(value) == slow.encode("utf-8", "surrogatepass")  # type: ignore[arg-type]


def test_without_the_c_encoder_the_canonical_bytes_come_from_json_dumps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    value: JSONValue = {"b": [1.5, None, "\ud800"], "a": {"é": True}}
    assert canonical._reused_encoder() is not canonical._dumps_slowly  # this build has it
    monkeypatch.setattr(json.encoder, "c_make_encoder", None)
    assert canonical._reused_encoder() is canonical._dumps_slowly
    assert canonical._dumps_slowly(value).encode("utf-8", "surrogatepass") == (
        canonical_dumps(value)
    )


def test_canonical_bytes_reject_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        canonical_dumps({"x": object()})  # type: ignore[dict-item]
    with pytest.raises(ValueError):
        canonical_dumps([float("inf")])


def test_messages_use_pi_ai_field_names() -> None:
    doc = json.loads(message_bytes(RICH))
    assert doc["role"] == "assistant"
    assert doc["stopReason"] == "toolUse"
    assert doc["responseId"] == "msg_abc"
    assert [b["type"] for b in doc["content"]] == ["thinking", "thinking", "text", "toolCall"]
    assert doc["content"][0]["thinkingSignature"] == "sig=="
    assert doc["content"][1]["redacted"] is True
    assert doc["content"][2]["textSignature"] == "msg_1"
    assert doc["content"][3]["rawArguments"] == '{"path":"a.txt"}'
    assert doc["content"][3]["thoughtSignature"] == "ts"
    assert set(doc["usage"]) == {
        "input",
        "output",
        "cacheRead",
        "cacheWrite",
        "totalTokens",
        "reasoning",
        "cost",
    }
    tool = json.loads(message_bytes(result("t1")))
    assert tool["role"] == "toolResult" and tool["toolCallId"] == "t1" and tool["isError"] is False


def test_unset_optional_fields_are_omitted() -> None:
    doc = json.loads(message_bytes(assistant(TextContent("x"))))
    assert "errorMessage" not in doc
    assert "textSignature" not in doc["content"][0]
    assert "reasoning" not in doc["usage"]


@pytest.mark.parametrize(
    "message",
    [
        RICH,
        user("plain"),
        UserMessage((TextContent("see"), ImageContent("aGk=", "image/png")), 5),
        result("t1", "boom", is_error=True),
        ToolResultMessage("t2", "ls", (ImageContent("aGk=", "image/png"),)),
        assistant(TextContent("x"), stop_reason="error"),
    ],
)
def test_every_message_round_trips_to_the_same_bytes(message: object) -> None:
    data = message_bytes(message)  # type: ignore[arg-type]
    back = message_from_json(json.loads(data))
    assert back == message
    assert message_bytes(back) == data


def test_lone_surrogates_survive_a_round_trip() -> None:
    message = user("bad \ud800 text")
    data = message_bytes(message)
    assert message_from_json(json.loads(data.decode("utf-8", "surrogatepass"))) == message


@pytest.mark.parametrize(
    "doc",
    [
        {"role": "robot"},
        {"role": "user", "content": 5, "timestamp": 0},
        {"role": "user", "content": [{"type": "toolCall"}], "timestamp": 0},
        {"role": "toolResult", "toolCallId": 1, "toolName": "x", "content": []},
        {**message_to_json(RICH), "stopReason": "weird"},
        {**message_to_json(RICH), "content": [{"type": "image", "data": "", "mimeType": "x"}]},
        {**message_to_json(RICH), "timestamp": "yesterday"},
    ],
)
def test_invalid_documents_raise_a_decode_error(doc: object) -> None:
    with pytest.raises(DecodeError):
        message_from_json(doc)


def test_the_messages_hash_is_a_chain_over_message_hashes() -> None:
    history = (user("a"), assistant(tool_call("t1")), result("t1"))
    expected = EMPTY_MESSAGES_HASH
    for message in history:
        expected = extend_messages_hash(expected, message_hash(message))
    assert messages_hash(history) == expected
    assert messages_hash(history[2:], start=messages_hash(history[:2])) == expected
    assert messages_hash(()) == EMPTY_MESSAGES_HASH
    assert messages_hash(history[:2]) != expected


def test_serialized_history_is_a_prefix_of_its_extension() -> None:
    short = (user("a"), assistant(TextContent("b")))
    longer = (*short, user("c"))
    assert serialize_messages(longer).startswith(serialize_messages(short))
    assert serialize_messages(longer) != serialize_messages(short)


def test_requests_round_trip_and_hash_their_bytes() -> None:
    request = RequestMessages("system", (user("a"), RICH), (READ_TOOL,))
    data = request_bytes(request)
    assert request_from_json(json.loads(data)) == request
    assert request_hash(request) == request_hash(request_from_json(request_to_json(request)))
    assert request_hash(request) != request_hash(RequestMessages(None, request.messages))


def test_a_message_is_encoded_once_and_an_equal_new_one_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Hashing, storing and measuring the same message object reuse one
    encoding; an equal but new object is encoded on its own."""
    encoded: list[object] = []
    real = serialize.message_to_json

    def counting(message: Message) -> dict[str, JSONValue]:
        encoded.append(message)
        return real(message)

    monkeypatch.setattr(serialize, "message_to_json", counting)
    first = user("hello there")
    data = message_bytes(first)
    assert message_hash(first) == hashlib.sha256(data).hexdigest()
    assert message_bytes(first) is data and message_hash(first) == message_hash(first)
    twin = user("hello there")
    assert message_bytes(twin) == data
    assert len(encoded) == 2 and encoded[0] is first and encoded[1] is twin


def test_remembered_encodings_stay_within_their_count_and_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    encodings = Encodings(serialize._encode, count=3, size=400)
    monkeypatch.setattr(serialize, "_encodings", encodings)
    small = [user(f"m{i}") for i in range(5)]
    for message in small:
        message_bytes(message)
    assert [e.value for e in encodings.kept.values()] == small[2:]  # the newest three
    big = user("x" * 300)
    message_bytes(big)
    kept = list(encodings.kept.values())
    assert kept[-1].value is big
    assert sum(len(e.data) for e in kept) == encodings.kept_bytes <= 400
    huge = user("y" * 1000)  # over the whole budget: encoded, not kept
    assert json.loads(message_bytes(huge))["content"] == "y" * 1000
    assert encodings.kept == {} and encodings.kept_bytes == 0
