"""The cache benchmark runs end to end and meets its goals: no wasted
breakpoint, every readable token read, every request extending the previous
one outside the reset. (Cache figures are simulated, not timed.)"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from bench import cache as bench
from bench.cache_sim import simulate
from cursor_byok.llm.providers.anthropic_cache import minimum_cacheable_tokens


async def test_the_cache_benchmark_session_meets_its_goals() -> None:
    with tempfile.TemporaryDirectory() as folder:
        bodies, summaries = await bench.session(Path(folder))
    assert len(summaries) == 1, "one compaction"
    assert len(bodies) == 2 * bench.TURNS + 1
    report = simulate(bodies, minimum_cacheable_tokens(bench.MODEL))
    assert report.wasted == 0, report.wasted_detail
    assert report.read_share_of_limit >= 0.99
    assert bench.prefix_extends_share(bodies, {summaries[0] + 1}) == 1.0
    minimum = minimum_cacheable_tokens(bench.MODEL)
    baseline = simulate([bench.baseline_plan(b) for b in bodies], minimum)
    assert baseline.wasted > 0, "the baseline is measured on the same requests"


def test_the_printed_names_are_the_ones_scripts_read() -> None:
    source = Path(bench.__file__).read_text()
    for name in (
        "anthropic_cache_read_share",
        "anthropic_cache_read_share_of_limit",
        "wasted_breakpoints",
        "prefix_extends_share",
    ):
        assert re.search(rf'print\(f"{name} = ', source), name
