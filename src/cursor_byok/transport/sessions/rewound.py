"""Where a run goes when its client is behind, and what each stream notes
for that as its turn ends (`runtime.rewinds`, `loop.forks`)."""

from __future__ import annotations

from cursor_byok.loop.forks import NO_TURNS
from cursor_byok.loop.inputs import Start
from cursor_byok.runtime.rewinds import Rewinds
from cursor_byok.transport.dialect.run_request import RunStarted
from cursor_byok.transport.sessions.session import Session


async def placed(rewinds: Rewinds | None, event: RunStarted, input_id: str) -> str:
    """The conversation the run goes to: the one it names, or a branch of it
    when the state the client sent is behind the history."""
    if rewinds is None or event.client_turns is None:
        return event.conversation_id
    starting = isinstance(event.start, Start)
    return await rewinds.place(event.conversation_id, event.client_turns, starting, input_id)


def note_turn_end(rewinds: Rewinds | None, session: Session, conversation_id: str) -> None:
    """Note where the state the client now holds stands: its last
    checkpoint's turns, or the state it sent when none came since."""
    if rewinds is not None and session.sent_state:
        held = session.context.turn.held()
        rewinds.mark_turn(conversation_id, held[-1] if held else NO_TURNS, len(held))
