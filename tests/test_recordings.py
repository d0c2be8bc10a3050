"""The recordings the repository carries (tests/recordings) are the shared
folder's, byte for byte, and its README says where each came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.llm.loopback import RECORDINGS, recording
from tests.shared_folder import shared_folder

CARRIED = sorted(p.relative_to(RECORDINGS).as_posix() for p in RECORDINGS.rglob("*.sse"))


def test_the_repository_carries_recordings() -> None:
    assert CARRIED


@pytest.mark.parametrize("name", CARRIED)
def test_the_readme_names_where_each_recording_came_from(name: str) -> None:
    readme = (RECORDINGS / "README.md").read_text(encoding="utf-8")
    assert f"| `{name}` | `shared/fixtures/llm/{name}` |" in readme


@pytest.mark.parametrize("name", CARRIED)
def test_each_recording_is_the_shared_one_byte_for_byte(name: str) -> None:
    original: Path = shared_folder("fixtures", "llm") / name
    assert recording(name) == original.read_bytes()
