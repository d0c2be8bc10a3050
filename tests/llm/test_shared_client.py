"""The one HTTP client every user's model calls share: nothing one call's
response leaves behind reaches another call."""

from __future__ import annotations

from cursor_byok.llm.http import HTTPClient, HTTPRequest
from tests.llm.loopback import LoopbackServer, Reply, answered


async def test_a_cookie_a_provider_sets_is_not_sent_on_the_next_call(
    server: LoopbackServer,
) -> None:
    # A name, not an address: a cookie jar keeps no cookie for an IP address.
    base_url = server.base_url.replace("127.0.0.1", "localhost")
    set_cookie = {"Set-Cookie": "__cf_bm=first-user; Path=/; HttpOnly"}
    server.replies.append(Reply(b'data: {"ok":true}\n\n', headers=set_cookie))
    server.replies.append(Reply(b'data: {"ok":true}\n\n'))
    client = HTTPClient()
    try:
        for key in ("sk-first-user", "sk-second-user"):
            headers = {"authorization": f"Bearer {key}"}
            await answered(client, HTTPRequest(f"{base_url}/v1/x", headers, b"{}"))
    finally:
        await client.aclose()
    first, second = server.received
    assert first.headers["authorization"] == "Bearer sk-first-user"
    assert second.headers["authorization"] == "Bearer sk-second-user"
    assert "cookie" not in second.headers, second.headers
