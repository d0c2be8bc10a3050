"""A fetched page longer than the fetch's cap, handed to the client whole.

The official server writes such a page to a file through the client's
write exec and names it in `WebFetchSuccess.output_location` {file_path,
size_bytes, line_count} (protocol/agent-features.md §3.2: up to 100,000
characters inline, else a file); the card and the model get the cut text,
and the model is told where the rest is (it reads it with its read tool).
The file goes in the client's folder for the project
(`RequestContextEnv.project_folder`, which is outside the workspace, so
nothing appears among the user's files), under `agent-tools/`, named by
the tool call. A client that names no such folder, whose write fails, or
whose answer does not come within `WRITE_WAIT_S` gets the cut text alone.
"""

from __future__ import annotations

import re

from cursor_byok.runtime.web.pages import WebPage
from cursor_byok.transport.dialect.server_tool import ToolContext
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

WRITE_WAIT_S = 30.0
"""How long the fetch waits for the client to write the page."""

FOLDER = "agent-tools"


def page_path(folder: str, call_id: str) -> str:
    """Where the page goes: the client's separators (a Windows folder names
    itself with backslashes), a file name made of the call id's safe
    characters."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", call_id)[:80] or "page"
    sep = "\\" if "\\" in folder and "/" not in folder else "/"
    return f"{folder.rstrip(sep)}{sep}{FOLDER}{sep}web-fetch-{name}.md"


def line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


async def keep_whole(page: WebPage, call_id: str, context: ToolContext) -> pb.OutputLocation | None:
    """Have the client write the whole page when the cap cut it: where it
    is, or None when it was not cut or could not be written."""
    folder = context.project_folder
    if not page.whole or not folder:
        return None
    path = page_path(folder, call_id)
    result = await context.write(path, page.whole, WRITE_WAIT_S)
    if result is None or result.WhichOneof("result") != "success":
        return None
    size = len(page.whole.encode("utf-8"))
    return pb.OutputLocation(file_path=path, size_bytes=size, line_count=line_count(page.whole))


def where_the_rest_is(location: pb.OutputLocation) -> str:
    """What the model reads after the cut text."""
    return (
        f"\n\n[The whole page ({location.size_bytes:,} bytes, {location.line_count:,} lines) "
        f"is in {location.file_path}: read the rest there.]"
    )
