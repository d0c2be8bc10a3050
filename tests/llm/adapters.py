"""Each adapter with the recorded bodies that exercise it, for tests that
run the same scenario against every wire API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from cursor_byok.llm.provider import ModelSpec
from cursor_byok.llm.providers.openai_chat import OpenAIChatLLM


class Closable:
    async def aclose(self) -> None: ...


@dataclass(frozen=True)
class AdapterCase:
    api: str
    make: Callable[[str], OpenAIChatLLM]
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
]
