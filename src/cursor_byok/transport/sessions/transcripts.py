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

from cursor_byok.loop.inputs import Compact, Start
from cursor_byok.runtime.outcome import Outcome
from cursor_byok.runtime.runner import Runner
from cursor_byok.transport.dialect.transcript import stamped
from cursor_byok.transport.sessions.counters import Counters
from cursor_byok.transport.sessions.owners import ModelGate

log = logging.getLogger(__name__)


class Host(Protocol):
    """What of the session hub a start needs."""

    runner: Runner
    counters: Counters
    models: ModelGate


async def submit_start(
    host: Host, conversation_id: str, input_id: str, start: Start | Compact
) -> Outcome:
    """Submit `start`; with a transcript, note it when the conversation's own history wins."""
    if not isinstance(start, Start) or not start.history:
        return await host.runner.submit(conversation_id, input_id, start)
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
