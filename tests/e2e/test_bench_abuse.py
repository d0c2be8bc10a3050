"""The abuse benchmark still runs: a small flood against the real `serve`
and a small session count, every key printed with a number. No figure is
asserted; the figures are the benchmark's job."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEYS = (
    "idle_rss_mb",
    "memory_budget_mb",
    "rss_mb_after_append_flood",
    "rss_goal_mb",
    "held_mb_after_append_flood",
    "new_session_us_ratio_200_over_10",
)


def test_the_abuse_benchmark_completes_and_prints_every_key() -> None:
    command = [sys.executable, "bench/abuse.py", "--ids", "2", "--appends", "3"]
    command += ["--size-mib", "1", "--live", "10", "200", "--made", "50"]
    done = subprocess.run(
        command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for key in KEYS:
        found = re.search(rf"^{re.escape(key)} = (\d+(?:\.\d+)?)$", done.stdout, re.M)
        assert found, f"{key} is missing or not a number:\n{done.stdout}"
    assert "append_statuses = {200: 6}" in done.stdout
