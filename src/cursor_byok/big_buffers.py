"""Big buffers go back to the operating system as soon as they are freed.

glibc gives allocations above a threshold their own mappings, which return
to the system when freed; but it raises the threshold to the size of each
such block freed, so after a few multi-MiB append bodies the next ones come
from the heap, between buffers still held, and stay with the process after
they are freed. A fixed threshold keeps the server's RSS close to what its
memory budget accounts. Only glibc has `mallopt`; elsewhere nothing changes.
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_MMAP_THRESHOLD = -3
"""glibc's `mallopt` parameter number (malloc.h)."""
BIG_BUFFER_BYTES = 1024 * 1024


def map_big_buffers(threshold: int = BIG_BUFFER_BYTES) -> bool:
    """Serve every allocation of `threshold` bytes or more with its own
    mapping, for the life of the process; whether the C library took it."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))
