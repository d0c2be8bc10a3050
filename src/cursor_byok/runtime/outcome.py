"""What a submitted input led to (the runner's answer to `submit`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from cursor_byok.llm.types import JSONValue


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a submitted input led to. `duplicate` means it had been committed
    before and nothing ran again; `result` is the recorded command."""

    duplicate: bool
    committed: bool
    result: JSONValue


class OwnedElsewhere(Exception):
    """The conversation belongs to another process now (several processes
    share one database): an expected event, not a fault, so whoever meets it
    logs one line (`log_not_applied`) rather than a traceback."""


def log_not_applied(
    logger: logging.Logger, conversation_id: str | None, what: str, error: BaseException
) -> None:
    """An input (or event) that could not be applied: one line when another
    process owns the conversation, the traceback for anything else."""
    if isinstance(error, OwnedElsewhere):
        logger.info(
            "conversation %s: %s not applied here: another process owns it",
            conversation_id,
            what,
        )
        return
    logger.error("conversation %s: %s failed", conversation_id, what, exc_info=error)
