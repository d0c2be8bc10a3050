"""The server's garbage-collector settings, checked in a process of their own
(they are global to a process)."""

from __future__ import annotations

import json
import subprocess
import sys

from cursor_byok.cli.tuning import YOUNG_THRESHOLD

PROBE = """
import gc, json
import cursor_byok.transport.http.app  # what a server has loaded by then
from cursor_byok.cli.tuning import settle_after_startup
before = gc.get_threshold()
settle_after_startup()
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": gc.get_freeze_count()}))
"""


def test_startup_objects_are_frozen_and_young_collections_spaced_out() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    seen = json.loads(done.stdout)
    assert seen["before"][0] == 700  # CPython's default, which the server changes
    assert seen["after"] == [YOUNG_THRESHOLD, seen["before"][1], seen["before"][2]]
    # The server's modules and protobuf descriptors are no longer scanned.
    assert seen["frozen"] > 10_000
