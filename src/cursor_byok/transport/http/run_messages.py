"""A Run stream's request body, message by message, into its session.

The body is a stream of enveloped `AgentClientMessage`s; each becomes an
append numbered in arrival order. Each envelope's declared length is
reserved in the memory budget when its header arrives, before its payload
is read, and what is inflated of it as it is inflated; all of it is given
back once the message is handed on, and whatever is left when the stream
ends, however it ends. A message there is no room for ends the stream with
resource_exhausted; a malformed one with invalid_argument.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from enum import Enum
from typing import Any

from cursor_byok.transport.connect.codec import Codec, CodecError, decode_message
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.connect.framing import EnvelopeDecoder, FramingError
from cursor_byok.transport.connect.reservation import NoRoom, Reservation
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.hub import SessionHub
from cursor_byok.transport.sessions.outbox import EndOfStream
from cursor_byok.transport.sessions.session import Session

log = logging.getLogger(__name__)


class Taken(Enum):
    """What one ASGI receive message came to."""

    MORE = "more"
    """Read on."""
    ENDED = "ended"
    """The stream was ended (malformed, no room, no run request): read no more."""
    GONE = "gone"
    """The client went away (`http.disconnect`)."""


class RunMessages:
    """Feeds one stream's request messages to its session, in order: `take`
    is awaited for one message at a time."""

    def __init__(self, hub: SessionHub, session: Session, codec: Codec, limit: int) -> None:
        self._hub = hub
        self._session = session
        self._codec = codec
        self._limit = limit
        self._held = Reservation(hub.budget)
        self._decoder = EnvelopeDecoder(max_message_bytes=limit, held=self._held)
        self._seqno = 0

    async def take(self, message: Mapping[str, Any]) -> Taken:
        if message["type"] == "http.disconnect":
            return Taken.GONE
        session, decoder, limit = self._session, self._decoder, self._limit
        try:
            for envelope in decoder.feed(message.get("body", b"")):
                if not envelope.is_end_stream and not envelope.is_trailers:
                    payload = self._payload(envelope.message(limit, self._held))
                    if payload is not None:
                        seqno, self._seqno = self._seqno, self._seqno + 1
                        await self._hub.append(session.request_id, seqno, payload)
                decoder.handed_on()
            if not message.get("more_body", False):
                decoder.finish()  # half-closed: the response goes on
                if self._seqno == 0:  # ... to nothing: no run request will come
                    reason = "the request stream ended before its first message"
                    session.put(EndOfStream(WireError(Code.INVALID_ARGUMENT, reason)))
                    return Taken.ENDED
        except FramingError as error:
            reason = f"the request stream is malformed: {error}"
            session.put(EndOfStream(WireError(Code.INVALID_ARGUMENT, reason)))
            return Taken.ENDED
        except NoRoom as no_room:
            session.put(EndOfStream(WireError(Code.RESOURCE_EXHAUSTED, str(no_room))))
            return Taken.ENDED
        return Taken.MORE

    def close(self) -> None:
        """Give back whatever the stream still holds."""
        self._decoder.close()
        self._held.release()

    def _payload(self, data: bytes) -> bytes | None:
        """The message as protobuf bytes, the form appends carry."""
        if self._codec is Codec.PROTO:
            return data
        try:
            return decode_message(data, pb.AgentClientMessage, self._codec).SerializeToString()
        except CodecError as error:
            self._hub.counters.undecodable_appends += 1
            log.info("a Run message that does not decode was ignored: %s", error)
            return None
