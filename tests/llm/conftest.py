from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.llm.loopback import LoopbackServer


@pytest.fixture
async def server() -> AsyncIterator[LoopbackServer]:
    srv = LoopbackServer()
    await srv.start()
    yield srv
    await srv.stop()
