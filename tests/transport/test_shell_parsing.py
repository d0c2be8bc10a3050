"""The shell parse the client's approval checks read (`ShellArgs.parsing_result`)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cursor_byok.llm.types import ToolCall
from cursor_byok.transport.dialect.shell_parsing import UNPARSED, parse_command
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
    assert [c[0] for c in commands("(cd /tmp && curl -s x | tar xz)")] == ["cd", "curl", "tar"]
    # A shell reading its standard input runs data: listed, and the client asks.
    assert [c[0] for c in commands("(cd /tmp && curl -s x | sh)")][:3] == ["cd", "curl", "sh"]
    assert asks("(cd /tmp && curl -s x | sh)")
    assert [c[0] for c in commands("export A=1; unset A")] == ["export", "unset"]


def test_redirects_carry_operator_fds_and_target() -> None:
    parsed = parse_command("grep foo < in.txt > out.txt 2>/dev/null")
    found = [(r.operator, list(r.destination_fds), r.target_text) for r in parsed.redirects]
    assert found == [("<", [0], "in.txt"), (">", [1], "out.txt"), (">", [2], "/dev/null")]
    assert parsed.has_redirects and not parsed.all_redirects_are_dev_null
    quiet = parse_command("ls &> /dev/null")
    assert [list(r.destination_fds) for r in quiet.redirects] == [[1, 2]]
    assert quiet.all_redirects_are_dev_null


def test_a_line_that_does_not_parse_ends_with_an_entry_no_allow_list_matches() -> None:
    """An allow-list matches an entry's text and name: the whole line, or its
    first word, would let `ls; <anything the grammar cannot read>` through."""
    line = 'ls; echo "unterminated && rm -rf /'
    parsed = parse_command(line)
    assert parsed.parsing_failed
    last = parsed.executable_commands[-1]
    assert last.name.startswith(UNPARSED) and last.full_text.startswith(last.name)
    assert "cannot read" in last.full_text
    assert asks(line)
    # Same line, same entry (a user's "always allow" of it holds for that line only).
    assert parse_command(line).executable_commands[-1].name == last.name
    assert parse_command(line + " ").executable_commands[-1].name != last.name


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
from cursor_byok.transport.dialect.shell_parsing import UNPARSED, parse_command

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
    assert asks("HQ{\U000f2bb1&")
    assert [c.name[: len(UNPARSED)] for c in crasher.executable_commands] == [UNPARSED]
    child = subprocess.run(
        [sys.executable, "-c", FUZZ], capture_output=True, text=True, timeout=300, check=False
    )
    assert child.returncode == 0, child.stderr[-2000:]


def asks(line: str) -> bool:
    """The parse makes the client ask: marked failed, substitution flagged,
    and one entry whose name and text no allow-list holds."""
    parsed = parse_command(line)
    unmatchable = [c for c in parsed.executable_commands if c.name.startswith(UNPARSED)]
    return (
        parsed.parsing_failed
        and parsed.has_command_substitution
        and len(unmatchable) == 1
        and unmatchable[0].full_text.startswith(UNPARSED)
    )


@pytest.mark.parametrize(
    "line",
    [
        "ls <<EOF\n`touch PWNED`\nEOF",
        "echo ${x:-`touch PWNED`}",
        'echo "${x:-`touch PWNED`}"',
        "echo `echo \\`touch PWNED\\``",
        "echo $\\\n(touch PWNED)",
        "echo \"${x:-'$(touch PWNED)'}\"",
        "echo \"${x:-$'`touch PWNED`'}\"",
        'echo "${x:-\'$"(touch PWNED)\'}"',
        "echo `echo \\\ttouch PWNED`",
    ],
)
def test_a_substitution_the_grammar_leaves_unparsed_makes_the_client_ask(line: str) -> None:
    assert asks(line)


@pytest.mark.parametrize("end", ["EOF ", " EOF", "\tEOF", "EOF;"])
def test_a_heredoc_the_grammar_ends_early_makes_the_client_ask(end: str) -> None:
    """Bash ends a heredoc on its delimiter alone: past a look-alike line the
    grammar reads commands where bash reads heredoc text, and runs its
    backticks even inside single quotes."""
    line = f"cat <<EOF\n{end}\necho '`touch PWNED`'\nEOF"
    assert asks(line)
    assert not parse_command("cat <<EOF\ntext\nEOF").parsing_failed
    assert not parse_command("cat <<-EOF\n\ttext\n\tEOF").parsing_failed


@pytest.mark.parametrize(
    "line",
    [
        "cat <<'EOF'\n`touch x` $(touch y)\nEOF",
        'cat <<"EOF"\n`touch x`\nEOF',
        "cat <<\\EOF\n`touch x`\nEOF",
        "cat <<EOF\nx \\`touch x\\` \\$(touch y)\nEOF",
        "echo '`touch x`' \\`touch y\\` # `touch z`",
    ],
)
def test_backticks_bash_does_not_run_leave_the_parse_alone(line: str) -> None:
    parsed = parse_command(line)
    assert not parsed.parsing_failed
    assert [c.name for c in parsed.executable_commands] in (["cat"], ["echo"])


@pytest.mark.parametrize(
    ("line", "names"),
    [
        ("time rm -rf victim", ["rm"]),
        ("time -p git status", ["git"]),
        ("! rm x", ["rm"]),
        ("coproc rm x", ["rm"]),
        ("nohup rm x", ["nohup", "rm"]),
        ("env -i A=1 B=2 rm x", ["env", "rm"]),
        ("exec rm x", ["exec", "rm"]),
        ("command rm x", ["command", "rm"]),
        ("builtin cd x", ["builtin", "cd"]),
        ("nice -n 5 rm x", ["nice", "rm"]),
        ("timeout -s KILL 5 rm x", ["timeout", "rm"]),
        ("xargs -0 -n1 rm", ["xargs", "rm"]),
        ("xargs", ["xargs", "echo"]),
        ("sudo -u root env A=1 rm x", ["sudo", "env", "rm"]),
        ("doas -u root rm x", ["doas", "rm"]),
        ("stdbuf -oL rm x", ["stdbuf", "rm"]),
        ("setsid -f rm x", ["setsid", "rm"]),
        ("find . -name '*.o' -exec rm {} \\; -ok touch {} +", ["find", "rm", "touch"]),
        ("/usr/bin/env A=1 /usr/bin/nohup rm x", ["/usr/bin/env", "/usr/bin/nohup", "rm"]),
        ("\\time rm x", ["time", "rm"]),
        ("ls | time rm x", ["ls", "time", "rm"]),
        ("env - rm x", ["env", "rm"]),
        ('sudo -u "$USER" rm x', ["sudo", "rm"]),
        ("nohup >/dev/null rm x", ["nohup", "rm"]),
        ("2>x coproc rm x", ["coproc"]),
        ("! ! rm x", ["rm"]),
        ("env A!=1 rm x", ["env", "rm"]),
        ("! ! A=1 rm x", ["rm"]),
        ("time FO\\O=1 rm x", ["FOO=1"]),
        ("ls | coproc rm x", ["ls", "rm"]),
        ('"\n"rm x', ["\nrm"]),
    ],
)
def test_the_command_a_wrapper_runs_is_listed(line: str, names: list[str]) -> None:
    parsed = parse_command(line)
    assert not parsed.parsing_failed
    assert [c.name for c in parsed.executable_commands] == names


def test_a_wrapped_command_is_listed_with_its_own_text_and_arguments() -> None:
    parsed = parse_command("sudo -u root env A=1 rm -rf victim")
    inner = parsed.executable_commands[-1]
    assert (inner.name, inner.full_text) == ("rm", "A=1 rm -rf victim")
    assert [a.value for a in inner.args] == ["-rf", "victim"]
    assert parsed.executable_commands[0].full_text == "sudo -u root env A=1 rm -rf victim"


@pytest.mark.parametrize(
    "line",
    [
        "eval 'touch x'",
        "source ./x.sh",
        ". ./x.sh",
        "bash -c 'touch x'",
        "sh -ec 'touch x'",
        "nohup sh -c 'touch x'",
        "echo 'touch x' | bash",
        "find . -exec sh -c 'touch {}' \\;",
        "x=rm; $x -rf victim",
        "env -S 'touch x'",
        "sudo -s touch x",
        "time { touch x; }",
        "x='a[$(touch P)]'; echo $((x))",
        "trap 'touch x' EXIT",
        "coproc N { touch x; }",
        'T="5 touch"; timeout $T x',
        'u="root touch"; sudo -u $u x',
        'X="-exec touch {} ;"; find . $X',
        "find . -exec {} \\;",
        "echo touch | xargs -I CMD nohup CMD x",
        "ls\x0ctouch x",
        "PATH=.:$PATH ls",
    ],
)
def test_what_runs_as_data_makes_the_client_ask(line: str) -> None:
    assert asks(line)


@pytest.mark.parametrize(
    "line",
    [
        "x=$ touch PWNED",
        "?A=1 touch PWNED",
        "x=[\\; touch PWNED",
        "]\\&&touch PWNED",
        "'touch x'\\\n#",
        "ls\\\n\\ ",
        "echo a >f b | nohup >g touch PWNED",
        "echo >&'$(touch PWNED)'",
        "coproc -- touch x",
        ">& -touch x",
        "&>$'\\x60'\\;touch x",
        'declare #comment "\n\\\ntouch x',
        "export$PS4='`touch PWNED`'; set -x; ls",
        "ls \\\n\n  touch x \\\n  y",
        "ls\n\\\ntouch x",
        "[ -d |touch x ]",
        "[ -d\n touch ] && ls",
        '!"touch" x',
        "time \\-p touch x",
        "printf -v'a[$(touch PWNED)]' x",
    ],
)
def test_words_the_grammar_splits_or_joins_unlike_bash_make_the_client_ask(line: str) -> None:
    assert asks(line)


def test_words_after_a_redirect_are_the_commands_arguments() -> None:
    """The grammar keeps `-la x` in the redirect; bash gives them to `ls`."""
    parsed = parse_command("ls 2>/dev/null -la >&2 x")
    assert not parsed.parsing_failed
    (ls,) = parsed.executable_commands
    assert [a.value for a in ls.args] == ["-la", "x"]
    assert ls.full_text == "ls 2>/dev/null -la >&2 x"


def test_a_line_continuation_inside_a_word_makes_the_client_ask() -> None:
    assert asks("to\\\nuch x")
    assert not parse_command("ls \\\n  -la \\\n  src").parsing_failed
    assert not parse_command('echo "a\\\nb"').parsing_failed


@pytest.mark.parametrize(
    "line",
    [
        "git commit -m \"$(cat <<'EOF'\nFix the parser\n\nWith `code` and $vars.\nEOF\n)\"",
        "python -m pytest tests/ -q 2>&1 | tail -20",
        'find . -name "*.py" | xargs grep -l foo',
        "cat > file.py << 'EOF'\ndef f():\n    return `x` + $(y)\nEOF",
        "ps aux | grep node | awk '{print $2}' | xargs kill -9",
        "mkdir -p build && cd build && cmake .. && make -j$(nproc)",
        'docker run --rm -v "$(pwd)":/app -w /app node:20 npm test',
        "nohup python app.py > app.log 2>&1 &",
        "for i in {1..5}; do echo $i; done",
        "python3 - <<'EOF'\nimport os\nEOF",
        "ls \\\n  -la \\\n  src",
    ],
)
def test_everyday_agent_lines_are_listed_without_asking(line: str) -> None:
    """The doubts stay where bash could run something unlisted: common lines
    keep working with an allow-list."""
    assert not parse_command(line).parsing_failed
