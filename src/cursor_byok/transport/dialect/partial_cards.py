"""Cards that grow while a tool call's arguments stream in.

Every call gets an empty `partial_tool_call` card as it starts. A tool that
has more to show before its arguments are whole (`Tool.partial_card`: the
to-do list, an item at a time) gets a new partial card each time what it
shows changes: its `partial_card` gets the arguments up to the last closing
brace, so every value in them is whole. Only such tools' arguments are kept,
and each is parsed again only when a delta may close a value (`}`), so other
calls cost one lookup per delta.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from cursor_byok.llm.partial_json import parse_partial
from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.tool_base import Tool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

MAX_GROWING_CHARS = 200_000
"""Arguments longer than this stop growing the card (parsing again on every
closing brace would cost too much); the started card still shows them whole."""


@dataclass(slots=True)
class _Growing:
    call_id: str
    tool: Tool
    pieces: list[str] = field(default_factory=list)
    length: int = 0
    shown: bytes = b""


@dataclass(slots=True)
class PartialCards:
    """The calls of the current model call whose card grows, by content index."""

    growing: dict[int, _Growing] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.growing)

    def start(self, index: int, call_id: str, tool: Tool) -> None:
        if type(tool).partial_card is not Tool.partial_card:
            self.growing[index] = _Growing(call_id, tool)

    def grow(self, index: int, delta: str) -> tuple[str, pb.ToolCall] | None:
        """The call's id and its new card, when the delta changed what it shows."""
        found = self.growing.get(index)
        if found is None:
            return None
        found.pieces.append(delta)
        found.length += len(delta)
        if "}" not in delta or found.length > MAX_GROWING_CHARS:
            return None
        # Up to the last closing brace: what is in it is whole (a value cut
        # short is not shown until it closes).
        so_far = "".join(found.pieces)
        arguments = parse_partial(so_far[: so_far.rfind("}") + 1])
        card = found.tool.partial_card(ToolCall(found.call_id, found.tool.name, arguments))
        if card is None:
            return None
        shown = card.SerializeToString(deterministic=True)
        if shown == found.shown:
            return None
        found.shown = shown
        return found.call_id, card

    def clear(self) -> None:
        self.growing.clear()
