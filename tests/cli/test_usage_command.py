"""`cursor-byok usage` and the spend `users list` shows, on a real SQLite
file: a table per day, model or user with a total, JSON for scripts, one
user alone, and a model without a price shown with its tokens and an
unknown cost, never a made-up zero."""

from __future__ import annotations

import io
import json
import time
from pathlib import Path

import pytest

from cursor_byok.cli.main import main
from cursor_byok.llm.events import DoneEvent
from cursor_byok.llm.models import with_cost
from cursor_byok.llm.types import AssistantMessage, TextContent, Usage
from cursor_byok.loop import LLMEvent, transition
from cursor_byok.store.base import CallStatus, CallStatusUpdate, LLMCallRecord
from cursor_byok.store.periods import day_of
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.store.tokens import new_token
from cursor_byok.store.usage import CallUsage
from tests.factories import fresh, start

TODAY = day_of(int(time.time() * 1000))


def record(store: SQLiteStore, call_id: str, user: int, model: str, **fields: object) -> None:
    store.save_llm_call(
        LLMCallRecord(call_id, "conv", model, "r", "h", 1, None, CallStatus.PLANNED)
    )
    day = str(fields.pop("day", TODAY))
    usage = CallUsage(call_id, user, model, day, **fields)  # type: ignore[arg-type]
    store.save_llm_call(CallStatusUpdate(call_id, CallStatus.COMMITTED, 1, usage=usage))


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "team.sqlite3"
    store = SQLiteStore(path)
    made = new_token()
    ana = store.add_user("ana", made.token_id, made.token_hash, None, 10.0, "day").id
    priced = {"input": 1000, "output": 100, "cost_usd": 0.25, "ttft_ms": 200, "duration_ms": 1500}
    record(store, "c1", 1, "sonnet", **priced)
    record(store, "c2", ana, "sonnet", **priced)
    record(store, "c3", ana, "sonnet", **priced)
    record(store, "c4", ana, "local", input=500, output=50, cost_usd=None, duration_ms=500)
    record(store, "c5", ana, "sonnet", day="2020-01-01", input=7, cost_usd=9.0)
    store.close()
    return path


def run(*args: str) -> str:
    out = io.StringIO()
    assert main(list(args), out) == 0
    return out.getvalue()


def test_a_day_s_calls_are_one_row_with_the_total_and_the_unpriced_marked(
    database: Path,
) -> None:
    table = run("usage", "--database", str(database)).splitlines()
    assert table[0].split()[:4] == ["DAY", "CALLS", "INPUT", "OUTPUT"]
    today = next(line for line in table if line.startswith(TODAY))
    # four calls today (the 2020 one is before this month), one of them unpriced
    assert today.split()[1:4] == ["4", "3,500", "350"] and today.endswith("$0.7500*")
    assert next(line for line in table if line.startswith("TOTAL")).endswith("$0.7500*")
    assert any("1 call(s) of models without a price" in line for line in table)


def test_by_model_an_unpriced_model_shows_tokens_and_an_unknown_cost(database: Path) -> None:
    table = run("usage", "--by", "model", "--user", "ana", "--database", str(database))
    rows = {line.split()[0]: line for line in table.splitlines()[1:3]}
    assert rows["local"].split()[1:4] == ["1", "500", "50"]
    assert rows["local"].endswith("unknown")
    assert rows["sonnet"].split()[1] == "2" and rows["sonnet"].endswith("$0.5000")
    assert "200ms" in rows["sonnet"] and "1.5s" in rows["sonnet"]


def test_by_user_and_as_json(database: Path) -> None:
    table = run("usage", "--by", "user", "--since", "2020-01-01", "--database", str(database))
    names = [line.split()[0] for line in table.splitlines()[1:3]]
    assert names == ["admin", "ana"]
    document = json.loads(
        run("usage", "--by", "model", "--user", "ana", "--json", "--database", str(database))
    )
    assert (document["by"], document["user"], document["until"]) == ("model", "ana", TODAY)
    local, sonnet = document["rows"]
    assert local == {
        "model": "local",
        "calls": 1,
        "input_tokens": 500,
        "output_tokens": 50,
        "cache_read_tokens": 0,
        "cache_write_tokens": 0,
        "reasoning_tokens": 0,
        "avg_ttft_ms": None,
        "avg_duration_ms": 500,
        "cost_usd": None,
        "unpriced_calls": 1,
    }
    assert sonnet["cost_usd"] == 0.5 and sonnet["avg_ttft_ms"] == 200
    assert document["total"]["cost_usd"] == 0.5 and document["total"]["unpriced_calls"] == 1


def test_dates_are_checked(database: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["usage", "--since", "2026-13-01", "--database", str(database)], io.StringIO())
    assert refused.value.code == 2
    assert "expected a date YYYY-MM-DD, got '2026-13-01'" in capsys.readouterr().err
    args = ["usage", "--since", "2026-02-01", "--until", "2026-01-01", "--database", str(database)]
    assert main(args, io.StringIO()) == 2
    assert "--since 2026-02-01 is after --until 2026-01-01" in capsys.readouterr().err
    assert main(["usage", "--user", "zed", "--database", str(database)], io.StringIO()) == 3


def test_users_list_shows_each_user_s_spend_this_period(database: Path) -> None:
    listed = run("users", "list", "--database", str(database)).splitlines()
    admin = next(line for line in listed if line.startswith("admin "))
    ana = next(line for line in listed if line.startswith("ana "))
    # admin has no budget: this calendar month; ana: today, one call unpriced
    assert "$0.25 " in admin
    assert "$0.50*" in ana and "day" in ana


def test_show_says_a_cost_is_unknown_rather_than_zero(tmp_path: Path) -> None:
    path = tmp_path / "show.sqlite3"
    store = SQLiteStore(path)
    state = fresh("conv-show")
    for n, model in enumerate(("my-finetune", "claude-sonnet-4-6")):
        asked = transition(state, start(f"question {n}"))
        call_id = asked.state.committed.call_id
        assert call_id is not None
        usage = with_cost(Usage(input=1_000_000, output=0), model)
        reply = AssistantMessage((TextContent("ok"),), "anthropic", "a", model, usage=usage)
        answered = transition(asked.state, LLMEvent(call_id, DoneEvent("stop", reply)))
        store.commit_input(f"in-{n}", 2 * n, asked.state.committed, None)
        store.commit_input(f"end-{n}", 2 * n + 1, answered.state.committed, None)
        state = answered.state
        if n == 0:
            shown = run("show", "conv-show", "--database", str(path))
            assert shown.splitlines()[-1].endswith("cost unknown")
    store.close()
    shown = run("show", "conv-show", "--database", str(path))
    assert shown.splitlines()[-1].endswith("cost $3.0000 + 1 unpriced")


def test_users_budget_sets_changes_and_clears_a_budget(
    database: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = ["--database", str(database)]
    run("users", "budget", "admin", "--budget-usd", "0.5", "--period", "week", *where)
    assert "admin's budget is $0.50 a week" in capsys.readouterr().err
    store = SQLiteStore(database)
    try:
        admin = store.user("admin")
        assert admin is not None and (admin.budget_usd, admin.budget_period) == (0.5, "week")
        # the administrator spent $0.25 today: below $0.50, a call is admitted
        now = int(time.time() * 1000)
        assert store.reserve_budget("a1", 1, 0.0, now, now + 1000).admitted
        run("users", "budget", "admin", "--budget-usd", "0.25", *where)
        assert not store.reserve_budget("a2", 1, 0.0, now, now + 1000).admitted
        run("users", "budget", "admin", "--clear", *where)
        check = store.reserve_budget("a3", 1, 0.0, now, now + 1000)
        assert check.admitted and check.budget_usd is None
    finally:
        store.close()
    listed = run("users", "list", *where)
    admin_line = next(line for line in listed.splitlines() if line.startswith("admin "))
    assert admin_line.split()[4:6] == ["-", "-"]  # no budget, no period
    assert main(["users", "budget", "zed", "--clear", *where], io.StringIO()) == 3
    period_alone = ["users", "budget", "ana", "--clear", "--period", "day", *where]
    assert main(period_alone, io.StringIO()) == 2
