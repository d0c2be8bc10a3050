"""Locate the real Cursor payloads kept outside the repository.

They live in the team's shared folder next to the checkout
(`../shared/fixtures/cursor`) and are read as they are, never copied into the
repository; a test that reads one is skipped without that folder (failed
under CI, see tests/shared_folder.py).
"""

from __future__ import annotations

import json
from typing import Any

from tests.shared_folder import shared_folder


def load_cursor_fixture(name: str) -> Any:
    return json.loads((shared_folder("fixtures", "cursor") / name).read_text(encoding="utf-8"))
