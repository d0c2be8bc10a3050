"""What the dashboard's pages cost on a store of 100,000 conversations (100
users, a call to one of 5 models each, a year of usage), on SQLite and
PostgreSQL (a throwaway server, or --postgresql URL; left out without
PostgreSQL binaries). Each page is asked of the real server over a real
socket, signed in as the administrator (everyone's numbers) and as a user:
the overview, the users page, the first conversations page, the 20th
(1,000 conversations deep (keyset paging: no cost for depth), one filtered by
model (and, for the administrator, by a user and a model), a conversation's
timeline, and the first and last pages of the timeline of a conversation of
500 turns (1,000 messages) with 600 model call attempts. Prints, per backend, each page's
median and, over every page request,

  ui_page_p95_ms[100000] = X
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from html import unescape
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import aiohttp

from cursor_byok.llm.serialize import EMPTY_MESSAGES_HASH, extend_messages_hash, message_hash
from cursor_byok.llm.types import AssistantMessage, Message, TextContent, UserMessage
from cursor_byok.loop import ConversationState, RuntimeState, Start, TurnSettings, transition
from cursor_byok.loop.state import Status
from cursor_byok.store.database import PostgresURL
from cursor_byok.store.opener import open_store
from cursor_byok.store.owners import scoped
from cursor_byok.store.scratch_postgres import PostgresServer, find_binaries
from cursor_byok.store.sql_store import SQLStore
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.transport.http.app import build_service, serving

CONVERSATIONS = 100_000
USERS = 100
MODELS = ("sonnet", "opus", "gpt", "gemini", "deepseek")
DAYS = 365
TURNS = 500
"""The turns of the long conversation whose timeline is measured."""
ROUNDS = 20
ADMIN_TOKEN = "the-benchs-administrator-token"
CSRF = re.compile(r'name="csrf" value="([^"]*)"')
OLDER = re.compile(r'href="(/ui/conversations\?[^"]*before=[^"]*)"')


class NoModel:
    """The dashboard never calls a model."""

    async def call(self, *_args: object) -> object:
        raise AssertionError("no model call expected")


def fill(store: SQLStore) -> str:
    """Users, conversations (a copy of one real one, each with a call), a
    year of usage; returns a user's token."""
    tokens = []
    for n in range(USERS):
        made = new_token()
        store.add_user(f"u{n}", made.token_id, made.token_hash, None, 1e9, "month")
        tokens.append(made.token)
    settings = TurnSettings(model="sonnet", system_prompt="You help.")
    begun = Start(UserMessage("hello", timestamp=1), settings=settings)
    state = transition(RuntimeState(ConversationState("template")), begun).state.committed
    state = replace(state, status=Status.FINAL)
    store.commit_input("in-template", 0, state, None)
    now_ms = int(time.time() * 1000)
    ids = [(n, scoped(2 + n % USERS, f"conv-{n:06d}")) for n in range(CONVERSATIONS)]
    with store._transaction() as db:
        db.executemany(
            "INSERT INTO conversations (conversation_id, version, status, message_count,"
            " messages_hash, state_json, created_at_ms, updated_at_ms, owner)"
            " SELECT ?, version, status, message_count, messages_hash, state_json,"
            " created_at_ms, ?, ? FROM conversations WHERE conversation_id = 'template'",
            [(key, now_ms - n * 1000, 2 + n % USERS) for n, key in ids],
        )
        db.executemany(
            "INSERT INTO messages (conversation_id, idx, message_json, message_hash)"
            " SELECT ?, idx, message_json, message_hash FROM messages"
            " WHERE conversation_id = 'template'",
            [(key,) for _, key in ids],
        )
        db.executemany(
            "INSERT INTO llm_calls (call_id, conversation_id, model, request_json, request_hash,"
            " messages_hash, message_count, last_message_hash, status, attempts,"
            " created_at_ms, updated_at_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (f"{key}:call:1", key, MODELS[n % 5], b"", "r", "h", 1, None, "committed", 1, 0, 0)
                for n, key in ids
            ],
        )
        db.executemany(
            "INSERT INTO conversation_models (conversation_id, model, owner, last_call_ms)"
            " VALUES (?, ?, ?, ?)",
            [(key, MODELS[n % 5], 2 + n % USERS, now_ms - n * 1000) for n, key in ids],
        )
        today = time.gmtime()
        days = [
            time.strftime("%Y-%m-%d", time.gmtime(time.mktime(today) - d * 86400))
            for d in range(DAYS)
        ]
        db.executemany(
            "INSERT INTO usage_daily (user_id, day, model, calls, input_tokens, output_tokens,"
            " cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, unpriced_calls,"
            " ttft_ms_total, ttft_calls, duration_ms_total)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [
                (2 + u, day, m, 3, 9000, 700, 40000, 2000, 100, 0.25, 0, 1500, 3, 9000)
                for u in range(USERS)
                for day in days
                for m in MODELS
            ],
        )
    long_conversation(store, now_ms)
    with store._transaction() as db:
        db.execute("ANALYZE")
    return tokens[0]


def long_conversation(store: SQLStore, now_ms: int) -> None:
    """User u0's `conv-long`: TURNS turns, each a question and an answer
    brought by a model call, every fifth retried once (a row per attempt)."""
    key = scoped(2, "conv-long")
    messages: list[Message] = []
    chain = EMPTY_MESSAGES_HASH
    for turn in range(TURNS):
        for message in (
            UserMessage(f"question {turn}", timestamp=now_ms),
            AssistantMessage((TextContent(f"answer {turn}"),), "api", "p", "sonnet"),
        ):
            messages.append(message)
            chain = extend_messages_hash(chain, message_hash(message))
    state = ConversationState(key, TURNS, tuple(messages), chain, status=Status.FINAL)
    store.commit_input("in-long", 0, state, None)
    rows = []
    for turn in range(TURNS):
        call_id = f"{key}:call:{turn + 1}"
        attempts = 2 if turn % 5 == 0 else 1
        for attempt in range(1, attempts + 1):
            outcome = "ok" if attempt == attempts else "retried"
            turn_id, started = f"{key}:turn:{turn + 1}", now_ms + turn * 10 + attempt
            head = (call_id, attempt, key, turn_id, 2 * turn + 1, "sonnet", 2, started)
            rows.append((*head, 300, 2000, 9000, 700, 40000, 2000, 100, 0.25, outcome))
    with store._transaction() as db:
        # the oldest of u0's: the pages' first links stay the short ones
        oldest = now_ms - (CONVERSATIONS + 1) * 1000
        db.execute(
            "UPDATE conversations SET updated_at_ms = ? WHERE conversation_id = ?", (oldest, key)
        )
        db.executemany(
            "INSERT INTO model_calls (call_id, attempt, conversation_id, turn_id, step, model,"
            " user_id, started_at_ms, ttft_ms, duration_ms, input_tokens, output_tokens,"
            " cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, outcome)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            rows,
        )


async def signed_in(http: aiohttp.ClientSession, url: str, token: str) -> dict[str, str]:
    async with http.get(url + "/ui/login") as reply:
        page = await reply.text()
        cookie = reply.cookies["cursor_byok_ui_login"].value
    found = CSRF.search(page)
    assert found is not None
    form = {"token": token, "csrf": unescape(found.group(1))}
    headers = {"Cookie": f"cursor_byok_ui_login={cookie}", "Origin": url}
    async with http.post(
        url + "/ui/login", data=form, headers=headers, allow_redirects=False
    ) as reply:
        assert reply.status == 303, reply.status
        return {"Cookie": f"cursor_byok_ui={reply.cookies['cursor_byok_ui'].value}"}


async def measure(name: str, store: SQLStore) -> None:
    started = time.perf_counter()
    user_token = fill(store)
    print(f"# {name}: filled in {time.perf_counter() - started:.0f} s", flush=True)
    service = build_service(store, NoModel(), access_token=ADMIN_TOKEN)  # type: ignore[arg-type]
    every: list[float] = []
    async with serving(service) as url, aiohttp.ClientSession() as http:
        for who, token in (("admin", ADMIN_TOKEN), ("user", user_token)):
            cookie = await signed_in(http, url, token)
            async with http.get(url + "/ui/conversations", headers=cookie) as reply:
                first = await reply.text()
            deep = "/ui/conversations"
            for _ in range(19):  # the 20th page of 50: 1,000 conversations deep
                async with http.get(url + deep, headers=cookie) as reply:
                    older = OLDER.search(await reply.text())
                assert older is not None
                deep = unescape(older.group(1))
            one = re.search(r'href="(/ui/conversations/[^"]+)"', first)
            assert one is not None
            pages = {
                "overview": "/ui/",
                "conversations": "/ui/conversations",
                "conversations_deep": deep,
                "conversations_model": "/ui/conversations?model=gemini",
                "conversation": one.group(1),
                "conversation_long": "/ui/conversations/conv-long",
            }
            if who == "admin":
                pages["users"] = "/ui/users"
                pages["conversations_user_model"] = "/ui/conversations?user=u7&model=gemini"
                pages["conversation_long"] = f"/ui/conversations/{scoped(2, 'conv-long')}"
            pages["conversation_long_latest"] = pages["conversation_long"] + "?from=800"
            for page, path in pages.items():
                times = []
                for _ in range(ROUNDS):
                    began = time.perf_counter()
                    async with http.get(url + path, headers=cookie) as reply:
                        await reply.read()
                        assert reply.status == 200, (page, reply.status)
                    times.append((time.perf_counter() - began) * 1000)
                every += times
                print(f"page_ms[{name}][{who},{page}] = {statistics.median(times):.1f}", flush=True)
    p95 = statistics.quantiles(every, n=20)[-1]
    print(f"# {name}")
    print(f"ui_page_p95_ms[{CONVERSATIONS}] = {p95:.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgresql", metavar="URL", help="use this database, not a throwaway")
    parser.add_argument("--sqlite-only", action="store_true", help="leave PostgreSQL out")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        stores: dict[str, SQLStore] = {"sqlite": SQLiteStore(Path(folder) / "bench.sqlite3")}
        server = None
        if args.sqlite_only:
            pass
        elif args.postgresql:
            opened = open_store(PostgresURL(args.postgresql))
            assert isinstance(opened, SQLStore)
            stores["postgresql"] = opened
        elif (binaries := find_binaries()) is not None:
            server = PostgresServer(binaries)
            opened = open_store(server.new_database())
            assert isinstance(opened, SQLStore)
            stores["postgresql"] = opened
        else:
            print("# no PostgreSQL binaries: postgresql left out")
        try:
            for name, store in stores.items():
                asyncio.run(measure(name, store))
        finally:
            for store in stores.values():
                store.close()
            if server is not None:
                server.stop()


if __name__ == "__main__":
    main()
