"""Each adapter with the recorded bodies that exercise it, for tests that
run the same scenario against every wire API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.anthropic import AnthropicLLM
from cursor_byok.llm.providers.gemini import GeminiLLM
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM
from cursor_byok.llm.providers.openai_responses import OpenAIResponsesLLM
from cursor_byok.llm.types import RequestMessages


class Adapter(Protocol):
    async def call(self, ctx: CallContext, request: RequestMessages) -> ResponseStream: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class AdapterCase:
    api: str
    make: Callable[[str], Adapter]
    text_fixture: str
    error_400: str
    error_429: str | None = None
    error_401: str | None = None

    def __str__(self) -> str:
        return self.api


CASES = [
    AdapterCase(
        "openai-chat",
        lambda url: OpenAIChatLLM(ModelSpec("openai", "gpt-4o", url + "/v1"), "sk-test"),
        "openai-chat/text-usage.sse",
        "openai-chat/error-400-invalid-request.response.json",
        "openai-compatible/openrouter-error-429.response.json",
    ),
    AdapterCase(
        "anthropic",
        lambda url: AnthropicLLM(ModelSpec("anthropic", "claude-sonnet-4", url), "sk-ant"),
        "anthropic/text-usage.sse",
        "anthropic/error-400-prompt-too-long.response.json",
        error_401="anthropic/error-401-auth.response.json",
    ),
    AdapterCase(
        "openai-responses",
        lambda url: OpenAIResponsesLLM(ModelSpec("openai", "gpt-4o", url + "/v1"), "sk-test"),
        "openai-responses/text-usage.sse",
        "openai-responses/error-400-context-length.response.json",
        "openai-responses/error-insufficient-quota.response.json",
    ),
    AdapterCase(
        "gemini",
        lambda url: GeminiLLM(ModelSpec("google", "gemini-2.0-flash", url + "/v1beta"), "g-key"),
        "gemini/text-usage.sse",
        "gemini/error-400-api-key-invalid-stream.response.json",
        "gemini/error-429-resource-exhausted.response.json",
    ),
]
