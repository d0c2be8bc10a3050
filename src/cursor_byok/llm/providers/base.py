"""The client half every adapter shares: one pooled HTTP client per model,
one POST per call, the SSE body parsed by the API's own stream parser.

An API module supplies only what differs: the URL, the auth headers, the
request body and the parser."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from cursor_byok.llm.assembler import Assembler
from cursor_byok.llm.events import ResponseStream
from cursor_byok.llm.http import HTTPClient, HTTPRequest, make_client
from cursor_byok.llm.provider import CallContext, ModelSpec
from cursor_byok.llm.providers.common import encode_body_parts
from cursor_byok.llm.stream import SSEResponseStream, StreamParser
from cursor_byok.llm.types import RequestMessages


class SSEAdapter:
    api: ClassVar[str]

    def __init__(
        self,
        spec: ModelSpec,
        api_key: str,
        client: HTTPClient | None = None,
        *,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self.spec = spec
        self._api_key = api_key
        self._client = client or make_client()
        # Some providers quote the key they rejected in the error's text,
        # which is logged, stored and shown: `redact` cuts it out of every
        # error this adapter passes on.
        self._redact = redact

    def url(self) -> str:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        """Authentication and API-version headers."""
        raise NotImplementedError

    def body(self, ctx: CallContext, request: RequestMessages) -> dict[str, Any]:
        raise NotImplementedError

    def parser(self, assembler: Assembler) -> StreamParser:
        raise NotImplementedError

    def http_request(self, ctx: CallContext, request: RequestMessages) -> HTTPRequest:
        headers = {
            "content-type": "application/json",
            "accept": "text/event-stream",
            **self.headers(),
            **self.spec.headers,
        }
        timed = ctx.timed
        if timed is None:
            return HTTPRequest(self.url(), headers, encode_body_parts(self.body(ctx, request)))
        began = time.perf_counter_ns()
        body = self.body(ctx, request)
        rendered = time.perf_counter_ns()
        data = encode_body_parts(body)
        timed("render", rendered - began)
        timed("join", time.perf_counter_ns() - rendered)
        return HTTPRequest(self.url(), headers, data)

    async def call(self, ctx: CallContext, request: RequestMessages) -> ResponseStream:
        spec = self.spec
        assembler = Assembler(
            self.api, spec.provider, spec.model, int(time.time() * 1000), spec.price
        )
        return SSEResponseStream(
            self._client, self.http_request(ctx, request), self.parser(assembler), self._redact
        )

    async def aclose(self) -> None:
        await self._client.aclose()
