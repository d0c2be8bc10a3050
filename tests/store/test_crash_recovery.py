"""Crash tests with a real process: SIGKILL before, inside (uncommitted) and
after every store write of a two-tool turn, start again, finish. The history
must be byte-identical to an uninterrupted run, each tool must have run
exactly once, and the usage recorded must be the uninterrupted run's: each
model call counted once and its row written once, and no budget left held (the turn is a user's with
a budget, so each call's reservation is a write of its own, swept too). On
every backend; on PostgreSQL the killed process's connections drop with it,
open transactions and all. A second turn has a shell command whose run is
cut off (its output committed piece by piece, then its interruption):
wherever the crash falls, its result is the same."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cursor_byok.store.scratch_postgres import PostgresServer
from tests.store.conftest import BACKENDS

ROOT = Path(__file__).resolve().parents[2]

NewDatabase = Callable[[Path], str]


def drive(
    tmp: Path, database: str, kill_at: int | None = None, scenario: str = "reads"
) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-m", "tests.store.crash_driver", database, str(tmp / "tools.log")]
    args += ["none" if kill_at is None else str(kill_at), scenario]
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module", params=BACKENDS)
def new_database(request: pytest.FixtureRequest) -> NewDatabase:
    """Makes an empty database for one run: a file in the given directory, or
    a database of its own on the session's PostgreSQL server."""
    if request.param == "sqlite":
        return lambda tmp: str(tmp / "db.sqlite3")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return lambda tmp: server.new_database().url


Reference = tuple[str, int, str]
"""An uninterrupted run's history (hex), writes, and usage (`crash_driver.usage_seen`)."""


@pytest.fixture(scope="module")
def reference(new_database: NewDatabase, tmp_path_factory: pytest.TempPathFactory) -> Reference:
    tmp = tmp_path_factory.mktemp("reference")
    done = drive(tmp, new_database(tmp))
    assert done.returncode == 0, done.stderr
    history, writes, usage = done.stdout.split()
    ops = (tmp / "tools.log").read_text().splitlines()
    assert len(ops) == 2
    return history, int(writes), usage


def test_the_uninterrupted_turn_writes_what_we_expect(reference: Reference) -> None:
    history, writes, usage = reference
    lines = bytes.fromhex(history).splitlines()
    roles = [json.loads(line)["role"] for line in lines]
    assert roles == ["user", "assistant", "toolResult", "toolResult", "assistant"]
    # start, done, result 1, result 2, done: five commits; and a budget
    # reservation before each of the two model calls.
    assert writes == 7
    # two calls of 10 input and 5 output tokens each, for user 2; none held;
    # a row for each call, its answer at history index 1 and 4
    key = "crash.2"
    assert json.loads(usage) == {
        "usage": [[2, "test-model", 2, 20, 10, 0.0, 0]],
        "held": 0,
        "calls": [
            [f"{key}:call:1", 1, 2, "test-model", 1, "ok", 10, 5, 0.0],
            [f"{key}:call:2", 1, 2, "test-model", 4, "ok", 10, 5, 0.0],
        ],
    }


@pytest.mark.parametrize("kill_at", range(21))
def test_a_kill_at_any_write_resumes_to_the_same_history_and_usage(
    kill_at: int, new_database: NewDatabase, reference: Reference, tmp_path: Path
) -> None:
    history, writes, usage = reference
    assert kill_at < 3 * writes
    database = new_database(tmp_path)
    killed = drive(tmp_path, database, kill_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = drive(tmp_path, database)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split()[0] == history
    assert resumed.stdout.split()[2] == usage
    runs = [json.loads(line)["op"] for line in (tmp_path / "tools.log").read_text().splitlines()]
    assert sorted(runs) == ["crash.2:turn:1:call:1:tool:t1", "crash.2:turn:1:call:1:tool:t2"]


@pytest.fixture(scope="module")
def interrupted_reference(
    new_database: NewDatabase, tmp_path_factory: pytest.TempPathFactory
) -> Reference:
    tmp = tmp_path_factory.mktemp("interrupted")
    done = drive(tmp, new_database(tmp), scenario="interrupted")
    assert done.returncode == 0, done.stderr
    history, writes, usage = done.stdout.split()
    return history, int(writes), usage


def test_the_uninterrupted_cut_off_command_writes_what_we_expect(
    interrupted_reference: Reference,
) -> None:
    history, writes, usage = interrupted_reference
    assert json.loads(usage) == {
        "usage": [[1, "test-model", 2, 20, 10, 0.0, 0]],
        "held": 0,
        "calls": [
            ["crash:call:1", 1, 1, "test-model", 1, "ok", 10, 5, 0.0],
            ["crash:call:2", 1, 1, "test-model", 4, "ok", 10, 5, 0.0],
        ],
    }
    lines = [json.loads(line) for line in bytes.fromhex(history).splitlines()]
    assert [line["role"] for line in lines] == [
        "user",
        "assistant",
        "toolResult",
        "toolResult",
        "assistant",
    ]
    cut_off = lines[2]["content"][0]["text"]
    assert cut_off.endswith("The output that arrived:\ncompiling a.c\ncompiling b.c\n")
    assert cut_off.startswith("Interrupted: ") and lines[2]["isError"]
    # start, done, two pieces of output, the interruption, result 2, done.
    assert writes == 7


@pytest.mark.parametrize("kill_at", range(21))
def test_a_kill_at_any_write_of_a_cut_off_command_resumes_to_the_same_history(
    kill_at: int,
    new_database: NewDatabase,
    interrupted_reference: Reference,
    tmp_path: Path,
) -> None:
    history, writes, usage = interrupted_reference
    assert kill_at < 3 * writes
    database = new_database(tmp_path)
    killed = drive(tmp_path, database, kill_at, "interrupted")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = drive(tmp_path, database, scenario="interrupted")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split()[0] == history
    assert resumed.stdout.split()[2] == usage
    entries = [json.loads(line) for line in (tmp_path / "tools.log").read_text().splitlines()]
    runs = sorted(entry["op"] for entry in entries if "op" in entry)
    assert runs == ["crash:turn:1:call:1:tool:t1", "crash:turn:1:call:1:tool:t2"]


ForkReference = tuple[str, int, str, str, str]
"""An uninterrupted `fork` run: the root's history, writes, usage, the
branch's history and the forks listed (`crash_driver`)."""


@pytest.fixture(scope="module")
def fork_reference(
    new_database: NewDatabase, tmp_path_factory: pytest.TempPathFactory
) -> ForkReference:
    tmp = tmp_path_factory.mktemp("fork")
    done = drive(tmp, new_database(tmp), scenario="fork")
    assert done.returncode == 0, done.stderr
    root, writes, usage, branch, forks = done.stdout.split()
    return root, int(writes), usage, branch, forks


def test_the_uninterrupted_rewind_keeps_both_branches(fork_reference: ForkReference) -> None:
    root, writes, usage, branch, forks = fork_reference
    said = [json.loads(line) for line in bytes.fromhex(root).splitlines()]
    kept = [json.loads(line) for line in bytes.fromhex(branch).splitlines()]
    assert len(said) == 7 and len(kept) == 7
    assert kept[:5] == said[:5] and kept[5]["content"] == "read them again"
    assert [(parent, point) for _, parent, point in json.loads(forks)] == [("crash", 5)]
    # two commits and a mark a turn, the fork, the branch's two commits
    assert writes == 10
    assert json.loads(usage)["usage"][0][2] == 4  # four model calls, each counted once


@pytest.mark.parametrize("kill_at", range(30))
def test_a_kill_at_any_write_around_a_rewind_resumes_to_the_same_branches(
    kill_at: int, new_database: NewDatabase, fork_reference: ForkReference, tmp_path: Path
) -> None:
    """Wherever the process dies (the marks of each turn's end, the fork's
    commit, the branch's first turn), the root and the branch end up as an
    uninterrupted run leaves them, each tool run once, each call counted once."""
    assert kill_at < 3 * fork_reference[1]
    database = new_database(tmp_path)
    killed = drive(tmp_path, database, kill_at, "fork")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = drive(tmp_path, database, scenario="fork")
    assert resumed.returncode == 0, resumed.stderr
    root, _, usage, branch, forks = resumed.stdout.split()
    assert (root, usage, branch, forks) == (
        fork_reference[0],
        fork_reference[2],
        fork_reference[3],
        fork_reference[4],
    )
    runs = [json.loads(line)["op"] for line in (tmp_path / "tools.log").read_text().splitlines()]
    assert sorted(runs) == ["crash:turn:1:call:1:tool:t1", "crash:turn:1:call:1:tool:t2"]


@pytest.fixture(scope="module")
def child_reference(
    new_database: NewDatabase, tmp_path_factory: pytest.TempPathFactory
) -> Reference:
    tmp = tmp_path_factory.mktemp("child")
    done = drive(tmp, new_database(tmp), scenario="child")
    assert done.returncode == 0, done.stderr
    history, writes, usage = done.stdout.split()
    return history, int(writes), usage


def test_the_uninterrupted_turn_with_a_subagent_writes_what_we_expect(
    child_reference: Reference,
) -> None:
    history, writes, usage = child_reference
    parent, child = bytes.fromhex(history).split(b"\n--\n")
    roles = [json.loads(line)["role"] for line in parent.splitlines()]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    result = json.loads(parent.splitlines()[2])["content"][0]["text"]
    assert "This is the output of the subagent" in result and "a.txt holds" in result
    roles = [json.loads(line)["role"] for line in child.splitlines()]
    assert roles == ["user", "assistant", "toolResult", "assistant"]
    # Each conversation: start, done, result, done; a reservation before each
    # of the four model calls, all counted for the parent's user.
    assert writes == 12
    seen = json.loads(usage)
    assert seen["usage"] == [[2, "test-model", 4, 40, 20, 0.0, 0]] and seen["held"] == 0
    # A row per model call, the child's under its own conversation.
    assert [c[0] for c in seen["calls"]] == [
        "crash.2:call:1",
        "crash.2:call:2",
        "crash~628b49d96dcde97a430d.2:call:1",
        "crash~628b49d96dcde97a430d.2:call:2",
    ]


@pytest.mark.parametrize("kill_at", range(36))
def test_a_kill_at_any_write_of_a_turn_with_a_subagent_resumes_to_the_same_histories(
    kill_at: int, new_database: NewDatabase, child_reference: Reference, tmp_path: Path
) -> None:
    history, writes, usage = child_reference
    assert kill_at < 3 * writes
    database = new_database(tmp_path)
    killed = drive(tmp_path, database, kill_at, "child")
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    resumed = drive(tmp_path, database, scenario="child")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.split()[0] == history
    assert resumed.stdout.split()[2] == usage  # each model call counted once
    runs = [json.loads(line)["op"] for line in (tmp_path / "tools.log").read_text().splitlines()]
    assert runs == ["crash~628b49d96dcde97a430d.2:turn:1:call:1:tool:c1"]  # the child's read, once
