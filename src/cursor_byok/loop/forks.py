"""Rewinds: a client that is behind the server's history starts a branch.

What the clients send. Cursor's clients keep every checkpoint the server
sends (`conversation_checkpoint_update`) and send the latest back as the
run's `conversation_state` (protocol/official-client.md, "Checkpoints, KV
and resume"; reference.md §2.4). Its `turns` are blob ids, SHA-256 of the
`ConversationTurnStructure` bytes this server made (user message, steps,
request id: `transport/dialect/checkpoints.py`). The IDE also keeps one
checkpoint per message it sent (its bubble checkpoints: `map<string,
ConversationStateStructure> bubble_checkpoints` in `aiserver.v1`, in the
schema extracted by burpheart/cursor-tap, `cursor_proto/aiserver_v1.proto`),
and restoring a checkpoint, or editing an earlier message and sending it
again, runs with the checkpoint that message was first sent with. A new
chat's state is empty, and it is always sent (the official backend refuses
a run without one, reference.md §2.2); so the edit of the first message
arrives with no turns at all. (Inferred from the schema and the clients'
rule of sending what they hold; no capture of a rewind is published.)

The Rust cursor-byok does the like with a checkpoint tree of its own
(parent links, each input pinned to its base checkpoint: research/peers.md
§3.1); here a branch is a conversation of its own.

So a run whose `turns` are a strict prefix of what the server recorded is
a rewind, and the answer is a fork: the conversation goes on in a branch
whose history is the kept prefix; nothing stored changes, and the longer
branch stays where it was for any window that still holds it.

Which turns a client holds is told by the last id of its `turns` (a turn's
blob id names the turn's user message, steps and request id, so it fixes
the whole prefix): the server notes, as each turn ends, the id the last
checkpoint of that turn named and where the branch stood then
(`TurnMark`). No turns at all is the state before the first message.

Everything here is a pure decision over what the store read (`place`) and
the transition that makes a branch (`fork_state`); the runner does the I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from cursor_byok.llm.serialize import EMPTY_MESSAGES_HASH
from cursor_byok.llm.shared_tuple import SharedTuple
from cursor_byok.loop.commands import Transition, WaitInput
from cursor_byok.loop.inputs import Fork
from cursor_byok.loop.records import ForkMade
from cursor_byok.loop.state import ConversationState, RuntimeState, Status
from cursor_byok.loop.steps import append, ignore
from cursor_byok.loop.todos import TodoItem

NO_TURNS = b""
"""The mark of a client state with no turns (before the first message)."""


def fork_input_id(input_id: str) -> str:
    """The id of the `Fork` input the run `input_id` makes (once)."""
    return f"fork:{input_id}"


@dataclass(frozen=True, slots=True)
class TurnMark:
    """Where a branch stood when a turn ended (or was cut off): the client
    holding a checkpoint whose last turn is this one stands there too."""

    branch: str
    number: int
    """How many turns the checkpoint names."""
    message_count: int
    todos: tuple[TodoItem, ...] = ()
    """The to-do list then (a branch starts from it)."""


@dataclass(frozen=True, slots=True)
class Branch:
    """One line of a conversation as stored: the root (the conversation the
    client named) or a fork of it, with where its history now ends."""

    key: str
    parent: str | None
    point: int
    """How many of the parent's messages it kept (0 for the root)."""
    message_count: int
    updated_at_ms: int
    created_at_ms: int
    made_by: str = ""
    """The input that made the fork (a resent run finds its branch by it)."""


@dataclass(frozen=True, slots=True)
class Continue:
    """The run goes on `branch`. `unrecognised`: the client's state names
    turns the server has no mark of (answered as before rewinds existed)."""

    branch: str
    unrecognised: bool = False


@dataclass(frozen=True, slots=True)
class ForkAt:
    """The run starts a new branch of `parent` keeping its first `point` messages."""

    parent: str
    point: int
    todos: tuple[TodoItem, ...] = ()


Placement = Continue | ForkAt


def head(root: str, branches: Sequence[Branch]) -> str:
    """The branch last written: where a client is answered whose state tells
    nothing (no state sent, or turns the server never marked)."""
    if not branches:
        return root
    return max(branches, key=lambda b: (b.updated_at_ms, b.created_at_ms)).key


def place(
    root: str,
    turns: Sequence[bytes] | None,
    starting: bool,
    marks: Mapping[bytes, TurnMark],
    branches: Sequence[Branch],
    input_id: str,
    committed_on: frozenset[str] = frozenset(),
) -> Placement:
    """Where a run goes. `turns`: the client's (None: it sent no state, as
    the built-in clients do); `starting`: the run brings a new message (a
    resume or a summary asked for only finds its branch); `marks`: the
    marks of the ids in `turns`; `branches`: the root and its forks, as
    stored; `committed_on`: the branches where `input_id` is committed
    already (a resent run goes where it went)."""
    made = [b.key for b in branches if input_id and b.made_by == fork_input_id(input_id)]
    if made:
        return Continue(made[0])
    if committed_on:
        return Continue(head(root, [b for b in branches if b.key in committed_on]))
    if turns is None or not branches:
        return Continue(head(root, branches))
    if not starting:
        return Continue(_resumed(root, turns, marks, branches))
    last = turns[-1] if turns else NO_TURNS
    mark = marks.get(last) or (TurnMark(root, 0, 0) if not turns else None)
    if mark is None or mark.number != len(turns):
        return Continue(head(root, branches), unrecognised=True)
    stood = next((b for b in branches if b.key == mark.branch), None)
    if stood is None:
        return Continue(head(root, branches), unrecognised=True)
    if stood.message_count <= mark.message_count:
        return Continue(stood.key)
    return ForkAt(stood.key, mark.message_count, mark.todos)


def _resumed(
    root: str, turns: Sequence[bytes], marks: Mapping[bytes, TurnMark], branches: Sequence[Branch]
) -> str:
    """A resume carries the turn in flight, whose id (it changes with every
    step) is seldom marked: the last marked turn tells where the client
    stood, and the turn goes on there or in a fork made at that point,
    whichever was written last."""
    stood = TurnMark(root, 0, 0)
    for turn in reversed(turns):
        if turn in marks:
            stood = marks[turn]
            break
    near = [
        b
        for b in branches
        if b.key == stood.branch or (b.parent == stood.branch and b.point == stood.message_count)
    ]
    return head(root, near or branches)


def fork_state(
    branch: str, parent: ConversationState, point: int, todos: tuple[TodoItem, ...]
) -> ConversationState | None:
    """The new branch's committed state: the parent's first `point`
    messages (the very objects, so each renders to the same bytes), its
    settings and the summaries among them, idle. None when the parent has
    fewer messages than that (nothing to keep a prefix of)."""
    if point > len(parent.messages):
        return None
    kept = SharedTuple.of(parent.messages)[:point]
    empty = ConversationState(branch, messages=(), messages_hash=EMPTY_MESSAGES_HASH)
    grown = append(empty, tuple(kept))
    return replace(
        grown,
        status=Status.READY,
        settings=parent.settings,
        resets=tuple(r for r in parent.resets if r < point),
        todos=todos,
    )


def on_fork(state: RuntimeState, input_: Fork) -> Transition:
    """A conversation becomes a branch once, before anything else happened
    in it; a fork asked again (a resent run) changes nothing."""
    conv = state.committed
    if conv.messages or conv.turn_seq or state.pending is not None:
        return ignore(state, "fork of a conversation that has begun")
    made = fork_state(conv.conversation_id, input_.parent, input_.point, input_.todos)
    if made is None:
        return ignore(state, "fork past the end of its parent")
    record = ForkMade(input_.parent.conversation_id, input_.point)
    return Transition(RuntimeState(made), (), WaitInput(), records=(record,))
