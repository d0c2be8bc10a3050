"""The store's form of the records a transition names (a mechanical mapping:
which records exist is decided by the loop)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar, assert_never

from cursor_byok.llm.request_identity import RequestNotRebuilt, identify, rebuild
from cursor_byok.llm.serialize import (
    canonical_dumps,
    canonical_loads,
    content_to_json,
    message_from_json,
    message_hash,
    message_to_json,
    request_from_json,
    sha256_hex,
)
from cursor_byok.llm.types import Message, RequestMessages, ToolResultMessage
from cursor_byok.loop.codec import command_to_json
from cursor_byok.loop.commands import CallLLM, Transition
from cursor_byok.loop.records import CallEnded, CallPlanned, OperationChanged, Record
from cursor_byok.runtime.call_log import CallEnd
from cursor_byok.runtime.observe import StageClock
from cursor_byok.store.base import (
    CallStatus,
    CallStatusUpdate,
    ClientOperationRecord,
    CommitRequest,
    InputCommit,
    LLMCallRecord,
    Loaded,
    OperationStatus,
    Store,
)
from cursor_byok.store.call_rows import ModelCallRow
from cursor_byok.store.usage import CallUsage

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class FirstLoad:
    """A conversation's committed state and the named input's earlier
    commit, if any: what its first input needs, read in one worker-thread
    hop instead of two."""

    loaded: Loaded | None
    found: InputCommit | None


def load_with_lookup(store: Store, conversation_id: str, input_id: str | None) -> FirstLoad:
    if input_id is None:
        return FirstLoad(store.load(conversation_id), None)
    return FirstLoad(*store.load_for_input(conversation_id, input_id))


class ThreadIO(Protocol):
    """How the runner calls the store in a worker thread."""

    def __call__(self, function: Callable[..., T], /, *args: object) -> Awaitable[T]: ...


async def first_load(
    store: Store, io: ThreadIO, conversation_id: str, input_id: str | None
) -> FirstLoad:
    """`load_with_lookup` in a worker thread, unless the store tells at once
    (`lookup_now`) that the conversation has no row: nothing to load then."""
    quick = None if input_id is None else store.lookup_now(conversation_id, input_id)
    if quick is not None and not quick.stored:
        return FirstLoad(None, None)
    return await io(load_with_lookup, store, conversation_id, input_id)


async def find_input(
    store: Store, io: ThreadIO, conversation_id: str, input_id: str
) -> InputCommit | None:
    """An input's earlier commit, read at once when the store can (no thread
    hop on the way to the first token), else in a worker thread."""
    quick = store.lookup_now(conversation_id, input_id)
    if quick is not None:
        return quick.found
    return await io(store.find_input_commit, conversation_id, input_id)


_CALL_STATUS = {
    "committed": CallStatus.COMMITTED,
    "failed": CallStatus.FAILED,
    "canceled": CallStatus.CANCELED,
}


def planned_commit(
    input_id: str,
    version: int,
    step: Transition,
    checked: bool,
    light: bool = False,
    ended: CallEnd | None = None,
) -> CommitRequest:
    """The commit of one transition: its state, its command as the input's
    result and the rows its records name. The commit that plans a model call
    is not flushed on its own (see `Store.commit_input`), nor is a `light`
    one (a piece of a running tool's output: a crash keeps it, a power cut
    may lose the last pieces, and a flush per piece would cost a disk write
    for every line a command prints). `usage` goes with the end of the call
    the input `ended` (`runtime.accounting`), and so do its attempts' rows."""
    conversation_id = step.state.committed.conversation_id
    usage, attempts = (ended.usage, ended.attempts) if ended is not None else (None, ())
    calls, operations = store_records(conversation_id, step.records, usage, attempts)
    return CommitRequest(
        input_id,
        version,
        step.state.committed,
        command_to_json(step.command),
        calls,
        operations,
        flush=not light and not isinstance(step.command, CallLLM),
        checked=checked,
    )


def store_records(
    conversation_id: str,
    records: Sequence[Record],
    usage: CallUsage | None = None,
    attempts: Sequence[ModelCallRow] = (),
) -> tuple[list[LLMCallRecord | CallStatusUpdate], list[ClientOperationRecord]]:
    """Call and operation rows to write in the same transaction as the state;
    `usage` with the end of a call (the one call an input can end)."""
    calls: list[LLMCallRecord | CallStatusUpdate] = []
    operations: list[ClientOperationRecord] = []
    for record in records:
        match record:
            case CallPlanned(call_id=call_id, model=model, request=request, messages_hash=chain):
                calls.append(call_record(conversation_id, call_id, model, request, chain))
            case CallEnded(call_id=call_id, outcome=outcome, assistant=assistant, error=error):
                kept = message_hash(assistant) if assistant is not None else None
                # An ended call was sent at least once (its reader starts as
                # soon as its plan is committed); retries raise the count,
                # and the store keeps the larger number.
                status = _CALL_STATUS[outcome]
                mine = tuple(row for row in attempts if row.call_id == call_id)
                calls.append(CallStatusUpdate(call_id, status, 1, kept, error, usage, mine))
            case OperationChanged():
                result = record.result
                operations.append(
                    ClientOperationRecord(
                        operation_id=record.operation_id,
                        conversation_id=conversation_id,
                        turn_id=record.turn_id,
                        tool_call_id=record.tool_call.id,
                        tool_index=record.tool_index,
                        request=canonical_dumps(content_to_json(record.tool_call)),
                        status=OperationStatus(record.status),
                        result=None if result is None else canonical_dumps(message_to_json(result)),
                    )
                )
            case _:
                assert_never(record)
    return calls, operations


def call_record(
    conversation_id: str, call_id: str, model: str, request: RequestMessages, chain: str
) -> LLMCallRecord:
    """A planned call, named by its request's identity (no copy of the history)."""
    identity = identify(request, chain)
    last = message_hash(request.messages[-1]) if request.messages else None
    return LLMCallRecord(
        call_id=call_id,
        conversation_id=conversation_id,
        model=model,
        request_hash=identity.request_hash,
        messages_hash=chain,
        message_count=identity.message_count,
        last_message_hash=last,
        status=CallStatus.PLANNED,
        system_hash=identity.system_hash,
        system=identity.system,
        tools_hash=identity.tools_hash,
        tools=identity.tools,
    )


def saved_call(
    call_id: str, record: LLMCallRecord | None, history: Sequence[Message]
) -> tuple[str, RequestMessages]:
    """The model and request of a call to send again (after a restart)."""
    if record is None:
        raise RequestNotRebuilt(f"call {call_id}: no record of it was saved")
    return record.model, saved_request(record, history)


def saved_request(record: LLMCallRecord, history: Sequence[Message]) -> RequestMessages:
    """The request `record` names, rebuilt from the stored history and parts
    and checked against its hash; RequestNotRebuilt when they disagree. A
    record from before the identity scheme carries its own copy instead."""
    if record.legacy_request:
        if sha256_hex(record.legacy_request) != record.request_hash:
            raise RequestNotRebuilt(f"call {record.call_id}: the saved copy hashes differently")
        return request_from_json(canonical_loads(record.legacy_request))
    return rebuild(
        record.call_id,
        history,
        record.message_count,
        record.messages_hash,
        record.system,
        record.tools,
        record.request_hash,
    )


async def saved_tool_result(
    store: Store, io: ThreadIO, operation_id: str
) -> ToolResultMessage | None:
    """A completed operation's saved result, when it is a tool result:
    operation ids make a tool run once, so it is fed back instead of asking
    the client again."""
    saved = await io(store.get_client_operation, operation_id)
    if saved is None or saved.status is not OperationStatus.COMPLETED or not saved.result:
        return None
    message = message_from_json(canonical_loads(saved.result))
    return message if isinstance(message, ToolResultMessage) else None


@dataclass(frozen=True, slots=True)
class Loads:
    """The store reads an input may need, each timed as the turn's `load`
    stage (a worker-thread hop included, or the quick lookup on the loop)."""

    store: Store
    io: ThreadIO
    stages: StageClock

    async def first(self, conversation_id: str, input_id: str | None) -> FirstLoad:
        return await self._timed(first_load(self.store, self.io, conversation_id, input_id))

    async def find_input(self, conversation_id: str, input_id: str) -> InputCommit | None:
        return await self._timed(find_input(self.store, self.io, conversation_id, input_id))

    async def tool_result(self, operation_id: str) -> ToolResultMessage | None:
        return await self._timed(saved_tool_result(self.store, self.io, operation_id))

    async def _timed(self, read: Awaitable[T]) -> T:
        began = time.perf_counter_ns()
        try:
            return await read
        finally:
            self.stages.since("load", began)
