"""The whole server (router, real adapter, runner, store, Connect transport)
against a loopback provider, for one configured model: a Cursor-like client
sends a message, runs every `read_file` the server asks for in a temporary
workspace (an image file read as the CLI reads one), and reads to the end
of the turn."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from cursor_byok.client.client import (
    CursorClient,
    End,
    exec_reply,
    kind,
    run_request,
    stream_close,
)
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import load_config
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import is_image
from tests.llm.loopback import LoopbackServer, Reply


@dataclass(frozen=True)
class ModelUnderTest:
    api: str
    model: str
    vendor: str | None = None
    thinking: str = "off"

    def toml(self, base_url: str) -> str:
        suffix = {"openai-chat": "/v1", "openai-responses": "/v1", "gemini": "/v1beta"}
        vendor = f'vendor = "{self.vendor}"\n' if self.vendor else ""
        return (
            f'default_model = "m"\n[providers.p]\napi = "{self.api}"\n'
            f'base_url = "{base_url}{suffix.get(self.api, "")}"\n'
            f'api_key = "sk-test-planted-key"\n{vendor}'
            f'[models.m]\nprovider = "p"\nmodel = "{self.model}"\nthinking = "{self.thinking}"\n'
        )


@dataclass
class Turn:
    end: End
    received: list[pb.AgentServerMessage | End]

    def text(self) -> str:
        return "".join(
            i.interaction_update.text_delta.text
            for i in self.received
            if isinstance(i, pb.AgentServerMessage) and kind(i) == "text_delta"
        )


@dataclass
class Server:
    url: str
    provider: LoopbackServer
    store: SQLiteStore
    workspace: Path

    async def turn(self, request_id: str, text: str) -> Turn:
        """One user message; every read the server asks for is answered."""
        client = CursorClient(self.url)
        try:
            stream = await client.open(request_id)
            await client.append(request_id, 0, run_request(text, model="m"))
            seqno = 1
            while True:
                item = await stream.until(lambda i: kind(i) in ("exec", "end"), within=20)
                if isinstance(item, End):
                    return Turn(item, stream.received)
                request = item.exec_server_message
                assert request.WhichOneof("message") == "read_args", request
                path = request.read_args.path
                raw = (self.workspace / path).read_bytes()
                if is_image(raw):  # as the CLI reads an image: its bytes, no type
                    success = pb.ReadSuccess(path=path, data=raw, file_size=len(raw))
                else:
                    success = pb.ReadSuccess(path=path, content=raw.decode(), total_lines=1)
                result = pb.ReadResult(success=success)
                await client.append(request_id, seqno, exec_reply(request, read_result=result))
                await client.append(request_id, seqno + 1, stream_close(request.id))
                seqno += 2
        finally:
            await client.close()


@asynccontextmanager
async def server_for(
    model: ModelUnderTest, replies: list[Reply], tmp_path: Path
) -> AsyncIterator[Server]:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    for name in ("a.txt", "b.txt", "c.txt"):
        (workspace / name).write_text(f"contents of {name}\n")
    provider = LoopbackServer()
    await provider.start()
    provider.replies = list(replies)
    config_file = tmp_path / "config.toml"
    config_file.write_text(model.toml(provider.base_url))
    router = Router(load_config(config_file, env={}), env={})
    store = SQLiteStore(tmp_path / "db.sqlite3", synchronous="NORMAL")
    service = build_service(store, router, models=router.entries, default_model=lambda: "m")
    try:
        async with serving(service) as url:
            yield Server(url, provider, store, workspace)
    finally:
        await router.aclose()
        await provider.stop()
        store.close()
