"""A call renders only new messages, and the request is byte-identical to one
rendered from scratch: checked over random growing conversations for every
adapter, including the awkward cases (orphaned and stray tool results,
images in tool results, empty user messages, failed answers, repairs, answers
made by the model called, whose signatures are replayed), and step by step
over a scripted tool session, counting what each call renders."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from types import ModuleType
from typing import Any

import pytest

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.providers.common import encode_body
from cursor_byok.llm.providers.render_cache import FrozenMessage, RenderCache, is_cut, last_cut
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    Message,
    RequestMessages,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolDefinition,
    ToolResultMessage,
    UserMessage,
)
from tests.factories import assistant, result, tool_call, user
from tests.llm.conversation import reply

TOOLS = (ToolDefinition("read_file", "Read a file.", {"type": "object"}),)
IMAGE = ImageContent("aGVsbG8=", "image/png")
Build = Callable[[ModelSpec, RequestMessages, CallContext | None], dict[str, Any]]
Made = Callable[..., AssistantMessage]


@dataclass(frozen=True)
class Adapter:
    """One adapter under test: its module, the name of its history renderer,
    the model it calls, and how that model signs its reasoning (so that its
    own answers are replayed as such)."""

    module: ModuleType
    renderer: str
    spec: ModelSpec
    signature: str

    def build(self, request: RequestMessages, ctx: CallContext | None) -> dict[str, Any]:
        body: dict[str, Any] = self.module.build_request(self.spec, request, ctx)
        return body

    def own(self, *content: AssistantContent, stop_reason: StopReason | None = None) -> Any:
        thinking = ThinkingContent("weighing it", self.signature)
        made = reply(self.module.API, self.spec.provider, self.spec.model, thinking, *content)
        return made if stop_reason is None else replace(made, stop_reason=stop_reason)

    def __str__(self) -> str:
        return f"{self.module.API}-{self.spec.model}"


REASONING_ITEM = json.dumps({"type": "reasoning", "id": "rs_1", "encrypted_content": "e"})
CHAT = Adapter(
    openai_chat, "render_messages", ModelSpec("deepseek", "deepseek-reasoner", "u"), "reasoning"
)
ANTHROPIC = Adapter(
    anthropic,
    "render_messages",
    ModelSpec("anthropic", "claude-haiku-4-5-20251001", "u", 1000),
    "anthropic-signature",
)
RESPONSES = Adapter(
    openai_responses,
    "render_input",
    ModelSpec("openai", "gpt-5", "u", reasoning="low"),
    REASONING_ITEM,
)
GEMINI = Adapter(gemini, "render_contents", ModelSpec("google", "gemini-3-pro-preview", "u"), "g")
GEMINI_2 = Adapter(gemini, "render_contents", ModelSpec("google", "gemini-2.5-pro", "u"), "g")
"""Images of tool results go in a turn of their own after the function responses."""
ADAPTERS = [CHAT, ANTHROPIC, RESPONSES, GEMINI, GEMINI_2]


def _step(rng: random.Random, n: int, pending: list[str], adapter: Adapter) -> list[Message]:
    """A few messages a conversation might add next."""
    kind = rng.choice(
        ["user", "empty", "calls", "exchange", "results", "stray", "text", "failed", "repair"]
    )
    if kind == "user":
        return [user(f"question {n} " + "x" * rng.randrange(50))]
    if kind == "empty":
        return [UserMessage(content=(TextContent(""),), timestamp=1)]
    made: Made = adapter.own if rng.random() < 0.5 else assistant
    if kind in ("calls", "exchange"):
        ids = [f"c{n}-{i}" for i in range(rng.randrange(1, 3))]
        calls = made(TextContent("reading"), *(tool_call(i, f"{i}.txt") for i in ids))
        if kind == "exchange":  # the usual agent step: the calls and their results
            return [calls, *(result(i) for i in ids)]
        pending.extend(ids)
        return [calls]
    if kind == "results" and pending:
        done = [pending.pop(0) for _ in range(rng.randrange(1, len(pending) + 1))]
        content = (TextContent("ok"), IMAGE) if rng.random() < 0.3 else (TextContent("ok"),)
        return [ToolResultMessage(i, "read_file", content) for i in done]
    if kind == "stray":
        return [result(f"nobody-{n}")]
    if kind == "failed":
        return [made(TextContent("half"), stop_reason="error")]
    if kind == "repair" and rng.random() < 0.2:
        return [HistoryRepair("rejected")]
    return [made(TextContent(f"answer {n}"))]


def sent(body: dict[str, Any]) -> bytes:
    """The body without what only a conversation's call carries (its cache key)."""
    body.pop("prompt_cache_key", None)
    return encode_body(body)


def cold(adapter: Adapter, history: Sequence[Message]) -> bytes:
    """The request rendered from scratch (a call outside a conversation)."""
    return encode_body(adapter.build(RequestMessages("be brief", history, TOOLS), None))


def warm(adapter: Adapter, history: Sequence[Message], session: str) -> bytes:
    context = CallContext(call_id="x", session_id=session)
    return sent(adapter.build(RequestMessages("be brief", history, TOOLS), context))


@pytest.mark.parametrize("adapter", ADAPTERS, ids=str)
@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("shared", [False, True], ids=["tuple", "shared"])
def test_cached_rendering_sends_the_bytes_a_fresh_one_sends(
    adapter: Adapter, seed: int, shared: bool
) -> None:
    """Histories as tuples, and as the loop grows them (a `SharedTuple`,
    which the cache sees extend the cached one without comparing items)."""
    rng = random.Random(seed)
    history: SharedTuple[Message] | tuple[Message, ...] = SharedTuple() if shared else ()
    pending: list[str] = []
    session = f"conversation-{adapter}-{seed}-{shared}"
    for n in range(60):
        history = history + tuple(_step(rng, n, pending, adapter))
        fresh = cold(adapter, history)
        assert warm(adapter, history, session) == fresh, f"step {n}"
        # the same request again: what the last call did to its own body
        # (markers) never leaks into the cached rendering
        assert warm(adapter, history, session) == fresh, f"step {n}, again"


@pytest.fixture
def rendered(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[list[int]]:
    """How many messages each call of the adapter's renderer was given."""
    adapter: Adapter = request.param
    original = getattr(adapter.module, adapter.renderer)
    counts: list[int] = []

    def counting(spec: ModelSpec, req: RequestMessages, *rest: Any) -> Any:
        counts.append(len(req.messages))
        return original(spec, req, *rest)

    monkeypatch.setattr(adapter.module, adapter.renderer, counting)
    yield counts


@pytest.mark.parametrize(
    ("adapter", "rendered"), [(a, a) for a in ADAPTERS], indirect=["rendered"], ids=str
)
def test_each_call_of_a_tool_session_renders_only_its_new_messages(
    adapter: Adapter, rendered: list[int]
) -> None:
    own = adapter.own
    steps: list[list[Message]] = [
        [user("fix the bug", timestamp=1)],
        [own(TextContent("looking"), tool_call("a"), tool_call("b")), result("a"), result("b")],
        [own(tool_call("c")), result("c", "boom", is_error=True)],
        [own(TextContent("fixed")), user("thanks, now the docs")],
        [own(tool_call("d")), result("d")],
        [own(TextContent("the docs are done"))],  # one more message
    ]
    history: tuple[Message, ...] = ()
    session = f"session-{adapter}"
    for step in steps:
        history = history + tuple(step)
        fresh = cold(adapter, history)
        rendered.clear()
        assert warm(adapter, history, session) == fresh
        assert sum(rendered) == len(step), f"after {len(history)} messages"


@pytest.mark.parametrize("adapter", ADAPTERS, ids=str)
def test_a_repair_renders_the_history_before_it_anew(adapter: Adapter) -> None:
    history: tuple[Message, ...] = (
        user("q"),
        adapter.own(TextContent("reading"), tool_call("a")),
        result("a"),
    )
    assert warm(adapter, history, "repaired") == cold(adapter, history)
    repaired = (*history, HistoryRepair("rejected"), user("again"))
    fresh = cold(adapter, repaired)
    assert b"reading" in fresh and b"weighing it" not in fresh  # the plain form
    assert warm(adapter, repaired, "repaired") == fresh


def test_one_conversation_renders_apart_for_each_model_of_an_api() -> None:
    """Signatures go back only to the model that made them, and Gemini 3
    needs a sentinel on calls of other models: a rendering made for one
    model is never sent to another."""
    history = (user("q"), GEMINI.own(tool_call("a")), result("a"), user("more"))
    older = replace(GEMINI, spec=replace(GEMINI.spec, model="gemini-2.5-pro"))
    three = warm(GEMINI, history, "shared")
    assert three == cold(GEMINI, history) and b'"thoughtSignature":"g"' in three
    two = warm(older, history, "shared")
    assert two == cold(older, history)
    assert b'"thoughtSignature":"g"' not in two and b"weighing it" in two


def test_reasoning_items_go_back_only_to_the_model_that_made_them() -> None:
    history = (user("q"), RESPONSES.own(TextContent("hi")), user("more"))
    mini = replace(RESPONSES, spec=replace(RESPONSES.spec, model="gpt-5-mini"))
    own = warm(RESPONSES, history, "shared")
    assert own == cold(RESPONSES, history) and b'"encrypted_content":"e"' in own
    other = warm(mini, history, "shared")
    assert other == cold(mini, history) and b'"encrypted_content":"e"' not in other


def test_anthropic_markers_move_without_touching_the_cached_messages() -> None:
    """Breakpoints go on the last block of each call: the cached message that
    carried last call's marker goes out unmarked in the next one."""
    body = "x" * 20_000  # well over the minimum cacheable length
    history: tuple[Message, ...] = (user("read it"),)
    markers = []
    for n in range(4):
        history = (*history, ANTHROPIC.own(tool_call(f"c{n}")), result(f"c{n}", body))
        fresh = cold(ANTHROPIC, history)
        assert warm(ANTHROPIC, history, "marked") == fresh
        markers.append(fresh.count(b"cache_control"))
    assert markers[0] >= 1 and all(m == markers[0] for m in markers)


def test_a_marker_on_a_message_the_spool_holds_is_sent() -> None:
    """Anthropic also marks the previous request's end when the new messages
    hold more blocks than its lookback reaches: there, that is the first
    message, whose bytes the spool holds unmarked."""
    history = SharedTuple[Message]([user("read them all " + "x" * 20_000)])
    assert warm(ANTHROPIC, history, "far") == cold(ANTHROPIC, history)
    ids = [f"c{i}" for i in range(12)]
    exchange = (ANTHROPIC.own(*(tool_call(i) for i in ids)), *(result(i, "y" * 2000) for i in ids))
    history = history + exchange
    fresh = cold(ANTHROPIC, history)
    assert fresh.count(b"cache_control") == 2
    assert warm(ANTHROPIC, history, "far") == fresh


def test_a_cached_message_refuses_changes_and_a_caller_replaces_it() -> None:
    seen: list[int] = []

    def render(part: object) -> list[dict[str, object]]:
        assert isinstance(part, tuple)
        seen.append(len(part))
        return [{"role": "x", "content": [i]} for i in range(len(part))]

    cache = RenderCache()
    history: tuple[Message, ...] = (user("a"), assistant(TextContent("b")), user("c"))
    first = cache.render("k", history, render)
    assert seen == [3] and len(first) == 3  # it ends at a cut: no tail to render
    with pytest.raises(TypeError):
        first[0]["content"] = ["marker"]
    first[0] = {**first[0], "content": ["marker"]}  # a caller marking a block
    grown = (*history, assistant(TextContent("d")))
    again = cache.render("k", grown, render)
    assert seen[1:] == [1]  # the previous call's end is a cut: only the new message
    assert again[0]["content"] == [0] and len(again) == 4
    assert last_cut(grown, 0) == 3


def test_an_open_tool_call_keeps_the_end_of_the_last_call_from_being_a_cut() -> None:
    """Results that are still owed would be settled before the next user
    message: rendering up to the open call and the rest apart would lose them."""
    history: tuple[Message, ...] = (user("a"), assistant(tool_call("c1"), tool_call("c2")))
    answered = (*history, result("c1"), result("c2"), assistant(TextContent("done")))
    assert is_cut(answered, 4) and is_cut(answered, 1)
    owed = (*history, result("c1"), user("never mind"))
    assert not is_cut(owed, 3)
    stray_after_failed = (*answered[:4], assistant(TextContent("x"), stop_reason="error"))
    assert not is_cut((*stray_after_failed, result("c9")), 4)


def test_a_history_that_is_not_the_cached_one_is_rendered_whole() -> None:
    calls: list[int] = []

    def render(part: object) -> list[dict[str, object]]:
        assert isinstance(part, tuple)
        calls.append(len(part))
        return [{"content": "m"} for _ in part]

    cache = RenderCache(entries=1)
    cache.render("k", (user("a"), user("b")), render)
    cache.render("k", (user("a"), user("other")), render)  # equal text, other objects
    assert calls == [2, 2]  # rendered whole again (each ends at a cut: no tail)
    cache.render("j", (user("a"),), render)
    assert len(cache) == 1  # the least recently used entry went


def test_a_body_with_cached_messages_is_written_as_canonical_json() -> None:
    text = "naïve ✓ \ud800"
    cached = FrozenMessage({"role": "user", "content": text, "z": [1, {"b": 2, "a": 1}]})
    items: list[dict[str, Any]] = [{"role": "system"}, cached, {"role": "assistant"}]
    for field in ("messages", "contents", "input"):
        body: dict[str, Any] = {
            "stream": True,
            "model": "m",
            field: items,
            "tools": [{"name": "t", "parameters": {"y": 1, "x": 2}}],
        }
        expected = canonical_dumps({**body, field: [dict(m) for m in items]})
        assert encode_body(body) == expected
        assert encode_body(body) == expected  # the cached bytes, used again
