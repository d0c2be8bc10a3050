"""Feed inputs through `transition` the way the runner does, collecting
everything, so tests can assert on emitted events and commands."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from cursor_byok.llm.events import ResponseEvent
from cursor_byok.loop import (
    Command,
    Emit,
    Input,
    LLMEvent,
    RuntimeState,
    Transition,
    transition,
)


@dataclass
class Trace:
    state: RuntimeState
    emitted: list[Emit] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    transitions: list[Transition] = field(default_factory=list)

    def feed(self, given: Input) -> Transition:
        result = transition(self.state, given)
        self.state = result.state
        self.emitted.extend(result.emit)
        self.commands.append(result.command)
        self.transitions.append(result)
        return result

    def stream(self, call_id: str, events: Iterable[ResponseEvent]) -> Transition:
        result: Transition | None = None
        for event in events:
            result = self.feed(LLMEvent(call_id, event))
        assert result is not None
        return result

    @property
    def messages(self) -> Sequence[object]:
        return self.state.committed.messages
