"""The LLM contracts: messages, content blocks, usage, tools, requests.

Every type here is provider-neutral and immutable. The JSON names (see
`serialize.py`) follow pi-ai's wire names (`toolCall`, `toolResult`,
`thinkingSignature`, `stopReason` values such as `toolUse`) so stored
histories interoperate with that ecosystem.

Nothing in a message may be regenerated on replay: ids, signatures, provider
response ids and timestamps are set once, when the message is created, and
kept verbatim from then on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias

JSONValue: TypeAlias = (
    bool | int | float | str | Sequence["JSONValue"] | Mapping[str, "JSONValue"] | None
)
"""A JSON document. Typed read-only (Sequence, Mapping) so nothing mutates it."""

JSONObject: TypeAlias = Mapping[str, JSONValue]

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "pause", "error", "aborted"]
DoneReason: TypeAlias = Literal["stop", "length", "toolUse", "pause"]
"""`pause`: the provider stopped a long turn of its own tools (Anthropic's
`pause_turn`) and continues when the response is sent back as it is."""
ErrorReason: TypeAlias = Literal["error", "aborted"]


@dataclass(frozen=True, slots=True)
class TextContent:
    """Visible text. `text_signature` carries a provider's opaque id for it
    (an OpenAI Responses message id, a Gemini thought signature)."""

    text: str
    text_signature: str | None = None


@dataclass(frozen=True, slots=True)
class ThinkingContent:
    """Model reasoning. The signature is replayed verbatim to the same model;
    when `redacted` is true the opaque payload lives in the signature and
    `thinking` is only a placeholder."""

    thinking: str
    thinking_signature: str | None = None
    redacted: bool = False


@dataclass(frozen=True, slots=True)
class ImageContent:
    """An image, base64-encoded."""

    data: str
    mime_type: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the model asked for. `raw_arguments` is the argument string as
    the model produced it, so an adapter can replay it byte for byte;
    `arguments` is its parse."""

    id: str
    name: str
    arguments: JSONObject
    raw_arguments: str | None = None
    thought_signature: str | None = None


@dataclass(frozen=True, slots=True)
class ProviderBlock:
    """A block written by a tool the provider runs itself (its web search),
    kept as the provider sent it: `raw` is the block's JSON, replayed as it
    is to the same `api` (which may require it, encrypted parts and all)
    and left out for any other."""

    api: str
    raw: str


UserContent: TypeAlias = TextContent | ImageContent
AssistantContent: TypeAlias = TextContent | ThinkingContent | ToolCall | ProviderBlock


@dataclass(frozen=True, slots=True)
class Cost:
    """Money spent on one call, in US dollars, per usage bucket. `priced`
    False: the model had no price, so the amounts are unknown, not zero."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0
    priced: bool = True


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one call. `input` excludes cached tokens on every
    provider, so `input + cache_read + cache_write` is the prompt size.
    `reasoning` is informational: it is already part of `output`."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    total_tokens: int = 0
    reasoning: int = 0
    cost: Cost = field(default_factory=Cost)


@dataclass(frozen=True, slots=True)
class UserMessage:
    content: str | tuple[UserContent, ...]
    timestamp: int = 0


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """One complete model response. It enters history only whole, at `done`."""

    content: tuple[AssistantContent, ...]
    api: str
    provider: str
    model: str
    usage: Usage = field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    response_id: str | None = None
    error_message: str | None = None
    timestamp: int = 0
    interrupted: bool = False
    """The response was stopped (cancel, a client gone for good) and this is
    what had streamed by then: kept as history, unlike a failed response."""

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """The tool calls in content order: the order they are dispatched in."""
        return tuple(block for block in self.content if isinstance(block, ToolCall))

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextContent))


@dataclass(frozen=True, slots=True)
class ToolResultMessage:
    """The outcome of one tool call, matched to it by `tool_call_id` only."""

    tool_call_id: str
    tool_name: str
    content: tuple[UserContent, ...]
    is_error: bool = False
    timestamp: int = 0


@dataclass(frozen=True, slots=True)
class HistoryRepair:
    """A recorded step of the loop, not something anyone said: a provider
    rejected a request built from the history before this point (`reason`
    is its words). From here on, request builders send that earlier history
    in its plainest form (text only: no thinking, signatures, tool-call
    structure or images), which every provider accepts; the history itself
    is never edited. See `llm.transform`."""

    reason: str
    timestamp: int = 0


Message: TypeAlias = UserMessage | AssistantMessage | ToolResultMessage | HistoryRepair


def last_answer(messages: Sequence[Message]) -> str:
    """The text of the last assistant message that has any (a subagent's
    answer, as its parent's model reads it); empty if none has."""
    for message in reversed(messages):
        if isinstance(message, AssistantMessage):
            texts = [c.text for c in message.content if isinstance(c, TextContent)]
            if texts:
                return "".join(texts)
    return ""


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool the model may call: name, description, JSON Schema of arguments."""

    name: str
    description: str
    parameters: JSONObject
    native: str | None = None
    """The provider's own tool to offer instead where its API has one
    ("web_search"); elsewhere this definition is offered as it is."""


@dataclass(frozen=True, slots=True)
class RequestMessages:
    """Everything one model call sends. `messages` is the append-only history;
    `system_prompt` and `tools` are rebuilt for every request."""

    system_prompt: str | None
    messages: Sequence[Message]
    """A tuple, or the loop's history as it is (a `SharedTuple`): never changed."""
    tools: tuple[ToolDefinition, ...] = ()
    extended: bool = True
    """Whether a later request extends this one. False for a compaction's
    summary call: the requests after it start from the summary, so caching
    its end would write an entry nobody reads."""
