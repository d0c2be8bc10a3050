"""The abuse benchmark still runs: a small flood, one small gzip bomb and a
few unfinished HTTP/2 envelopes against the real `serve`, and a small
session count, every key printed with a number (and the two RSS figures of
the bomb and the envelopes with their goal beside them). No figure is
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
    "healthz_ms_max_during_gzip_bomb",
)
WITH_GOAL = ("rss_mb_after_gzip_bomb", "rss_mb_after_h2_partial_envelopes")


def test_the_abuse_benchmark_completes_and_prints_every_key() -> None:
    command = [sys.executable, "bench/abuse.py", "--ids", "2", "--appends", "3"]
    command += ["--size-mib", "1", "--live", "10", "200", "--made", "50"]
    command += ["--bombs", "1", "--bomb-envelopes", "20"]
    command += ["--h2-connections", "1", "--h2-streams", "2", "--h2-envelope-mib", "2"]
    done = subprocess.run(
        command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for key in KEYS:
        found = re.search(rf"^{re.escape(key)} = (\d+(?:\.\d+)?)$", done.stdout, re.M)
        assert found, f"{key} is missing or not a number:\n{done.stdout}"
    for key in WITH_GOAL:
        number = r"\d+(?:\.\d+)?"
        found = re.search(rf"^{key} = {number} \(goal <= {number}\)$", done.stdout, re.M)
        assert found, f"{key} is missing, not a number or without its goal:\n{done.stdout}"
    assert "append_statuses = {200: 6}" in done.stdout
    assert "gzip_bomb_statuses = {400: 1}" in done.stdout
    assert "h2_partial_envelope_ends = {'open': 2}" in done.stdout
