"""Submitting a turn's `Start`, with the transcript a client may open the
conversation with (`UserMessageAction.conversation_history`).

The loop takes the transcript only into an empty conversation
(`loop.inputs.Start.history`): a conversation that already has history keeps
it, and the transcript is left out. Here that case is told (a log line and
`/metrics`' `ignored_transcript`), once: a resent run is a duplicate the
runner drops, not a second transcript left out. The transcript's assistant
messages are named as the serving model's before they are committed, so
that model's adapter replays their reasoning signatures
(`dialect.transcript.stamped`).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Protocol

from cursor_byok.llm.serialize import message_bytes
from cursor_byok.llm.types import Message
from cursor_byok.loop.inputs import Compact, Start
from cursor_byok.runtime.outcome import Outcome
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect.transcript import stamped
from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.memory_budget import MemoryBudget, budget_key
from cursor_byok.transport.sessions.owners import ModelGate
from cursor_byok.transport.sessions.session import EndOfStream, Session

log = logging.getLogger(__name__)


class Host(Protocol):
    """What of the session hub a start needs."""

    runner: Runner
    counters: Counters
    models: ModelGate
    budget: MemoryBudget


async def submit_start(
    host: Host, session: Session, conversation_id: str, input_id: str, start: Start | Compact
) -> Outcome | None:
    """Submit `start`; with a transcript, note it when the conversation's
    own history wins. None: the transcript is over the memory budget, the
    stream ends with the reason and nothing is submitted."""
    if not isinstance(start, Start) or not start.history:
        return await host.runner.submit(conversation_id, input_id, start)
    key, size = budget_key(session.request_id), _size(start.history)
    refused = host.budget.charge(key, size)
    if refused is not None:
        reason = f"request {session.client_id}: the conversation history could not be taken"
        session.put(EndOfStream(WireError(Code.RESOURCE_EXHAUSTED, f"{reason}: {refused}")))
        return None
    try:
        return await _submit(host, conversation_id, input_id, start)
    finally:
        host.budget.refund(key, size)  # committed: held by the conversation now


def _size(messages: tuple[Message, ...]) -> int:
    """What the transcript holds in memory: its messages' stored bytes."""
    return sum(len(message_bytes(message)) for message in messages)


async def _submit(host: Host, conversation_id: str, input_id: str, start: Start) -> Outcome:
    state = await host.runner.state_of(conversation_id)
    held = state is not None and len(state.messages) > 0
    if not held:
        model = start.settings.model if start.settings is not None else ""
        start = replace(start, history=stamped(start.history, host.models.identity(model)))
    outcome = await host.runner.submit(conversation_id, input_id, start)
    if held and not outcome.duplicate:
        host.counters.ignored_transcripts += 1
        log.info(
            "conversation %s: the client's transcript (%d messages) was left out: "
            "the conversation already has its own history",
            conversation_id,
            len(start.history),
        )
    return outcome
