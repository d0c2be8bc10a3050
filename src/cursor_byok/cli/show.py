"""`cursor-byok show ID`: one conversation as stored, message by message
(`history_lines`), with its model calls, its usage and its to-do list.

Imports what it reads when it runs, as every command does (`--help` loads
none of the store, the loop or the LLM types).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TextIO

from cursor_byok.cli.base import EXIT_NOT_FOUND, EXIT_OK, fail
from cursor_byok.cli.terminal import Printer
from cursor_byok.runtime.logsafe import escape_c1, printable

if TYPE_CHECKING:
    from cursor_byok.loop.todos import TodoItem
    from cursor_byok.store.base import Store

STATUS_COLOURS = {"final": "green", "failed": "red", "canceled": "yellow"}
TODO_COLOURS = {"in_progress": "cyan", "completed": "green", "cancelled": "yellow"}


def show(store: Store, conversation_id: str, as_json: bool, out: TextIO) -> int:
    import json  # noqa: PLC0415

    from cursor_byok.cli.history_lines import message_lines  # noqa: PLC0415
    from cursor_byok.llm.serialize import message_to_json  # noqa: PLC0415
    from cursor_byok.llm.types import AssistantMessage  # noqa: PLC0415

    printer = Printer(out)
    loaded = store.load(conversation_id)
    if loaded is None:
        return fail(f"no conversation {conversation_id!r}", EXIT_NOT_FOUND)
    state = loaded.state
    if as_json:
        for message in state.messages:
            line = json.dumps(message_to_json(message), ensure_ascii=False)
            print(escape_c1(line), file=out)
        return EXIT_OK
    printer.line(
        f"conversation {printable(state.conversation_id)}: ",
        (state.status.value, STATUS_COLOURS.get(state.status.value)),
        f", {len(state.messages)} messages, version {loaded.version}",
    )
    resets = set(state.resets)
    for index, message in enumerate(state.messages):
        if index in resets:
            printer.line(f"  --- reset: requests start here (message {index}, a summary) ---")
        for line in message_lines(message):
            printer.line(line)
    printer.line("model calls:")
    for call in store.llm_calls(conversation_id):
        printer.line(
            f"  {printable(call.call_id)}  ",
            (f"{call.status.value:<9}", STATUS_COLOURS.get(call.status.value)),
            f" model {call.model}  {call.message_count} messages  attempts {call.attempts}",
            (f"  error: {printable(call.error)}", "red") if call.error else "",
        )
    usage = [m.usage for m in state.messages if isinstance(m, AssistantMessage)]
    read = sum(u.cache_read for u in usage)
    prompt = sum(u.input + u.cache_read + u.cache_write for u in usage)
    share = f"{read / prompt:.0%}" if prompt else "n/a"
    printer.line(
        f"usage: input {sum(u.input for u in usage)}, output {sum(u.output for u in usage)}, "
        f"cache read {read}, cache write {sum(u.cache_write for u in usage)} "
        f"(cache hits {share}), cost ${sum(u.cost.total for u in usage):.4f}"
    )
    if state.todos:
        _todos(printer, state.todos)
    return EXIT_OK


def _todos(printer: Printer, todos: tuple[TodoItem, ...]) -> None:
    """The list as the model keeps it, in its order."""
    from cursor_byok.loop.todos import FINISHED  # noqa: PLC0415

    finished = sum(item.status in FINISHED for item in todos)
    printer.line(f"to-dos: {len(todos)} ({finished} finished)")
    for item in todos:
        tag = f"[{item.status.value}]"
        printer.line(
            "  ",
            (f"{tag:<14}", TODO_COLOURS.get(item.status.value)),
            f" {_short(item.content)}  (id: {printable(item.id)})",
        )


def _short(text: str, width: int = 70) -> str:
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: width - 1] + "…"
