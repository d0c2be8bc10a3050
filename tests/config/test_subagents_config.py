"""The `[subagents]` table: its defaults, each value checked and a bad one
named with its line, and the Task tool it sets up."""

from __future__ import annotations

from pathlib import Path

import pytest

from cursor_byok.config.reader import ConfigError
from cursor_byok.config.settings import load_config
from cursor_byok.config.subagents import SubagentsConfig, task_tool
from cursor_byok.transport.dialect.task_tool import TaskTool

MODELS = (
    'default_model = "big"\n[models.big]\nprovider = "p"\nmodel = "claude-big"\n'
    '[models.small]\nprovider = "p"\n'
    '[providers.p]\napi = "anthropic"\nbase_url = "https://a"\n'
)


def load(tmp_path: Path, table: str) -> SubagentsConfig:
    path = tmp_path / "config.toml"
    path.write_text(MODELS + table)
    return load_config(path, env={}).subagents


def test_without_the_table_the_client_runs_them_where_it_can(tmp_path: Path) -> None:
    found = load(tmp_path, "")
    assert found == SubagentsConfig("auto", None, 3600.0)
    tool = task_tool(found, load_config(tmp_path / "config.toml", env={}).models)
    assert isinstance(tool, TaskTool)
    assert tool.settings.known_models == {"big", "small", "claude-big"}


def test_each_value_is_read(tmp_path: Path) -> None:
    table = '[subagents]\nmode = "client"\nsubagent_model = "small"\nwait_s = 90\n'
    assert load(tmp_path, table) == SubagentsConfig("client", "small", 90.0)


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('[subagents]\nmode = "cloud"\n', "must be one of auto, client, server"),
        ('[subagents]\nsubagent_model = "huge"\n', "not a configured model (known: big, small)"),
        ("[subagents]\nwait_s = -1\n", "wait_s"),
        ("[subagents]\nmodel = 'big'\n", "unknown key"),
    ],
)
def test_a_bad_value_is_named_with_its_line(tmp_path: Path, table: str, said: str) -> None:
    with pytest.raises(ConfigError, match="subagents") as raised:
        load(tmp_path, table)
    assert said in str(raised.value) and "config.toml:11: subagents." in str(raised.value)
