"""A client's message decoded, on a worker thread when it carries images.

Decoding an opening message fits its images to the providers' limits
(`llm.image_fit`: up to a few hundred milliseconds of CPU each); done on
the event loop, that would stall every other stream meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from cursor_byok.transport.dialect.client_events import ClientEvent, decode_client_message
from cursor_byok.transport.dialect.clients import ClientHeaders
from cursor_byok.transport.dialect.run_request import carries_images
from cursor_byok.transport.dialect.tools import Tool
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


async def decode_append(
    message: pb.AgentClientMessage,
    request_id: str,
    now_ms: int,
    client: ClientHeaders,
    extra: Sequence[Tool],
) -> ClientEvent:
    """`decode_client_message`, off the event loop where images need it."""
    if carries_images(message):
        return await asyncio.to_thread(
            decode_client_message, message, request_id, now_ms, client, extra
        )
    return decode_client_message(message, request_id, now_ms, client, extra)
