"""The server's allocator settings, checked in processes of their own (they
are global to a process and cannot be undone)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

PROBE = """
import json, resource, sys
from cursor_byok.cli.tuning import keep_large_blocks
applied = keep_large_blocks() if sys.argv[1] == "tuned" else None
# A request body that grows a little with every call, built by a join and
# copied once more, as a model call does: 300 calls from 200 KB to 1.7 MB.
parts = [b"m" * 5000] * 40
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(300):
    parts.append(b"m" * 5000)
    body = b"".join(parts)
    sent = b"".join((b"POST / HTTP/1.1\\r\\n\\r\\n", body))
    del body, sent
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
print(json.dumps({"applied": applied, "faults": faults}))
"""


def glibc() -> bool:
    try:
        return (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")
    except (ValueError, OSError):
        return False


def probe(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True, timeout=60
    )
    seen: dict[str, object] = json.loads(done.stdout)
    return seen


@pytest.mark.skipif(not glibc(), reason="the settings are glibc's mallopt")
def test_growing_bodies_stop_faulting_in_fresh_pages() -> None:
    plain, tuned = probe("plain"), probe("tuned")
    assert tuned["applied"] is True
    assert isinstance(plain["faults"], int) and isinstance(tuned["faults"], int)
    # Untuned, every body above the last one freed is a fresh mapping: about
    # one fault per 4 KiB page copied. Tuned, the heap keeps the pages.
    assert plain["faults"] > 300 * 100
    assert tuned["faults"] * 20 < plain["faults"]


def test_elsewhere_the_allocator_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from cursor_byok.cli import tuning  # noqa: PLC0415

    def unknown(name: str) -> str:
        raise ValueError(f"unrecognized configuration name {name!r}")

    monkeypatch.setattr(os, "confstr", unknown)
    assert tuning.keep_large_blocks() is False
