"""The whole-server benchmark still runs: two tiny levels and a short tool
session against the real `cursor-byok serve` process, every key printed with
a number. No timing is asserted; the numbers are the benchmark's job."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench import server as bench

SESSION_KEYS = [
    "turn_cpu_ms[early]",
    "turn_cpu_ms[late]",
    "turn_cpu_ratio_200_over_5",
    "turn_cpu_ratio_late_over_early",
    *(
        f"turn_stage_ms[late][{stage}]"
        for stage in ("decode", "load", "transition", "commit", "render", "join", "relay")
    ),
    "db_bytes_per_turn_ratio_200_over_5",
]
"""Spelled out, not taken from the bench: scripts read these names."""


def number(key: str, text: str) -> float:
    found = re.search(rf"^{re.escape(key)} = (-?\d+(?:\.\d+)?)", text, re.M)
    assert found, f"{key} is missing or not a number:\n{text}"
    return float(found.group(1))


def test_the_server_benchmark_completes_and_prints_every_key() -> None:
    out = io.StringIO()
    bench.run(levels=(1, 2), rounds={1: 1, 2: 1}, deltas=10, turns=16, window=4, out=out)
    text = out.getvalue()
    for key in [*bench.required_keys((1, 2), 16), *SESSION_KEYS]:
        number(key, text)
    failures = re.findall(r"failures=(\d+)", text)
    assert failures and set(failures) == {"0"}, text
    # Every delta the provider sent reached the client through the server.
    relayed = re.search(r"^relayed_deltas_per_s\[2\] = (\d+)", text, re.M)
    assert relayed and int(relayed.group(1)) > 0, text


def test_the_tool_session_runs_alone_on_its_windows() -> None:
    """`--session-only`: a fresh server, the late window alternating with
    the early one, every stage of a late turn timed (the server's stage
    clock reached the bench)."""
    out = io.StringIO()
    bench.run(levels=(), turns=14, window=3, out=out)
    text = out.getvalue()
    assert "late = its turns 12-14, alternating turn by turn with early = turns 5-7" in text
    assert "# N=" not in text, text  # no relay rounds
    for key in SESSION_KEYS:
        number(key, text)
    assert number("turn_cpu_ms[late]", text) > 0, text
    for stage in ("decode", "transition", "commit", "render", "join", "relay"):
        assert number(f"turn_stage_ms[late][{stage}]", text) > 0, text


def test_a_long_turn_is_measured_per_step() -> None:
    """`--tool-calls-per-turn`: one turn of many tool calls on a fresh
    server, the server's clocks read at each exec request; every step's
    figures are printed, and the client got its checkpoints meanwhile."""
    out = io.StringIO()
    bench.run(levels=(), turns=0, window=3, tool_calls=30, tool_batch=3, out=out)
    text = out.getvalue()
    assert "one turn of 30 tool calls" in text, text
    assert "early = steps 3-5, late = steps 7-9 of 9" in text, text
    for key in ("step_cpu_ms[early]", "step_cpu_ms[late]", "step_cpu_ratio_late_over_early"):
        assert number(key, text) > 0, text
    for stage in ("transition", "commit", "render", "join", "relay"):
        assert number(f"step_stage_ms[late][{stage}]", text) > 0, text
    assert number("step_client_bytes[late]", text) > 0, text


def test_a_session_too_short_for_two_windows_is_refused() -> None:
    with pytest.raises(SystemExit, match="no two windows"):
        bench.run(levels=(), turns=20, window=10, out=io.StringIO())


def test_a_load_client_whose_command_fails_ends_instead_of_hanging() -> None:
    """A command the load client cannot carry out ends its process with the
    traceback, so the bench reports it; the thread reading its commands once
    held the process open for ever, and the bench waited with it."""
    script = Path(bench.__file__).with_name("load_client.py")
    with subprocess.Popen(
        [sys.executable, str(script), "http://127.0.0.1:9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as client:
        assert client.stdin is not None and client.stderr is not None
        client.stdin.write('{"op": "no-such-op"}\n')
        client.stdin.flush()  # and left open, as the bench leaves it
        try:
            code = client.wait(timeout=30)
        finally:
            client.kill()
        assert code != 0 and "KeyError" in client.stderr.read()
