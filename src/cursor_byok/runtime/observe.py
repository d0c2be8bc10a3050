"""Observability: Prometheus metrics and one structured log line per model
call and per turn.

Each service owns its registry (no process-global state), so two servers in
one process, as in the tests, do not share counters. Log lines are logfmt
(`key=value ...`): greppable, and parseable by every log pipeline.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ParamSpec, Self, TypeVar

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client import Counter as _Counter
from prometheus_client import Gauge as _Gauge
from prometheus_client import Histogram as _Histogram
from prometheus_client.core import CounterMetricFamily
from prometheus_client.metrics_core import Metric

from cursor_byok.llm.events import (
    DoneEvent,
    ErrorEvent,
    ResponseEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from cursor_byok.loop.state import IDLE_STATUSES, ConversationState
from cursor_byok.runtime.counted_histogram import Buckets, CountedHistogram
from cursor_byok.runtime.logsafe import logfmt_value
from cursor_byok.runtime.user_metrics import UserCounters

log = logging.getLogger("cursor_byok.calls")
turn_log = logging.getLogger("cursor_byok.runtime.runner")
"""Turn lines keep the logger they were always written under: the runner's."""

P = ParamSpec("P")
T = TypeVar("T")

MAX_MODEL_LABELS = 64
_LATENCY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)
_GAP_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
_DELTAS = (TextDelta, ThinkingDelta, ToolCallDelta)


def logfmt(event: str, **fields: object) -> str:
    """One line, whatever the values hold (see `logsafe.logfmt_value`)."""
    return " ".join([event, *[f"{key}={logfmt_value(value)}" for key, value in fields.items()]])


def note_turn(
    metrics: Metrics | None,
    started: float | None,
    before: ConversationState,
    after: ConversationState,
) -> float | None:
    """One log line per finished turn (outcome, model calls, duration);
    returns when the turn in progress started, None once it is over."""
    if before.status in IDLE_STATUSES and after.status not in IDLE_STATUSES:
        return time.monotonic()
    if after.status not in IDLE_STATUSES or before.status in IDLE_STATUSES:
        return started
    outcome = after.status.value
    turn_log.info(
        logfmt(
            "turn",
            conversation=after.conversation_id,
            turn=after.turn_id,
            outcome=outcome,
            model_calls=after.turn_calls,
            messages=len(after.messages),
            duration_ms=round((time.monotonic() - started) * 1000) if started else "",
        )
    )
    if metrics is not None:
        metrics.turns.labels(outcome).inc()
    return None


class _Children:
    """`labels(...)` answered from a dict once the values were seen: the
    prometheus call validates the values, turns each into text and takes a
    lock every time, several times per turn. Keyed by what prometheus keeps
    (no children are ever removed here), so the dict grows no further."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._children: dict[tuple[object, ...], Self] = {}

    def labels(self, *values: object, **named: object) -> Self:
        known = self._children.get(values) if not named else None
        if known is not None:
            return known
        child: Self = super().labels(*values, **named)  # type: ignore[misc]
        if not named:
            self._children[values] = child
        return child


class Counter(_Children, _Counter):
    pass


class Gauge(_Children, _Gauge):
    pass


class Histogram(_Children, _Histogram):
    pass


STAGES = ("decode", "load", "transition", "commit", "render", "join", "relay")
"""The stages of a turn `StageClock` times: a client message decoded (the
transport), the store read for an input (load), the loop's `transition` as
the worker applies an input, the commit awaited, the model request's
messages rendered and its body encoded into the parts it is sent in (join;
the provider adapter), and the output encoded and written to the client's
stream (relay)."""


class StageClock:
    """Wall time per stage of a turn, summed in nanoseconds, and how often
    each ran: what a turn costs where, without a profiler. A few clock reads
    per turn, none per streamed delta (a stream's writes are timed per
    batch). /metrics shows the sums; a bench reads them before and after a
    window of turns. A prometheus collector: read only when /metrics is."""

    __slots__ = ("calls", "ns")

    def __init__(self) -> None:
        self.ns = dict.fromkeys(STAGES, 0)
        self.calls = dict.fromkeys(STAGES, 0)

    def add(self, stage: str, ns: int) -> None:
        self.ns[stage] += ns
        self.calls[stage] += 1

    def since(self, stage: str, started_ns: int) -> None:
        """Adds the time from `started_ns` (a `time.perf_counter_ns()`) to now."""
        self.add(stage, time.perf_counter_ns() - started_ns)

    def timed(self, stage: str, function: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        """`function(*args, **kwargs)`, its time added to `stage`."""
        began = time.perf_counter_ns()
        try:
            return function(*args, **kwargs)
        finally:
            self.add(stage, time.perf_counter_ns() - began)

    def collect(self) -> Iterator[Metric]:
        seconds = CounterMetricFamily(
            "cursor_byok_stage_seconds", "Wall time spent per stage of a turn", labels=["stage"]
        )
        calls = CounterMetricFamily(
            "cursor_byok_stage_calls", "Times each stage of a turn ran", labels=["stage"]
        )
        for stage in STAGES:
            seconds.add_metric([stage], self.ns[stage] / 1e9)
            calls.add_metric([stage], self.calls[stage])
        yield seconds
        yield calls


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.stages = StageClock()
        r.register(self.stages)
        self.requests = Counter(
            "cursor_byok_requests",
            "HTTP requests by path and status",
            ["path", "status"],
            registry=r,
        )
        self.active_streams = Gauge(
            "cursor_byok_active_streams", "RunSSE streams open now", registry=r
        )
        # The standard process_cpu_seconds_total counts 10 ms ticks; a turn
        # costs a few of them, too coarse to compare turns by.
        Gauge(
            "cursor_byok_process_cpu_seconds",
            "CPU time of this process, all threads, at the clock's full precision",
            registry=r,
        ).set_function(time.process_time)
        self.ttft = Histogram(
            "cursor_byok_llm_ttft_seconds",
            "Time to the first streamed token of a model call",
            ["model"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        # Observed on every delta: plain counts, exported as the same histogram.
        self.inter_token = CountedHistogram(
            "cursor_byok_llm_inter_token_seconds",
            "Time between streamed deltas",
            "model",
            _GAP_BUCKETS,
            r,
        )
        self.tokens = Counter(
            "cursor_byok_llm_tokens",
            "Tokens by model and kind (input, output, cache_read, cache_write)",
            ["model", "kind"],
            registry=r,
        )
        self.cache_hit_ratio = Gauge(
            "cursor_byok_llm_cache_hit_ratio",
            "Share of prompt tokens read from the provider cache, per model, since start",
            ["model"],
            registry=r,
        )
        self.calls = Counter(
            "cursor_byok_llm_calls",
            "Model calls by model and outcome",
            ["model", "outcome"],
            registry=r,
        )
        self.upstream_errors = Counter(
            "cursor_byok_llm_upstream_errors",
            "Failed model calls by upstream HTTP status",
            ["status"],
            registry=r,
        )
        self.turns = Counter(
            "cursor_byok_turns", "Finished turns by outcome", ["outcome"], registry=r
        )
        self.ignored_inputs = Counter(
            "cursor_byok_ignored_inputs",
            "Inputs the loop found changed nothing, by reason",
            ["reason"],
            registry=r,
        )
        self.quiet = Gauge(
            "cursor_byok_ignored_client_messages",
            "Client messages accepted with 200 but not applied (late, duplicate, undecodable)",
            ["reason"],
            registry=r,
        )
        self.memory_dropped = Counter(
            "cursor_byok_memory_dropped",
            "Idle client state dropped to stay within the memory budget, by kind",
            ["kind"],
            registry=r,
        )
        self.relayed_output_skipped = Gauge(
            "cursor_byok_relayed_output_skipped",
            "Rows of output relayed from another process that did not decode",
            registry=r,
        )
        self.memory_held = Gauge(
            "cursor_byok_memory_held_bytes",
            "Bytes charged to the memory budget (buffered appends, stashes, sessions, bodies)",
            registry=r,
        )
        self.subagents_running = Gauge(
            "cursor_byok_subagents_running",
            "Subagents (children of a Task call) the server runs now",
            registry=r,
        )
        self.kv_unanswered = Gauge(
            "cursor_byok_kv_unanswered",
            "KV requests (blobs stored on the client) still unanswered when their stream ended",
            registry=r,
        )
        self.rewinds = Counter(
            "cursor_byok_rewinds",
            "Runs whose conversation state was behind the server's history (fork)"
            " or named turns the server has no mark of (unrecognised)",
            ["outcome"],
            registry=r,
        )
        self.users = UserCounters(r)
        self._prompt: dict[str, float] = {}
        self._cached: dict[str, float] = {}
        self._models: set[str] = set()

    def model_label(self, model: str) -> str:
        """Model names come from clients; past a bound they share one label
        so a client cannot grow the metrics without limit."""
        if model in self._models:
            return model
        if len(self._models) >= MAX_MODEL_LABELS:
            return "other"
        self._models.add(model)
        return model

    def render(self, quiet: dict[str, int] | None = None) -> bytes:
        for reason, count in (quiet or {}).items():
            self.quiet.labels(reason).set(count)
        return generate_latest(self.registry)

    def record_usage(self, model: str, done: DoneEvent) -> None:
        usage = done.message.usage
        for kind, value in (
            ("input", usage.input),
            ("output", usage.output),
            ("cache_read", usage.cache_read),
            ("cache_write", usage.cache_write),
        ):
            if value:
                self.tokens.labels(model, kind).inc(value)
        prompt = usage.input + usage.cache_read + usage.cache_write
        self._prompt[model] = self._prompt.get(model, 0) + prompt
        self._cached[model] = self._cached.get(model, 0) + usage.cache_read
        if self._prompt[model]:
            self.cache_hit_ratio.labels(model).set(self._cached[model] / self._prompt[model])


@dataclass(slots=True)
class CallWatch:
    """Times one model call across its attempts, and reports it once."""

    metrics: Metrics | None
    conversation_id: str
    call_id: str
    model: str
    started: float = field(default_factory=time.monotonic)
    label: str = ""
    first_token: float | None = None
    last_delta: float | None = None
    gap: Buckets | None = None
    """The inter-token histogram's counts for this model, looked up once per
    call rather than once per delta."""

    def __post_init__(self) -> None:
        self.label = self.metrics.model_label(self.model) if self.metrics else self.model
        if self.metrics is not None:
            self.gap = self.metrics.inter_token.labels(self.label)

    def see(self, event: ResponseEvent) -> None:
        """Times the first delta and the gaps between deltas (a delta is
        tested first: it is nearly every event); reports the call at its end."""
        if isinstance(event, _DELTAS):
            now = time.monotonic()
            last = self.last_delta
            if last is None:  # the first of this attempt
                self.first_token = now
                if self.metrics is not None:
                    self.metrics.ttft.labels(self.label).observe(now - self.started)
            elif self.gap is not None:
                self.gap.observe(now - last)
            self.last_delta = now
        elif isinstance(event, DoneEvent):
            self._finish("done", event)
        elif isinstance(event, ErrorEvent):
            self._finish(event.reason, event)

    def _finish(self, outcome: str, event: DoneEvent | ErrorEvent) -> None:
        now = time.monotonic()
        usage = event.message.usage
        fields: dict[str, object] = {
            "conversation": self.conversation_id,
            "call_id": self.call_id,
            "model": self.model,
            "provider_model": event.message.model,
            "ttft_ms": round((self.first_token - self.started) * 1000)
            if self.first_token is not None
            else "",
            "duration_ms": round((now - self.started) * 1000),
            "input": usage.input,
            "output": usage.output,
            "cache_read": usage.cache_read,
            "cache_write": usage.cache_write,
            "cost_usd": round(usage.cost.total, 6) if usage.cost.priced else "",
            "outcome": outcome,
        }
        if isinstance(event, ErrorEvent):
            fields["status"] = event.status if event.status is not None else ""
            fields["error"] = (event.message.error_message or "")[:300]
        log.info(logfmt("llm_call", **fields))
        if self.metrics is None:
            return
        self.metrics.calls.labels(self.label, outcome).inc()
        if isinstance(event, DoneEvent):
            self.metrics.record_usage(self.label, event)
        elif event.reason == "error":
            self.metrics.upstream_errors.labels(str(event.status or "none")).inc()

    def times_ms(self) -> tuple[int | None, int]:
        """The time to the first token (None: none came) and the duration so
        far, of the attempt being read, in milliseconds."""
        first = self.first_token
        ttft = None if first is None else round((first - self.started) * 1000)
        return ttft, round((time.monotonic() - self.started) * 1000)

    def retrying(self, event: ErrorEvent) -> None:
        """A failed attempt that will be retried: counted, not reported as the call."""
        if self.metrics is not None:
            self.metrics.upstream_errors.labels(str(event.status or "none")).inc()
        self.started = time.monotonic()
        self.first_token = None
        self.last_delta = None
