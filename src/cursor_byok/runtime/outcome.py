"""What a submitted input led to (the runner's answer to `submit`)."""

from __future__ import annotations

from dataclasses import dataclass

from cursor_byok.llm.types import JSONValue


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a submitted input led to. `duplicate` means it had been committed
    before and nothing ran again; `result` is the recorded command."""

    duplicate: bool
    committed: bool
    result: JSONValue
