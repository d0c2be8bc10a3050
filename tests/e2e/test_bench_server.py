"""The whole-server benchmark still runs: two tiny levels, every key printed
with a number. No timing is asserted; the numbers are the benchmark's job."""

from __future__ import annotations

import io
import re

from bench import server as bench


async def test_the_server_benchmark_completes_and_prints_every_key() -> None:
    out = io.StringIO()
    await bench.run(levels=(1, 2), rounds={1: 1, 2: 1}, delay_s=0.001, out=out)
    text = out.getvalue()
    for key in bench.required_keys((1, 2)):
        found = re.search(rf"^{re.escape(key)} = (-?\d+(?:\.\d+)?)$", text, re.M)
        assert found, f"{key} is missing or not a number:\n{text}"
    assert "failures=0" in text and "failures=1" not in text, text
    assert "extend the first unchanged: 3/3" in text, text
