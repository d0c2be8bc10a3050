"""Where the store lives: a SQLite file or a PostgreSQL URL (`store.opener`
opens it).

`server.database` (and `--database`) takes either; a `postgresql://` or
`postgres://` URL selects PostgreSQL, anything else is a file path. The
PostgreSQL driver is imported only for such a URL (its copy of libpq's
parser says where the password is), so the SQLite path neither needs nor
loads it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

POSTGRES_SCHEMES = ("postgresql://", "postgres://")

Durability = Literal["full", "normal"]


class UnreadableURL(ValueError):
    """libpq refuses the URL (its message, with the password cut out)."""


def _libpq_password(url: str) -> str | None:
    """The password libpq reads from `url`, by libpq's own parser (psycopg
    wraps `PQconninfoParse`). ImportError without the `postgresql` extra."""
    from psycopg import ProgrammingError  # noqa: PLC0415 (only for a PostgreSQL URL)
    from psycopg.conninfo import conninfo_to_dict  # noqa: PLC0415

    try:
        password = conninfo_to_dict(url).get("password")
    except ProgrammingError as error:
        raise UnreadableURL(str(error)) from error
    return None if password is None else str(password)


def _password_spans(url: str) -> list[tuple[int, int]]:
    """Where the password is written in `url`, by libpq's URI rules
    (`conninfo_uri_parse_options`): the user part ends at the first `@`
    (before any `/`) and its password runs from its first `:` to that `@`,
    so `#`, `?` and `:` belong to it; the parameters start at the first `?`
    after the user part, `&`-separated, and a `password=` one runs to its `&`."""
    start = url.index("://") + 3
    spans: list[tuple[int, int]] = []
    end = start
    while end < len(url) and url[end] not in "@/":
        end += 1
    if end < len(url) and url[end] == "@":
        colon = url.find(":", start, end)
        if colon != -1:
            spans.append((colon + 1, end))
        end += 1
    question = url.find("?", end)
    if question != -1:
        position = question + 1
        for parameter in url[question + 1 :].split("&"):
            key, equals, _ = parameter.partition("=")
            if equals and unquote(key) == "password":
                spans.append((position + len(key) + 1, position + len(parameter)))
            position += len(parameter) + 1
    return spans


@dataclass(frozen=True, slots=True)
class PostgresURL:
    """A libpq connection URL. Printed without its password, which may be in
    the user part or in a `password=` parameter, and may hold `#`, `?` or
    `:` unencoded (libpq takes them; a generic URL parser would read a
    fragment or a query there and print the password). libpq's own parser
    says what the password is; without psycopg, the URL is printed as its
    scheme alone."""

    url: str = field(repr=False)
    _shown: str = field(init=False, repr=False, compare=False)
    _secrets: tuple[str, ...] = field(init=False, repr=False, compare=False)
    _password: str | None = field(init=False, repr=False, compare=False)
    _refusal: str | None = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        spans = _password_spans(self.url)
        written = [self.url[begin:end] for begin, end in spans]
        forms = [form for raw in written for form in (raw, unquote(raw)) if form]
        hidden = f"{self.url.partition('://')[0]}://***"
        refusal = None
        try:
            password = _libpq_password(self.url)
        except ImportError:
            password, shown = None, hidden
        except UnreadableURL as error:
            password, shown, refusal = None, hidden, str(error)
        else:
            shown = self.url
            for begin, end in reversed(spans):
                shown = f"{shown[:begin]}***{shown[end:]}"
            if password and password not in forms:  # libpq read it elsewhere
                forms.append(password)
                shown = hidden
        object.__setattr__(self, "_shown", shown)
        object.__setattr__(self, "_secrets", tuple(dict.fromkeys(forms)))
        object.__setattr__(self, "_password", password)
        object.__setattr__(self, "_refusal", refusal)

    def __str__(self) -> str:
        return self._shown

    def __repr__(self) -> str:
        return f"PostgresURL({self._shown!r})"

    @property
    def password(self) -> str | None:
        """The password libpq connects with, if the URL carries one."""
        return self._password

    @property
    def secrets(self) -> tuple[str, ...]:
        """Every form of the password to cut from logs: as written in the
        URL and percent-decoded."""
        return self._secrets

    def check(self) -> None:
        """Raise UnreadableURL, its password cut out, when libpq refuses the
        URL; nothing without psycopg (opening the store says it is missing)."""
        if self._refusal is None:
            return
        reason = self._refusal
        for secret in sorted(self._secrets, key=len, reverse=True):
            reason = reason.replace(secret, "***")
        raise UnreadableURL(
            f"{self}: not a PostgreSQL URL libpq can read ({' '.join(reason.split())})"
        )


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def parse_database(text: str) -> Path | PostgresURL:
    """A `server.database` value: a PostgreSQL URL or a SQLite file path.
    Raises ValueError naming any other URL scheme (sqlite://, mysql://...),
    or for a PostgreSQL URL that libpq refuses."""
    if text.startswith(POSTGRES_SCHEMES):
        url = PostgresURL(text)
        url.check()
        return url
    scheme = _SCHEME.match(text)
    if scheme:
        raise ValueError(
            f"{text!r} is a {scheme.group(1)}:// URL; give the path of a SQLite file"
            " or a postgresql:// URL"
        )
    return Path(text).expanduser()
