"""Where the store lives: a SQLite file or a PostgreSQL URL (`store.opener`
opens it).

`server.database` (and `--database`) takes either; a `postgresql://` or
`postgres://` URL selects PostgreSQL, anything else is a file path. The
PostgreSQL driver is imported only when such a URL is opened, so the SQLite
path neither needs nor loads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

Durability = Literal["full", "normal"]


@dataclass(frozen=True, slots=True)
class PostgresURL:
    """A libpq connection URL. Printed without its password, which may be in
    the user part or in a `password=` query parameter."""

    url: str = field(repr=False)

    def __str__(self) -> str:
        parts = urlsplit(self.url)
        netloc = parts.netloc
        if parts.password is not None:
            user, _, host = netloc.rpartition("@")
            netloc = f"{user.partition(':')[0]}:***@{host}"
        query = [(k, "***" if k == "password" else v) for k, v in parse_qsl(parts.query)]
        return urlunsplit(parts._replace(netloc=netloc, query=urlencode(query, safe="/*")))

    def __repr__(self) -> str:
        return f"PostgresURL({str(self)!r})"

    @property
    def password(self) -> str | None:
        """The password the URL carries, if any (for log redaction)."""
        parts = urlsplit(self.url)
        given = dict(parse_qsl(parts.query)).get("password")
        return parts.password or given


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def parse_database(text: str) -> Path | PostgresURL:
    """A `server.database` value: a PostgreSQL URL or a SQLite file path.
    Raises ValueError naming any other URL scheme (sqlite://, mysql://...)."""
    if text.startswith(POSTGRES_SCHEMES):
        return PostgresURL(text)
    scheme = _SCHEME.match(text)
    if scheme:
        raise ValueError(
            f"{text!r} is a {scheme.group(1)}:// URL; give the path of a SQLite file"
            " or a postgresql:// URL"
        )
    return Path(text).expanduser()
