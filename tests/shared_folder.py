"""The team's shared folder beside the checkout (`../shared`): recorded Cursor
and provider traffic kept outside the repository.

A clone with nothing beside it skips the tests that read that folder, with a
reason naming it; under CI (the env var CI set), which runs with the folder
beside the checkout, they fail instead, so a machine that lost it cannot pass
quietly. Recordings the repository carries itself are in tests/recordings.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED = REPO_ROOT.parent / "shared"


def shared_folder(*parts: str) -> Path:
    """`../shared/<parts>`, or the calling test skipped (failed under CI) when
    that folder is missing. At a module's top level it skips the module."""
    folder = SHARED.joinpath(*parts)
    if folder.is_dir():
        return folder
    wanted = "/".join(("..", "shared", *parts))
    reason = f"needs {wanted} beside the repository ({folder} is missing)"
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI runs with it beside the checkout", pytrace=False)
    pytest.skip(reason, allow_module_level=True)
