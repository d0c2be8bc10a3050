"""Which client is on the other end, and what it can show and answer.

Cursor's clients differ in what they draw and answer. The Nov-2025 CLI
draws a tool card only for the `ToolCall` members in `CARDS_2025_11`
(anything else is a red "Unknown tool type" line), and fails the whole run
on an interaction query it cannot answer (ask_question, switch_mode, and
every query its schema lacks). Newer clients draw and answer more
(protocol/agent-features.md §4.3, §6). So what a run offers the model, and
what it may send the client, is decided here, once per run, from the
request's headers (`x-cursor-client-type`, `x-cursor-client-version`) and
the run request's own switches (`RequestContext.web_search_enabled` 17,
`web_fetch_enabled` 24, `read_lints_enabled` 35; `subagent_type_name` 11
marks a subagent's own run). Later features ask the `Capabilities` of the
run instead of looking at headers.

The table, by client row:

    client (x-cursor-client-type)   version              cards            queries
    ------------------------------  -------------------  ---------------  -------------------
    cli, interactive, acp, ...      before 2026.08.11    CARDS_2025_11    web_search only
                                    (or unreadable)
    cli, ...                        2026.08.11 or later  CARDS_NEWER      QUERIES_NEWER
    ide                             3.0 or later         CARDS_NEWER      QUERIES_NEWER
    ide                             before 3.0           CARDS_2025_11    web_search only
    anything else, or no header                          CARDS_2025_11    web_search only

The newer rows start where a build is known to have the feature (CLI
2026.08.11 from a decompiled build, IDE 3.x from recorded traffic); builds
in between may have it too, but unknown means the cautious answer, which
never breaks a run. A switch the run request sets to false turns the tool
off whatever the row says; an absent switch (older schemas lack it) leaves
the row's answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

CARDS_2025_11 = frozenset(
    {
        "shell_tool_call",
        "delete_tool_call",
        "grep_tool_call",
        "sem_search_tool_call",
        "glob_tool_call",
        "edit_tool_call",
        "read_tool_call",
        "read_lints_tool_call",
        "update_todos_tool_call",
        "read_todos_tool_call",
        "ls_tool_call",
        "mcp_tool_call",
        "web_search_tool_call",
        "create_plan_tool_call",
    }
)
"""The cards the Nov-2025 CLI draws (its `tool-call.tsx`)."""

CARDS_NEWER = CARDS_2025_11 | frozenset(
    {
        "task_tool_call",
        "ask_question_tool_call",
        "fetch_tool_call",
        "switch_mode_tool_call",
        "generate_image_tool_call",
        "web_fetch_tool_call",
    }
)

QUERIES_2025_11 = frozenset({"web_search_request_query"})
"""The one query the Nov-2025 CLI answers (its TUI rejects every search; `-p`
approves with `--force`); any other fails its run."""

QUERIES_NEWER = frozenset(
    {
        "web_search_request_query",
        "ask_question_interaction_query",
        "switch_mode_request_query",
        "create_plan_request_query",
        "web_fetch_request_query",
        "generate_image_request_query",
    }
)

SWITCHED_CARDS = {
    "web_search_tool_call": "web_search",
    "web_fetch_tool_call": "web_fetch",
    "read_lints_tool_call": "read_lints",
}
"""Cards whose tool the run request can turn off, and the switch that does."""

NEWER_CLI = (2026, 8, 11)
NEWER_IDE = (3, 0, 0)
CLI_TYPES = frozenset({"cli", "interactive", "acp", "cloud", "extension"})

_CLI_VERSION = re.compile(r"^(?:cli-)?(\d{4})\.(\d{1,2})\.(\d{1,2})(?:-[0-9A-Za-z.]+)?$")
_IDE_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?(?:[-+][0-9A-Za-z.-]+)?$")


@dataclass(frozen=True, slots=True)
class ClientHeaders:
    """Who the request says it comes from (both may be empty)."""

    type: str = ""
    version: str = ""

    @classmethod
    def of(cls, headers: Mapping[str, str]) -> ClientHeaders | None:
        """From a request's headers (names in lower case, as the server keeps
        them); None when they name no client."""
        kind = headers.get("x-cursor-client-type", "").strip().lower()[:40]
        version = headers.get("x-cursor-client-version", "").strip()[:80]
        return cls(kind, version) if kind or version else None


UNKNOWN_CLIENT = ClientHeaders()


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What one run's client can show and answer, and which tools it allows."""

    client: str
    """The row of the table that applied, for logs: `cli 2025.11.25`, `unknown`."""
    cards: frozenset[str]
    queries: frozenset[str]
    subagents: bool
    """It runs a subagent itself when asked (`exec subagent_args`)."""
    web_search: bool
    web_fetch: bool
    read_lints: bool
    child_run: bool = False
    """This run is a subagent's (the run request names its type)."""

    def draws(self, card: str) -> bool:
        """Whether the client draws the `ToolCall` member `card`."""
        return card in self.cards

    def answers(self, query: str) -> bool:
        """Whether the client answers the `InteractionQuery` member `query`
        (one it cannot answer may fail its whole run)."""
        return query in self.queries

    def offers(self, card: str) -> bool:
        """Whether a tool with this card may be offered: drawn, and not
        turned off by the run request."""
        switch = SWITCHED_CARDS.get(card)
        return self.draws(card) and (switch is None or bool(getattr(self, switch)))


CAUTIOUS = Capabilities(
    "unknown",
    CARDS_2025_11,
    QUERIES_2025_11,
    subagents=False,
    web_search=False,
    web_fetch=False,
    read_lints=True,
)
"""What the Nov-2025 CLI can do: the answer for any client not known to do more."""


@lru_cache(maxsize=256)
def _row(headers: ClientHeaders) -> tuple[str, bool]:
    """The table's row: its name for logs, and whether it is a newer client
    (found once per client build: every run asks)."""
    kind, version = headers.type, headers.version
    if kind in CLI_TYPES and (found := _CLI_VERSION.match(version)):
        date = tuple(int(part) for part in found.groups())
        return f"{kind} {'.'.join(found.groups())}", date >= NEWER_CLI
    if kind == "ide" and (found := _IDE_VERSION.match(version)):
        number = tuple(int(part or 0) for part in found.groups())
        return f"ide {version}", number >= NEWER_IDE
    return ("unknown" if not kind else f"{kind} (version not understood)"), False


def _switch(context: pb.RequestContext | None, field: str, unset: bool) -> bool:
    """A run request's switch: its value when the client sent one, else `unset`."""
    if context is None or not context.HasField(field):
        return unset
    return bool(getattr(context, field))


def capabilities(
    headers: ClientHeaders,
    run: pb.AgentRunRequest | None = None,
    context: pb.RequestContext | None = None,
) -> Capabilities:
    """The capabilities of one run: the client's row of the table, narrowed
    by the switches its request context sets."""
    name, newer = _row(headers)
    child = run is not None and run.HasField("subagent_type_name")
    return _capabilities(
        name,
        newer,
        # Server-run tools that reach the web: only when the client says so.
        _switch(context, "web_search_enabled", False),
        _switch(context, "web_fetch_enabled", False),
        # The diagnostics exec is in every known client; a client may turn it off.
        _switch(context, "read_lints_enabled", True),
        child,
    )


@lru_cache(maxsize=256)
def _capabilities(
    name: str, newer: bool, web_search: bool, web_fetch: bool, read_lints: bool, child: bool
) -> Capabilities:
    """One shared value per kind of run: the tool sets made from it are
    looked up by it on every run (`tools._fixed_for`)."""
    return Capabilities(
        name,
        CARDS_NEWER if newer else CARDS_2025_11,
        QUERIES_NEWER if newer else QUERIES_2025_11,
        subagents=newer,
        web_search=web_search,
        web_fetch=web_fetch,
        read_lints=read_lints,
        child_run=child,
    )
