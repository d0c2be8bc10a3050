"""`serve --workers N`: N server processes on one machine sharing one port.

The parent binds the listening socket once (so a port in use is said once,
before anything forks), then forks N children that inherit it; the kernel
hands each new connection to whichever child accepts first. The parent only
supervises: a child that dies (a crash, kill -9) is replaced, and a signal to
the parent is passed on to every child, which drains as a lone server does.
The children share their conversations through the database (leases), so a
dead child's turns continue in another one.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from types import FrameType

log = logging.getLogger("cursor_byok.cli.workers")

RESPAWN_PAUSE_S = 1.0
"""At least this long between two starts of one slot: a child that dies at
once (a broken configuration) must not spin the machine."""


class Supervisor:
    """Starts `count` children running `child` and keeps them running."""

    def __init__(self, count: int, child: Callable[[int], int]) -> None:
        self.count = count
        self.child = child
        self.children: dict[int, int] = {}
        """Process id -> slot number."""
        self.stopping = False

    def run(self) -> int:
        """Supervise until a signal; the exit code (0 when every child drained)."""
        for slot in range(self.count):
            self._start(slot)
        previous = {s: signal.signal(s, self._stop) for s in (signal.SIGINT, signal.SIGTERM)}
        worst = 0
        try:
            while self.children:
                try:
                    pid, status = os.wait()
                except ChildProcessError:
                    break
                if pid not in self.children:
                    continue
                slot = self.children.pop(pid)
                code = os.waitstatus_to_exitcode(status)
                if self.stopping:
                    # A worker still starting has no handler yet: SIGTERM ends it
                    # at once, which is what was asked.
                    worst = max(worst, 0 if code == -signal.SIGTERM else abs(code))
                    continue
                log.warning("worker %d (pid %d) ended with %d; starting another", slot, pid, code)
                time.sleep(RESPAWN_PAUSE_S)
                if not self.stopping:
                    self._start(slot)
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return min(worst, 1)

    def _start(self, slot: int) -> None:
        pid = os.fork()
        if pid == 0:  # the child: serve, then leave without the parent's cleanup
            for sig in (signal.SIGINT, signal.SIGTERM):
                signal.signal(sig, signal.SIG_DFL)
            code = 1
            try:
                code = self.child(slot)
            except Exception:  # the child's last word; the parent starts another
                log.exception("worker %d failed", slot)
            finally:
                os._exit(code)
        self.children[pid] = slot

    def _stop(self, signum: int, _frame: FrameType | None) -> None:
        self.stopping = True
        for pid in self.children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        del signum
