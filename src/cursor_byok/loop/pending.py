"""Keeping the visible part of a streaming response in `PendingResponse`:
one block replaced per event (O(number of blocks)), the text never copied."""

from __future__ import annotations

from dataclasses import replace

from cursor_byok.llm.events import (
    ResponseEvent,
    TextDelta,
    TextEnd,
    TextStart,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
)
from cursor_byok.loop.state import BlockKind, PendingBlock, PendingResponse


def _find(pending: PendingResponse, index: int) -> int:
    for position in range(len(pending.blocks) - 1, -1, -1):
        if pending.blocks[position].content_index == index:
            return position
    return -1


def _put(pending: PendingResponse, position: int, block: PendingBlock) -> PendingResponse:
    blocks = pending.blocks
    if position < 0:
        return replace(pending, blocks=(*blocks, block))
    return replace(pending, blocks=(*blocks[:position], block, *blocks[position + 1 :]))


def _block(pending: PendingResponse, kind: BlockKind, index: int) -> tuple[int, PendingBlock]:
    position = _find(pending, index)
    return position, pending.blocks[position] if position >= 0 else PendingBlock(kind, index)


def keep_visible(pending: PendingResponse, event: ResponseEvent) -> PendingResponse:
    """`pending` with `event`'s visible content added (other events: unchanged)."""
    match event:
        case TextStart(content_index=index):
            return _put(pending, _find(pending, index), PendingBlock("text", index))
        case ToolCallStart(content_index=index, id=call_id, name=name):
            block = PendingBlock("toolCall", index, call_id, name)
            return _put(pending, _find(pending, index), block)
        case (
            TextDelta(content_index=index, delta=delta)
            | ToolCallDelta(content_index=index, delta=delta)
        ):
            kind: BlockKind = "text" if isinstance(event, TextDelta) else "toolCall"
            position, block = _block(pending, kind, index)
            return _put(pending, position, replace(block, chunks=(delta, block.chunks)))
        case TextEnd(content_index=index) | ToolCallEnd(content_index=index):
            kind = "text" if isinstance(event, TextEnd) else "toolCall"
            position, block = _block(pending, kind, index)
            return _put(pending, position, replace(block, closed=True))
        case _:
            return pending
