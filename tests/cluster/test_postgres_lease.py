"""Leases and relayed rows in PostgreSQL, statement by statement: what each
grants, extends, gives up or returns, as processes sharing one database see it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from cursor_byok.cluster.processes import leases_on, relay_on
from cursor_byok.store.postgres import PostgresStore
from cursor_byok.store.scratch_postgres import PostgresServer

SHORT_S = 0.3


@pytest.fixture
def store(postgres_server: PostgresServer) -> Iterator[PostgresStore]:
    opened = PostgresStore(postgres_server.new_database(), max_connections=2)
    try:
        yield opened
    finally:
        opened.close()


def test_a_lease_has_one_live_owner_who_may_take_it_again(store: PostgresStore) -> None:
    a, b = leases_on(store, "a", 60.0), leases_on(store, "b", 60.0)
    assert a.acquire("c")
    assert a.acquire("c")  # its own live lease: extended, not refused
    assert not b.acquire("c")
    assert a.owner_of("c") == b.owner_of("c") == "a"


def test_an_expired_lease_goes_to_whoever_takes_it(store: PostgresStore) -> None:
    a, b = leases_on(store, "a", SHORT_S), leases_on(store, "b", 60.0)
    assert a.acquire("c")
    time.sleep(SHORT_S * 1.5)
    assert a.owner_of("c") is None and a.unowned(["c", "never"]) == ["c", "never"]
    assert b.acquire("c")
    assert not a.acquire("c")
    assert a.renew(["c"]) == set()  # it is b's now
    assert b.owner_of("c") == "b" and b.unowned(["c"]) == []


def test_only_the_owner_renews_or_releases_a_lease(store: PostgresStore) -> None:
    a, b = leases_on(store, "a", 60.0), leases_on(store, "b", 60.0)
    assert a.acquire("c") and b.acquire("d")
    assert a.renew(["c", "d"]) == {"c"}
    a.release(["c", "d"])  # d is b's: it stays
    assert a.owner_of("c") is None and a.owner_of("d") == "b"
    assert a.acquire("c")


def test_relayed_appends_and_output_are_read_from_where_the_reader_is(
    store: PostgresStore,
) -> None:
    relay = relay_on(store)
    for seqno in (0, 1, 2):
        relay.put("req-1", seqno, b"append %d" % seqno)
    relay.put("req-1", 1, b"again")  # a repeat is one row: the first stays
    assert relay.since("req-1", 1) == [(1, b"append 1"), (2, b"append 2")]
    assert relay.since("req-2") == []
    relay.put_output("req-1", [(0, "message", b"m0"), (1, "message", b"m1"), (2, "end", b"{}")])
    assert relay.output_since("req-1", 2) == [(2, "end", b"{}")]
    assert relay.next_output_seq("req-1") == 3 and relay.next_output_seq("req-2") == 0
