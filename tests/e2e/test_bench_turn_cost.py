"""The turn-cost benchmark still runs, alone and paired with a baseline tree:
every figure printed with a number. No figure is asserted; the figures are
the benchmark's job."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIGURES = ("turn_cpu_ms", "delta_cpu_us", "turn_cpu_ms_batched", "delta_cpu_us_batched")
NUMBER = r"(-?\d+\.\d+)"


def _run(*extra: str) -> str:
    command = [sys.executable, "bench/turn_cost.py", "--turns", "2", "--long", "4", *extra]
    done = subprocess.run(
        command, check=False, cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _number(out: str, name: str) -> float:
    found = re.search(rf"^{re.escape(name)} = {NUMBER}$", out, re.M)
    assert found, f"{name} is missing or not a number:\n{out}"
    return float(found.group(1))


def test_the_turn_cost_benchmark_prints_its_figures_over_http2() -> None:
    out = _run("--path", "h2")
    for name in FIGURES:
        _number(out, name)
    assert "[baseline]" not in out and "turn_cpu_ratio" not in out


def test_a_baseline_tree_gets_every_turn_too_and_the_ratios_compare_them() -> None:
    out = _run("--baseline-src", str(ROOT / "src"))
    for name in FIGURES:
        _number(out, name)
        _number(out, f"{name}[baseline]")
    for turn, ratio in (("turn_cpu_ms", "turn_cpu_ratio"), ("turn_cpu_ms_batched", None)):
        subject, baseline = _number(out, turn), _number(out, f"{turn}[baseline]")
        assert subject > 0 and baseline > 0
        shown = _number(out, ratio or "turn_cpu_ratio[batched]")
        assert abs(shown - subject / baseline) <= 0.006  # (both printed rounded)
