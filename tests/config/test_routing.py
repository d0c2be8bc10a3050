"""Model routing: names, fallbacks, shared clients, notices."""

from __future__ import annotations

from pathlib import Path

from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.llm.events import DoneEvent, TextDelta
from cursor_byok.llm.notice import NoticeStream
from cursor_byok.llm.provider import CallContext
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.types import RequestMessages, UserMessage

CONFIG = """
default_model = "fast"
[providers.a]
api = "anthropic"
base_url = "http://127.0.0.1:9"
api_key = "sk-k"
[providers.nokey]
api = "openai-chat"
base_url = "https://api.example.com/v1"
api_key_env = "EXAMPLE_KEY"
[models.fast]
provider = "a"
model = "claude-haiku-4-5"
[models.smart]
provider = "a"
model = "claude-sonnet-4-6"
context_window = 150000
[models.other]
provider = "nokey"
model = "x-1"
"""


def router(tmp_path: Path) -> Router:
    path = tmp_path / "c.toml"
    path.write_text(CONFIG)
    return Router(load_config(path, env={}), env={})


async def test_names_resolve_by_name_or_provider_id_else_the_default(tmp_path: Path) -> None:
    r = router(tmp_path)
    assert r.resolve("smart").name == "smart"  # type: ignore[union-attr]
    assert r.resolve("claude-sonnet-4-6").name == "smart"  # type: ignore[union-attr]
    assert r.resolve("cursor-own-model").name == "fast"  # type: ignore[union-attr]
    assert r.context_window("smart") == 150_000
    assert [e.name for e in r.entries()] == ["fast", "smart", "other"]


async def test_models_of_one_provider_share_one_http_client(tmp_path: Path) -> None:
    r = router(tmp_path)
    fast = r._adapter(r.config.models["fast"])
    smart = r._adapter(r.config.models["smart"])
    assert not isinstance(fast, str) and not isinstance(smart, str)
    assert fast._client is smart._client  # type: ignore[attr-defined]
    await r.aclose()


async def test_a_model_without_its_key_answers_with_what_to_set(tmp_path: Path) -> None:
    r = router(tmp_path)
    stream = await r.call("other", CallContext("c"), RequestMessages(None, (UserMessage("hi"),)))
    assert isinstance(stream, NoticeStream)
    events = [await stream.recv() for _ in range(5)]
    done = events[-1]
    shown = "".join(e.delta for e in events if isinstance(e, TextDelta))
    assert "EXAMPLE_KEY" in shown
    assert isinstance(done, DoneEvent) and done.message.content == ()  # never history


async def test_configured_limits_reach_the_request(tmp_path: Path) -> None:
    """A raised output cap and a configured budget are what the adapter sends."""
    path = tmp_path / "c.toml"
    path.write_text(
        '[providers.a]\napi = "anthropic"\nbase_url = "http://127.0.0.1:9"\napi_key = "sk-k"\n'
        '[models.big]\nprovider = "a"\nmodel = "claude-opus-4-1"\nmax_output = 40000\n'
        'output_cap = 40000\nthinking = "high"\nthinking_budget = 20000\n'
    )
    r = Router(load_config(path, env={}), env={})
    adapter = r._adapter(r.config.models["big"])
    assert isinstance(adapter, AnthropicLLM)
    body = adapter.body(CallContext("c"), RequestMessages(None, (UserMessage("hi"),)))
    assert body["max_tokens"] == 40000
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 20000}
    await r.aclose()
