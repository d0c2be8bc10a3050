"""The client table: what each client can show and answer, from its headers
and its run request, and what a run therefore offers the model. The
Nov-2025 CLI (and any client not known to do more) is offered no tool whose
card it cannot draw or whose query it cannot answer; newer CLIs and the IDE
are; the run request's switches turn tools off."""

from __future__ import annotations

from typing import Any

import pytest

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.clients import (
    CARDS_2025_11,
    CAUTIOUS,
    ClientHeaders,
    capabilities,
)
from cursor_byok.transport.dialect.run_request import RunStarted, decode_run_request
from cursor_byok.transport.dialect.server_tool import ServerOutcome, ServerTool, ToolContext
from cursor_byok.transport.dialect.tool_base import object_schema
from cursor_byok.transport.dialect.tools import BUILTIN, ToolSet, offered
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CLI_2025_11 = ClientHeaders("cli", "cli-2025.11.25-d5b3271")
CLI_2026_08 = ClientHeaders("cli", "cli-2026.08.11-e8db854")
IDE_3 = ClientHeaders("ide", "3.14.7")


class Question(ServerTool):
    """Stands for a tool the Nov-2025 CLI cannot take: its card is an
    ask_question card and it sends an ask_question query."""

    name = "AskQuestion"
    description = "Ask the user."
    parameters = object_schema({}, [])
    queries = ("ask_question_interaction_query",)

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        return pb.ToolCall(ask_question_tool_call=pb.AskQuestionToolCall())

    async def run(self, call: ToolCall, context: ToolContext) -> ServerOutcome:
        raise NotImplementedError


class ListWithQuestion(Question):
    """A card the Nov-2025 CLI draws, but a query it cannot answer."""

    def card(self, call: ToolCall, result: Any = None) -> pb.ToolCall:
        return pb.ToolCall(read_todos_tool_call=pb.ReadTodosToolCall())


@pytest.mark.parametrize(
    "headers",
    [
        CLI_2025_11,
        ClientHeaders("cli", "cli-2026.01.28-fd13201"),  # not known to do more
        ClientHeaders("ide", "2.0.64"),
        ClientHeaders("ide", "glass"),
        ClientHeaders("cli", "latest"),
        ClientHeaders("editor", "9.9.9"),
        ClientHeaders(),
    ],
    ids=lambda h: f"{h.type or '-'} {h.version or '-'}",
)
def test_an_older_or_unknown_client_gets_what_the_nov_2025_cli_can_do(
    headers: ClientHeaders,
) -> None:
    found = capabilities(headers)
    assert found.cards == CARDS_2025_11
    assert not found.answers("ask_question_interaction_query")
    assert not found.answers("switch_mode_request_query")
    assert not found.answers("web_fetch_request_query")
    assert not found.draws("web_fetch_tool_call") and not found.subagents
    assert not offered(Question(), found) and not offered(ListWithQuestion(), found)


@pytest.mark.parametrize("headers", [CLI_2026_08, IDE_3, ClientHeaders("acp", "2026.10.02")])
def test_a_newer_client_draws_and_answers_more(headers: ClientHeaders) -> None:
    found = capabilities(headers)
    assert found.draws("ask_question_tool_call") and found.draws("task_tool_call")
    assert found.answers("ask_question_interaction_query")
    assert found.answers("switch_mode_request_query") and found.subagents
    assert offered(Question(), found) and offered(ListWithQuestion(), found)


def test_every_built_in_tool_is_one_the_nov_2025_cli_can_take() -> None:
    plain = ToolSet.for_run(client=capabilities(CLI_2025_11))
    assert set(plain.tools) == {tool.name for tool in BUILTIN}
    assert "TodoWrite" in plain.tools


def test_headers_are_read_as_the_server_keeps_them() -> None:
    headers = {"x-cursor-client-type": " CLI ", "x-cursor-client-version": "cli-2026.08.11-e8db854"}
    assert ClientHeaders.of(headers) == CLI_2026_08
    assert ClientHeaders.of({"user-agent": "curl"}) is None
    long = ClientHeaders.of({"x-cursor-client-type": "x" * 1000})
    assert long is not None and len(long.type) == 40
    assert capabilities(CLI_2026_08).client == "cli 2026.08.11"


def run_with(context: pb.RequestContext | None, **run: Any) -> pb.AgentRunRequest:
    action = pb.UserMessageAction(user_message=pb.UserMessage(text="hi", message_id="m1"))
    if context is not None:
        action.request_context.CopyFrom(context)
    return pb.AgentRunRequest(
        conversation_id="c", action=pb.ConversationAction(user_message_action=action), **run
    )


def tools_of(run: pb.AgentRunRequest, headers: ClientHeaders) -> set[str]:
    started = decode_run_request(run, "r", 1, client=headers)
    assert isinstance(started, RunStarted) and started.start is not None
    return set(started.tools.tools)


def test_the_run_request_turns_tools_off_and_on() -> None:
    assert "read_lints" in tools_of(run_with(pb.RequestContext()), CLI_2025_11)
    off = pb.RequestContext(read_lints_enabled=False)
    assert "read_lints" not in tools_of(run_with(off), IDE_3)
    assert "read_lints" in tools_of(run_with(pb.RequestContext(read_lints_enabled=True)), IDE_3)
    web = capabilities(IDE_3, None, pb.RequestContext(web_search_enabled=True))
    assert web.offers("web_search_tool_call") and not web.offers("web_fetch_tool_call")
    assert not capabilities(IDE_3, None, pb.RequestContext()).offers("web_search_tool_call")


def test_the_run_keeps_its_capabilities_and_knows_a_subagents_own_run() -> None:
    started = decode_run_request(run_with(pb.RequestContext()), "r", 1, client=IDE_3)
    assert isinstance(started, RunStarted) and started.capabilities.client == "ide 3.14.7"
    child = decode_run_request(
        run_with(pb.RequestContext(), subagent_type_name="explore"), "r", 1, client=IDE_3
    )
    assert isinstance(child, RunStarted) and child.capabilities.child_run
    assert not started.capabilities.child_run
    unknown = decode_run_request(run_with(pb.RequestContext()), "r", 1)
    assert isinstance(unknown, RunStarted) and unknown.capabilities == CAUTIOUS
