"""A team's server for the end-to-end tests: the real service on a real
socket and a real SQLite file, the administrator's token and two users with
tokens of their own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cursor_byok.client.client import CursorClient, End, Item, Stream, kind
from cursor_byok.store.base import User
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.transport.http.app import Service, build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.fakes import ScriptedLLM

ADMIN_TOKEN = "the-administrators-own-token"


@dataclass
class Member:
    user: User
    token: str
    client: CursorClient


@dataclass
class Team:
    url: str
    service: Service
    store: SQLiteStore
    llm: ScriptedLLM
    ana: Member
    bob: Member

    def key(self, member: Member, client_id: str) -> str:
        return f"{client_id}.{member.user.id}"


def add_member(store: SQLiteStore, url: str, name: str, **options: Any) -> Member:
    made = new_token()
    user = store.add_user(name, made.token_id, made.token_hash, **options)
    return Member(user, made.token, CursorClient(url, token=made.token))


@contextlib.asynccontextmanager
async def team(tmp_path: Path, llm: ScriptedLLM, **options: Any) -> AsyncIterator[Team]:
    """`options` go to `build_service`."""
    store = SQLiteStore(tmp_path / "team.sqlite3", synchronous="NORMAL")
    options = {"heartbeat_s": 0.2, "access_token": ADMIN_TOKEN, **options}
    service = build_service(store, llm, **options)
    members: list[Member] = []
    try:
        async with serving(service) as url:
            members = [add_member(store, url, "ana"), add_member(store, url, "bob")]
            yield Team(url, service, store, llm, *members)
    finally:
        for member in members:
            await member.client.close()
        store.close()


def resume(conversation_id: str, model: str = "test-model") -> pb.AgentClientMessage:
    """A run request that picks up the conversation's turn in flight."""
    return pb.AgentClientMessage(
        run_request=pb.AgentRunRequest(
            conversation_id=conversation_id,
            action=pb.ConversationAction(resume_action=pb.ResumeAction()),
            requested_model=pb.RequestedModel(model_id=model),
        )
    )


def shown(items: list[Item]) -> list[object]:
    """What a client saw, heartbeats left out: each message's kind, the end's error."""
    return [
        ("end", item.error) if isinstance(item, End) else kind(item)
        for item in items
        if isinstance(item, End) or kind(item) != "heartbeat"
    ]


async def to_the_end(stream: Stream, within: float = 10.0) -> list[Item]:
    await stream.until(lambda item: isinstance(item, End), within)
    return stream.received
