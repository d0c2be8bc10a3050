"""Past the API's image count the oldest images become notes, in the
request the real adapter sends (its renderings cached per conversation):
a conversation whose 101st image arrives is sent with its 25 oldest as
notes and within the API's rules, never a stale rendering of the earlier
request with all of them."""

from __future__ import annotations

import base64

from cursor_byok.llm.images import OLDER_LEFT_OUT, PNG, RULES
from cursor_byok.llm.types import ImageContent, Message, TextContent, UserMessage
from tests import image_samples
from tests.llm.loopback import LoopbackServer
from tests.llm.provider_rules import check_request
from tests.llm.test_tool_result_images import CASES, _sent

ANTHROPIC = CASES[0]


def _image(i: int) -> ImageContent:
    return ImageContent(base64.b64encode(image_samples.png(1 + i % 50, 1 + i // 50)).decode(), PNG)


def _images_sent(body: dict[str, object]) -> list[str]:
    out = []
    for message in body["messages"]:  # type: ignore[attr-defined]
        for block in message["content"]:
            if block["type"] == "image":
                out.append(block["source"]["data"])
            elif block["type"] == "text" and block["text"] == OLDER_LEFT_OUT:
                out.append("note")
    return out


async def test_the_oldest_images_become_notes_once_past_the_count(
    server: LoopbackServer,
) -> None:
    limit = RULES["anthropic-messages"].max_count
    history: list[Message] = [
        UserMessage((_image(i), TextContent(f"picture {i}")), timestamp=i) for i in range(limit)
    ]
    raw = await _sent(server, ANTHROPIC, tuple(history))
    before = _images_sent(check_request("anthropic", raw))
    assert before == [_image(i).data for i in range(limit)]
    # The next image: the same conversation, whose rendering is cached.
    history.append(UserMessage((_image(limit), TextContent("one more")), timestamp=limit))
    raw = await _sent(server, ANTHROPIC, tuple(history))
    after = _images_sent(check_request("anthropic", raw))
    step = limit // 4
    assert after == ["note"] * step + [_image(i).data for i in range(step, limit + 1)]
