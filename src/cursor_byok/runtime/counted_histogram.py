"""A Prometheus histogram for a value observed on every streamed delta.

`prometheus_client.Histogram.observe` checks the metric, then takes a lock
for the sum and another for the bucket: about seven Python calls, on the
path of every delta. This one counts in plain lists (a bisect and two
additions) and a collector exports the counts as the same histogram, in the
library's documented way for custom collectors (`HistogramMetricFamily`).

It is meant for the event loop's thread: observations and `/metrics`
renders both happen there, so nothing is read half-written.
"""

from __future__ import annotations

import time
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import cast

from prometheus_client import CollectorRegistry
from prometheus_client.metrics_core import HistogramMetricFamily, Metric
from prometheus_client.samples import Sample
from prometheus_client.utils import floatToGoString

_go_float = cast(Callable[[float], str], floatToGoString)
"""How the library writes a bound as `le` (it has no type hints)."""


class Buckets:
    """One label value's counts: `counts[i]` observations fell in bucket i
    (the last is +Inf), not cumulative."""

    __slots__ = ("_bounds", "counts", "created", "total")

    def __init__(self, bounds: tuple[float, ...]) -> None:
        self._bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0
        self.created = time.time()

    def observe(self, value: float) -> None:
        """Count `value` in the first bucket whose upper bound it does not exceed."""
        self.counts[bisect_left(self._bounds, value)] += 1
        self.total += value


class CountedHistogram:
    """A histogram with one label, exported as `prometheus_client.Histogram`
    exports it: `_bucket` (cumulative, `le`), `_count`, `_sum`, `_created`."""

    def __init__(
        self,
        name: str,
        documentation: str,
        label: str,
        buckets: Sequence[float],
        registry: CollectorRegistry,
    ) -> None:
        bounds = tuple(float(bound) for bound in buckets)
        if list(bounds) != sorted(set(bounds)) or not bounds:
            raise ValueError(f"histogram buckets must be distinct and ascending: {buckets!r}")
        self._name = name
        self._documentation = documentation
        self._label = label
        self._bounds = bounds
        self._le = [*(_go_float(bound) for bound in bounds), "+Inf"]
        self._children: dict[str, Buckets] = {}
        registry.register(self)

    def labels(self, value: str) -> Buckets:
        child = self._children.get(value)
        if child is None:
            child = self._children[value] = Buckets(self._bounds)
        return child

    def describe(self) -> list[Metric]:
        """The names it exports, for the registry's clash check (no samples)."""
        return [HistogramMetricFamily(self._name, self._documentation, labels=[self._label])]

    def collect(self) -> Iterator[Metric]:
        family = HistogramMetricFamily(self._name, self._documentation, labels=[self._label])
        for value, child in self._children.items():
            cumulative = 0
            buckets: list[tuple[str, float]] = []
            for le, count in zip(self._le, child.counts, strict=True):
                cumulative += count
                buckets.append((le, float(cumulative)))
            family.add_metric([value], buckets, child.total)
            created = Sample(f"{self._name}_created", {self._label: value}, child.created)
            family.samples.append(created)
        yield family
