"""Wiring: store + LLM + runner + sessions + the ASGI server, and serving it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from cursor_byok.llm.provider import ModelRouter
from cursor_byok.runtime.accounting import Pricing
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.observe import Metrics
from cursor_byok.runtime.outbound import Sink
from cursor_byok.runtime.rewinds import Rewinds
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import Store, StoreError
from cursor_byok.transport.dialect.server_tool import QueryWaits
from cursor_byok.transport.dialect.tool_base import Tool
from cursor_byok.transport.http.aux_rpcs import ModelEntry
from cursor_byok.transport.http.connection_limits import ConnectionLimits
from cursor_byok.transport.http.dashboard.app import Dashboard
from cursor_byok.transport.http.health import CachedCheck
from cursor_byok.transport.http.http_server import (
    KEEPALIVE_TIMEOUT_S,
    HttpServer,
    TLSFiles,
    free_port,
)
from cursor_byok.transport.http.server import (
    BODY_TIMEOUT_S,
    MAX_APPEND_BYTES,
    MAX_BODY_BYTES,
    CursorServer,
)
from cursor_byok.transport.sessions.child_links import ChildLinks
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.memory_budget import (
    DEFAULT_REQUEST_BYTES,
    DEFAULT_TOTAL_BYTES,
    MemoryBudget,
)
from cursor_byok.transport.sessions.owners import ModelGate
from cursor_byok.transport.sessions.request_context import BLOB_WAIT_S, CONTEXT_WAIT_S
from cursor_byok.transport.sessions.sink import OutputSink

HEALTH_TIMEOUT_S = 3.0
"""How long /healthz waits for the database before calling it unreachable."""

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Service:
    """Everything one server process runs."""

    server: CursorServer
    runner: Runner
    hub: SessionHub
    metrics: Metrics


class Processes(Protocol):
    """How a server shares its conversations with other processes on one
    database (`cursor_byok.cluster` builds one); a server of one process
    passes none and runs the plain runner and hub."""

    def runner(
        self,
        store: Store,
        llm: ModelRouter,
        sink: Sink,
        *,
        retry: RetryPolicy | None,
        metrics: Metrics,
        pricing: Pricing | None = None,
    ) -> Runner: ...

    def hub(self, runner: Runner, sink: OutputSink, **options: Any) -> SessionHub: ...


def _unnamed(_model: str) -> None:
    return None


def build_service(
    store: Store,
    llm: ModelRouter,
    models: Callable[[], Iterable[ModelEntry]] = list,
    default_model: Callable[[], str | None] = lambda: None,
    context_window: Callable[[str], int] = lambda _model: 200_000,
    compact_at: float = 0.9,
    max_body_bytes: int = MAX_BODY_BYTES,
    access_token: str | None = None,
    retry: RetryPolicy | None = None,
    heartbeat_s: float = 5.0,
    grace_s: float = 120.0,
    http2: bool = True,
    host_allowed: Callable[[str | None], bool] | None = None,
    metrics_public: bool = False,
    body_timeout_s: float = BODY_TIMEOUT_S,
    max_append_bytes: int = MAX_APPEND_BYTES,
    memory_budget_bytes: int = DEFAULT_TOTAL_BYTES,
    request_memory_bytes: int = DEFAULT_REQUEST_BYTES,
    context_wait_s: float = CONTEXT_WAIT_S,
    blob_wait_s: float = BLOB_WAIT_S,
    kv_wait_s: float | None = None,
    query_waits: QueryWaits | None = None,
    processes: Processes | None = None,
    resolve_model: Callable[[str], str | None] = lambda model: model,
    server_tools: Sequence[Tool] = (),
    pricing: Pricing | None = None,
) -> Service:
    """`host_allowed` judges each request's `Host` header (the command passes
    `guards.HostCheck`); None answers every name. `access_token` is the
    administrator's; users' own tokens are looked up in `store`, and
    `resolve_model` names the configured model a requested name is served by
    (what a user's allowed models are checked against), and `pricing` what
    usage and budgets know of it (`runtime.accounting`). The memory budget is one
    for the whole server: sessions, their buffered appends, stashed output
    and append bodies being read. `processes` is given where several server
    processes share the store (`cluster.processes.for_store`). `server_tools`:
    the tools the configuration adds (`[web]`: web search and fetch)."""
    metrics = Metrics()

    def dropped(kind: str, _size: int) -> None:
        metrics.memory_dropped.labels(kind).inc()

    budget = MemoryBudget(memory_budget_bytes, request_memory_bytes, on_drop=dropped)
    sink = OutputSink(budget=budget)
    if processes is not None:
        runner = processes.runner(store, llm, sink, retry=retry, metrics=metrics, pricing=pricing)
    else:
        runner = Runner(store, llm, sink, retry=retry, metrics=metrics, pricing=pricing)
    hub_options: dict[str, Any] = {
        "context_window": context_window,
        "compact_at": compact_at,
        "grace_s": grace_s,
        "budget": budget,
        "context_wait_s": context_wait_s,
        "blob_wait_s": blob_wait_s,
        "kv_wait_s": kv_wait_s,
        "query_waits": query_waits or QueryWaits(),
        # A router that names its models' adapters stamps a client's transcript with them.
        "models": ModelGate(store.user_by_id, resolve_model, getattr(llm, "identity", _unnamed)),
        "server_tools": server_tools,
        "rewinds": Rewinds(store, runner, metrics),
        "links": ChildLinks(store),
    }
    if processes is not None:
        hub = processes.hub(runner, sink, **hub_options)
    else:
        hub = SessionHub(runner, sink, **hub_options)

    async def startup() -> None:
        hub.start()
        await hub.subagents.recover(await runner.recover())

    async def shutdown() -> None:
        await hub.close()
        await runner.close()

    pinging: asyncio.Future[None] | None = None

    async def database_reachable() -> bool:
        # One ping at a time: a ping that outlived its timeout (a hung
        # database) is waited on again, not joined by another thread.
        nonlocal pinging
        if pinging is None or pinging.done():
            pinging = asyncio.ensure_future(asyncio.to_thread(store.ping))
            pinging.add_done_callback(_retrieved)
        try:
            await asyncio.wait_for(asyncio.shield(pinging), HEALTH_TIMEOUT_S)
        except (StoreError, TimeoutError) as error:
            log.warning("health check: database unreachable: %s", error or "timed out")
            return False
        return True

    server = CursorServer(
        hub,
        models=models,
        default_model=default_model,
        max_body_bytes=max_body_bytes,
        access_token=access_token,
        heartbeat_s=heartbeat_s,
        on_startup=startup,
        on_shutdown=shutdown,
        metrics=metrics,
        http2=http2,
        host_allowed=host_allowed,
        metrics_public=metrics_public,
        body_timeout_s=body_timeout_s,
        max_append_bytes=max_append_bytes,
        database_reachable=CachedCheck(database_reachable),
        users=store,
    )
    server.dashboard = Dashboard(store, server.authenticator, lambda: server.open_streams)
    return Service(server, runner, hub, metrics)


def _retrieved(done: asyncio.Future[None]) -> None:
    """Takes a finished ping's error, which its waiter may have left behind."""
    if not done.cancelled():
        done.exception()


@contextlib.asynccontextmanager
async def serving(
    service: Service,
    host: str = "127.0.0.1",
    port: int = 0,
    keepalive_timeout_s: int = KEEPALIVE_TIMEOUT_S,
    tls: TLSFiles | None = None,
    limits: ConnectionLimits | None = None,
    peer_allowed: Callable[[asyncio.BaseTransport], bool] | None = None,
) -> AsyncIterator[str]:
    """Run the service on a real socket for the duration of the block; yields
    its base URL. Used by the demo and the end-to-end tests."""
    port = port or free_port(host)
    server = HttpServer(
        service.server,
        host,
        port,
        http2=service.server.http2,
        tls=tls,
        keepalive_timeout_s=keepalive_timeout_s,
        limits=limits,
        peer_allowed=peer_allowed,
    )
    task = asyncio.create_task(server.serve())
    if not await server.started(task):
        await task  # its error
        raise RuntimeError("the server stopped before it started")
    try:
        yield f"{'https' if tls else 'http'}://{host}:{port}"
    finally:
        service.server.begin_shutdown()
        server.stop()
        await task
