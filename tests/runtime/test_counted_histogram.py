"""The counted histogram exports exactly what prometheus_client's Histogram
exports for the same observations, in both exposition formats."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import pytest
from prometheus_client import CollectorRegistry, Histogram, generate_latest
from prometheus_client.openmetrics import exposition

from cursor_byok.runtime.counted_histogram import CountedHistogram

openmetrics_latest = cast(Callable[[CollectorRegistry], bytes], exposition.generate_latest)
"""The library's OpenMetrics writer (it has no type hints)."""

BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
VALUES = (0.0, 0.0005, 0.001, 0.003, 0.01, 0.0100001, 0.7, 1, 5.0, 7.5, 1e9)


def test_it_exports_what_a_prometheus_histogram_exports() -> None:
    library, counted = CollectorRegistry(), CollectorRegistry()
    reference = Histogram("gap_seconds", "Gaps", ["model"], buckets=BUCKETS, registry=library)
    histogram = CountedHistogram("gap_seconds", "Gaps", "model", BUCKETS, counted)
    for model, values in (("a", VALUES), ("b", VALUES[3:6]), ("c", ())):
        reference.labels(model)
        child = histogram.labels(model)
        for value in values:
            reference.labels(model).observe(value)
            child.observe(value)
        child.created = reference.labels(model)._created  # the one field set by the clock
    assert generate_latest(counted) == generate_latest(library)
    assert openmetrics_latest(counted) == openmetrics_latest(library)
    assert b'gap_seconds_bucket{le="0.001",model="a"} 3.0' in generate_latest(counted)


def test_its_name_clashes_like_any_metric_of_the_registry() -> None:
    registry = CollectorRegistry()
    CountedHistogram("gap_seconds", "Gaps", "model", BUCKETS, registry)
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        Histogram("gap_seconds", "Gaps again", registry=registry)


@pytest.mark.parametrize("buckets", [(), (0.5, 0.1), (0.1, 0.1)])
def test_buckets_out_of_order_are_refused(buckets: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="distinct and ascending"):
        CountedHistogram("gap_seconds", "Gaps", "model", buckets, CollectorRegistry())
