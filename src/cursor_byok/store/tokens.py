"""A user's token: how it is made, and how it is checked against what is stored.

A token is `cbk_<id>_<secret>`: 16 hex digits of public id, then 32 random
bytes (base64url). The id finds the user with one indexed read; the secret
is checked against the stored hash. Only that hash is stored, never the
token: whoever reads the database (or a backup of it) cannot use it.

The hash is scrypt (the standard library's, OpenSSL's), salted, with its
parameters stored beside it so they can be raised later: N=2^14, r=8,
p=1, the parameters scrypt's author gives for interactive logins, some
16 MiB and tens of milliseconds a check. A token's 256 random bits need no
slow hash to resist guessing; the slow hash is for the day a table leaks
with tokens that are weaker than these (pasted, or made elsewhere), and it
costs nothing on the hot path, where a successful check is remembered for
a short while (`transport/http/callers.py`). bcrypt would have cut the
secret at 72 bytes and added a dependency; argon2 would have added one for
the same protection.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

PREFIX = "cbk_"
_TOKEN = re.compile(r"cbk_([0-9a-f]{16})_([A-Za-z0-9_-]{43})")

SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SCRYPT_MAXMEM = 64 * 1024 * 1024
"""OpenSSL's default ceiling (32 MiB) is what N=2^15 would need, too tight
for the parameters stored with an older hash should they ever be raised."""
SALT_BYTES = 16
DIGEST_BYTES = 32


class BadHash(ValueError):
    """A stored hash this program cannot read (written by hand, or damaged)."""


@dataclass(frozen=True, slots=True)
class NewToken:
    """A token as it is handed out: shown once, then only its hash is kept."""

    token: str
    token_id: str
    token_hash: str


def looks_like_a_user_token(text: str) -> bool:
    return text.startswith(PREFIX)


def token_id_of(token: str) -> str | None:
    """The public id of a well-formed token; None for anything else."""
    matched = _TOKEN.fullmatch(token)
    return matched.group(1) if matched else None


def new_token() -> NewToken:
    token_id = secrets.token_hex(8)
    token = f"{PREFIX}{token_id}_{secrets.token_urlsafe(32)}"
    return NewToken(token, token_id, hash_token(token))


def hash_token(token: str, salt: bytes | None = None) -> str:
    salt = secrets.token_bytes(SALT_BYTES) if salt is None else salt
    digest = _scrypt(token, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return "$".join(
        ("scrypt", str(SCRYPT_N), str(SCRYPT_R), str(SCRYPT_P), _b64(salt), _b64(digest))
    )


def admin_mark(token: bytes) -> str:
    """A slow hash of the administrator's configured token under a fixed
    salt, so every process derives the same (what a dashboard session keeps
    of it: a session lapses when the token changes)."""
    digest = hashlib.scrypt(
        token,
        salt=b"cursor-byok administrator",
        n=SCRYPT_N,
        r=SCRYPT_R,
        p=SCRYPT_P,
        maxmem=SCRYPT_MAXMEM,
    )
    return _b64(digest)


def token_matches(token: str, stored: str) -> bool:
    """Whether `token` is the one `stored` is the hash of, compared in
    constant time. Slow by design: call it off the event loop. BadHash
    for a stored hash this program cannot read."""
    try:
        kind, n, r, p, salt, digest = stored.split("$")
        if kind != "scrypt":
            raise ValueError(f"not an scrypt hash: {kind!r}")
        expected = _unb64(digest)
        if len(expected) != DIGEST_BYTES:
            raise ValueError(f"a digest of {len(expected)} bytes")
        found = _scrypt(token, _unb64(salt), int(n), int(r), int(p))
    except (ValueError, TypeError) as error:  # binascii.Error is a ValueError
        raise BadHash(f"a stored token hash cannot be read: {error}") from error
    return hmac.compare_digest(found, expected)


def _scrypt(token: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        token.encode(), salt=salt, n=n, r=r, p=p, maxmem=SCRYPT_MAXMEM, dklen=DIGEST_BYTES
    )


def _unb64(text: str) -> bytes:
    return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")
