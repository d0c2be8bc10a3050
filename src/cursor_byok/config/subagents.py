"""The `[subagents]` table: where subagents run and on which model.

    [subagents]
    mode = "auto"                 # auto | client | server
    subagent_model = "fast"       # a configured model; left out: the parent's
    wait_s = 3600                 # how long a parent waits for a client-run one

`auto` lets the client run them where it can (`exec subagent_args`: CLI
2026.08.11 or later, IDE 3.0 or later) and the server elsewhere. Apart from
config/settings.py so each stays short.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from cursor_byok.config.reader import Locator, no_leftovers, positive, take

if TYPE_CHECKING:
    from cursor_byok.transport.dialect.tool_base import Tool

MODES = ("auto", "client", "server")
DEFAULT_WAIT_S = 3600.0


@dataclass(frozen=True, slots=True)
class SubagentsConfig:
    mode: str = "auto"
    subagent_model: str | None = None
    wait_s: float = DEFAULT_WAIT_S


def parse_subagents(
    doc: dict[str, Any], where: Locator, models: Mapping[str, Any]
) -> SubagentsConfig:
    """The `[subagents]` table; a bad value named with its line. `models`:
    the configured models, which `subagent_model` must name."""
    table = "subagents"
    mode = take(doc, "mode", str, where, table) or "auto"
    if mode not in MODES:
        raise where.error(table, "mode", f"must be one of {', '.join(MODES)} (got {mode!r})")
    model = take(doc, "subagent_model", str, where, table)
    if model is not None and model not in models:
        known = ", ".join(models) or "none"
        raise where.error(table, "subagent_model", f"not a configured model (known: {known})")
    wait_s = positive(doc, "wait_s", DEFAULT_WAIT_S, "seconds", where, table)
    no_leftovers(doc, where, table)
    return SubagentsConfig(mode, model, float(wait_s))


def task_tool(config: SubagentsConfig, models: Mapping[str, Any]) -> Tool:
    """The Task tool as the table sets it up (each run binds it to its client)."""
    from cursor_byok.transport.dialect.subagent_settings import (  # noqa: PLC0415
        Mode,
        SubagentSettings,
    )
    from cursor_byok.transport.dialect.task_tool import TaskTool  # noqa: PLC0415

    names = set(models)
    names |= {str(getattr(model, "model", "")) for model in models.values()} - {""}
    settings = SubagentSettings(
        mode=cast(Mode, config.mode),
        model=config.subagent_model,
        wait_s=config.wait_s,
        known_models=frozenset(names),
    )
    return TaskTool(settings)
