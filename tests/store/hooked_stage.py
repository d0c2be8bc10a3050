"""A staged batch wrapped by a test's store: hooks around its commit and its
flush."""

from __future__ import annotations

from collections.abc import Callable

from cursor_byok.store.base import BatchAnswer, StagedBatch


def _nothing() -> None:
    return None


class HookedStage:
    """`staged`, whose commit (on the loop) runs `before` first and `after`
    once it has landed, and whose flush (on the writer thread) runs `flushing`
    first; a `before` that raises abandons the batch, as a failed commit lands
    nothing."""

    def __init__(
        self,
        staged: StagedBatch,
        before: Callable[[], None] = _nothing,
        after: Callable[[], None] = _nothing,
        flushing: Callable[[], None] = _nothing,
    ) -> None:
        self.staged = staged
        self.before = before
        self.after = after
        self.flushing = flushing
        self.answers: list[BatchAnswer] = staged.answers
        self.flush_owed = staged.flush_owed

    def commit(self) -> None:
        try:
            self.before()
        except BaseException:
            self.staged.abandon()
            raise
        self.staged.commit()
        self.after()

    def flush(self) -> None:
        self.flushing()
        self.staged.flush()

    def abandon(self) -> None:
        self.staged.abandon()
