"""Server processes on one PostgreSQL database, run in-process for tests:
each a real service on a real socket with its own store pool and model."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from cursor_byok.cluster.leased_runner import LeasedRunner
from cursor_byok.cluster.processes import LEASE_S, Cluster
from cursor_byok.cluster.relay import RelayingHub
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.transport.http.app import Service, build_service, serving
from tests.fakes import ScriptedLLM


@dataclass
class Node:
    url: str
    service: Service
    store: PostgresStore
    llm: ScriptedLLM

    @property
    def hub(self) -> RelayingHub:
        assert isinstance(self.service.hub, RelayingHub)
        return self.service.hub

    @property
    def runner(self) -> LeasedRunner:
        assert isinstance(self.service.runner, LeasedRunner)
        return self.service.runner

    @property
    def model_calls(self) -> int:
        return len(self.llm.requests)


@contextlib.asynccontextmanager
async def node(
    url: PostgresURL, llm: ScriptedLLM, lease_s: float = LEASE_S, **options: Any
) -> AsyncIterator[Node]:
    """One server process's part on the database at `url`; `options` go to
    `build_service`."""
    store = PostgresStore(url, max_connections=4)
    options = {"retry": RetryPolicy(2, 0.001, 0.01), "heartbeat_s": 0.5, **options}
    service = build_service(store, llm, processes=Cluster(store, lease_s), **options)
    try:
        async with serving(service) as base:
            yield Node(base, service, store, llm)
    finally:
        store.close()


def after_the_owner_check(server: Node, then: Callable[[bool], Awaitable[None]]) -> None:
    """`then(owned)` runs once, right after `server`'s next check that it
    owns a conversation and before the work that check allows: the lease
    changes hands in between."""
    check = server.runner.owns

    async def checked(conversation_id: str) -> bool:
        owned = await check(conversation_id)
        server.runner.owns = check  # type: ignore[method-assign]
        await then(owned)
        return owned

    server.runner.owns = checked  # type: ignore[method-assign]


async def released(server: Node, conversation_id: str, within: float = 10.0) -> None:
    """Once `server`'s keeper has given up the idle conversation's lease."""
    began = time.monotonic()
    while await server.runner.owner_of(conversation_id) is not None:
        assert time.monotonic() - began < within, "the lease was never released"
        await asyncio.sleep(0.02)
