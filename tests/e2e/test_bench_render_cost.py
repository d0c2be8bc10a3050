"""The render-cost benchmark still runs: every key printed with a number,
for every wire API. No figure is asserted; the figures are the benchmark's job."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APIS = ("openai-chat", "openai-responses", "anthropic", "gemini")
KEYS = ("render_us_ratio_800_over_50", "cold_render_us_ratio_800_over_50")


def test_the_render_cost_benchmark_prints_every_ratio_for_every_api() -> None:
    command = [sys.executable, "bench/render_cost.py", "--rounds", "1"]
    done = subprocess.run(
        command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for api in APIS:
        for key in KEYS:
            name = re.escape(f"{key}[{api}]")
            found = re.search(rf"^{name} = (\d+\.\d+)$", done.stdout, re.M)
            assert found, f"{key}[{api}] is missing or not a number:\n{done.stdout}"
