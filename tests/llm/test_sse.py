"""The SSE parser accepts what real servers send, however the bytes are cut."""

from __future__ import annotations

import pytest

from cursor_byok.llm.sse import SSEEvent, SSEParser, SSETooLarge
from tests.llm.loopback import fixture_bytes


def parse(data: bytes, size: int | None = None) -> list[SSEEvent]:
    parser = SSEParser()
    out: list[SSEEvent] = []
    step = size or max(len(data), 1)
    for start in range(0, len(data), step):
        out.extend(parser.feed(data[start : start + step]))
    return out + parser.flush()


def test_event_and_data_lines_make_one_event() -> None:
    assert parse(b"event: ping\ndata: {}\n\n") == [SSEEvent("ping", "{}")]


def test_data_without_space_after_colon_is_accepted() -> None:
    assert parse(b'data:{"a":1}\n\n') == [SSEEvent("", '{"a":1}')]


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_is_accepted(newline: bytes) -> None:
    data = newline.join([b"event: a", b"data: 1", b"", b"data: 2", b"", b""])
    assert parse(data) == [SSEEvent("a", "1"), SSEEvent("", "2")]


def test_crlf_split_across_chunks_is_one_line_end() -> None:
    data = b"data: 1\r\n\r\ndata: 2\r\n\r\n"
    for size in range(1, len(data)):
        assert parse(data, size) == [SSEEvent("", "1"), SSEEvent("", "2")], size


def test_comments_are_skipped_and_multiline_data_is_joined() -> None:
    data = b": OPENROUTER PROCESSING\n\ndata: a\ndata: b\n\n"
    assert parse(data) == [SSEEvent("", "a\nb")]


def test_unknown_fields_and_lines_without_colon_are_ignored() -> None:
    data = b"id: 7\nretry: 100\ngarbage\ndata: x\n\n"
    assert parse(data) == [SSEEvent("", "x")]


def test_last_event_without_blank_line_is_dispatched_at_flush() -> None:
    assert parse(b"data: tail") == [SSEEvent("", "tail")]


def test_event_type_does_not_leak_into_the_next_event() -> None:
    assert parse(b"event: a\ndata: 1\n\ndata: 2\n\n")[1] == SSEEvent("", "2")


@pytest.mark.parametrize(
    "name", ["gemini/text-usage.sse", "anthropic/thinking.sse", "openai-chat/text-usage.sse"]
)
def test_recorded_bodies_parse_the_same_in_any_chunking(name: str) -> None:
    data = fixture_bytes(name)
    whole = parse(data)
    assert whole and all(event.data for event in whole)
    for size in (1, 7, 64):
        assert parse(data, size) == whole


def test_gemini_crlf_separated_events_are_split() -> None:
    events = parse(fixture_bytes("gemini/text-usage.sse"))
    assert len(events) == 3
    assert all(e.data.startswith("{") and e.data.endswith("}") for e in events)


@pytest.mark.parametrize(
    ("chunks", "what"),
    [
        ([b"data: "] + [b"x" * 100] * 20, "a line"),  # never a line end
        ([b": hi\ndata: " + b"x" * 3000], "a line"),  # one big chunk
        ([b"data: " + b"x" * 90 + b"\n"] * 30, "an event"),  # lines, never a blank one
    ],
)
def test_a_line_or_event_past_the_cap_is_a_clear_error(chunks: list[bytes], what: str) -> None:
    parser = SSEParser(max_pending=2000)
    with pytest.raises(SSETooLarge, match=f"^{what} of more than .* MiB without ending it"):
        for chunk in chunks:
            parser.feed(chunk)
    assert parser.flush() == []  # what it held is gone


def test_just_under_the_cap_is_taken() -> None:
    parser = SSEParser(max_pending=2000)
    events = [e for c in [b"data: "] + [b"x" * 100] * 19 + [b"\n\n"] for e in parser.feed(c)]
    assert events == [SSEEvent("", "x" * 1900)]
