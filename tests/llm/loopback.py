"""The network edge of the adapter tests: the package's replay provider (a
real HTTP/1.1 server on 127.0.0.1), and the recorded provider bodies it plays.
Adapters talk to it with their real client over a real socket. Each request
pops the next scripted `Reply`; the request line, headers and body are kept.

The recordings are read from ../shared/fixtures/llm (`fixture_bytes`: a test
that reads one is skipped without that folder, failed under CI), and the few
the repository carries, copies of some of them, from tests/recordings
(`recording`: these run everywhere).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cursor_byok.client.replay_provider import Received, ReplayProvider, Reply
from cursor_byok.llm.http import HTTPClient, HTTPRequest
from tests.shared_folder import shared_folder

__all__ = [
    "RECORDINGS",
    "LoopbackServer",
    "Received",
    "Reply",
    "answered",
    "fixture_bytes",
    "fixture_json",
    "recording",
]

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"


def fixture_bytes(name: str) -> bytes:
    """A recorded body from ../shared/fixtures/llm (`<api>/<name>`)."""
    return (shared_folder("fixtures", "llm") / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture_bytes(name))


def recording(name: str) -> bytes:
    """A recorded body the repository carries (tests/recordings/<api>/<name>),
    byte for byte the file of the same name under ../shared/fixtures/llm."""
    return (RECORDINGS / name).read_bytes()


LoopbackServer = ReplayProvider


async def answered(client: HTTPClient, request: HTTPRequest) -> None:
    """`request` sent and its whole answer read; it must be a 200."""
    response = await client.send(request)
    assert response.status == 200
    while await response.read():
        pass
    response.close()
