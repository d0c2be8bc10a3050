"""Locate the real Cursor payloads kept outside the repository.

They live in the team's shared folder next to the checkout (`../shared`), are
read as they are and never copied into the repository.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
CURSOR_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "cursor"


def load_cursor_fixture(name: str) -> Any:
    path = CURSOR_FIXTURES / name
    if not path.is_file():
        raise FileNotFoundError(f"shared fixture missing: {path} (expected ../shared)")
    return json.loads(path.read_text(encoding="utf-8"))
