"""Whose a session is, and what its owner may do.

A session's request id and its conversation's id are keys in the owner's
namespace (`store.owners`): the HTTP side scopes the client's request id
when it finds the session, and a run request's conversation id is scoped
here once it is decoded. The models a user may use are checked when a run
request starts a turn, on whichever process hosts the request (a process
a stream was piped to knows the owner from the key alone, so it looks the
user up).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from cursor_byok.store.base import User
from cursor_byok.store.owners import ADMIN_USER_ID, owner_of, scoped
from cursor_byok.transport.connect.errors import Code, WireError
from cursor_byok.transport.dialect.run_request import RunStarted, error_banner
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2 as errors_pb


def owned(request_key: str, event: RunStarted) -> RunStarted:
    """The run request with its conversation id scoped to the request's owner."""
    return replace(event, conversation_id=scoped(owner_of(request_key), event.conversation_id))


def not_allowed(model: str, user: User) -> WireError:
    """A model the user may not use: said on the stream, with a card naming
    the ones they may."""
    allowed = ", ".join(user.models or ()) or "none"
    text = f"model {model!r} is not allowed for user {user.name}; allowed: {allowed}"
    kind = errors_pb.ErrorDetails.ERROR_CUSTOM_MESSAGE
    banner = error_banner(kind, "Model not allowed", f"{text}. Pick one of those.", False)
    return WireError(Code.PERMISSION_DENIED, text, (banner,))


class ModelGate:
    """Which models each user may use. `find_user` reads a user by id (the
    store's `user_by_id`, called in a worker thread); `resolve` names the
    configured model a requested name is served by (an unknown name falls
    back to the default, which must then be allowed)."""

    def __init__(
        self,
        find_user: Callable[[int], User | None] | None = None,
        resolve: Callable[[str], str | None] = lambda model: model,
        identify: Callable[[str], tuple[str, str, str] | None] = lambda model: None,
    ) -> None:
        self._find_user = find_user
        self._resolve = resolve
        self.identity = identify
        """(api, provider, model) of the model serving a requested name, as
        its adapter names its answers (None: unknown)."""

    async def refusal(self, request_key: str, event: RunStarted) -> WireError | None:
        """Why the run request's owner may not start a turn with its model; None if they may."""
        owner = owner_of(request_key)
        resume = event.start is None and event.run is None  # the turn's model was checked
        if owner == ADMIN_USER_ID or self._find_user is None or resume:
            return None
        user = await asyncio.to_thread(self._find_user, owner)
        model = self._resolve(event.model) or event.model
        if user is not None and user.may_use(model):
            return None
        if user is None:
            return WireError(Code.UNAUTHENTICATED, "the request's user is not known here")
        return not_allowed(model, user)
