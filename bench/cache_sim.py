"""Anthropic's prompt cache, simulated over the request bodies we send.

The documented rules: the prompt is a sequence of blocks (tools, system
blocks, then every message's content blocks); a `cache_control` marker on a
block asks for the prefix up to it to be cached, if that prefix reaches the
model's minimum; the server looks for an existing entry at the marker and at
the block boundaries before it, up to `LOOKBACK` blocks; the longest hit is
read, what lies between it and the last marker is written. Tokens are
estimated as bytes / 4.

Besides the usage, the simulation judges every marker: it is useful when it
wrote an entry that a later request read, or when its lookup gave its
request's read; otherwise it was wasted. It also measures the most any plan
could read: every prefix a request shares with an earlier request (and that
reaches the minimum).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

LOOKBACK = 20
BYTES_PER_TOKEN = 4


def _block_bytes(kind: str, block: dict[str, Any]) -> bytes:
    clean = {k: v for k, v in block.items() if k != "cache_control"}
    return kind.encode() + json.dumps(clean, sort_keys=True, separators=(",", ":")).encode()


@dataclass(slots=True)
class Prompt:
    """One request as blocks: prefix hashes, prefix token counts, markers."""

    hashes: list[str]
    tokens: list[int]
    markers: list[int]


def prompt_of(body: dict[str, Any]) -> Prompt:
    items: list[tuple[str, dict[str, Any]]] = [("tool", t) for t in body.get("tools", [])]
    items += [("system", s) for s in body.get("system", [])]
    for message in body["messages"]:
        items += [(message["role"], block) for block in message["content"]]
    hashes: list[str] = []
    tokens: list[int] = []
    chain = hashlib.sha256()
    total = 0
    markers = []
    for index, (kind, block) in enumerate(items):
        data = _block_bytes(kind, block)
        chain.update(hashlib.sha256(data).digest())
        hashes.append(chain.copy().hexdigest())
        total += len(data) // BYTES_PER_TOKEN
        tokens.append(total)
        if "cache_control" in block:
            markers.append(index)
    return Prompt(hashes, tokens, markers)


@dataclass(slots=True)
class CacheReport:
    requests: int = 0
    prompt_tokens: int = 0
    read: int = 0
    written: int = 0
    limit: int = 0
    markers: int = 0
    wasted: int = 0
    wasted_detail: list[str] = field(default_factory=list)

    @property
    def read_share(self) -> float:
        return self.read / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def read_share_of_limit(self) -> float:
        return self.read / self.limit if self.limit else 1.0


def simulate(
    bodies: list[dict[str, Any]], minimum: int, session_ends: frozenset[int] = frozenset()
) -> CacheReport:
    """Run the requests in order through one cache; judge every marker of
    every request but the last of each session (`session_ends`, and the
    last request): nothing after those could read their entries."""
    report = CacheReport()
    entries: dict[str, tuple[int, int]] = {}  # prefix hash -> (request, marker) that wrote it
    seen: set[str] = set()
    useful: set[tuple[int, int]] = set()
    all_markers: list[tuple[int, int]] = []
    for number, body in enumerate(bodies):
        prompt = prompt_of(body)
        report.requests += 1
        report.prompt_tokens += prompt.tokens[-1] if prompt.tokens else 0
        shared = [i for i, h in enumerate(prompt.hashes) if h in seen]
        if shared and prompt.tokens[shared[-1]] >= minimum:
            report.limit += prompt.tokens[shared[-1]]
        read, reader = 0, None
        for marker in prompt.markers:
            all_markers.append((number, marker))
            for position in range(marker, max(-1, marker - LOOKBACK), -1):
                hit = entries.get(prompt.hashes[position])
                if hit is not None:
                    if prompt.tokens[position] > read:
                        read, reader = prompt.tokens[position], (number, marker)
                    useful.add(hit)
                    break
        if reader is not None:
            useful.add(reader)
        last_write = 0
        for marker in prompt.markers:
            key = prompt.hashes[marker]
            if prompt.tokens[marker] >= minimum and key not in entries:
                entries[key] = (number, marker)
                last_write = max(last_write, prompt.tokens[marker])
        report.read += read
        report.written += max(0, last_write - read)
        seen.update(prompt.hashes)
    unjudged = session_ends | {len(bodies) - 1}
    for number, marker in all_markers:
        if number in unjudged:
            continue
        report.markers += 1
        if (number, marker) not in useful:
            report.wasted += 1
            report.wasted_detail.append(f"request {number} block {marker}")
    return report
