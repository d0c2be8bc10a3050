"""A client opens a conversation with its own transcript
(`UserMessageAction.conversation_history`, the SDK's path): over a real
socket, with a client that plays the official CLI. The transcript becomes
the start of history, once; a conversation with history keeps its own; bad
parts of it become notes, and nothing else of it is lost."""

from __future__ import annotations

import base64
import sqlite3
from hashlib import sha256
from pathlib import Path
from typing import Any
from unittest.mock import ANY

from cursor_byok.llm.images import not_an_image_note
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.transport.dialect.transcript import NOT_BASE64, UNSTAMPED
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import user_message
from tests.e2e.test_official_cli import answer, clean, rig
from tests.image_samples import png

CONTEXT = pb.RequestContext(env=pb.RequestContextEnv(shell="bash"))
H = pb  # short names for the transcript's messages below


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def user(*content: pb.ConversationHistoryUserContent) -> pb.ConversationHistoryMessage:
    return H.ConversationHistoryMessage(user=H.ConversationHistoryUserMessage(content=content))


def text(value: str) -> pb.ConversationHistoryUserContent:
    return H.ConversationHistoryUserContent(text=H.ConversationHistoryTextContent(text=value))


def image(data: str, mime: str | None = None) -> pb.ConversationHistoryUserContent:
    picture = H.ConversationHistoryImageContent(data=data, mime_type=mime)
    return H.ConversationHistoryUserContent(image=picture)


def said(*content: pb.ConversationHistoryAssistantContent) -> pb.ConversationHistoryMessage:
    return H.ConversationHistoryMessage(
        assistant=H.ConversationHistoryAssistantMessage(content=content)
    )


def words(value: str) -> pb.ConversationHistoryAssistantContent:
    return H.ConversationHistoryAssistantContent(text=H.ConversationHistoryTextContent(text=value))


def reasoning(value: str, signature: str) -> pb.ConversationHistoryAssistantContent:
    thought = H.ConversationHistoryReasoningContent(text=value, signature=signature)
    return H.ConversationHistoryAssistantContent(reasoning=thought)


def redacted(data: str) -> pb.ConversationHistoryAssistantContent:
    hidden = H.ConversationHistoryRedactedReasoningContent(data=data)
    return H.ConversationHistoryAssistantContent(redacted_reasoning=hidden)


def call(call_id: str, name: str, args: str) -> pb.ConversationHistoryAssistantContent:
    made = H.ConversationHistoryToolCall(tool_call_id=call_id, tool_name=name, args_json=args)
    return H.ConversationHistoryAssistantContent(tool_call=made)


def result(
    call_id: str, name: str, value: str, error: bool = False
) -> pb.ConversationHistoryMessage:
    content = H.ConversationHistoryToolResultContent(
        text=H.ConversationHistoryTextContent(text=value)
    )
    tool = H.ConversationHistoryToolMessage(
        tool_call_id=call_id, tool_name=name, content=[content], is_error=error
    )
    return H.ConversationHistoryMessage(tool=tool)


def opening(message: str, *transcript: pb.ConversationHistoryMessage) -> pb.ConversationAction:
    """The run request's action: the user's message after the transcript."""
    action = user_message(message, CONTEXT)
    action.user_message_action.conversation_history.messages.extend(transcript)
    return action


PICTURE = png(3, 2)
TRANSCRIPT = (
    user(text("What does main.py print?"), image(b64(PICTURE), "image/jpeg")),
    said(
        reasoning("Read the file first.", "sig-1"),
        redacted("opaque-2"),
        words("Let me look."),
        call("call-1", "read_file", '{"path": "main.py"}'),
    ),
    result("call-1", "read_file", 'print("hi")'),
    said(words('It prints "hi".')),
)


def roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


async def test_a_transcript_opens_the_conversation_and_later_requests_keep_its_bytes(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, "proto", [answer("Done."), answer("Still done.")]) as r:
        clean(await r.cli.run(opening("And now make it print bye.", *TRANSCRIPT), "sonnet"))
        clean(await r.cli.run(user_message("Thanks.", CONTEXT), "sonnet"))
        first, second = r.request(0), r.request(1)
        raw = [r.llm.requests[0][1], r.llm.requests[1][1]]
    assert roles(first) == ["user", "assistant", "toolResult", "assistant", "user"]
    head, reply, tool, last, asked = first["messages"]
    assert head["content"] == [
        {"type": "text", "text": "What does main.py print?"},
        {"type": "image", "data": b64(PICTURE), "mimeType": "image/png"},  # typed by its bytes
    ]
    assert reply["content"] == [
        {"type": "thinking", "thinking": "Read the file first.", "thinkingSignature": "sig-1"},
        {"type": "thinking", "thinking": "", "thinkingSignature": "opaque-2", "redacted": True},
        {"type": "text", "text": "Let me look."},
        {
            "type": "toolCall",
            "id": "call-1",
            "name": "read_file",
            "arguments": {"path": "main.py"},
            "rawArguments": '{"path": "main.py"}',
        },
    ]
    assert reply["api"] == UNSTAMPED  # no router names the model here
    assert tool["toolCallId"] == "call-1" and tool["content"] == [
        {"type": "text", "text": 'print("hi")'}
    ]
    assert last["content"] == [{"type": "text", "text": 'It prints "hi".'}]
    assert asked == {"role": "user", "content": "And now make it print bye.", "timestamp": ANY}
    # The next request starts with the same messages, byte for byte: the prefix cache hits.
    assert second["messages"][:5] == first["messages"]
    prefix = b'{"messages":' + canonical_dumps(first["messages"])[:-1]
    assert raw[0].startswith(prefix) and raw[1].startswith(prefix)
    with sqlite3.connect(tmp_path / "db.sqlite3") as db:
        stored = db.execute("SELECT sha256 FROM images").fetchall()
    assert stored == [(sha256(PICTURE).hexdigest(),)]  # stored once, by hash


async def test_a_resent_run_does_not_add_the_transcript_twice(tmp_path: Path) -> None:
    action = opening("And now make it print bye.", *TRANSCRIPT)
    async with rig(tmp_path, "proto", [answer("Done."), answer("Again?")]) as r:
        clean(await r.cli.run(action, "sonnet"))
        before = r.store.load("conv-cli")
        await r.cli.run(action, "sonnet")  # the same message, on a new request id
        after = r.store.load("conv-cli")
        calls = len(r.llm.requests)
        ignored = r.service.hub.counters.ignored_transcripts
    assert before is not None and after is not None
    assert len(before.state.messages) == 6  # the transcript, the message, the answer
    assert after.state.messages == before.state.messages
    assert calls == 1 and ignored == 0


async def test_a_conversation_with_history_keeps_it_and_the_transcript_is_left_out(
    tmp_path: Path,
) -> None:
    async with rig(tmp_path, "proto", [answer("Hello."), answer("Bye.")]) as r:
        clean(await r.cli.run(user_message("Hi.", CONTEXT), "sonnet"))
        clean(await r.cli.run(opening("Bye.", *TRANSCRIPT), "sonnet"))
        second = r.request(1)
        metrics = (await r.cli.client.get("/metrics")).text
    assert [m["content"] for m in second["messages"] if m["role"] == "user"] == ["Hi.", "Bye."]
    assert roles(second) == ["user", "assistant", "user"]
    assert 'cursor_byok_ignored_client_messages{reason="ignored_transcript"} 1.0' in metrics


async def test_bad_parts_of_a_transcript_become_notes_and_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    transcript = (
        user(text("Two pictures:"), image("not base64!"), image(b64(b"plain text"), "image/png")),
        said(words("I cannot see them.")),
        result("call-9", "run_terminal_cmd", "exit 1", error=True),  # names no call
        user(image(f"data:image/png;base64,{b64(PICTURE)}")),  # a data URL is taken
    )
    async with rig(tmp_path, "proto", [answer("Noted.")]) as r:
        clean(await r.cli.run(opening("Go on.", *transcript), "sonnet"))
        first = r.request(0)
    assert roles(first) == ["user", "assistant", "user", "user", "user"]
    pictures, _, orphan, data_url, _ = first["messages"]
    assert pictures["content"] == [
        {"type": "text", "text": "Two pictures:"},
        {"type": "text", "text": NOT_BASE64},
        {"type": "text", "text": not_an_image_note("image/png")},
    ]
    assert orphan["content"] == "[result of run_terminal_cmd (error)]\nexit 1"
    assert data_url["content"] == [{"type": "image", "data": b64(PICTURE), "mimeType": "image/png"}]


async def test_a_transcript_over_the_request_budget_is_refused_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    """Refused as a request id's buffered appends over the cap are, with the
    same error; the conversation stays as it was, ready for a smaller one."""
    big = (user(text("x" * 2 * 1024 * 1024)),)
    cap = 1024 * 1024
    async with rig(tmp_path, "proto", [answer("Hello.")], request_memory_bytes=cap) as r:
        refused = await r.cli.run(opening("Read all that.", *big), "sonnet")
        calls = len(r.llm.requests)
        clean(await r.cli.run(opening("Hi.", *TRANSCRIPT[:2]), "sonnet"))
        loaded = r.store.load("conv-cli")
    assert refused.error is not None and refused.error["code"] == "resource_exhausted"
    message = str(refused.error["message"])
    assert "the conversation history could not be taken" in message
    assert "over the limit of 1048576 bytes per request id" in message
    assert calls == 0
    assert loaded is not None and len(loaded.state.messages) == 4  # the smaller one, whole
