"""`cursor-byok demo`: one whole tool-using turn on this machine, no key and
no network, so a new user sees what the server does before configuring it.

Everything but the two ends is the real thing: the server (`build_service` +
`serving` on a free loopback port, SQLite in a temporary folder), the router
and the Anthropic adapter. The model's end is `ReplayProvider` playing two
recorded Anthropic Messages streams from `demo_data/` beside this module; the
editor's end is `DemoClient`, which opens RunSSE, sends the run request,
reads the file the model asks for in a temporary workspace and sends the
result back.
"""

from __future__ import annotations

import sys
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

from cursor_byok.client.editor import DemoClient, Seen, TurnReport
from cursor_byok.client.replay_provider import ReplayProvider, Reply
from cursor_byok.config.routing import Router
from cursor_byok.config.settings import Config, ModelConfig, ProviderConfig, Secret, ServerConfig
from cursor_byok.store.sqlite import SQLiteStore
from cursor_byok.transport.http.app import build_service, serving

QUESTION = "When does the next release ship?"
NOTES_FILE = "NOTES.md"
NOTES = (
    "# Project notes\n"
    "\n"
    "- Version 1.4 ships on Friday.\n"
    "- Blocker: one flaky test in the upload suite; fix it before tagging.\n"
)
MODEL = "demo"
TOOL_CALL_ID = "toolu_demo_0001"
"""The id the recorded first response gives its `read_file` call."""

LABELS = {
    "thinking": "thinking",
    "text": "assistant",
    "notice": "server",
    "tool_call": "tool call",
    "tool_run": "client runs",
    "tool_result": "tool result",
    "tool_done": "tool done",
    "usage": "turn ended",
}
WIDTH = max(map(len, LABELS.values())) + 2


def _recorded(name: str) -> bytes:
    return resources.files("cursor_byok.client").joinpath("demo_data", name).read_bytes()


def _offers_read_file(request: Any) -> str | None:
    names = [tool.get("name") for tool in request.get("tools") or ()]
    return None if "read_file" in names else f"read_file is not among the tools offered: {names}"


def _carries_the_file(request: Any) -> str | None:
    """The answer is only right if the model was sent the file's content."""
    last = (request.get("messages") or [{}])[-1]
    for block in last.get("content") or ():
        if block.get("type") == "tool_result" and block.get("tool_use_id") == TOOL_CALL_ID:
            content = block.get("content")
            text = content if isinstance(content, str) else str(content)
            if "Version 1.4 ships on Friday." in text and not block.get("is_error"):
                return None
            return f"the tool result does not hold {NOTES_FILE}: {text[:200]!r}"
    return f"the last message carries no tool result for {TOOL_CALL_ID}"


class Printer:
    """Prints `Seen` records as labelled lines; streamed pieces of the same
    kind continue the current line, so deltas appear as they arrive."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.streaming: str | None = None

    def line(self, label: str, text: str) -> None:
        self._end_stream()
        lines = text.splitlines() or [""]
        print(f"{label:<{WIDTH}}{lines[0]}", file=self.out)
        for rest in lines[1:]:
            print(f"{'':<{WIDTH}}| {rest}", file=self.out)
        self.out.flush()

    def show(self, seen: Seen) -> None:
        if seen.kind in ("thinking", "text", "notice"):
            if self.streaming != seen.kind:
                self._end_stream()
                self.out.write(f"{LABELS[seen.kind]:<{WIDTH}}")
                self.streaming = seen.kind
            self.out.write(seen.text.replace("\n", "\n" + " " * WIDTH))
            self.out.flush()
            return
        self.line(LABELS[seen.kind], seen.text)

    def _end_stream(self) -> None:
        if self.streaming is not None:
            self.out.write("\n")
            self.streaming = None


def _config(provider_url: str, database: Path) -> Config:
    provider = ProviderConfig("demo-replay", "anthropic", provider_url, Secret("demo-not-a-key"))
    model = ModelConfig(MODEL, provider.name, "claude-demo", 200_000, 4096, "low")
    return Config(ServerConfig(database=database), {provider.name: provider}, {MODEL: model}, MODEL)


def verdict(report: TurnReport) -> str | None:
    """None when the turn did what a turn must, else what went wrong."""
    if report.error is not None:
        return f"the stream ended with an error: {report.error}"
    if not report.tool_calls or not report.tool_results:
        return "no tool was called and answered"
    if '"success"' not in report.tool_results[0]:
        return f"the tool failed: {report.tool_results[0]}"
    if not report.turn_ended or not report.text:
        return "the turn did not end with an answer"
    return None


async def run_demo(out: TextIO | None = None, pace_s: float = 0.02) -> bool:
    """Run the turn, printing it; True when it completed as it should."""
    out = out or sys.stdout
    printer = Printer(out)
    replies = [
        Reply(_recorded("1-read-file.sse"), chunk_size=None, expect=_offers_read_file),
        Reply(_recorded("2-answer.sse"), chunk_size=None, expect=_carries_the_file),
    ]
    with tempfile.TemporaryDirectory(prefix="cursor-byok-demo-") as scratch:
        root = Path(scratch)
        workspace = root / "workspace"
        workspace.mkdir()
        (workspace / NOTES_FILE).write_text(NOTES, encoding="utf-8")
        database = root / "demo.sqlite3"
        async with ReplayProvider(replies, pace_s) as provider:
            config = _config(provider.base_url, database)
            router = Router(config, env={})
            store = SQLiteStore(database)
            service = build_service(
                store,
                router,
                models=router.entries,
                default_model=lambda: MODEL,
                context_window=router.context_window,
            )
            try:
                async with serving(service) as url:
                    printer.line("server", f"{url} (SQLite in {database})")
                    printer.line("model", f"recorded Anthropic streams, from {provider.base_url}")
                    printer.line("workspace", f"{workspace} holds {NOTES_FILE}")
                    print(file=out)
                    printer.line("user", QUESTION)
                    client = DemoClient(url, workspace, printer.show)
                    try:
                        report = await client.run_turn(QUESTION, MODEL, "demo-conversation", "r1")
                    finally:
                        await client.aclose()
                loaded = store.load("demo-conversation")
            finally:
                await router.aclose()
                store.close()
    print(file=out)
    problem = verdict(report)
    if problem is None and loaded is not None:
        kinds = ", ".join(type(m).__name__.removesuffix("Message") for m in loaded.state.messages)
        printer.line("stored", f"{len(loaded.state.messages)} messages in SQLite: {kinds}")
        printer.line("demo ok", "the server ran a whole tool-using turn")
        printer.line("next", "set a provider key, then run 'cursor-byok check'")
        return True
    printer.line("demo FAILED", problem or "the conversation was not stored")
    return False
