"""Who sent a request: the administrator, or a user by their own token.

The configured access token is the administrator's, compared in constant
time as before. A user's token (`store.tokens`) is found by its public id,
read from the database on every request (one indexed read), so a token
rotated or revoked by any process or by `cursor-byok users` stops working
on the very next request, on every process. Its secret is checked against
the stored scrypt hash once; the check is then remembered in this process
for `CHECK_TTL_S`, under a keyed digest of the token (HMAC-SHA256 with a
key made at start-up: the token itself is never kept), and only while the
stored hash is still the one that was checked. Slow checks run in worker
threads, at most `CONCURRENT_CHECKS` at a time, so a flood of wrong tokens
costs bounded CPU and memory and never blocks the event loop.

A token is taken from the `Authorization` header alone: a request that
carries credentials in its URL (where proxies and logs keep them) is
refused. The token is never logged; a user's name may be.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from urllib.parse import parse_qsl

from cursor_byok.store.base import StoreError, User, Users, WouldWait
from cursor_byok.store.owners import ADMIN_USER_ID
from cursor_byok.store.tokens import (
    BadHash,
    admin_mark,
    looks_like_a_user_token,
    token_id_of,
    token_matches,
)
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.connect.request_body import RequestError

log = logging.getLogger(__name__)

ADMINISTRATOR = User(ADMIN_USER_ID, "admin", True, None, None, None, 0, None, None)
"""The configured access token's holder (and, with none, whoever the
server's connection gate lets in)."""

CHECK_TTL_S = 60.0
"""How long a successful slow check is remembered (revocation is read on
every request regardless)."""
MAX_REMEMBERED = 10_000
CONCURRENT_CHECKS = 2
"""Slow checks at once: each takes some 16 MiB and tens of milliseconds."""
TOUCH_EVERY_S = 60.0
"""How often a user's `last used` time is written, at most."""
REFUSED = "missing or wrong access token"
CREDENTIAL_PARAMETERS = frozenset(
    ("token", "access_token", "auth", "authorization", "bearer", "api_key", "apikey", "key")
)


def refused(text: str = REFUSED) -> RequestError:
    return RequestError(WireError(Code.UNAUTHENTICATED, text))


def credentials_in_url(query_string: bytes) -> bool:
    """Whether the URL's query carries something that looks like a credential."""
    if not query_string:
        return False
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    return any(
        name.lower() in CREDENTIAL_PARAMETERS or looks_like_a_user_token(value)
        for name, value in pairs
    )


class Authenticator:
    """Names the caller of each request; RequestError when it has no right to one."""

    def __init__(
        self,
        admin_token: str | None,
        users: Users | None = None,
        ttl_s: float = CHECK_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._admin = admin_token.encode() if admin_token is not None else None
        self._users = users
        self._ttl_s = ttl_s
        self._clock = clock
        self._key = secrets.token_bytes(32)
        self._checked: OrderedDict[bytes, tuple[str, float]] = OrderedDict()
        """Keyed digest of a token -> the stored hash it matched, and until when."""
        self._checks = asyncio.Semaphore(CONCURRENT_CHECKS)
        self._touched: dict[int, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.slow_checks = 0
        """Tokens checked against their hash (the rest were remembered)."""
        self._mark: str | None = None

    def administrator_mark(self) -> str:
        """What stands for the configured administrator's token in a record
        that must lapse when it changes (a dashboard session): a slow salted
        hash of it (`store.tokens`' scrypt), the same in every process,
        computed once; `open` where no token is configured."""
        if self._mark is None:
            admin = self._admin
            self._mark = "admin:open" if admin is None else "admin:" + admin_mark(admin)
        return self._mark

    async def administrator(self, headers: Mapping[str, str], query_string: bytes | None) -> None:
        """RequestError unless the administrator sent the request."""
        if not (await self.caller(headers, query_string)).is_admin:
            denied = WireError(Code.PERMISSION_DENIED, "only the administrator may read this")
            raise RequestError(denied, 403)

    async def caller(self, headers: Mapping[str, str], query_string: bytes | None = None) -> User:
        if query_string and credentials_in_url(query_string):
            raise refused(
                "credentials in the URL are refused: send the token in the Authorization "
                "header (Authorization: Bearer <token>)"
            )
        scheme, _, presented = headers.get("authorization", "").partition(" ")
        token = presented.strip() if scheme.lower() == "bearer" else ""
        admin = self._admin
        if token and admin is not None and hmac.compare_digest(token.encode(), admin):
            return ADMINISTRATOR
        if token and self._users is not None and looks_like_a_user_token(token):
            return await self._user(self._users, token)
        if admin is None:
            return ADMINISTRATOR  # no token configured: the connection gate decided
        raise refused()

    async def _user(self, users: Users, token: str) -> User:
        token_id = token_id_of(token)
        if token_id is None:
            raise refused()
        try:
            try:
                found = users.token_holder_now(token_id)  # SQLite: no thread hop
            except WouldWait:
                found = await asyncio.to_thread(users.token_holder, token_id)
        except StoreError as error:
            log.warning("a user's token could not be checked: %s", error)
            raise RequestError(
                WireError(Code.UNAVAILABLE, "the server cannot check tokens now; retry")
            ) from None
        digest = hmac.new(self._key, token.encode(), hashlib.sha256).digest()
        if found is None:
            self._checked.pop(digest, None)
            log.info("a user token was refused: no user holds it (never issued, rotated, revoked)")
            raise refused()
        user, stored = found
        now = self._clock()
        remembered = self._checked.get(digest)
        if (
            remembered is None
            or remembered[1] < now
            or not hmac.compare_digest(remembered[0].encode(), stored.encode())
        ):
            if not await self._slow_check(token, stored, user):
                raise refused()
            self._remember(digest, stored, now + self._ttl_s)
        self._touch(users, user, now)
        return user

    async def _slow_check(self, token: str, stored: str, user: User) -> bool:
        self.slow_checks += 1
        async with self._checks:
            try:
                matches = await asyncio.to_thread(token_matches, token, stored)
            except BadHash as error:
                log.warning("user %s: %s", user.name, error)
                return False
        if not matches:
            log.info(
                "user %s: a token with their token's id but another secret was refused", user.name
            )
        return matches

    def _remember(self, digest: bytes, stored: str, until: float) -> None:
        checked = self._checked
        checked[digest] = (stored, until)
        checked.move_to_end(digest)
        while len(checked) > MAX_REMEMBERED:
            checked.popitem(last=False)

    def _touch(self, users: Users, user: User, now: float) -> None:
        """Write when the user was last seen, at most every `TOUCH_EVERY_S`, off the request."""
        if now - self._touched.get(user.id, -TOUCH_EVERY_S) < TOUCH_EVERY_S:
            return
        self._touched[user.id] = now
        task = asyncio.ensure_future(_touch_in_thread(users, user))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _touch_in_thread(users: Users, user: User) -> None:
    try:
        await asyncio.to_thread(users.touch_user, user.id, int(time.time() * 1000))
    except StoreError as error:  # a lost "last used" time is no reason to fail anything
        log.warning("user %s: last use not recorded: %s", user.name, error)
