"""One window of a conversation's timeline, read without loading the rest
(a part of `SQLStore`): the conversation's state without its history, the
messages of an index range, and the model call rows whose answers fall in
it (`model_calls` by its (conversation, step) index). A page of the
dashboard's timeline so costs the same in a conversation of 50 messages
and in one of 50,000.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager

from cursor_byok.llm.serialize import canonical_loads, message_from_json
from cursor_byok.store.call_rows import CALL_COLUMNS, call_of_row
from cursor_byok.store.executor import Executor
from cursor_byok.store.images import load_rows
from cursor_byok.store.timeline_api import TimelineWindow


class TimelineReads(ABC):
    """`Timelines` over the shared SQL."""

    @abstractmethod
    def _read(self) -> AbstractContextManager[Executor]: ...

    def timeline_window(self, conversation_id: str, start: int, size: int) -> TimelineWindow | None:
        with self._read() as db:
            head = db.execute(
                "SELECT version, state_json, message_count FROM conversations"
                " WHERE conversation_id = ?",
                (conversation_id,),
            ).fetchone()
            if head is None:
                return None
            count = int(head[2])
            start = max(0, min(start, count))
            stop = min(start + size, count)
            rows = db.execute(
                "SELECT message_json FROM messages WHERE conversation_id = ?"
                " AND idx >= ? AND idx < ? ORDER BY idx",
                (conversation_id, start, stop),
            ).fetchall()

            def image(digest: str) -> bytes | None:
                found = db.execute("SELECT data FROM images WHERE sha256 = ?", (digest,))
                row = found.fetchone()
                return None if row is None else bytes(row[0])

            loaded = load_rows((r[0] for r in rows), image)
            # A call whose answer never came stands after the last message.
            last = stop + 1 if stop == count else stop
            calls = db.execute(
                f"SELECT {CALL_COLUMNS} FROM model_calls WHERE conversation_id = ?"
                " AND step >= ? AND step < ? ORDER BY step, started_at_ms, call_id, attempt",
                (conversation_id, start, last),
            ).fetchall()
            (total,) = db.execute(
                "SELECT count(*) FROM model_calls WHERE conversation_id = ?", (conversation_id,)
            ).fetchone()
        messages = [
            message_from_json(r if isinstance(r, dict) else canonical_loads(r)) for r in loaded
        ]
        state = canonical_loads(head[1])  # its status and resets only
        return TimelineWindow(
            int(head[0]),
            str(state["status"]),
            tuple(int(index) for index in state.get("resets", ())),
            count,
            start,
            messages,
            [call_of_row(row) for row in calls],
            int(total),
        )
