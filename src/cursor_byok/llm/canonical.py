"""The text of canonical JSON: sorted keys, compact separators, no NaN,
containers given as any mapping or sequence. The same value always gives
the same text, in any process (`serialize.canonical_dumps` makes it bytes)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from json import encoder as json_encoder
from typing import Any

from cursor_byok.llm.types import JSONValue


def _default(value: object) -> JSONValue:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    raise TypeError(f"not JSON-serializable: {type(value).__name__}")


def _dumps_slowly(value: Any) -> str:
    return json.dumps(
        value,
        ensure_ascii=False,
        separators=(",", ":"),
        sort_keys=True,
        allow_nan=False,
        default=_default,
    )


def _reused_encoder() -> Callable[[Any], str]:
    """`_dumps_slowly` through one encoder made once. `json.dumps` with any
    option set builds a `JSONEncoder`, and that a C encoder, on every call:
    most of the cost of the small values a turn encodes a few dozen times.
    The C encoder (the one `json.dumps` builds) is kept without a table of
    the containers being encoded, so it holds no state between calls; the
    one thing that table did, refuse a value that contains itself, cannot
    arise from JSON data (such a value ends in RecursionError instead).
    Where the C encoder is missing, or does not give `json.dumps`'s bytes
    on a probe, `json.dumps` is used."""
    make = getattr(json_encoder, "c_make_encoder", None)  # (not in the type stubs)
    if make is None:
        return _dumps_slowly
    try:
        encoder = make(
            None, _default, json_encoder.encode_basestring, None, ":", ",", True, False, False
        )
    except TypeError:  # another signature
        return _dumps_slowly

    def dumps(value: Any) -> str:
        return "".join(encoder(value, 0))

    try:
        same = all(dumps(probe) == _dumps_slowly(probe) for probe in _PROBES)
    except Exception:  # noqa: BLE001 (any failure: not this encoder)
        return _dumps_slowly
    return dumps if same else _dumps_slowly


_PROBES: tuple[Any, ...] = (
    {"b": [1, 2.5, -0.0, 1e300, None, True], "a": {"é": '\ud800\n"\u2028'}, "": []},
    ("tuple", ({"z": 1, "y": 2},)),
    "plain",
)


canonical_text = _reused_encoder()
"""A value's canonical JSON text (`serialize.canonical_dumps` encodes it)."""
