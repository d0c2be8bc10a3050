"""The shell parse the client's approval checks read (`ShellArgs.parsing_result`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.shell_parsing import parse_command
from cursor_byok.transport.dialect.shell_tool import RunTerminalCommand


def commands(line: str) -> list[tuple[str, list[str], str]]:
    parsed = parse_command(line)
    return [(c.name, [a.value for a in c.args], c.full_text) for c in parsed.executable_commands]


def test_every_command_of_a_pipeline_and_an_and_chain_is_listed() -> None:
    assert commands("cd src && ls -la | grep foo") == [
        ("cd", ["src"], "cd src"),
        ("ls", ["-la"], "ls -la"),
        ("grep", ["foo"], "grep foo"),
    ]


def test_semicolons_or_chains_and_command_substitutions_are_split_too() -> None:
    parsed = parse_command('make; rm -rf "my dir" || echo $(whoami)')
    assert [c.name for c in parsed.executable_commands] == ["make", "rm", "echo", "whoami"]
    rm = parsed.executable_commands[1]
    # The deletion guard matches `rm` by name with its target among the arguments.
    assert [(a.type, a.value) for a in rm.args] == [("word", "-rf"), ("string", "my dir")]
    assert parsed.has_command_substitution
    assert not parsed.parsing_failed


def test_commands_inside_loops_and_subshells_are_listed() -> None:
    assert [c[0] for c in commands("for f in *.py; do rm $f; done")] == ["rm"]
    assert [c[0] for c in commands("(cd /tmp && curl -s x | sh)")] == ["cd", "curl", "sh"]
    assert [c[0] for c in commands("export A=1; unset A")] == ["export", "unset"]


def test_redirects_carry_operator_fds_and_target() -> None:
    parsed = parse_command("grep foo < in.txt > out.txt 2>/dev/null")
    found = [(r.operator, list(r.destination_fds), r.target_text) for r in parsed.redirects]
    assert found == [("<", [0], "in.txt"), (">", [1], "out.txt"), (">", [2], "/dev/null")]
    assert parsed.has_redirects and not parsed.all_redirects_are_dev_null
    quiet = parse_command("ls &> /dev/null")
    assert [list(r.destination_fds) for r in quiet.redirects] == [[1, 2]]
    assert quiet.all_redirects_are_dev_null


def test_a_line_that_does_not_parse_goes_in_whole_as_one_command() -> None:
    parsed = parse_command('echo "unterminated && rm -rf /')
    assert parsed.parsing_failed
    assert len(parsed.executable_commands) == 1
    assert parsed.executable_commands[0].full_text == 'echo "unterminated && rm -rf /'


def test_a_line_without_a_named_command_is_still_listed() -> None:
    assert commands("FOO=1") == [("FOO=1", [], "FOO=1")]


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=80).filter(lambda s: s.strip() != ""))
def test_a_non_blank_line_never_yields_an_empty_command_list(line: str) -> None:
    assert parse_command(line).executable_commands


@pytest.mark.parametrize("field", ["exec_args", "card"])
def test_the_shell_exec_and_its_card_carry_the_parse_and_never_skip_approval(field: str) -> None:
    tool = RunTerminalCommand()
    call = ToolCall("call_1", tool.name, {"command": "git status && rm notes.txt > log"})
    args = (
        tool.exec_args(call) if field == "exec_args" else tool.card(call, None).shell_tool_call.args
    )
    assert [c.name for c in args.parsing_result.executable_commands] == ["git", "rm"]
    assert list(args.simple_commands) == ["git status", "rm notes.txt"]
    assert args.has_output_redirect and not args.has_input_redirect
    assert not args.skip_approval


FUZZ = """
import sys
from hypothesis import HealthCheck, given, settings, strategies as st
from cursor_byok.transport.dialect.shell_parsing import parse_command

@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.text(min_size=1, max_size=80))
def never_crashes(line):
    parse_command(line)

never_crashes()
"""


def test_no_line_crashes_the_process_that_parses_it() -> None:
    """The bash grammar's scanner can fault on some input (a brace, then a
    character beyond U+FFFF); parsing in a child process shows the guard
    holds: a fault there would kill the whole server."""
    crasher = parse_command("HQ{\U000f2bb1&")
    assert crasher.parsing_failed and crasher.executable_commands[0].name == "HQ{\U000f2bb1&"
    child = subprocess.run(
        [sys.executable, "-c", FUZZ], capture_output=True, text=True, timeout=300, check=False
    )
    assert child.returncode == 0, child.stderr[-2000:]
