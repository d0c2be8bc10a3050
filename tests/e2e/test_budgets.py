"""Usage and budgets through the whole server: the real router and Anthropic
adapter against the loopback provider, users with tokens of their own, and
a client that plays the official CLI. Each call's cost is the built-in
table's or the configuration's; a user over budget sees one card that
names the budget, the spend and the reset, and no request reaches the
provider; other users go on."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from cursor_byok.client.client import CursorClient
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.store.periods import day_of, period_end
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.usage import BudgetPeriod
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb
from tests.e2e.official_cli import CliTurn, OfficialCli
from tests.llm.loopback import LoopbackServer, Reply, recording

TEXT = recording("anthropic/text-usage.sse")
"""One reply: 10 input and 4 output tokens."""
ADMIN_TOKEN = "the-administrators-own-token"
CONFIG = """\
default_model = "table"
[providers.a]
api = "anthropic"
base_url = "{url}"
api_key = "sk-ant-planted-key"
[models.table]
provider = "a"
model = "claude-haiku-4-5"
[models.priced]
provider = "a"
model = "claude-haiku-4-5"
price = {{ input = 1000, output = 1000 }}
[models.local]
provider = "a"
model = "my-finetune"
"""


@dataclass
class Team:
    url: str
    provider: LoopbackServer
    store: SQLiteStore
    workspace: Path

    def member(self, name: str, budget: float | None = None, period: BudgetPeriod = "day") -> str:
        made = new_token()
        self.store.add_user(
            name, made.token_id, made.token_hash, None, budget, period if budget else None
        )
        return made.token

    async def run(self, token: str, text: str, model: str, conversation: str) -> CliTurn:
        cli = OfficialCli(self.url, "proto", self.workspace)
        await cli.client.close()
        cli.client = CursorClient(self.url, "proto", token=token)
        try:
            action = pb.ConversationAction(
                user_message_action=pb.UserMessageAction(
                    user_message=pb.UserMessage(text=text, message_id=f"m-{text}")
                )
            )
            return await cli.run(action, model, conversation)
        finally:
            await cli.close()


@asynccontextmanager
async def team(tmp_path: Path, replies: int) -> AsyncIterator[Team]:
    provider = LoopbackServer([Reply(TEXT) for _ in range(replies)])
    await provider.start()
    config_file = tmp_path / "config.toml"
    config_file.write_text(CONFIG.format(url=provider.base_url))
    router = Router(load_config(config_file, env={}), env={})
    store = SQLiteStore(tmp_path / "team.sqlite3", synchronous="NORMAL")
    service = build_service(
        store,
        router,
        models=router.entries,
        default_model=lambda: "table",
        access_token=ADMIN_TOKEN,
        resolve_model=router.model_name,
        pricing=router.terms,
    )
    try:
        async with serving(service) as url:
            yield Team(url, provider, store, tmp_path)
    finally:
        await router.aclose()
        await provider.stop()
        store.close()


def succeeded(turn: CliTurn) -> bool:
    return turn.error is None and turn.text == "Hello" and not turn.violations


async def test_a_user_over_budget_sees_the_card_and_no_request_reaches_the_provider(
    tmp_path: Path,
) -> None:
    async with team(tmp_path, replies=3) as t:
        ana = t.member("ana", budget=0.02, period="day")
        bob = t.member("bob")
        # $0.014 a call at the configured price: two go, the second past $0.02
        for n in range(2):
            assert succeeded(await t.run(ana, f"question {n}", "priced", "conv-ana"))
        assert len(t.provider.received) == 2
        before = int(time.time() * 1000)
        refused = await t.run(ana, "question 2", "priced", "conv-ana")
        again = await t.run(ana, "in a new chat", "priced", "conv-ana-2")
        after = int(time.time() * 1000)
        assert len(t.provider.received) == 2  # no request was made for either
        served = await t.run(bob, "bob's question", "priced", "conv-bob")
    assert succeeded(served) and len(t.provider.received) == 3
    for turn in (refused, again):
        assert turn.error is not None and turn.error["code"] == "resource_exhausted"
        card = turn.error_details
        assert card is not None and not turn.violations
        assert card.error == errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE
        assert card.details.title == "Budget reached"
        assert not card.details.is_retryable
        detail = card.details.detail
        assert "The daily budget of user ana, $0.02, is used up: $0.03 spent since " in detail
        resets = {f"{period_end('day', ms):%Y-%m-%d %H:%M} UTC" for ms in (before, after)}
        assert any(f"until it resets at {reset}." in detail for reset in resets), detail
        assert turn.text == ""  # one card, nothing else said


async def test_each_call_is_priced_by_the_table_or_the_configuration_or_not_at_all(
    tmp_path: Path,
) -> None:
    async with team(tmp_path, replies=4) as t:
        ana = t.member("ana")
        for n, model in enumerate(("table", "priced", "local", "priced")):
            assert succeeded(await t.run(ana, f"question {n}", model, f"conv-{n}"))
        today = day_of(int(time.time() * 1000))
        rows = {r.model: r for r in t.store.usage_summary("model", today, today)}
        admin = CursorClient(t.url, token=ADMIN_TOKEN)
        try:
            scraped = (await admin.get("/metrics")).text
        finally:
            await admin.close()
    assert 'cursor_byok_user_calls_total{user="ana"} 4.0' in scraped
    assert 'cursor_byok_user_tokens_total{kind="output",user="ana"} 16.0' in scraped
    assert set(rows) == {"table", "priced", "local"}
    # claude-haiku-4-5 by the table: $1 and $5 per million
    assert rows["table"].cost_usd == pytest.approx(10 * 1e-6 + 4 * 5e-6)
    # the configuration's $1000 per million, for two calls
    assert rows["priced"].calls == 2
    assert rows["priced"].cost_usd == pytest.approx(0.028)
    # no price anywhere: tokens counted, cost unknown
    local = rows["local"]
    assert (local.calls, local.input, local.output, local.unpriced_calls) == (1, 10, 4, 1)
    assert all(row.ttft_calls == row.calls for row in rows.values())
