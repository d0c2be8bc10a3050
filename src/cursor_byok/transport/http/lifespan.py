"""The ASGI lifespan protocol around a server that is neither uvicorn's nor
hypercorn's own (the one port runs both stacks, so neither runs it)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


@contextlib.asynccontextmanager
async def lifespan(app: Any) -> Any:
    """The ASGI lifespan protocol around serving: startup before the port
    listens, shutdown after the last connection. An app that returns from
    its lifespan call without a word does not speak it (as hypercorn and
    uvicorn take it): it is served without."""
    inbox: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    replies: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
    task = asyncio.create_task(app(scope, inbox.get, replies.put))

    async def step(kind: str) -> bool:
        await inbox.put({"type": f"lifespan.{kind}"})
        reply = asyncio.ensure_future(replies.get())
        await asyncio.wait({reply, task}, return_when=asyncio.FIRST_COMPLETED)
        if not reply.done():
            reply.cancel()
            task.result()  # the app's own error
            if kind == "startup":
                return False
            raise RuntimeError(f"the app ended its lifespan before {kind} completed")
        message = reply.result()
        if message["type"] != f"lifespan.{kind}.complete":
            raise RuntimeError(f"lifespan {kind} failed: {message.get('message', '')}")
        return True

    if not await step("startup"):
        yield
        return
    try:
        yield
    finally:
        await step("shutdown")
        await task
