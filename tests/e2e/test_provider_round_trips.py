"""Whole turns through the server for each wire API: parallel tool calls,
redacted thinking, text around a call, and a call cut off by an upstream
error. The request that follows is checked against the provider's rules
(`tests.llm.provider_rules`), so a history the provider would reject fails
here, not in a user's chat."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cursor_byok.client.client import kind
from cursor_byok.llm.types import AssistantMessage, HistoryRepair, ToolResultMessage, UserMessage
from tests.e2e.provider_turns import ModelUnderTest, server_for
from tests.llm import wire_streams as wire
from tests.llm.loopback import Reply
from tests.llm.provider_rules import check_request


def _anthropic_results(body: dict[str, Any]) -> list[str]:
    return [
        b["tool_use_id"]
        for m in body["messages"]
        if m["role"] == "user"
        for b in m["content"]
        if b["type"] == "tool_result"
    ]


def _chat_results(body: dict[str, Any]) -> list[str]:
    return [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]


def _responses_results(body: dict[str, Any]) -> list[str]:
    return [i["call_id"] for i in body["input"] if i.get("type") == "function_call_output"]


def _gemini_results(body: dict[str, Any]) -> list[str]:
    return [
        p["functionResponse"]["response"]["output"]
        for c in body["contents"]
        for p in c["parts"]
        if "functionResponse" in p
    ]


@dataclass(frozen=True)
class ApiCase:
    name: str
    model: ModelUnderTest
    stream: Callable[[Sequence[wire.Block]], bytes]
    lead: tuple[wire.Block, ...]
    """What the model says before its calls (reasoning, in the API's form)."""
    results: Callable[[dict[str, Any]], list[str]]
    """The tool results of a request, in order, as call ids (Gemini: outputs)."""

    def __str__(self) -> str:
        return self.name


CASES = [
    ApiCase(
        "anthropic",
        ModelUnderTest("anthropic", "claude-sonnet-4-5", thinking="low"),
        wire.anthropic,
        (wire.Thinking("Read the files.", "sig-anthropic"), wire.Text("Reading them.")),
        _anthropic_results,
    ),
    ApiCase(
        "openai-chat",
        ModelUnderTest("openai-chat", "gpt-4.1", vendor="openai"),
        wire.chat,
        (wire.Text("Reading them."),),
        _chat_results,
    ),
    ApiCase(
        "deepseek-thinking",
        ModelUnderTest("openai-chat", "deepseek-reasoner", vendor="deepseek"),
        lambda blocks: wire.chat(blocks, model="deepseek-reasoner"),
        (wire.Thinking("The user wants the files.", "reasoning_content"),),
        _chat_results,
    ),
    ApiCase(
        "openai-responses",
        ModelUnderTest("openai-responses", "gpt-5-mini", thinking="low"),
        wire.responses,
        (wire.Thinking("Read the files.", "gAAAAencrypted"),),
        _responses_results,
    ),
    ApiCase(
        "gemini",
        ModelUnderTest("gemini", "gemini-3-pro-preview", thinking="high"),
        wire.gemini,
        (wire.Thinking("Read the files.", "sig-gemini-thought"),),
        _gemini_results,
    ),
]

PATHS = ("a.txt", "b.txt", "c.txt")
GOLDEN = Path(__file__).parent / "golden"


def without_prompt(body: dict[str, Any]) -> dict[str, Any]:
    """The request minus the system prompt and tool list, which the Cursor
    dialect owns; what is left is this layer's doing."""
    kept = {
        k: v
        for k, v in body.items()
        if k not in ("system", "instructions", "systemInstruction", "tools")
    }
    if "messages" in kept:
        kept["messages"] = [m for m in kept["messages"] if m.get("role") != "system"]
    return kept


def history_kinds(messages: Sequence[object]) -> list[str]:
    names = {
        UserMessage: "user",
        AssistantMessage: "assistant",
        ToolResultMessage: "result",
        HistoryRepair: "repair",
    }
    return [names[type(m)] for m in messages]


@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("case", CASES, ids=str)
async def test_parallel_calls_round_trip(case: ApiCase, width: int, tmp_path: Path) -> None:
    calls = wire.reads(*PATHS[:width])
    replies = [
        Reply(case.stream([*case.lead, *calls])),
        Reply(case.stream([wire.Text("All read.")])),
    ]
    async with server_for(case.model, replies, tmp_path) as server:
        turn = await server.turn("r-1", "Read the files.")
        received = server.provider.received
        loaded = server.store.load("conv-1")
    assert turn.end.error is None, turn.end
    assert turn.text().endswith("All read.")
    assert len(received) == 2
    first = check_request(case.model.api, received[0].body, case.model.model)
    second = check_request(case.model.api, received[1].body, case.model.model)
    results = case.results(second)
    if case.model.api == "gemini":
        assert results == [f"contents of {p}\n" for p in PATHS[:width]]
    else:
        assert results == [c.id for c in calls]
        for path in PATHS[:width]:
            assert f"contents of {path}".encode() in received[1].body
    # The second request extends the first: its history is a byte prefix.
    history_key = {"openai-responses": "input", "gemini": "contents"}.get(
        case.model.api, "messages"
    )
    assert second[history_key][: len(first[history_key]) - 1] == first[history_key][:-1]
    assert loaded is not None
    assert history_kinds(loaded.state.messages) == [
        "user",
        "assistant",
        *["result"] * width,
        "assistant",
    ]
    golden = GOLDEN / f"parallel-{width}-{case.name}.json"
    assert without_prompt(second) == json.loads(golden.read_text()), golden.name


async def test_anthropic_redacted_thinking_is_replayed_unchanged(tmp_path: Path) -> None:
    case = CASES[0]
    opaque = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP"
    replies = [
        Reply(wire.anthropic([wire.Redacted(opaque), *wire.reads("a.txt", "b.txt")])),
        Reply(wire.anthropic([wire.Text("Done.")])),
    ]
    async with server_for(case.model, replies, tmp_path) as server:
        turn = await server.turn("r-1", "Read two files.")
        received = server.provider.received
    assert turn.end.error is None
    second = check_request("anthropic", received[1].body)
    assistant = second["messages"][1]
    assert assistant["content"][0] == {"type": "redacted_thinking", "data": opaque}
    assert [b["type"] for b in assistant["content"]] == [
        "redacted_thinking",
        "tool_use",
        "tool_use",
    ]
    assert second["thinking"]["type"] == "enabled"


async def test_anthropic_text_around_a_tool_call_keeps_its_order(tmp_path: Path) -> None:
    case = CASES[0]
    blocks: list[wire.Block] = [
        wire.Thinking("One file first.", "sig-1"),
        wire.Text("Let me look."),
        *wire.reads("a.txt"),
        wire.Text("Reading it now."),
    ]
    replies = [Reply(wire.anthropic(blocks)), Reply(wire.anthropic([wire.Text("Done.")]))]
    async with server_for(case.model, replies, tmp_path) as server:
        turn = await server.turn("r-1", "Read a.txt.")
        received = server.provider.received
    assert turn.end.error is None
    assert "Let me look.Reading it now.Done." in turn.text()
    second = check_request("anthropic", received[1].body)
    assistant, results = second["messages"][1], second["messages"][2]
    kinds = [b["type"] for b in assistant["content"]]
    assert kinds == ["thinking", "text", "tool_use", "text"]
    assert [b["type"] for b in results["content"]] == ["tool_result"]


def _cut_gemini(blocks: Sequence[wire.Block]) -> Reply:
    """Gemini sends a call whole: the connection drops inside its chunk."""
    body = wire.gemini(blocks)
    return Reply(body, cut_after=body.index(b'"functionCall"') + 24, chunk_size=64)


CUT: dict[str, Callable[[Sequence[wire.Block]], Reply]] = {
    "anthropic": lambda b: Reply(wire.anthropic(b, cut_in_call=len(b) - 1)),
    "openai-chat": lambda b: Reply(wire.chat(b, cut_in_call=1)),
    "deepseek-thinking": lambda b: Reply(wire.chat(b, model="deepseek-reasoner", cut_in_call=1)),
    "openai-responses": lambda b: Reply(wire.responses(b, cut_in_call=len(b) - 1)),
    "gemini": _cut_gemini,
}


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_an_error_inside_a_calls_arguments_leaves_nothing_half_made(
    case: ApiCase, tmp_path: Path
) -> None:
    blocks: list[wire.Block] = [wire.Text("Reading them."), *wire.reads("a.txt", "b.txt")]
    replies = [CUT[case.name](blocks), Reply(case.stream([wire.Text("Here again.")]))]
    async with server_for(case.model, replies, tmp_path) as server:
        failed = await server.turn("r-1", "Read the files.")
        again = await server.turn("r-2", "Try again.")
        received = server.provider.received
        loaded = server.store.load("conv-1")
    assert failed.end.error is not None
    assert again.end.error is None and again.text() == "Here again."
    assert len(received) == 2
    second = check_request(case.model.api, received[1].body, case.model.model)
    for marker in ("tool_use", "tool_calls", "function_call", "functionCall", "call_1"):
        assert marker not in str(second), f"{marker} of the cut-off response reached the request"
    assert loaded is not None
    assert history_kinds(loaded.state.messages) == ["user", "user", "assistant"]


RULE = "messages.1.content.0.thinking.signature: Invalid `signature` in `thinking` block"
REJECTIONS = {
    "anthropic": {"type": "error", "error": {"type": "invalid_request_error", "message": RULE}},
    "openai-chat": {"error": {"message": RULE, "type": "invalid_request_error", "code": None}},
    "openai-responses": {"error": {"message": RULE, "type": "invalid_request_error"}},
    "gemini": {"error": {"code": 400, "message": RULE, "status": "INVALID_ARGUMENT"}},
}


@pytest.mark.parametrize("case", CASES, ids=str)
async def test_a_rejected_history_is_repaired_for_the_next_turn(
    case: ApiCase, tmp_path: Path
) -> None:
    rejection = json.dumps(REJECTIONS[case.model.api]).encode()
    replies = [
        Reply(case.stream([*case.lead, *wire.reads("a.txt", "b.txt")])),
        Reply(rejection, status=400, content_type="application/json"),
        Reply(case.stream([wire.Text("Back on track.")])),
    ]
    async with server_for(case.model, replies, tmp_path) as server:
        rejected = await server.turn("r-1", "Read the files.")
        again = await server.turn("r-2", "Try again.")
        received = server.provider.received
        loaded = server.store.load("conv-1")
    assert rejected.end.error is not None and RULE in str(rejected.end.error["message"])
    assert "plain text" in str(rejected.end.error["message"])
    assert again.end.error is None and again.text() == "Back on track."
    third = check_request(case.model.api, received[2].body, case.model.model)
    # The rejected history went out again only as text: no signatures, no call structure.
    for marker in ("sig-", "gAAAA", "tool_use", "tool_calls", "function_call", "functionCall"):
        assert marker not in str(third), marker
    assert b"[called read_file" in received[2].body
    assert b"[result of read_file]" in received[2].body
    assert loaded is not None
    kinds = history_kinds(loaded.state.messages)
    assert kinds == ["user", "assistant", "result", "result", "repair", "user", "assistant"]


@pytest.mark.parametrize("case", [c for c in CASES if c.model.api != "gemini"], ids=str)
async def test_calls_cut_off_by_the_output_limit_are_not_run_and_replay_validly(
    case: ApiCase, tmp_path: Path
) -> None:
    """Gemini sends calls whole, so only the streaming APIs can cut one."""
    whole, cut = wire.reads("a.txt", "b.txt")
    cut = wire.Call(cut.id, cut.name, cut.arguments, truncated=True)
    replies = [
        Reply(case.stream([*case.lead, whole, cut])),
        Reply(case.stream([wire.Text("Smaller steps then.")])),
    ]
    async with server_for(case.model, replies, tmp_path) as server:
        first = await server.turn("r-1", "Read the files.")
        second = await server.turn("r-2", "Go on.")
        received = server.provider.received
        loaded = server.store.load("conv-1")
    assert first.end.error is None and second.end.error is None
    assert "exec" not in [kind(i) for i in first.received]  # neither call ran
    body = check_request(case.model.api, received[1].body, case.model.model)
    assert case.results(body) == ["call_1", "call_2"]
    assert b"output token limit" in received[1].body
    assert loaded is not None
    assert history_kinds(loaded.state.messages) == [
        "user",
        "assistant",
        "result",
        "result",
        "user",
        "assistant",
    ]
