"""Builds one response from a provider's stream, keeping the event grammar.

Every adapter's stream parser drives an `Assembler`: it opens, extends and
closes blocks, sets usage and the stop reason, and finally calls `finish` or
`fail`. The assembler alone emits `ResponseEvent`s, so the grammar of
`events.py` (sequential blocks, exactly one terminal event, nothing after it)
holds for every provider by construction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.llm.models import Price, with_cost
from cursor_byok.llm.partial_json import complete_arguments, parse_complete
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    DoneReason,
    ErrorReason,
    ProviderBlock,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
)
from cursor_byok.llm.upstream_errors import UpstreamError

BlockKind = Literal["text", "thinking", "tool_call"]


@dataclass(slots=True)
class OpenBlock:
    """A block still receiving deltas. Pieces are joined once, at the end."""

    kind: BlockKind
    index: int
    pieces: list[str] = field(default_factory=list)
    signature: str | None = None
    redacted: bool = False
    call_id: str = ""
    name: str = ""


@dataclass(slots=True)
class UsageCounts:
    """Normalized counters: `input` excludes cache reads and writes."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    total: int | None = None


class Assembler:
    """The partial response of one attempt, and its outbox of events."""

    __slots__ = (
        "api",
        "block",
        "content",
        "model",
        "out",
        "price",
        "provider",
        "provider_blocks",
        "response_id",
        "stop_reason",
        "terminated",
        "timestamp",
        "usage",
    )

    def __init__(
        self, api: str, provider: str, model: str, timestamp: int = 0, price: Price | None = None
    ) -> None:
        self.api = api
        self.price = price
        self.timestamp = timestamp
        self.provider = provider
        self.model = model
        self.out: list[ResponseEvent] = []
        self.content: list[AssistantContent] = []
        self.block: OpenBlock | None = None
        self.usage = UsageCounts()
        self.stop_reason: DoneReason | None = None
        self.response_id: str | None = None
        self.terminated = False
        self.provider_blocks = 0
        """Blocks in `content` that stream no events, so take no event index."""

    # -- blocks ------------------------------------------------------------

    def open_text(self) -> OpenBlock:
        block = self._open("text")
        self.out.append(TextStart(block.index))
        return block

    def open_thinking(self, signature: str | None = None, redacted: bool = False) -> OpenBlock:
        block = self._open("thinking")
        block.signature = signature
        block.redacted = redacted
        self.out.append(ThinkingStart(block.index))
        return block

    def open_tool_call(self, call_id: str, name: str) -> OpenBlock:
        block = self._open("tool_call")
        block.call_id = call_id
        block.name = name
        self.out.append(ToolCallStart(block.index, call_id, name))
        return block

    def delta(self, piece: str) -> None:
        """Extend the open block; empty pieces are dropped, not emitted."""
        block = self.block
        if block is None or not piece:
            return
        block.pieces.append(piece)
        if block.kind == "text":
            self.out.append(TextDelta(block.index, piece))
        elif block.kind == "thinking":
            self.out.append(ThinkingDelta(block.index, piece))
        else:
            self.out.append(ToolCallDelta(block.index, piece))

    def close(self) -> None:
        """Close the open block (if any) and commit it to the content."""
        block = self.block
        if block is None:
            return
        self.block = None
        text = "".join(block.pieces)
        if block.kind == "text":
            self.content.append(TextContent(text, block.signature))
            self.out.append(TextEnd(block.index, text))
        elif block.kind == "thinking":
            self.content.append(ThinkingContent(text, block.signature, block.redacted))
            self.out.append(ThinkingEnd(block.index, text))
        else:
            # A call without arguments streams nothing; "" is not JSON, so keep none.
            raw = text if text.strip() else None
            call = ToolCall(
                block.call_id, block.name, parse_complete(text), raw, block.signature or None
            )
            self.content.append(call)
            self.out.append(ToolCallEnd(block.index, call))

    def add_block(self, block: ProviderBlock) -> None:
        """A block a provider's own tool wrote, whole as it came: no events
        (it is shown from the final message), kept in content order."""
        self.close()
        self.content.append(block)
        self.provider_blocks += 1

    def _open(self, kind: BlockKind) -> OpenBlock:
        self.close()
        self.block = OpenBlock(kind, len(self.content) - self.provider_blocks)
        return self.block

    # -- terminal ------------------------------------------------------------

    def has_tool_calls(self) -> bool:
        return any(isinstance(b, ToolCall) for b in self.content) or (
            self.block is not None and self.block.kind == "tool_call"
        )

    def finish(self) -> None:
        """Emit `done`. A response holding tool calls always stops for tool use."""
        if self.terminated:
            return
        self.close()
        reason: DoneReason = self.stop_reason or "stop"
        if reason == "stop" and self.has_tool_calls():
            reason = "toolUse"
        self.terminated = True
        self.out.append(DoneEvent(reason, self._message(reason, None)))

    def decline(self, why: str) -> None:
        """The provider or model refused to go on (a refusal, a content
        filter). That is an answer, not an outage: what was said stays, a
        short note says why it stopped, and the turn ends normally. The note
        is streamed but is not part of the final message: the server wrote
        it, so it is never history the model is shown later."""
        if self.terminated:
            return
        self.close()
        said = len(self.content)
        note = f"[The response was stopped by the provider: {why}.]"
        if any(isinstance(b, TextContent) and b.text for b in self.content):
            note = "\n\n" + note
        self.open_text()
        self.delta(note)
        self.close()
        del self.content[said:]
        self.finish()

    def fail(self, error: UpstreamError, reason: ErrorReason = "error") -> None:
        """Emit `error`. After a failure the open block stays open: it is not
        part of the record. An abort (the call was stopped) keeps it: the
        partial response is what streamed until then, and the loop may keep
        it as an interrupted message."""
        if self.terminated:
            return
        if reason == "aborted":
            self._keep_open_block()
        self.terminated = True
        self.out.append(
            ErrorEvent(
                reason,
                self._message(reason, error.message),
                status=error.status,
                retryable=error.retryable,
                retry_after=error.retry_after,
            )
        )

    def _keep_open_block(self) -> None:
        """Add the open block to the content as it stands, emitting nothing;
        a tool call keeps its arguments only if they are complete JSON."""
        block, self.block = self.block, None
        if block is None:
            return
        text = "".join(block.pieces)
        if block.kind == "text":
            self.content.append(TextContent(text, block.signature))
        elif block.kind == "thinking":
            self.content.append(ThinkingContent(text, block.signature, block.redacted))
        else:
            arguments = complete_arguments(text)
            raw = text if arguments is not None and text.strip() else None
            signature = block.signature or None
            self.content.append(
                ToolCall(block.call_id, block.name, arguments or {}, raw, signature)
            )

    def _message(
        self, stop_reason: DoneReason | ErrorReason, error_message: str | None
    ) -> AssistantMessage:
        counts = self.usage
        total = counts.total
        if total is None:
            total = counts.input + counts.output + counts.cache_read + counts.cache_write
        usage = Usage(
            input=counts.input,
            output=counts.output,
            cache_read=counts.cache_read,
            cache_write=counts.cache_write,
            total_tokens=total,
            reasoning=counts.reasoning,
        )
        return AssistantMessage(
            content=tuple(self.content),
            api=self.api,
            provider=self.provider,
            model=self.model,
            usage=with_cost(usage, self.model, self.price),
            stop_reason=stop_reason,
            response_id=self.response_id,
            error_message=error_message,
            timestamp=self.timestamp,
        )
