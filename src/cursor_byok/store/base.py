"""The store's interface and records (seed §13, §16).

The store persists what the loop decided and answers lookups; it makes no
decision of its own. Its one judgement is mechanical: a commit whose
expected version is stale is refused (optimistic compare-and-swap), and a
commit that would rewrite history instead of appending to it is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from cursor_byok.llm.types import JSONValue
from cursor_byok.loop.state import ConversationState
from cursor_byok.store.call_rows import CallLog, ModelCallRow
from cursor_byok.store.forks import Branches
from cursor_byok.store.owners import ADMIN_USER_ID
from cursor_byok.store.timeline_api import Timelines
from cursor_byok.store.ui_session_api import Sessions
from cursor_byok.store.usage import Accounts, BudgetPeriod, CallUsage


class StoreError(Exception):
    """Base of the store's own errors."""


class VersionConflict(StoreError):
    """Another writer committed first; reload and reprocess."""


class HistoryRewrite(StoreError):
    """A commit's messages do not extend the stored history; refused."""


class RequestMismatch(StoreError):
    """A call id was saved again with a different request; calls never change."""


class UserExists(StoreError):
    """A user of that name is stored already; names are unique."""


class WouldWait(StoreError):
    """A read asked for on the caller's thread would have to wait: ask in a worker thread."""


class CallStatus(StrEnum):
    PLANNED = "planned"
    STREAMING = "streaming"
    COMMITTED = "committed"
    FAILED = "failed"
    CANCELED = "canceled"


class OperationStatus(StrEnum):
    WAITING = "waiting"
    COMPLETED = "completed"
    CANCELED = "canceled"


@dataclass(frozen=True, slots=True)
class Loaded:
    state: ConversationState
    version: int


@dataclass(frozen=True, slots=True)
class InputCommit:
    input_id: str
    version: int
    result: JSONValue


@dataclass(frozen=True, slots=True)
class QuickLookup:
    """What a store told at once of an input: whether its conversation is
    stored, and the input's earlier commit."""

    stored: bool
    found: InputCommit | None


@dataclass(frozen=True, slots=True)
class LLMCallRecord:
    """One model call, named by what identifies its request rather than a
    copy of it (which would grow with history): the message count and chain
    hash point into the stored history; the system prompt and tools are kept
    once per distinct value under their hashes. A retry or a recovery
    rebuilds the request from these and checks it against `request_hash`.
    `legacy_request` is the full copy a database written before this scheme
    kept for a call still in flight (empty otherwise)."""

    call_id: str
    conversation_id: str
    model: str
    request_hash: str
    messages_hash: str
    message_count: int
    last_message_hash: str | None
    status: CallStatus
    system_hash: str = ""
    system: bytes = b""
    tools_hash: str = ""
    tools: bytes = b""
    legacy_request: bytes = b""
    attempts: int = 0
    assistant_hash: str | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class CallStatusUpdate:
    """A later change to a saved call: its status, attempts, outcome, and
    with its end the usage to record and its budget reservation to settle."""

    call_id: str
    status: CallStatus
    attempts: int = 0
    assistant_hash: str | None = None
    error: str | None = None
    usage: CallUsage | None = None
    attempts_made: tuple[ModelCallRow, ...] = ()
    """With its end: a row per attempt (`store.call_rows`)."""


@dataclass(frozen=True, slots=True)
class ClientOperationRecord:
    """One tool run on the client, keyed by conversation + turn + tool call id."""

    operation_id: str
    conversation_id: str
    turn_id: str
    tool_call_id: str
    tool_index: int
    request: bytes
    status: OperationStatus
    result: bytes | None = None


@dataclass(frozen=True, slots=True)
class ConversationSummary:
    conversation_id: str
    """The server's key (`store.owners`): the client's id, and its owner's
    id after a `.` unless the owner is the administrator."""
    version: int
    status: str
    message_count: int
    updated_at_ms: int
    owner: int = ADMIN_USER_ID


@dataclass(frozen=True, slots=True)
class User:
    """Someone the server answers, by a token of their own. Only a slow hash
    of the token is stored, never the token (`store.tokens`)."""

    id: int
    name: str
    is_admin: bool
    models: tuple[str, ...] | None
    """The models this user may see and use; None: every model."""
    budget_usd: float | None
    budget_period: BudgetPeriod | None
    created_at_ms: int
    last_used_at_ms: int | None
    revoked_at_ms: int | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at_ms is not None

    def may_use(self, model: str) -> bool:
        return self.models is None or model in self.models


class Users(Protocol):
    """The users and what identifies their tokens (`store.tokens`)."""

    def add_user(
        self,
        name: str,
        token_id: str,
        token_hash: str,
        models: tuple[str, ...] | None = None,
        budget_usd: float | None = None,
        budget_period: BudgetPeriod | None = None,
    ) -> User:
        """A new user holding the token `token_id`; UserExists for a name taken."""
        ...

    def users(self) -> list[User]:
        """Every user, the administrator first, then by when they were added."""
        ...

    def user(self, name: str) -> User | None: ...

    def user_by_id(self, user_id: int) -> User | None: ...

    def token_holder(self, token_id: str) -> tuple[User, str] | None:
        """The user whose token has id `token_id`, and its stored hash; None
        when no user holds it now (never issued, rotated away, revoked).
        One indexed read: asked on every request a user's token makes."""
        ...

    def token_holder_now(self, token_id: str) -> tuple[User, str] | None:
        """`token_holder` answered on the caller's thread (the event loop)
        when that costs no wait: a point read of a local file on a free
        connection. WouldWait otherwise (a networked database, a busy
        connection): ask `token_holder` in a worker thread."""
        ...

    def set_token(self, name: str, token_id: str, token_hash: str) -> User | None:
        """Give the user a new token (the old one stops at once) and take
        back a revocation; None when there is no such user."""
        ...

    def revoke(self, name: str) -> User | None:
        """The user's token stops working; None when there is no such user."""
        ...

    def set_budget(
        self, name: str, budget_usd: float | None, period: BudgetPeriod | None
    ) -> User | None:
        """Give the user (the administrator too) a budget, or none (None);
        None when there is no such user. Checked from the next call on."""
        ...

    def touch_user(self, user_id: int, when_ms: int) -> None:
        """Record when the user was last seen."""
        ...


@dataclass(frozen=True, slots=True)
class CommitRequest:
    """One input's commit as `Store.commit_batch` takes it: `commit_input`'s
    arguments, and `checked` for `commit_new_input`'s lookup of an earlier
    commit of the same input."""

    input_id: str
    expected_version: int
    next_state: ConversationState
    result: JSONValue
    llm_calls: Sequence[LLMCallRecord | CallStatusUpdate] = ()
    operations: Sequence[ClientOperationRecord] = ()
    flush: bool = True
    checked: bool = False
    forks: Sequence[tuple[str, int]] = ()
    """(parent, point) when this commit makes the conversation a branch
    (`store.forks`): listed in the same transaction."""

    def arguments(
        self,
    ) -> tuple[
        str,
        int,
        ConversationState,
        JSONValue,
        Sequence[LLMCallRecord | CallStatusUpdate],
        Sequence[ClientOperationRecord],
        bool,
    ]:
        """`commit_input`'s arguments, in its order."""
        return (
            self.input_id,
            self.expected_version,
            self.next_state,
            self.result,
            self.llm_calls,
            self.operations,
            self.flush,
        )


BatchAnswer = int | InputCommit | Exception
"""One request's answer in a batch (`Store.commit_batch`)."""


class StagedBatch(Protocol):
    """A batch whose statements have run, its transaction still open
    (`Store.stage_batch_now`)."""

    answers: list[BatchAnswer]
    """What `commit_batch` would answer, once `commit` has returned (and,
    where a flush is owed, `flush` too)."""

    flush_owed: bool
    """Whether a request asked for a flush that `commit` did not make: the
    batch is answered only once `flush` has returned."""

    def commit(self) -> None:
        """Commit it on the caller's thread, without waiting for the disk:
        its transaction ends and the write connection is free again (a
        process crash keeps it from now on). Raises if the transaction
        failed: then none of it landed."""
        ...

    def flush(self) -> None:
        """After `commit`: wait until what it wrote, and everything committed
        before it, is on the disk (a power cut keeps it). On a worker
        thread, as this waits for the disk."""
        ...

    def abandon(self) -> None:
        """Roll it back: none of it lands (nothing is left to commit it)."""
        ...


class Store(Users, Accounts, CallLog, Sessions, Timelines, Branches, Protocol):
    serial_writer: bool
    """Whether commits are serialized on one connection anyway (SQLite), so
    that batching them (`commit_batch`) costs no parallelism."""

    def load(self, conversation_id: str) -> Loaded | None: ...

    def find_input_commit(self, conversation_id: str, input_id: str) -> InputCommit | None: ...

    def load_for_input(
        self, conversation_id: str, input_id: str
    ) -> tuple[Loaded | None, InputCommit | None]:
        """`load` and `find_input_commit` of the same conversation, read together."""
        ...

    def lookup_now(self, conversation_id: str, input_id: str) -> QuickLookup | None:
        """The lookup an input needs before anything else, answered on the
        caller's thread (the event loop) when that costs no wait: a point
        read of a local file on a free connection. None when it would wait
        (a networked database, a busy connection): ask in a worker thread."""
        ...

    def commit_input(
        self,
        input_id: str,
        expected_version: int,
        next_state: ConversationState,
        result: JSONValue,
        llm_calls: Sequence[LLMCallRecord | CallStatusUpdate] = (),
        operations: Sequence[ClientOperationRecord] = (),
        flush: bool = True,
    ) -> int:
        """Commit `next_state` in one transaction with the input id and the
        call records; return the new version. `expected_version` 0 creates
        the conversation. Raises VersionConflict or HistoryRewrite.
        `flush=False`: the commit survives a process crash when this returns,
        and a power cut once a later flushed commit returns (no fsync of its
        own); under a store configured for speed over power-loss safety the
        flag changes nothing. The runner uses it for the commit that plans a
        model call, so the disk's flush time is not added to the time to the
        first token, while the record is still stored before the upstream
        opens; the commit that ends the call flushes both. The price, under
        full durability only: a power cut while the call streams can lose
        that commit (the input that started the call, or the tool result
        that led to it), so the client may have to send it again and a tool
        may be asked for again. History is never duplicated or reordered,
        and every commit before it stays."""
        ...

    def commit_new_input(
        self,
        input_id: str,
        expected_version: int,
        next_state: ConversationState,
        result: JSONValue,
        llm_calls: Sequence[LLMCallRecord | CallStatusUpdate] = (),
        operations: Sequence[ClientOperationRecord] = (),
        flush: bool = True,
    ) -> int | InputCommit:
        """`commit_input`, unless the input was committed before: then that
        earlier commit, and nothing is written (one transaction)."""
        ...

    def commit_batch(self, requests: Sequence[CommitRequest]) -> list[BatchAnswer]:
        """Several inputs' commits, of any conversations, in one transaction,
        in order, each in a savepoint of its own. The answer has one item per
        request: the new version, the earlier commit of a `checked` input (a
        duplicate: nothing written), or the error that refused it (a
        StoreError: a version conflict, a history rewrite...; or an error of
        that request's own, such as a value that cannot be stored), which
        rolled back that request alone. One flush covers the batch if any
        request asks for one. An error of the transaction itself is raised:
        none landed."""
        ...

    def stage_batch_now(self, requests: Sequence[CommitRequest]) -> StagedBatch | None:
        """`commit_batch` up to its commit, run on the caller's thread (the
        event loop) when the write connection is free at once: every
        statement's CPU is spent there, and so is the commit
        (`StagedBatch.commit`, a write to the file's cache); only the flush,
        the wait for the disk, is left to `StagedBatch.flush` on the writer
        thread. A writer thread running the statements, or the commit, wants
        the GIL back after each call, and a busy loop's thread holds it:
        under load a batch of a few milliseconds' CPU took a hundred, and a
        commit a few milliseconds more each time it changed hands. None when
        staging would wait (a busy connection, a networked database): the
        batch goes to `commit_batch` in a worker thread instead."""
        ...

    def save_llm_call(self, record: LLMCallRecord | CallStatusUpdate) -> None:
        """Save a new call (what identifies its request) or a change of its status."""
        ...

    def get_llm_call(self, call_id: str) -> LLMCallRecord | None: ...

    def llm_calls(self, conversation_id: str) -> list[LLMCallRecord]:
        """A conversation's model calls in the order they were saved."""
        ...

    def save_client_operation(self, record: ClientOperationRecord) -> None: ...

    def get_client_operation(self, operation_id: str) -> ClientOperationRecord | None: ...

    def active_conversations(self) -> list[str]:
        """Conversations left waiting for a model or a client: work to resume."""
        ...

    def conversations(self, owner: int | None = None) -> list[ConversationSummary]:
        """Every conversation, last updated first; `owner`'s alone when given."""
        ...

    def conversation_page(
        self,
        owners: Sequence[int],
        limit: int,
        before: tuple[int, str] | None = None,
        model: str | None = None,
    ) -> list[ConversationSummary]:
        """A page of `owners`' conversations, newest first (`store.conversation_pages`)."""
        ...

    def ping(self) -> None:
        """Raise StoreError unless the database answers now (for health checks)."""
        ...

    def close(self) -> None: ...
