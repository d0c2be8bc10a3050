"""Subagents on the dashboard's timeline, through the real server on a real
socket and a real SQLite file: a conversation shows each child where the
Task call that started it is (a client-run child, found through the link
its first run recorded, and a server-run one, found by its key), with its
kind, model and state and a link to its own timeline, in the viewer's
namespace; a child's timeline names its parent with a link."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from html import unescape
from pathlib import Path

import aiohttp
import pytest

from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import Message, TextContent, ToolCall, ToolResultMessage, UserMessage
from cursor_byok.loop import ConversationState, Status
from cursor_byok.loop.state import SubagentOf, TurnSettings
from cursor_byok.store.owners import scoped
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.subagent_links import link_child
from cursor_byok.transport.sessions.subagent_launch import child_conversation_id
from tests.e2e.dashboard_client import Browser, text_of
from tests.e2e.users import ADMIN_TOKEN, Team, team
from tests.factories import assistant
from tests.fakes import ScriptedLLM

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
async def t(tmp_path: Path) -> AsyncIterator[Team]:
    async with team(tmp_path, ScriptedLLM([])) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


def task(call_id: str, kind: str) -> ToolCall:
    arguments = {"description": "Look", "prompt": f"Do {call_id}", "subagent_type": kind}
    return ToolCall(call_id, "Task", arguments, raw_arguments=json.dumps(arguments))


def done(call_id: str, text: str) -> ToolResultMessage:
    return ToolResultMessage(call_id, "Task", (TextContent(text),), False, timestamp=4)


def save(
    store: SQLiteStore, key: str, messages: tuple[Message, ...], status: Status, **settings: object
) -> None:
    state = ConversationState(key, 1, messages, messages_hash(messages), status=status)
    state = replace(state, settings=TurnSettings(**settings))  # type: ignore[arg-type]
    store.commit_input(f"in-{key}", 0, state, None)


def child_messages(model: str, answer: str) -> tuple[Message, ...]:
    reply = replace(assistant(TextContent(answer)), model=model)
    return (UserMessage("Do it.", timestamp=1), reply)


def parent(store: SQLiteStore, key: str) -> None:
    messages: tuple[Message, ...] = (
        UserMessage("Look at both parts.", timestamp=1),
        assistant(
            TextContent("Delegating."), task("call-c", "explore"), task("call-s", "generalPurpose")
        ),
        done("call-c", "Part one is fine."),
        done("call-s", "Part two failed."),
        assistant(TextContent("All looked at.")),
    )
    save(store, key, messages, Status.FINAL, model="big")


async def test_each_subagent_is_shown_at_its_task_call_and_links_both_ways(
    t: Team, http: aiohttp.ClientSession
) -> None:
    key = "conv-lead"
    parent(t.store, key)
    client_child = "agent-c"
    link_child(t.store, key, "call-c", client_child)
    save(
        t.store,
        client_child,
        child_messages("small", "Part one is fine."),
        Status.FINAL,
        model="small",
        parent=SubagentOf(key, "call-c"),
    )
    server_child = child_conversation_id(key, "call-s")
    save(
        t.store,
        server_child,
        child_messages("tiny", "Part two failed."),
        Status.FAILED,
        model="tiny",
        parent=SubagentOf(key, "call-s"),
    )
    admin = Browser(t.url, http)
    await admin.sign_in(ADMIN_TOKEN)
    status, page, _ = await admin.get(f"/ui/conversations/{key}")
    assert status == 200
    words = text_of(page)
    marks = ("Delegating.", f"Subagent {client_child}", f"Subagent {server_child}", "Part one")
    at = [words.index(mark) for mark in marks]
    assert at == sorted(at), words
    assert f"Subagent {client_child} (explore, model small, final, 2 messages)" in words
    assert f"Subagent {server_child} (generalPurpose, model tiny, failed, 2 messages)" in words
    for child in (client_child, server_child):
        href = re.search(rf'Subagent <a href="([^"]+)">{re.escape(child)}</a>', page)
        assert href is not None
        status, child_page, _ = await admin.get(unescape(href.group(1)))
        assert status == 200
        child_words = text_of(child_page)
        assert f"A subagent of {key}" in child_words, child_words
        back = re.search(r'A subagent of <a href="([^"]+)">', child_page)
        assert back is not None and unescape(back.group(1)) == f"/ui/conversations/{key}"
    _, client_page, _ = await admin.get(f"/ui/conversations/{client_child}")
    assert "started by its Task call call-c" in text_of(client_page)


async def test_a_users_subagents_are_linked_in_their_own_namespace(
    t: Team, http: aiohttp.ClientSession
) -> None:
    key = scoped(t.ana.user.id, "conv-ana")
    parent(t.store, key)
    child = scoped(t.ana.user.id, "agent-ana")
    link_child(t.store, key, "call-c", child)
    save(t.store, child, child_messages("small", "Fine."), Status.FINAL, model="small")
    ana = Browser(t.url, http)
    await ana.sign_in(t.ana.token)
    status, page, _ = await ana.get("/ui/conversations/conv-ana")
    assert status == 200
    assert "Subagent agent-ana (explore, model small, final, 2 messages)" in text_of(page)
    assert 'href="/ui/conversations/agent-ana"' in page
    _, child_page, _ = await ana.get("/ui/conversations/agent-ana")
    assert 'A subagent of <a href="/ui/conversations/conv-ana">conv-ana</a>' in child_page
