"""Digests of the exact request bodies every adapter builds for one grown
conversation. Run as `python -m tests.llm.request_digests`; the test runs it
in processes with different PYTHONHASHSEED and compares the output."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers import anthropic, gemini, openai_chat, openai_responses
from cursor_byok.llm.providers.common import encode_body
from cursor_byok.llm.types import RequestMessages, ThinkingContent, ToolCall
from tests.llm.conversation import reply, standard_turns, three_requests

# Arguments with several keys and no raw string: rendering must not depend
# on dict or set iteration order.
CALL = ToolCall("call_1", "read_file", {"path": "a.py", "offset": 3, "limit": 40, "z": [1, 2]})

Builder = Callable[[ModelSpec, RequestMessages, CallContext | None], dict[str, Any]]

CASES: list[tuple[str, Builder, ModelSpec]] = [
    ("openai-chat", openai_chat.build_request, ModelSpec("deepseek", "deepseek-chat", "http://x")),
    ("openai-responses", openai_responses.build_request, ModelSpec("openai", "gpt-5", "http://x")),
    ("anthropic", anthropic.build_request, ModelSpec("anthropic", "claude-sonnet-4", "http://x")),
    ("gemini", gemini.build_request, ModelSpec("google", "gemini-2.5-pro", "http://x")),
]


def digests() -> list[str]:
    out = []
    for api, build, spec in CASES:

        def make(*content: Any, api: str = api, spec: ModelSpec = spec) -> Any:
            return reply(api, spec.provider, spec.model, ThinkingContent("hmm", "sig"), *content)

        for request in three_requests(standard_turns(make, CALL)):
            body = encode_body(build(spec, request, CallContext("c-1", "conv-1")))
            out.append(f"{api}:{hashlib.sha256(body).hexdigest()}")
    return out


if __name__ == "__main__":
    print("\n".join(digests()))
