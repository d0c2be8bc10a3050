"""A small Cursor-like client, written from the protocol notes: it opens
RunSSE, sends BidiAppends in one of the three codecs, and decodes the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx2
from google.protobuf import json_format

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import bidi_pb2
from cursor_byok.transport.wire.framing import EnvelopeDecoder, encode_envelope

CODECS = ("proto", "json", "grpc-web")


@dataclass
class End:
    """How the stream ended: the Connect end-of-stream JSON, or gRPC-Web trailers."""

    error: dict[str, object] | None
    raw: bytes


@dataclass
class Stream:
    items: asyncio.Queue[pb.AgentServerMessage | End] = field(default_factory=asyncio.Queue)
    received: list[pb.AgentServerMessage | End] = field(default_factory=list)
    content_type: str = ""
    task: asyncio.Task[None] | None = None

    async def next(self, timeout: float = 10.0) -> pb.AgentServerMessage | End:
        item = await asyncio.wait_for(self.items.get(), timeout)
        self.received.append(item)
        return item

    async def until(self, predicate: object, timeout: float = 10.0) -> pb.AgentServerMessage | End:
        """Read until an item satisfies `predicate` (a callable); return it."""
        assert callable(predicate)
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError(f"nothing matched within {timeout}s")
            item = await self.next(left)
            if predicate(item):
                return item
            if isinstance(item, End):
                raise AssertionError(f"stream ended before the expected item: {item}")


def kind(item: pb.AgentServerMessage | End) -> str:
    """A short name of what a server message is, e.g. 'text_delta', 'exec', 'end'."""
    if isinstance(item, End):
        return "end"
    top = item.WhichOneof("message")
    if top == "interaction_update":
        return str(item.interaction_update.WhichOneof("message"))
    return {"exec_server_message": "exec", "conversation_checkpoint_update": "checkpoint"}.get(
        str(top), str(top)
    )


class CursorClient:
    def __init__(self, base_url: str, codec: str = "proto", token: str | None = None) -> None:
        assert codec in CODECS
        self.codec = codec
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.http = httpx2.AsyncClient(base_url=base_url, timeout=30.0, headers=headers)

    async def close(self) -> None:
        await self.http.aclose()

    def _stream_type(self) -> str:
        return {"proto": "application/connect+proto", "json": "application/connect+json",
                "grpc-web": "application/grpc-web+proto"}[self.codec]  # fmt: skip

    def _encode(self, message: object) -> bytes:
        assert hasattr(message, "SerializeToString")
        if self.codec == "json":
            return json.dumps(json_format.MessageToDict(message)).encode()  # type: ignore[arg-type]
        return message.SerializeToString()  # type: ignore[no-any-return]

    async def open(self, request_id: str) -> Stream:
        stream = Stream()
        body = encode_envelope(self._encode(bidi_pb2.BidiRequestId(request_id=request_id)))
        started = asyncio.Event()

        async def read() -> None:
            async with self.http.stream(
                "POST",
                "/agent.v1.AgentService/RunSSE",
                content=body,
                headers={"content-type": self._stream_type(), "x-cursor-streaming": "true"},
            ) as response:
                stream.content_type = response.headers.get("content-type", "")
                assert response.status_code == 200, await response.aread()
                started.set()
                decoder = EnvelopeDecoder()
                async for chunk in response.aiter_bytes():
                    for envelope in decoder.feed(chunk):
                        if envelope.is_end_stream or envelope.is_trailers:
                            error = None
                            if envelope.is_end_stream:
                                error = json.loads(envelope.payload).get("error")
                            elif b"grpc-status: 0" not in envelope.payload:
                                error = {"trailers": envelope.payload.decode()}
                            stream.items.put_nowait(End(error, envelope.payload))
                            return
                        stream.items.put_nowait(self._decode(envelope.payload))

        stream.task = asyncio.create_task(read())
        await asyncio.wait_for(started.wait(), 10)
        return stream

    def _decode(self, payload: bytes) -> pb.AgentServerMessage:
        if self.codec == "json":
            return json_format.Parse(payload.decode(), pb.AgentServerMessage())
        return pb.AgentServerMessage.FromString(payload)

    async def append_raw(self, request_id: str, seqno: int, data: bytes) -> httpx2.Response:
        request = bidi_pb2.BidiAppendRequest(
            data=data.hex(),
            request_id=bidi_pb2.BidiRequestId(request_id=request_id),
            append_seqno=seqno,
        )
        if self.codec == "json":
            body = self._encode(request)
            content_type = "application/json"
        elif self.codec == "grpc-web":
            body = encode_envelope(self._encode(request))
            content_type = "application/grpc-web+proto"
        else:
            body = self._encode(request)
            content_type = "application/proto"
        response = await self.http.post(
            "/aiserver.v1.BidiService/BidiAppend",
            content=body,
            headers={"content-type": content_type},
        )
        return response

    async def append(
        self, request_id: str, seqno: int, message: pb.AgentClientMessage
    ) -> httpx2.Response:
        response = await self.append_raw(request_id, seqno, message.SerializeToString())
        assert response.status_code == 200, response.text
        return response


def run_request(
    text: str, conversation_id: str = "conv-1", model: str = "test-model"
) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        run_request=pb.AgentRunRequest(
            conversation_id=conversation_id,
            action=pb.ConversationAction(
                user_message_action=pb.UserMessageAction(
                    user_message=pb.UserMessage(text=text, message_id="m1")
                )
            ),
            requested_model=pb.RequestedModel(model_id=model),
        )
    )


def exec_reply(request: pb.ExecServerMessage, **result: object) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        exec_client_message=pb.ExecClientMessage(
            id=request.id,
            exec_id=request.exec_id,
            **result,  # type: ignore[arg-type]
        )
    )


def stream_close(number: int) -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        exec_client_control_message=pb.ExecClientControlMessage(
            stream_close=pb.ExecClientStreamClose(id=number)
        )
    )


def cancel(reason: str = "stop") -> pb.AgentClientMessage:
    return pb.AgentClientMessage(
        conversation_action=pb.ConversationAction(cancel_action=pb.CancelAction(reason=reason))
    )


@contextlib.asynccontextmanager
async def client(base_url: str, codec: str = "proto") -> AsyncIterator[CursorClient]:
    made = CursorClient(base_url, codec)
    try:
        yield made
    finally:
        await made.close()
