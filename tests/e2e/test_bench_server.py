"""The whole-server benchmark still runs: two tiny levels and a short tool
session against the real `cursor-byok serve` process, every key printed with
a number. No timing is asserted; the numbers are the benchmark's job."""

from __future__ import annotations

import io
import re

from bench import server as bench


def test_the_server_benchmark_completes_and_prints_every_key() -> None:
    out = io.StringIO()
    bench.run(levels=(1, 2), rounds={1: 1, 2: 1}, deltas=10, turns=8, out=out)
    text = out.getvalue()
    for key in bench.required_keys((1, 2), 8):
        found = re.search(rf"^{re.escape(key)} = (-?\d+(?:\.\d+)?)", text, re.M)
        assert found, f"{key} is missing or not a number:\n{text}"
    failures = re.findall(r"failures=(\d+)", text)
    assert failures and set(failures) == {"0"}, text
    # Every delta the provider sent reached the client through the server.
    relayed = re.search(r"^relayed_deltas_per_s\[2\] = (\d+)", text, re.M)
    assert relayed and int(relayed.group(1)) > 0, text
