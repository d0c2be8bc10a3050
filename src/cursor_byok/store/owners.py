"""Whose a conversation or a request is, written into its key.

Clients name their conversations and requests (UUIDs, checked where they
enter: letters, digits, `-` and `_` only). Each user gets a namespace of
their own: the server keys a user's ids as `<client id>.<user id>`, and the
administrator's as the client's id unchanged, which is what every id stored
before there were users already is. A `.` never appears in a client's id, so
no user can name a key of another's: another user's id, in a user's own
namespace, is an id that does not exist, answered as one (a new stream, a new
conversation, a resume with nothing to resume), by the same code.

The key says its owner, so whatever holds a key (a runner resuming a turn
after a restart, a process hosting a request piped to it, a model call)
knows the user without a lookup.
"""

from __future__ import annotations

ADMIN_USER_ID = 1
"""The administrator: the user of the configured access token (and of the
loopback server with none), who owns every conversation stored before
there were users."""

SEPARATOR = "."


def scoped(owner: int, client_id: str) -> str:
    """The server's key of the client's id in `owner`'s namespace."""
    return client_id if owner == ADMIN_USER_ID else f"{client_id}{SEPARATOR}{owner}"


def owner_of(key: str) -> int:
    """The user whose namespace `key` is in."""
    _, separator, owner = key.rpartition(SEPARATOR)
    return int(owner) if separator and owner.isdigit() else ADMIN_USER_ID


def client_id_of(key: str) -> str:
    """The id the client knows `key` by."""
    client_id, separator, owner = key.rpartition(SEPARATOR)
    return client_id if separator and owner.isdigit() else key
