"""`/ui`: the dashboard's requests, from sign-in to each page.

Sign-in takes a token in a POSTed form (never a URL: a query with a
credential in it is refused) and checks it exactly as the API does
(`callers.Authenticator`). The browser then holds an opaque session id in
an HttpOnly, SameSite=Strict cookie (Secure over TLS); every form carries
the session's CSRF token, and a POST whose Origin or Referer names another
site is refused. A user sees their own usage and conversations; the users
page and everyone's numbers are the administrator's."""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from html import escape
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from cursor_byok.store.base import Store
from cursor_byok.store.owners import client_id_of
from cursor_byok.store.tokens import new_token, token_id_of
from cursor_byok.transport.connect.request_body import RequestError
from cursor_byok.transport.http.callers import Authenticator, credentials_in_url
from cursor_byok.transport.http.dashboard.conversations import conversations_page, page_key
from cursor_byok.transport.http.dashboard.layout import hidden_csrf, page
from cursor_byok.transport.http.dashboard.sign_ins import SignIn, SignIns, csrf_matches
from cursor_byok.transport.http.dashboard.timeline import timeline
from cursor_byok.transport.http.dashboard.views import overview, users_page
from cursor_byok.transport.http.stream_writer import Send

Receive = Callable[[], Any]
COOKIE = "cursor_byok_ui"
LOGIN_COOKIE = "cursor_byok_ui_login"
"""The sign-in form's CSRF token, the same in this cookie and in the form."""
MAX_FORM_BYTES = 16 * 1024
SECURITY_HEADERS = [
    (b"cache-control", b"no-store"),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (
        b"content-security-policy",
        b"default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
        b"frame-ancestors 'none'; base-uri 'none'",
    ),
]


def is_dashboard(path: str) -> bool:
    return path == "/ui" or path.startswith("/ui/")


class Refusal(Exception):
    """A page other than the one asked for: its status and text."""

    def __init__(self, status: int, title: str, text: str) -> None:
        super().__init__(text)
        self.status, self.title, self.text = status, title, text


class Dashboard:
    """Answers every `/ui` request; `in_flight` counts the turns streaming."""

    def __init__(
        self, store: Store, authenticator: Authenticator, in_flight: Callable[[], int]
    ) -> None:
        self.store = store
        self.authenticator = authenticator
        self.in_flight = in_flight
        self.sign_ins = SignIns(store, authenticator.administrator_mark)

    async def __call__(
        self, scope: Mapping[str, Any], receive: Receive, send: Send, headers: Mapping[str, str]
    ) -> None:
        try:
            await self._route(scope, receive, send, headers)
        except Refusal as refusal:
            await _html(send, refusal.status, page(refusal.title, f"<p>{escape(refusal.text)}</p>"))

    async def _route(
        self, scope: Mapping[str, Any], receive: Receive, send: Send, headers: Mapping[str, str]
    ) -> None:
        path, method = scope["path"], scope["method"]
        query = scope.get("query_string") or b""
        if credentials_in_url(query):
            raise Refusal(
                400, "Refused", "Credentials in the URL are refused: sign in with the form."
            )
        if method not in ("GET", "POST"):
            raise Refusal(405, "Not allowed", f"{method} is not served here.")
        if method == "POST":
            _same_site(headers)
        if path == "/ui/login":
            await self._login(method, receive, send, headers, scope)
            return
        sign_in = await self.sign_ins.find(_cookie(headers))
        if sign_in is None:
            if method == "POST":
                raise Refusal(403, "Signed out", "Your session ended: sign in again.")
            await _redirect(send, "/ui/login")
            return
        form: dict[str, str] = {}
        if method == "POST":
            form = await _form(receive)
            if not csrf_matches(sign_in, form.get("csrf", "")):
                raise Refusal(403, "Refused", "This form is stale or came from another site.")
        user = sign_in.user

        def shown(title: str, body: str, status: int = 200) -> Any:
            html = page(title, body, user.name, sign_in.csrf, user.is_admin)
            return _html(send, status, html)

        if method == "POST" and path == "/ui/logout":
            await self.sign_ins.close(_cookie(headers) or "")
            await _redirect(send, "/ui/login", _set_cookie(_over_tls(scope, headers), "", 0))
        elif method == "GET" and path in ("/ui", "/ui/"):
            now_ms = int(time.time() * 1000)
            body = await asyncio.to_thread(overview, self.store, user, self.in_flight(), now_ms)
            await shown("Overview", body)
        elif method == "GET" and path == "/ui/conversations":
            options = dict(parse_qsl(query.decode("latin-1")))
            body = await asyncio.to_thread(
                conversations_page,
                self.store,
                user,
                options.get("user", ""),
                options.get("model", ""),
                page_key(options.get("before", "")),
            )
            await shown("Conversations", body)
        elif method == "GET" and path.startswith("/ui/conversations/"):
            ident = unquote(path.removeprefix("/ui/conversations/"))
            start = dict(parse_qsl(query.decode("latin-1"))).get("from", "0")
            first = int(start) if start.isdigit() and len(start) < 10 else 0
            body_or_none = await asyncio.to_thread(timeline, self.store, user, ident, first)
            if body_or_none is None:
                await shown("Not found", "<p>No conversation by that id.</p>", 404)
            else:
                await shown(f"Conversation {client_id_of(ident)}", body_or_none)
        elif path.startswith("/ui/users"):
            if not user.is_admin:
                await shown("Forbidden", "<p>Only the administrator may see this page.</p>", 403)
                return
            await self._users(method, path, form, sign_in, shown)
        else:
            await shown("Not found", "<p>No such page.</p>", 404)

    async def _users(
        self, method: str, path: str, form: dict[str, str], sign_in: SignIn, shown: Any
    ) -> None:
        notice = ""
        name = form.get("name", "")
        if method == "POST":
            target = await asyncio.to_thread(self.store.user, name)
            if target is None or target.is_admin:
                raise Refusal(
                    400,
                    "Refused",
                    "No such user (the administrator's token is the configured one).",
                )
            if path == "/ui/users/revoke":
                await asyncio.to_thread(self.store.revoke, name)
                notice = f"<p>Revoked {escape(name)}: their token no longer works.</p>"
            elif path == "/ui/users/rotate":
                made = new_token()
                await asyncio.to_thread(self.store.set_token, name, made.token_id, made.token_hash)
                notice = (
                    f"<p>{escape(name)} has a new token; the old one no longer works. "
                    "It is shown this once (only its hash is stored):</p>"
                    f'<p class="token">{escape(made.token)}</p>'
                )
            else:
                raise Refusal(404, "Not found", "No such action.")
        elif path != "/ui/users":
            raise Refusal(404, "Not found", "No such page.")
        now_ms = int(time.time() * 1000)
        body = await asyncio.to_thread(users_page, self.store, now_ms, sign_in.csrf)
        await shown("Users", notice + body)

    async def _login(
        self, method: str, receive: Receive, send: Send, headers: Mapping[str, str], scope: Any
    ) -> None:
        if method == "GET":
            nonce = secrets.token_urlsafe(24)
            cookie = _set_cookie(_over_tls(scope, headers), nonce, 3600, LOGIN_COOKIE, "/ui/login")
            await _html(send, 200, _login_page("", nonce), cookie)
            return
        form = await _form(receive)
        expected = _cookie(headers, LOGIN_COOKIE) or ""
        if not expected or not hmac.compare_digest(expected, form.get("csrf", "")):
            raise Refusal(403, "Refused", "This sign-in form is stale or came from another site.")
        token = form.get("token", "").strip()
        try:
            user = await self.authenticator.caller({"authorization": f"Bearer {token}"})
        except RequestError:
            await _html(send, 401, _login_page("That token is not valid here.", expected))
            return
        token_id = None if user.is_admin else token_id_of(token)
        session_id = await self.sign_ins.open(user, token_id)
        await _redirect(send, "/ui/", _set_cookie(_over_tls(scope, headers), session_id, None))


def _login_page(error: str, nonce: str) -> str:
    said = f'<p class="error">{escape(error)}</p>' if error else ""
    return page(
        "Sign in",
        f"{said}<form method=post action=/ui/login>{hidden_csrf(nonce)}"
        "<p><label>Token <input type=password name=token autocomplete=off size=60 autofocus>"
        "</label></p><p><button type=submit>Sign in</button></p></form>"
        "<p class=meta>Your own token (from <code>cursor-byok users add</code> or "
        "<code>rotate</code>), or the administrator's access token.</p>",
    )


def _same_site(headers: Mapping[str, str]) -> None:
    """Refuse a POST whose Origin (or, lacking one, Referer) names another
    host than the one asked. The scheme is not compared: behind a proxy that
    ends TLS the browser says https and the server sees http."""
    host = headers.get("host", "")
    stated = headers.get("origin", headers.get("referer"))
    if stated is not None and urlsplit(stated).netloc != host:
        raise Refusal(403, "Refused", "A form from another site was refused.")


def _over_tls(scope: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    """Whether the browser reached us over TLS: ours, or a proxy's that says
    so (`X-Forwarded-Proto`; it only ever adds the cookie's Secure flag)."""
    return scope.get("scheme") == "https" or headers.get("x-forwarded-proto") == "https"


def _cookie(headers: Mapping[str, str], name: str = COOKIE) -> str | None:
    try:
        jar = SimpleCookie(headers.get("cookie", ""))
    except CookieError:
        return None
    morsel = jar.get(name)
    return morsel.value if morsel is not None else None


def _set_cookie(
    tls: bool, value: str, max_age: int | None, name: str = COOKIE, path: str = "/ui"
) -> bytes:
    secure = "; Secure" if tls else ""
    age = "" if max_age is None else f"; Max-Age={max_age}"
    return f"{name}={value}; Path={path}; HttpOnly; SameSite=Strict{secure}{age}".encode()


async def _form(receive: Receive) -> dict[str, str]:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if len(body) > MAX_FORM_BYTES:
            raise Refusal(413, "Too large", "That form is too large.")
        if not message.get("more_body"):
            break
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


async def _html(send: Send, status: int, html: str, cookie: bytes | None = None) -> None:
    headers = [(b"content-type", b"text/html; charset=utf-8"), *SECURITY_HEADERS]
    if cookie is not None:
        headers.append((b"set-cookie", cookie))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": html.encode()})


async def _redirect(send: Send, where: str, cookie: bytes | None = None) -> None:
    headers = [(b"location", where.encode()), *SECURITY_HEADERS]
    if cookie is not None:
        headers.append((b"set-cookie", cookie))
    await send({"type": "http.response.start", "status": 303, "headers": headers})
    await send({"type": "http.response.body", "body": b""})
