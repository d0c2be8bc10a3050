"""When a provider rejects a request the server built from history, the
next turn must not send the same history again (it would be rejected
again, and every turn after it). The loop answers with a recorded step: a
`HistoryRepair` appended to history, after which the request builders send
the earlier history as plain text (see `llm.transform`). History is never
edited; the repair is one more appended message, visible in `show`.

A rejection is a 400 the provider will not accept on retry. Two kinds are
left alone: a prompt too long for the model (plain text would not fix it;
shortening the conversation does) and a history that is already plain.
"""

from __future__ import annotations

from collections.abc import Sequence

from cursor_byok.llm.events import ErrorEvent
from cursor_byok.llm.types import HistoryRepair, Message, UserMessage

REJECTED_STATUS = 400
TOO_LONG_PHRASES = (
    "prompt is too long",
    "context length",
    "context_length",
    "context window",
    "maximum context",
    "too many tokens",
    "input is too long",
    "exceeds the maximum number of tokens",
)


def _is_plain(message: Message) -> bool:
    return isinstance(message, UserMessage) and isinstance(message.content, str)


def _needs_repair(messages: Sequence[Message]) -> bool:
    """Whether anything after the last repair is more than plain user text."""
    for message in reversed(messages):
        if isinstance(message, HistoryRepair):
            return False
        if not _is_plain(message):
            return True
    return False


def repair_for(messages: Sequence[Message], event: ErrorEvent) -> HistoryRepair | None:
    """The step to record after a failed call, or None when none can help."""
    if event.reason != "error" or event.status != REJECTED_STATUS or event.retryable:
        return None
    reason = event.message.error_message or "the request was rejected"
    if any(phrase in reason.lower() for phrase in TOO_LONG_PHRASES):
        return None
    if not _needs_repair(messages):
        return None
    return HistoryRepair(reason=reason, timestamp=event.message.timestamp)


def banner_text(reason: str) -> str:
    """What the user reads: the provider's own words (they name the rule the
    request broke), and what happens next."""
    return (
        f"The provider rejected the request: {reason} "
        "(The conversation so far will be sent again as plain text with your next message.)"
    )
