"""A staged batch wrapped by a test's store: hooks around its commit."""

from __future__ import annotations

from collections.abc import Callable

from cursor_byok.store.base import BatchAnswer, StagedBatch


def _nothing() -> None:
    return None


class HookedStage:
    """`staged`, whose commit (on the writer thread) runs `before` first and
    `after` once it has landed; a `before` that raises abandons the batch,
    as a failed commit lands nothing."""

    def __init__(
        self,
        staged: StagedBatch,
        before: Callable[[], None] = _nothing,
        after: Callable[[], None] = _nothing,
    ) -> None:
        self.staged = staged
        self.before = before
        self.after = after
        self.answers: list[BatchAnswer] = staged.answers

    def finish(self) -> None:
        try:
            self.before()
        except BaseException:
            self.staged.abandon()
            raise
        self.staged.finish()
        self.after()

    def abandon(self) -> None:
        self.staged.abandon()
