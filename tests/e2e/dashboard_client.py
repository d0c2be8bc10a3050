"""A browser's part in the dashboard tests, over a real socket with aiohttp:
it keeps the cookies it is given and sends forms as a browser would (the
site's own Origin unless told otherwise)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape
from http.cookies import SimpleCookie

import aiohttp

CSRF = re.compile(r'name="csrf" value="([^"]*)"')


@dataclass
class Browser:
    url: str
    session: aiohttp.ClientSession
    cookies: dict[str, str] = field(default_factory=dict)
    set_cookies: list[str] = field(default_factory=list)
    """Every Set-Cookie header received, as sent."""
    extra: dict[str, str] = field(default_factory=dict)
    """Headers sent with every request (a proxy's, say)."""

    async def get(self, path: str) -> tuple[int, str, dict[str, str]]:
        async with self.session.get(
            self.url + path, headers=self._headers(), allow_redirects=False
        ) as reply:
            self._keep(reply)
            return reply.status, await reply.text(), dict(reply.headers)

    async def post(
        self, path: str, form: dict[str, str], origin: str | None = "same"
    ) -> tuple[int, str, dict[str, str]]:
        headers = self._headers()
        if origin is not None:
            headers["Origin"] = self.url if origin == "same" else origin
        async with self.session.post(
            self.url + path, data=form, headers=headers, allow_redirects=False
        ) as reply:
            self._keep(reply)
            return reply.status, await reply.text(), dict(reply.headers)

    async def sign_in(self, token: str) -> str:
        """Signs in with `token`; the overview page's HTML."""
        status, page, _ = await self.get("/ui/login")
        assert status == 200
        status, _, headers = await self.post("/ui/login", {"token": token, "csrf": csrf_of(page)})
        assert status == 303 and headers["Location"] == "/ui/", status
        status, page, _ = await self.get("/ui/")
        assert status == 200
        return page

    def _headers(self) -> dict[str, str]:
        if not self.cookies:
            return dict(self.extra)
        return {**self.extra, "Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}

    def _keep(self, reply: aiohttp.ClientResponse) -> None:
        for header in reply.headers.getall("Set-Cookie", []):
            self.set_cookies.append(header)
            for name, morsel in SimpleCookie(header).items():
                if morsel.value:
                    self.cookies[name] = morsel.value
                else:
                    self.cookies.pop(name, None)


def csrf_of(page: str) -> str:
    found = CSRF.search(page)
    assert found is not None, "the page has no form with a CSRF token"
    return unescape(found.group(1))


def text_of(page: str) -> str:
    """The page's words, tags dropped (to find numbers as a person reads them)."""
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))
