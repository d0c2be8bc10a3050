"""The image type comes from the bytes, whatever the client claims; each
provider API gets only the images it takes, the others become notes."""

from __future__ import annotations

import base64

import pytest

from cursor_byok.llm.images import (
    GIF,
    JPEG,
    MIB,
    OLDER_LEFT_OUT,
    PNG,
    RULES,
    TEXT_ONLY_NOTE,
    WEBP,
    sniff_mime,
)
from cursor_byok.llm.transform import Target, prepare_history
from cursor_byok.llm.types import ImageContent, Message, TextContent, ToolResultMessage, UserMessage
from tests import image_samples


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (image_samples.png(), PNG),
        (image_samples.JPEG, JPEG),
        (image_samples.GIF, GIF),
        (image_samples.GIF.replace(b"GIF89a", b"GIF87a"), GIF),
        (image_samples.WEBP, WEBP),
    ],
)
def test_each_format_is_known_by_its_magic_number(data: bytes, expected: str) -> None:
    assert sniff_mime(data) == expected


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x89PNG",  # cut short: not the whole signature
        b"RIFF\x00\x00\x00\x00WAVEfmt ",  # a RIFF file that is audio
        b"<svg xmlns='http://www.w3.org/2000/svg'/>",
        b"BM\x00\x00",  # BMP: no provider takes it
        b"%PDF-1.7",
    ],
)
def test_anything_else_is_no_image(data: bytes) -> None:
    assert sniff_mime(data) is None


def _user(*images: ImageContent) -> UserMessage:
    return UserMessage((*images, TextContent("look")))


def _small(marker: str) -> ImageContent:
    return ImageContent(base64.b64encode(image_samples.png()).decode() + marker, PNG)


def test_an_image_over_the_api_size_limit_becomes_a_note() -> None:
    big = ImageContent("A" * (5 * MIB + 4), PNG)
    anthropic = Target("anthropic-messages", "anthropic", "claude-sonnet-4-5")
    out = prepare_history([_user(big, _small(""))], anthropic)
    content = out[0].content  # type: ignore[union-attr]
    assert isinstance(content[0], TextContent) and "above the 5.0 MB" in content[0].text
    assert content[1] == _small("")
    # OpenAI takes images up to 20 MB: the same one goes through.
    openai = Target("openai-chat", "openai", "gpt-4.1")
    assert prepare_history([_user(big)], openai)[0].content[0] == big  # type: ignore[union-attr]


def test_past_the_count_the_oldest_images_become_notes_in_steps() -> None:
    """The model sees the newest images; the oldest go a quarter of the
    limit at a time, so earlier messages render the same over many requests
    (the provider's cache hits) and change once per step."""
    limit = RULES["anthropic-messages"].max_count
    target = Target("anthropic-messages", "anthropic", "claude-sonnet-4-5")
    history: list[Message] = [_user(_small(str(i))) for i in range(limit)]
    assert prepare_history(history, target) == history  # all fit
    history.append(_user(_small("late")))
    after = prepare_history(history, target)
    step = limit // 4
    for message in after[:step]:
        assert message.content[0] == TextContent(OLDER_LEFT_OUT)  # type: ignore[union-attr]
    assert after[step:] == history[step:]
    # The next images change nothing before them until the next step.
    more = [*history, *(_user(_small(f"more{i}")) for i in range(step - 1))]
    assert prepare_history(more, target)[: len(after)] == after
    over = prepare_history([*more, _user(_small("over"))], target)
    assert over[2 * step - 1].content[0] == TextContent(OLDER_LEFT_OUT)  # type: ignore[union-attr]
    assert over[2 * step] == more[2 * step]


def test_past_the_request_bytes_the_oldest_images_become_notes() -> None:
    """Gemini takes 20 MB a request: the newest images that fit are sent."""
    rules = RULES["google-generative-ai"]
    target = Target("google-generative-ai", "google", "gemini-2.5-flash")
    chars = rules.max_total_chars // 3 + 1
    history: list[Message] = [
        _user(ImageContent(base64.b64encode(image_samples.png()).decode() + str(i) * chars, PNG))
        for i in range(4)
    ]
    out = prepare_history(history, target)
    kinds = [type(m.content[0]) for m in out]  # type: ignore[union-attr]
    assert kinds == [TextContent, TextContent, ImageContent, ImageContent]


def test_a_text_only_model_gets_a_note_in_place_of_each_image() -> None:
    target = Target("openai-chat", "deepseek", "deepseek-chat", images=False)
    result = ToolResultMessage("c1", "read_file", (_small(""),), False)
    out = prepare_history([_user(_small("")), result], target)
    assert out[0].content == (TextContent(TEXT_ONLY_NOTE), TextContent("look"))  # type: ignore[union-attr]
    assert out[1].content == (TextContent(TEXT_ONLY_NOTE),)  # type: ignore[union-attr]


def test_a_history_with_nothing_to_change_is_passed_through_as_it_is() -> None:
    message = _user(_small(""))
    target = Target("openai-chat", "openai", "gpt-4.1")
    assert prepare_history([message], target)[0] is message
