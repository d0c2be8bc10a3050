"""The state document a commit stores: the settings' bytes are made once
per settings object and spliced in, the same bytes as encoding it whole."""

from __future__ import annotations

from dataclasses import replace

import pytest

from cursor_byok.llm.encodings import Encodings
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import ToolDefinition
from cursor_byok.loop import CallLLM, TurnSettings, codec
from cursor_byok.loop.codec import state_to_json
from cursor_byok.loop.state import Compaction
from cursor_byok.store import rows
from cursor_byok.store.rows import state_bytes
from tests.factories import assistant, fresh, start, stream_of, tool_call, user
from tests.loop.drive import Trace
from tests.loop.test_codec import mid_turn


def test_the_stored_bytes_are_the_canonical_bytes_of_the_document(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`state_bytes` splices the settings' remembered bytes into the rest:
    the result is `canonical_dumps` of the whole document, byte for byte, in
    every shape of state, and one settings object is encoded once."""
    encoded: list[TurnSettings] = []

    def encode(settings: TurnSettings) -> bytes:
        encoded.append(settings)
        return canonical_dumps(codec.settings_to_json(settings))

    monkeypatch.setattr(rows, "_settings", Encodings(encode))
    empty = fresh().committed
    waiting = mid_turn().state.committed
    trace = Trace(fresh())
    call = trace.feed(start("go")).command
    assert isinstance(call, CallLLM)
    trace.stream(call.call_id, stream_of(assistant(tool_call("t1"), tool_call("t2"))))
    asking = trace.state.committed
    assert asking.waiting is not None
    queued = replace(waiting, queued=(user("é \ud800"),), last_error="x", resets=(1, 3))
    compacting = replace(queued, compaction=Compaction(requested=True), settings=TurnSettings())
    for state in (empty, waiting, queued, compacting, asking, waiting):
        assert state_bytes(state) == canonical_dumps(state_to_json(state))
    settings = (empty.settings, waiting.settings, compacting.settings, asking.settings)
    assert [id(s) for s in encoded] == [id(s) for s in settings]


def test_settings_bytes_join_the_kept_tool_bytes_into_the_canonical_document() -> None:
    """The settings' bytes reuse each tool's kept bytes: the same bytes as
    encoding the settings whole, with no tools, with built-in and odd ones."""
    odd = ToolDefinition("é_tool", 'naïve \ud800 quote"', {"type": "object", "b": [1, 2.5, None]})
    plain = ToolDefinition("ls", "", {})
    for settings in (
        TurnSettings(),
        TurnSettings(model="m", system_prompt="sys é", tools=(plain,)),
        TurnSettings(system_prompt=None, tools=(odd, plain, odd)),
        TurnSettings(tools=fresh().committed.settings.tools, max_model_calls=3),
    ):
        expected = canonical_dumps(codec.settings_to_json(settings))
        assert rows._encode_settings(settings) == expected
