"""The command line, run as a real process against real files."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from cursor_byok.llm.events import StartEvent
from cursor_byok.llm.images import sniff_mime
from cursor_byok.llm.serialize import messages_hash
from cursor_byok.llm.types import ImageContent, TextContent, ToolResultMessage, UserMessage
from cursor_byok.loop import Compact, ConversationState, LLMEvent, ToolResult, transition
from cursor_byok.store.base import Store
from cursor_byok.store.sqlite import SQLiteStore
from tests.factories import (
    assistant,
    error_event,
    fresh,
    result,
    start,
    stream_of,
    tool_call,
)
from tests.image_samples import GIF, png

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    clean.pop("OPENAI_BASE_URL", None)
    clean.pop("CURSOR_BYOK_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "cursor_byok", *args],
        cwd=ROOT,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_help_explains_how_to_start() -> None:
    done = cli("--help")
    assert done.returncode == 0
    assert "serve" in done.stdout and "ANTHROPIC_API_KEY" in done.stdout


def test_models_lists_the_defaults_for_a_key_in_the_environment() -> None:
    done = cli("models", env={"ANTHROPIC_API_KEY": "sk-ant-planted"})
    assert done.returncode == 0
    assert "claude-sonnet-4-6" in done.stdout and "key set" in done.stdout
    assert "context 200,000  output 64,000  thinking off" in done.stdout
    assert "planted" not in done.stdout + done.stderr


def test_models_without_any_key_says_what_to_set() -> None:
    done = cli("models")
    assert done.returncode == 0 and "ANTHROPIC_API_KEY" in done.stdout


def test_a_bad_config_exits_2_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[server]\nport = 0\n")
    done = cli("--config", str(path), "models")
    assert done.returncode == 2
    assert f"{path}:2: server.port" in done.stderr


def seeded(path: Path) -> None:
    store = SQLiteStore(path)
    seed(store)
    store.close()


def seed(store: Store) -> None:
    """One finished turn in conversation "conv-9"."""
    first = transition(fresh("conv-9"), start("what is in a.txt?"))
    call_id = first.state.committed.call_id
    assert call_id is not None
    state = first.state
    for event in stream_of(assistant(TextContent("It says hello."))):
        state = transition(state, LLMEvent(call_id, event)).state
    store.commit_input("in-1", 0, state.committed, None)


def test_conversations_and_show_read_the_database(tmp_path: Path) -> None:
    database = tmp_path / "state.sqlite3"
    seeded(database)
    listing = cli("conversations", "--database", str(database))
    assert listing.returncode == 0 and "conv-9" in listing.stdout and "final" in listing.stdout
    shown = cli("show", "conv-9", "--database", str(database))
    assert shown.returncode == 0
    assert "It says hello." in shown.stdout and "usage: input 10, output 5" in shown.stdout
    as_json = cli("show", "conv-9", "--database", str(database), "--json")
    roles = [json.loads(line)["role"] for line in as_json.stdout.splitlines()]
    assert roles == ["user", "assistant"]


def test_show_json_escapes_c1_control_characters_as_it_does_c0_ones(tmp_path: Path) -> None:
    """U+009B is CSI to a terminal, as ESC [ is: a model's text must not
    drive the terminal through `show --json` either."""
    database = tmp_path / "state.sqlite3"
    store = SQLiteStore(database)
    said = "red \x9b31m, next \x85line, bell \x07, delete \x7f, plain é"
    ascii_only = "delete \x7f alone"
    state = transition(fresh("conv-c1"), start(said)).state
    store.commit_input("in-1", 0, state.committed, None)
    other = transition(fresh("conv-del"), start(ascii_only)).state
    store.commit_input("in-1", 0, other.committed, None)
    store.close()
    deleted = cli("show", "conv-del", "--database", str(database), "--json").stdout
    assert "\x7f" not in deleted and "\\u007f alone" in deleted
    as_json = cli("show", "conv-c1", "--database", str(database), "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert not any(0x7F <= ord(c) <= 0x9F or ord(c) < 0x20 for c in as_json.stdout.strip())
    assert "\\u009b31m" in as_json.stdout and "\\u0085line" in as_json.stdout
    assert "plain é" in as_json.stdout  # other characters stay as they are
    [line] = as_json.stdout.splitlines()
    assert json.loads(line)["content"] == said  # the same text, read back


def test_missing_things_exit_3(tmp_path: Path) -> None:
    assert cli("conversations", "--database", str(tmp_path / "none.sqlite3")).returncode == 3
    database = tmp_path / "state.sqlite3"
    seeded(database)
    assert cli("show", "nobody", "--database", str(database)).returncode == 3


def test_show_lists_a_repair_step(tmp_path: Path) -> None:
    database = tmp_path / "state.sqlite3"
    store = SQLiteStore(database)
    first = transition(fresh("conv-r"), start("read a.txt"))
    call_id = first.state.committed.call_id
    assert call_id is not None
    state = transition(first.state, LLMEvent(call_id, StartEvent())).state
    for event in stream_of(assistant(TextContent("Reading."), tool_call("t1")))[1:]:
        state = transition(state, LLMEvent(call_id, event)).state
    state = transition(state, ToolResult(result("t1"))).state
    again = state.committed.call_id
    assert again is not None
    rule = "messages.1.content.1.tool_use.id: String should match pattern"
    state = transition(state, LLMEvent(again, replace(error_event(rule), status=400))).state
    store.commit_input("in-r", 0, state.committed, None)
    store.close()
    shown = cli("show", "conv-r", "--database", str(database))
    assert shown.returncode == 0
    assert "repair     earlier history resent as plain text: messages.1.content.1" in shown.stdout


def test_show_marks_where_requests_were_reset_by_a_summary(tmp_path: Path) -> None:
    database = tmp_path / "state.sqlite3"
    store = SQLiteStore(database)
    state = transition(fresh("conv-7"), start("what is in a.txt?")).state
    for step_input in ("answer", "summary"):
        call_id = state.committed.call_id
        assert call_id is not None
        text = "It says hello." if step_input == "answer" else "Asked about a.txt: hello."
        for event in stream_of(assistant(TextContent(text))):
            state = transition(state, LLMEvent(call_id, event)).state
        if step_input == "answer":
            state = transition(state, Compact()).state
    assert state.committed.resets == (2,)
    store.commit_input("in-1", 0, state.committed, None)
    store.close()
    shown = cli("show", "conv-7", "--database", str(database))
    lines = shown.stdout.splitlines()
    marker = next(i for i, line in enumerate(lines) if "reset" in line)
    assert "message 2" in lines[marker] and "Asked about a.txt" in lines[marker + 1]


def test_show_names_each_image_by_id_and_size(tmp_path: Path) -> None:
    """Images the user attached and images a tool returned alike: the id is
    the SHA-256 of the bytes, as the store and the client's blob store name it."""
    database = tmp_path / "state.sqlite3"
    attached, read = png(2, 2), GIF
    messages = (
        UserMessage((TextContent("what is this?"), _image(attached)), timestamp=1),
        assistant(TextContent("Reading."), tool_call("t1", "shot.gif")),
        ToolResultMessage("t1", "read_file", (TextContent("shot.gif: an image"), _image(read))),
    )
    state = ConversationState("conv-i", messages=messages, messages_hash=messages_hash(messages))
    store = SQLiteStore(database)
    store.commit_input("in-1", 0, state, None)
    store.close()
    shown = cli("show", "conv-i", "--database", str(database))
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    user = next(i for i, line in enumerate(lines) if line.startswith("  user "))
    assert "what is this?" in lines[user]
    assert lines[user + 1].split() == [
        "image",
        hashlib.sha256(attached).hexdigest(),
        "image/png",
        str(len(attached)),
        "bytes",
    ]
    tool = next(i for i, line in enumerate(lines) if line.startswith("  tool "))
    assert lines[tool + 1].split() == [
        "image",
        hashlib.sha256(read).hexdigest(),
        "image/gif",
        str(len(read)),
        "bytes",
    ]


def _image(data: bytes) -> ImageContent:
    return ImageContent(base64.b64encode(data).decode("ascii"), sniff_mime(data) or "")
