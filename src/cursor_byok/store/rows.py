"""Records to table rows and back, the same for every backend.

Column order is fixed here once; the SQL in `sql_store` and both schemas name
the columns, and these functions read and write them in that order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cursor_byok.llm.encodings import Encodings
from cursor_byok.llm.request_identity import tools_bytes
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.loop.codec import settings_fields, state_fields
from cursor_byok.loop.state import ConversationState, TurnSettings
from cursor_byok.store.base import (
    CallStatus,
    CallStatusUpdate,
    ClientOperationRecord,
    LLMCallRecord,
    OperationStatus,
)

LLM_CALL_COLUMNS = (
    "call_id, conversation_id, model, request_json, request_hash, messages_hash,"
    " message_count, last_message_hash, status, attempts, assistant_hash, error,"
    " system_hash, tools_hash"
)
# A call's columns with its system prompt and tools joined back from
# `request_parts`, where each distinct value is stored once.
LLM_CALL_SELECT = (
    "SELECT "
    + ", ".join(f"c.{name.strip()}" for name in LLM_CALL_COLUMNS.split(","))
    + ", s.body, t.body FROM llm_calls c"
    " LEFT JOIN request_parts s ON s.part_hash = c.system_hash"
    " LEFT JOIN request_parts t ON t.part_hash = c.tools_hash"
)
OPERATION_COLUMNS = (
    "operation_id, conversation_id, turn_id, tool_call_id, tool_index, request_json,"
    " status, result_json"
)


def llm_call_row(record: LLMCallRecord, now_ms: int) -> tuple[object, ...]:
    """LLM_CALL_COLUMNS, then created_at_ms and updated_at_ms."""
    return (
        record.call_id,
        record.conversation_id,
        record.model,
        record.legacy_request,
        record.request_hash,
        record.messages_hash,
        record.message_count,
        record.last_message_hash,
        record.status.value,
        record.attempts,
        record.assistant_hash,
        record.error,
        record.system_hash or None,
        record.tools_hash or None,
        now_ms,
        now_ms,
    )


def request_part_rows(record: LLMCallRecord) -> list[tuple[str, bytes]]:
    """The (part_hash, body) rows a call's system prompt and tools need."""
    parts = ((record.system_hash, record.system), (record.tools_hash, record.tools))
    return [(part_hash, body) for part_hash, body in parts if part_hash]


def llm_call_from_row(row: Sequence[Any]) -> LLMCallRecord:
    """A row of LLM_CALL_SELECT."""
    return LLMCallRecord(
        call_id=row[0],
        conversation_id=row[1],
        model=row[2],
        legacy_request=bytes(row[3]),
        request_hash=row[4],
        messages_hash=row[5],
        message_count=row[6],
        last_message_hash=row[7],
        status=CallStatus(row[8]),
        attempts=row[9],
        assistant_hash=row[10],
        error=row[11],
        system_hash=row[12] or "",
        tools_hash=row[13] or "",
        system=bytes(row[14] or b""),
        tools=bytes(row[15] or b""),
    )


def call_update_params(update: CallStatusUpdate, now_ms: int) -> tuple[object, ...]:
    """The parameters of `sql_store.UPDATE_CALL_STATUS`, in its order."""
    status = update.status.value
    attempts = update.attempts
    return (
        status,
        status,
        attempts,
        attempts,
        update.assistant_hash,
        update.error,
        now_ms,
        update.call_id,
    )


def operation_row(record: ClientOperationRecord, now_ms: int) -> tuple[object, ...]:
    """OPERATION_COLUMNS, then created_at_ms and updated_at_ms."""
    return (
        record.operation_id,
        record.conversation_id,
        record.turn_id,
        record.tool_call_id,
        record.tool_index,
        record.request,
        record.status.value,
        record.result,
        now_ms,
        now_ms,
    )


def operation_from_row(row: Sequence[Any]) -> ClientOperationRecord:
    return ClientOperationRecord(
        operation_id=row[0],
        conversation_id=row[1],
        turn_id=row[2],
        tool_call_id=row[3],
        tool_index=row[4],
        request=bytes(row[5]),
        status=OperationStatus(row[6]),
        result=None if row[7] is None else bytes(row[7]),
    )


def _encode_settings(settings: TurnSettings) -> bytes:
    """`canonical_dumps(settings_to_json(settings))`, byte for byte. Every new
    turn brings a new settings object, but its tools are mostly the built-in
    definitions, whose bytes `tools_bytes` keeps per schema: only the rest
    is encoded here. "tools" sorts last among the keys."""
    rest = canonical_dumps(settings_fields(settings))
    return b"".join((rest[:-1], b',"tools":', tools_bytes(settings.tools), b"}"))


_settings: Encodings[TurnSettings] = Encodings(_encode_settings, count=256)


def state_bytes(state: ConversationState) -> bytes:
    """`canonical_dumps(state_to_json(state))`, byte for byte, with the
    settings' bytes made once per settings object: every commit of a
    conversation stores them, and their tool schemas are most of the
    document. Keys sorted, compact: the settings go between the fields
    before and after their key."""
    fields = state_fields(state)
    before = canonical_dumps({k: v for k, v in fields.items() if k < "settings"})
    after = canonical_dumps({k: v for k, v in fields.items() if k > "settings"})
    return b"".join(
        (before[:-1], b',"settings":', _settings.of(state.settings).data, b",", after[1:])
    )
