"""Each model call's record, and which conversations called which model, in
the SQL both databases take (a part of `SQLStore`).

A call's rows (`model_calls`: one per attempt, the retried ones first) are
written by the transaction that commits the call's end, keyed by call id
and attempt and inserted only where none is, so an end sent twice, a crash
before or after the commit, or a call made again after a restart records
each attempt once. `conversation_models` holds one row per conversation
and model it called, with the time of the last call planned to it: the
dashboard's list filtered by model reads it newest first through an index
(`conversation_pages`), however many conversations there are.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from dataclasses import astuple, dataclass
from typing import Any, ClassVar, Literal, Protocol, cast

from cursor_byok.store.executor import Executor

CallOutcome = Literal["ok", "error", "canceled", "retried"]
"""How one attempt of a model call ended: its answer committed (`ok`), a
failure that ended the call (`error`), stopped (`canceled`), or a failure
the call was retried after (`retried`: a later attempt follows)."""


@dataclass(frozen=True, slots=True)
class ModelCallRow:
    """One attempt of a model call. `step` is where in the conversation's
    history its answer is (or would have been): the index of the message it
    added. `cost_usd` None: the model has no price (or the attempt was
    stopped before its usage was known)."""

    call_id: str
    attempt: int
    conversation_id: str
    turn_id: str
    step: int
    model: str
    user_id: int
    started_at_ms: int
    ttft_ms: int | None
    duration_ms: int
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0
    cost_usd: float | None = None
    outcome: CallOutcome = "ok"
    error: str | None = None


CALL_COLUMNS = (
    "call_id, attempt, conversation_id, turn_id, step, model, user_id, started_at_ms, ttft_ms,"
    " duration_ms, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,"
    " reasoning_tokens, cost_usd, outcome, error"
)
INSERT_MODEL_CALL = (
    f"INSERT INTO model_calls ({CALL_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (call_id, attempt) DO NOTHING"
)
NOTE_MODEL = (
    "INSERT INTO conversation_models (conversation_id, model, owner, last_call_ms)"
    " VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id, model) DO UPDATE SET"
    " last_call_ms = CASE WHEN excluded.last_call_ms > conversation_models.last_call_ms"
    " THEN excluded.last_call_ms ELSE conversation_models.last_call_ms END"
)
ERROR_CHARS = 500
"""How much of an error's text a row keeps."""


def call_of_row(row: Any) -> ModelCallRow:
    """A row of `CALL_COLUMNS`."""
    return ModelCallRow(
        str(row[0]),
        int(row[1]),
        str(row[2]),
        str(row[3]),
        int(row[4]),
        str(row[5]),
        int(row[6]),
        int(row[7]),
        None if row[8] is None else int(row[8]),
        int(row[9]),
        int(row[10]),
        int(row[11]),
        int(row[12]),
        int(row[13]),
        int(row[14]),
        None if row[15] is None else float(row[15]),
        cast(CallOutcome, row[16]),
        None if row[17] is None else str(row[17]),
    )


@dataclass(frozen=True, slots=True)
class UnrecordedCall:
    """A call with no rows: in flight, or ended before rows were kept."""

    call_id: str
    model: str
    status: str
    attempts: int
    error: str | None


class CallLog(Protocol):
    """What the store keeps of each model call (`store.call_rows`)."""

    def model_calls(self, conversation_id: str) -> list[ModelCallRow]:
        """The conversation's call rows, in the history's order (by the
        index of the answer each brought), then in the order they started."""
        ...

    def unrecorded_calls(self, conversation_id: str) -> list[UnrecordedCall]:
        """The conversation's calls that have no rows, in the order planned."""
        ...


class CallRows(ABC):
    """`CallLog` over the shared SQL."""

    insertion_order: ClassVar[str] = ""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    @staticmethod
    def _record_calls(db: Executor, rows: tuple[ModelCallRow, ...]) -> None:
        """Inside the commit of a call's end: its attempts, each once."""
        for row in rows:
            cut = row.error[:ERROR_CHARS] if row.error is not None else None
            db.execute(INSERT_MODEL_CALL, (*astuple(row)[:-1], cut))

    @staticmethod
    def _note_model(db: Executor, conversation_id: str, model: str, owner: int, when: int) -> None:
        """Inside the commit that plans a call: the conversation called `model`."""
        db.execute(NOTE_MODEL, (conversation_id, model, owner, when))

    def model_calls(self, conversation_id: str) -> list[ModelCallRow]:
        with self._read() as db:
            rows = db.execute(
                f"SELECT {CALL_COLUMNS} FROM model_calls WHERE conversation_id = ?"
                " ORDER BY step, started_at_ms, call_id, attempt",
                (conversation_id,),
            ).fetchall()
        return [call_of_row(row) for row in rows]

    def unrecorded_calls(self, conversation_id: str) -> list[UnrecordedCall]:
        with self._read() as db:
            rows = db.execute(
                "SELECT call_id, model, status, attempts, error FROM llm_calls l"
                " WHERE conversation_id = ? AND NOT EXISTS"
                " (SELECT 1 FROM model_calls m WHERE m.call_id = l.call_id)"
                f" ORDER BY {self.insertion_order}",
                (conversation_id,),
            ).fetchall()
        return [UnrecordedCall(str(r[0]), str(r[1]), str(r[2]), int(r[3]), r[4]) for r in rows]
