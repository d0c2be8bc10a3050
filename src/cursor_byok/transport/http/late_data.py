"""HTTP/2 DATA that came for a stream whose response had ended, and was dropped.

A Run client may send after its stream's end (a KV answer later than the
wait for it, the rest of a refused message). `h2_guard` drops such DATA
without ending the connection; it is counted here, per process, and shown
in /metrics. Kept apart from `h2_guard` so that /metrics does not load
hypercorn."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class LateData:
    frames: int = 0


DROPPED = LateData()
