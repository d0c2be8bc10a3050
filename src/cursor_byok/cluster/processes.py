"""What a server on a database several processes share plugs into
`build_service`: a runner that holds conversation leases, and a session hub
that relays appends and output between processes. One process on SQLite gets
none of it and loads none of it."""

from __future__ import annotations

import os
import socket
import uuid
from typing import Any

from cursor_byok.cluster.leased_runner import LeasedRunner
from cursor_byok.cluster.postgres_lease import PostgresLeases
from cursor_byok.cluster.postgres_relay import PostgresRelay
from cursor_byok.cluster.relay import RelayingHub
from cursor_byok.llm.provider import ModelRouter
from cursor_byok.runtime.accounting import Pricing
from cursor_byok.runtime.model_call import RetryPolicy
from cursor_byok.runtime.observe import Metrics
from cursor_byok.runtime.outbound import Sink
from cursor_byok.runtime.runner import Runner
from cursor_byok.store.base import Store
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.transport.sessions.sink import OutputSink

LEASE_S = 10.0
"""How long a conversation stays its owner's after the owner's last renewal:
the longest another process waits before taking over from a dead one."""


def leases_on(store: PostgresStore, owner: str, ttl_s: float) -> PostgresLeases:
    """Conversation leases on this database, held by `owner`."""
    return PostgresLeases(store.pool, owner, ttl_s)


def relay_on(store: PostgresStore) -> PostgresRelay:
    """Appends and output handed between processes through this database."""
    return PostgresRelay(store.pool, store.conninfo)


class Cluster:
    """One process's part in a group of processes sharing one database."""

    def __init__(self, store: PostgresStore, lease_s: float = LEASE_S) -> None:
        self.store = store
        self.lease_s = lease_s
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def runner(
        self,
        store: Store,
        llm: ModelRouter,
        sink: Sink,
        *,
        retry: RetryPolicy | None,
        metrics: Metrics,
        pricing: Pricing | None = None,
    ) -> Runner:
        leases = leases_on(self.store, self.owner, self.lease_s)
        return LeasedRunner(
            store, llm, sink, retry=retry, metrics=metrics, pricing=pricing, leases=leases
        )

    def hub(self, runner: Runner, sink: OutputSink, **options: Any) -> RelayingHub:
        hub = RelayingHub(runner, sink, relay=relay_on(self.store), **options)
        if isinstance(runner, LeasedRunner):
            runner.on_lost = hub.conversation_moved
        return hub


def for_store(store: Store, lease_s: float = LEASE_S) -> Cluster | None:
    """The cluster for a store that several processes may share; None for any
    other (SQLite: one process, nothing to share)."""
    return Cluster(store, lease_s) if isinstance(store, PostgresStore) else None
