"""The network edge of the adapter tests: the package's replay provider (a
real HTTP/1.1 server on 127.0.0.1), and the recorded provider bodies it plays.
Adapters talk to it with their real client over a real socket. Each request
pops the next scripted `Reply`; the request line, headers and body are kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cursor_byok.client.replay_provider import Received, ReplayProvider, Reply

__all__ = ["FIXTURES", "LoopbackServer", "Received", "Reply", "fixture_bytes", "fixture_json"]

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURES = REPO_ROOT.parent / "shared" / "fixtures" / "llm"


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def fixture_json(name: str) -> Any:
    return json.loads(fixture_bytes(name))


LoopbackServer = ReplayProvider
