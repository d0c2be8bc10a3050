"""The shell parse against bash itself: every command bash runs for a line is
one the parse lists, or the parse makes the client ask.

Each line runs under `bash -c` in a temp folder with a minimal environment.
A folder of recording shims comes first on PATH (each a script named like a
command that appends its name to a log and exits 0), then real copies of the
wrappers that exec what they are given (`env`, `xargs`, `find`, ...), so the
shims record what those run; a `command_not_found_handle` (loaded through
BASH_ENV) records any other name bash tries to run. The corpus
(shell_lines.txt) holds lines marked `list` (must parse, and list all that
ran) and `ask` (must make the client ask); a generated fuzz composes more
(SHELL_FUZZ_EXAMPLES sets how many; 150 by default, thousands for a deep run).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cursor_byok.transport.dialect.shell_parsing import UNPARSED, parse_command

CORPUS = Path(__file__).with_name("shell_lines.txt")

SHIMS = [
    "touch",
    "rm",
    "ls",
    "cat",
    "git",
    "curl",
    "wget",
    "grep",
    "sed",
    "awk",
    "make",
    "npm",
    "npx",
    "node",
    "python",
    "python3",
    "pip",
    "tar",
    "cp",
    "mv",
    "chmod",
    "chown",
    "mkdir",
    "rmdir",
    "ssh",
    "scp",
    "docker",
    "kubectl",
    "head",
    "tail",
    "wc",
    "sort",
    "uniq",
    "cut",
    "tr",
    "date",
    "whoami",
    "id",
    "uname",
    "hostname",
    "ps",
    "sleep",
    "tee",
    "less",
    "vi",
    "nano",
    "open",
    "cargo",
    "go",
    "gcc",
    "java",
    "pytest",
    "ruff",
    "jq",
    "yes",
    "sudo",
    "doas",
    "su",
    "watch",
    "script",
    "parallel",
    "seq",
    "basename",
    "dirname",
    "realpath",
    "stat",
    "du",
    "df",
    "diff",
    "patch",
    "cmake",
    "ln",
    "base64",
    "xxd",
    "od",
    "hexdump",
    "mkfifo",
    "killall",
    "pkill",
    "nc",
    "ncat",
    "telnet",
    "ftp",
    "rsync",
    "zip",
    "unzip",
    "gzip",
    "gunzip",
    "bzip2",
    "xz",
    "echo",
    "printf",
    "test",
    "true",
    "false",
    "kill",
    "pwd",
]
"""Commands replaced by a recording shim (sudo, doas, su, ... record their own
name only: the parse must ask about or list what they would run)."""

REAL = ["env", "nohup", "timeout", "nice", "xargs", "stdbuf", "setsid", "find", "flock"]
REAL += ["chrt", "ionice", "taskset", "time", "bash", "sh", "dash"]
"""Wrappers run for real (each execs what it is given, through PATH)."""


@dataclass(frozen=True)
class Line:
    expect: str
    text: str
    number: int


def corpus() -> list[Line]:
    """`list <line>` / `ask <line>` entries; `> ` lines continue the previous
    entry on a new line; `#` starts a comment line. Lines end at newlines
    only (a form feed in a corpus line is part of it)."""
    lines: list[Line] = []
    for number, raw in enumerate(CORPUS.read_text(encoding="utf-8").split("\n"), 1):
        if raw.startswith("> ") or raw == ">":
            last = lines[-1]
            lines[-1] = Line(last.expect, last.text + "\n" + raw[2:], last.number)
        elif raw.strip() and not raw.startswith("#"):
            expect, _, text = raw.partition(" ")
            assert expect in ("list", "ask"), f"line {number}: {raw!r}"
            lines.append(Line(expect, text, number))
    return lines


class Sandbox:
    """Runs a line under bash with the recording shims; says what ran."""

    def __init__(self, root: Path, bash: str) -> None:
        self.bash = bash
        self.root = root
        self.log = root / "ran.log"
        shims = root / "shims"
        real = root / "real"
        shims.mkdir()
        real.mkdir()
        for name in SHIMS:
            shim = shims / name
            shim.write_text(f"#!/bin/sh\nprintf '%s\\0' {name} >> '{self.log}'\nexit 0\n")
            shim.chmod(0o755)
        for name in REAL:
            found = shutil.which(name)
            if found:
                (real / name).symlink_to(found)
        handler = root / "handler.sh"
        handler.write_text(
            "command_not_found_handle() {\n"
            f"  printf '%s\\0' \"${{1##*/}}\" >> '{self.log}'\n"
            "  return 0\n"
            "}\n"
        )
        self.env = {
            "PATH": f"{shims}:{real}",
            "BASH_ENV": str(handler),
            "LC_ALL": "C",
            "TERM": "dumb",
        }
        self.count = 0

    def ran(self, line: str) -> set[str]:
        """The names of the commands bash ran (or tried to) for `line`.
        `wait` after it lets background jobs record before the log is read;
        then whatever is left of the line's process group is killed, so no
        straggler records into the next line's log."""
        self.count += 1
        work = self.root / f"w{self.count}"
        work.mkdir()
        self.log.write_text("")
        process = subprocess.Popen(
            [self.bash, "-c", line + "\nwait"],
            cwd=work,
            env={**self.env, "HOME": str(work)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            process.wait(timeout=10)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        return {n for n in self.log.read_text().split("\0") if n}


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Sandbox:
    bash = shutil.which("bash")
    if bash is None:
        if os.environ.get("CI"):
            pytest.fail("bash is missing; CI must have it to check the shell parse against it")
        pytest.skip("bash is missing: the shell parse cannot be checked against it here")
    return Sandbox(tmp_path_factory.mktemp("shell"), bash)


def listed(line: str) -> tuple[bool, set[str]]:
    """Whether the parse makes the client ask, and the names it lists."""
    parsed = parse_command(line)
    entries = [c for c in parsed.executable_commands if c.name.startswith(UNPARSED)]
    asks = parsed.parsing_failed
    assert asks == bool(entries), "a failed parse, and only one, carries the unmatchable entry"
    assert not asks or parsed.has_command_substitution
    return asks, {c.name.rsplit("/", 1)[-1] for c in parsed.executable_commands}


def hidden(sandbox: Sandbox, line: str) -> set[str]:
    """What bash ran that the parse neither lists nor asks about."""
    asks, names = listed(line)
    ran = sandbox.ran(line)
    return set() if asks else ran - names


def test_the_sandbox_records_what_bash_runs(sandbox: Sandbox) -> None:
    assert sandbox.ran("touch a; nohup rm b; env A=1 git c; no-such-tool d") == {
        "touch",
        "rm",
        "git",
        "no-such-tool",
    }
    assert sandbox.ran("ls <<EOF\n`touch PWNED`\nEOF") == {"ls", "touch"}


def test_the_corpus_is_large_and_both_ways() -> None:
    lines = corpus()
    assert len(lines) >= 200
    assert {"list", "ask"} == {line.expect for line in lines}


@pytest.mark.parametrize("line", corpus(), ids=lambda line: f"L{line.number}")
def test_every_command_bash_runs_is_listed_or_the_client_asks(sandbox: Sandbox, line: Line) -> None:
    asks, _ = listed(line.text)
    assert asks == (line.expect == "ask"), f"expected {line.expect}: {line.text!r}"
    assert hidden(sandbox, line.text) == set(), line.text


WRAPPERS = [
    "",
    "time ",
    "time -p ",
    "! ",
    "nohup ",
    "env ",
    "env A=1 ",
    "env -i PATH=$PATH ",
    "command ",
    "nice -n 1 ",
    "timeout 5 ",
    "xargs ",
    "xargs -0 ",
    "stdbuf -oL ",
    "setsid ",
    "sudo ",
    "A=1 ",
    "A=$(date) ",
]
COMMANDS = ["touch a", "rm -f b", "git status", "ls", "curl x", "make"]
HIDERS = [
    "{}",
    "echo $({})",
    "echo `{}`",
    "cat <({})",
    "echo ${{x:-`{}`}}",
    'echo "${{x:-$({})}}"',
    "echo '$({})'",
    "echo \\`{}\\`",
    "cat <<EOF\n`{}`\nEOF\n",
    "cat <<EOF\n$({})\nEOF\n",
    "cat <<'EOF'\n`{}`\nEOF\n",
    "echo $(( $({}) ))",
    "x=`{}`",
    "f() {{ {}; }}; f",
    "( {} )",
    "{{ {}; }}",
    "if true; then {}; fi",
    "for i in 1; do {}; done",
    "case a in a) {};; esac",
    "echo `echo \\`{}\\``",
    "eval '{}'",
    "bash -c '{}'",
    "echo '{}' | sh",
]
SEPARATORS = [" ; ", " && ", " || ", " | ", "\n", " & "]


@st.composite
def command_lines(draw: st.DrawFn) -> str:
    """A line of wrapped commands, some hidden in substitutions, heredocs,
    compound commands or data, joined by separators."""
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        inner = draw(st.sampled_from(WRAPPERS)) + draw(st.sampled_from(COMMANDS))
        pieces.append(draw(st.sampled_from(HIDERS)).format(inner))
    line = pieces[0]
    for piece in pieces[1:]:
        # After a heredoc's last line the next command starts a line of its own.
        line += piece if line.endswith("EOF\n") else draw(st.sampled_from(SEPARATORS)) + piece
    return re.sub(r"\n+$", "", line)


@settings(
    max_examples=int(os.environ.get("SHELL_FUZZ_EXAMPLES", "150")),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command_lines())
def test_generated_lines_hide_nothing_from_the_parse(sandbox: Sandbox, line: str) -> None:
    assert hidden(sandbox, line) == set(), line
