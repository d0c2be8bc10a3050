"""Process tuning for a long-running server: the C allocator and the garbage
collector, set once by `serve`. Each part says what it measured and why."""

from __future__ import annotations

import ctypes
import gc
import os

# Large blocks.
# C allocator settings for a long-running server process (glibc only).
#
# A model call's request body holds the conversation's whole history, so it
# grows with every turn, and it is built and copied a few times per call (the
# body, the HTTP client's head-plus-body write). glibc serves a block above its
# mmap threshold with a fresh mapping and hands it back on free; the threshold
# only rises to the size of the last block freed, so a body that is always a
# little larger than the one before is always a fresh mapping, and every page
# of it is a page fault. Measured over a 200-turn tool session, faults per turn
# grew from about 15 to 485, and with them the CPU of a turn: the one cost of a
# turn that grew with its history. Blocks freed at the top of the heap are
# likewise returned to the system past a small trim threshold, and faulted in
# again by the next body.
#
# So large blocks stay in the heap, and the heap keeps its free top up to a
# bound: a process holds up to TRIM_THRESHOLD more memory than it uses, in
# exchange for bodies that cost a copy, not a copy plus a fault per page.

MMAP_THRESHOLD = 16 * 1024 * 1024
"""Blocks below this come from the heap (glibc's default starts at 128 KiB)."""

TRIM_THRESHOLD = 64 * 1024 * 1024
"""Free memory the heap keeps at its top before giving it back."""

M_MMAP_THRESHOLD = -3  # mallopt parameters, from glibc's <malloc.h>
_M_TRIM_THRESHOLD = -1


def keep_large_blocks() -> bool:
    """Apply the settings above; False where the C library is not glibc (or
    refuses them), which leaves that allocator's own policy in place."""
    try:
        libc_version = os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):  # not a glibc system: the name is unknown
        return False
    if not libc_version or not libc_version.startswith("glibc"):
        return False
    libc = ctypes.CDLL(None)  # the process's own symbols, glibc's among them
    mmap_set = libc.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    trim_set = libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return bool(mmap_set and trim_set)


# The garbage collector.
# Garbage-collector settings for a long-running server process.
#
# CPython's cyclic collector runs a young collection every 700 new container
# objects and, now and then, a full one over everything alive. A server that
# relays tens of thousands of deltas a second allocates that many objects in a
# few milliseconds, and its full collections walk every module, protobuf
# descriptor and cached history it holds: measured under load, collection took
# about 8% of the server's CPU and a full pass paused the event loop for about
# 70 ms, which every open stream sees as a gap.
#
# So once start-up is done, what it built is frozen (never scanned again: it
# lives as long as the process) and young collections run less often. Reference
# counting still frees almost everything at once; only cycles wait longer.

YOUNG_THRESHOLD = 20_000
"""New container objects between young collections (CPython's default: 700)."""


def settle_after_startup() -> None:
    """Freeze what start-up allocated and space out young collections."""
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, middle, old)
