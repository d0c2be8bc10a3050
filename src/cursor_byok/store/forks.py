"""Branches of a conversation, and where the turns the client holds stand.

A rewind (`loop.forks`) continues a conversation in a branch: a
conversation of its own, keyed `<client id>~<8 hex digits>` in the owner's
namespace (`~` never appears in a client's id), whose history starts with
a copy of the kept prefix. The conversation the client named is the root;
`forks` lists each branch with its parent and the point it kept, written in
the same transaction as the branch's first commit. `turn_marks` notes, as
each turn ends, the blob id of the turn the client's last checkpoint named
and where its branch stood then. Both tables are only ever appended to.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from cursor_byok.llm.serialize import canonical_dumps, canonical_loads
from cursor_byok.loop.forks import Branch, TurnMark
from cursor_byok.loop.todos import todo_from_json, todo_to_json
from cursor_byok.store.executor import Executor
from cursor_byok.store.owners import client_id_of, owner_of, scoped

BRANCH_MARK = "~"
MARKS_PER_STATEMENT = 400
"""Below SQLite's limit of host parameters in one statement."""


def root_of(key: str) -> str:
    """The conversation a branch was forked from, at the root (itself for a root)."""
    return scoped(owner_of(key), client_id_of(key).partition(BRANCH_MARK)[0])


def branch_key(root: str, input_id: str) -> str:
    """The key of the branch the run `input_id` forks off `root`: the same
    for a resent run, so a fork is made once however often it is asked."""
    digest = hashlib.sha256(input_id.encode()).hexdigest()[:8]
    return scoped(owner_of(root), f"{client_id_of(root)}{BRANCH_MARK}{digest}")


@dataclass(frozen=True, slots=True)
class ForkRow:
    """A branch as `forks` lists it (for the dashboard's timeline and `show`)."""

    branch: str
    parent: str
    point: int
    """How many of the parent's messages the branch kept."""
    created_at_ms: int


INSERT_FORK = (
    "INSERT INTO forks (branch, root, parent, point, input_id, created_at_ms)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (branch) DO NOTHING"
)
INSERT_MARK = (
    "INSERT INTO turn_marks (root, turn_blob, branch, turn_number, message_count, todos_json,"
    " created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (root, turn_blob, branch, message_count) DO NOTHING"
)


class Branches(Protocol):
    """What a store keeps of rewinds (`ForkRows` says what each does)."""

    def mark_turn(self, turn_blob: bytes, mark: TurnMark, now_ms: int) -> None: ...

    def turn_marks(self, root: str, turn_blobs: Sequence[bytes]) -> dict[bytes, TurnMark]: ...

    def turn_marks_now(
        self, root: str, turn_blobs: Sequence[bytes]
    ) -> dict[bytes, TurnMark] | None: ...

    def branches(self, root: str) -> list[Branch]: ...

    def branches_now(self, root: str) -> list[Branch] | None: ...

    def forks(self, root: str) -> list[ForkRow]: ...

    def committed_on(self, keys: Sequence[str], input_id: str) -> frozenset[str]: ...


class ForkRows(ABC):
    """The rows of branches and turn marks, over the shared SQL."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    @abstractmethod
    def _transaction(self, flush: bool = True) -> AbstractContextManager[Executor]: ...

    @staticmethod
    def _insert_fork(
        db: Executor, branch: str, parent: str, point: int, input_id: str, now: int
    ) -> None:
        """Inside the branch's first commit."""
        db.execute(INSERT_FORK, (branch, root_of(branch), parent, point, input_id, now))

    def mark_turn(self, turn_blob: bytes, mark: TurnMark, now_ms: int) -> None:
        """Note where `mark.branch` stood when a turn the client holds as
        `turn_blob` ended (kept once; a later mark of the same id is newer)."""
        todos = canonical_dumps([todo_to_json(t) for t in mark.todos])
        row = (root_of(mark.branch), turn_blob.hex(), mark.branch, mark.number)
        with self._transaction(flush=False) as db:
            db.execute(INSERT_MARK, (*row, mark.message_count, todos, now_ms))

    def turn_marks(self, root: str, turn_blobs: Sequence[bytes]) -> dict[bytes, TurnMark]:
        """The latest mark of each id among `turn_blobs` that has one."""
        with self._read() as db:
            return self._turn_marks(db, root, turn_blobs)

    def turn_marks_now(
        self, root: str, turn_blobs: Sequence[bytes]
    ) -> dict[bytes, TurnMark] | None:
        """`turn_marks` on the caller's thread when that costs no wait (as
        `Store.lookup_now`); None: ask `turn_marks` in a worker thread."""
        return None

    @staticmethod
    def _turn_marks(db: Executor, root: str, turn_blobs: Sequence[bytes]) -> dict[bytes, TurnMark]:
        found: dict[bytes, tuple[int, TurnMark]] = {}
        wanted = list(dict.fromkeys(turn_blobs))
        for start in range(0, len(wanted), MARKS_PER_STATEMENT):
            chunk = wanted[start : start + MARKS_PER_STATEMENT]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(
                "SELECT turn_blob, branch, turn_number, message_count, todos_json,"
                " created_at_ms FROM turn_marks WHERE root = ?"
                f" AND turn_blob IN ({marks})",
                (root, *(blob.hex() for blob in chunk)),
            ).fetchall()
            for blob, branch, number, count, todos, created in rows:
                key = bytes.fromhex(blob)
                items = tuple(todo_from_json(t) for t in canonical_loads(bytes(todos)))
                latest = (created, count)
                if key not in found or latest > (found[key][0], found[key][1].message_count):
                    found[key] = (created, TurnMark(branch, number, count, items))
        return {key: mark for key, (_, mark) in found.items()}

    def branches(self, root: str) -> list[Branch]:
        """The root (if stored) and every fork of it, with where each ends now."""
        with self._read() as db:
            return self._branches(db, root)

    def branches_now(self, root: str) -> list[Branch] | None:
        """`branches` on the caller's thread when that costs no wait; None:
        ask `branches` in a worker thread."""
        return None

    @staticmethod
    def _branches(db: Executor, root: str) -> list[Branch]:
        rows = db.execute(
            "SELECT c.conversation_id, f.parent, coalesce(f.point, 0), c.message_count,"
            " c.updated_at_ms, c.created_at_ms, coalesce(f.input_id, '')"
            " FROM conversations c LEFT JOIN forks f ON f.branch = c.conversation_id"
            " WHERE c.conversation_id = ? OR c.conversation_id IN"
            " (SELECT branch FROM forks WHERE root = ?)",
            (root, root),
        ).fetchall()
        return [Branch(*row) for row in rows]

    def forks(self, root: str) -> list[ForkRow]:
        """The branches made of `root` (a fork of a fork too), oldest first."""
        with self._read() as db:
            rows = db.execute(
                "SELECT branch, parent, point, created_at_ms FROM forks WHERE root = ?"
                " ORDER BY created_at_ms, branch",
                (root,),
            ).fetchall()
        return [ForkRow(*row) for row in rows]

    def committed_on(self, keys: Sequence[str], input_id: str) -> frozenset[str]:
        """Which of `keys` have `input_id` committed."""
        if not keys:
            return frozenset()
        marks = ",".join("?" * len(keys))
        with self._read() as db:
            rows = db.execute(
                f"SELECT conversation_id FROM input_commits WHERE conversation_id IN ({marks})"
                " AND input_id = ?",
                (*keys, input_id),
            ).fetchall()
        return frozenset(row[0] for row in rows)
