"""Checkpoints: the conversation state the client keeps and sends back.

The client stores each `conversation_checkpoint_update` and returns the
latest as `conversation_state` on its next run and on resume. To render
history, `/compress` and the resume list, it walks `turns`: blob ids of a
`ConversationTurnStructure` (the user message and the steps of one turn,
each a blob too). The blobs live in the client's KV store; the server puts
them there with `kv_server_message.set_blob_args` (id = SHA-256 of the
bytes) before the checkpoint that names them. A checkpoint right after an
exec request names the tool call still pending. `todos` names the
conversation's to-do list the same way, one blob per `TodoItem`: the
clients read each back with `getBlob` when they rebuild a chat. `plan`
names the conversation's plan the same way (a blob of a serialized
`ConversationPlan`, the last one `CreatePlan` showed: real checkpoints carry
a 32-byte id there), and `completed_ask_question_tool_call_ids` lists the
questions that have their answer (or a skip), so a client that rebuilds the
chat shows them answered. Both come back in the checkpoint the client sends
with its next run and are carried on from it.

This mirrors history for the client; the server's own history stays in the
store, and nothing here is read back into it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from cursor_byok.llm.types import AssistantMessage, TextContent, ThinkingContent, ToolCall
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def blob_id(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


@dataclass(slots=True)
class TurnBlobs:
    """The blobs of the turn one stream plays, and which the client has."""

    prior_turns: tuple[bytes, ...] = ()
    """The turns the client sent back, as decoded (a tuple of bytes: not
    copied again, and nothing for the garbage collector to walk)."""
    user_message: bytes | None = None
    request_id: str = ""
    steps: list[bytes] = field(default_factory=list)
    made: tuple[int, bytes] | None = None
    """(steps, blob id) of the turn's blob as last made: a checkpoint that
    adds no step (the one naming a pending call) names the same blob."""
    unsent: dict[bytes, bytes] = field(default_factory=dict)
    sent: set[bytes] = field(default_factory=set)
    next_kv: int = 1
    todos: list[bytes] = field(default_factory=list)
    """The conversation's to-dos, each a blob id of a serialized `TodoItem`."""
    todo_lists: int = 0
    """How many lists `set_todos` named (a newer one is never replaced by an older)."""
    subagents: dict[str, pb.SubagentPersistedState] = field(default_factory=dict)
    """The conversation's subagents by agent id (`subagent_states`): the
    checkpoint the client sent back, and those the turn started since."""

    def record_subagent(self, agent_id: str, state: pb.SubagentPersistedState) -> None:
        """A subagent a Task call started or continued (a continued one keeps
        when it was made)."""
        known = self.subagents.get(agent_id)
        if known is not None and known.created_timestamp_ms:
            state.created_timestamp_ms = known.created_timestamp_ms
        self.subagents[agent_id] = state

    plan: bytes = b""
    """The blob id of the conversation's plan (`ConversationPlan`), if any."""
    answered: list[str] = field(default_factory=list)
    """The ids of the question tool calls that have their answer, in order."""

    def carry_state(self, plan: bytes, answered: Iterable[str]) -> None:
        """The plan and answered questions of the checkpoint the client sent
        (it holds the plan's blob)."""
        self.plan = plan
        if plan:
            self.sent.add(plan)
        self.answered = list(dict.fromkeys(answered))

    def set_plan(self, text: str) -> None:
        """The plan every checkpoint from now on names."""
        self.plan = self._keep(pb.ConversationPlan(plan=text).SerializeToString())

    def add_answered(self, call_id: str) -> None:
        if call_id and call_id not in self.answered:
            self.answered.append(call_id)

    def carry_todos(self, blob_ids: Iterable[bytes]) -> None:
        """Name the to-do list of the checkpoint the client sent (it holds
        those blobs) until `set_todos` names the committed one."""
        self.todos = list(blob_ids)
        self.sent.update(self.todos)

    def set_todos(self, items: Iterable[pb.TodoItem]) -> None:
        """The to-do list every checkpoint from now on names."""
        self.todos = [self._keep(item.SerializeToString(deterministic=True)) for item in items]
        self.todo_lists += 1

    def begin(
        self, user: pb.UserMessage | None, prior_turns: Iterable[bytes], request_id: str
    ) -> None:
        """A run starts: the turns the client sent back come first; a new
        user message opens a turn of its own (a resume adds none)."""
        self.prior_turns = tuple(prior_turns)
        self.request_id = request_id
        self.steps = []
        self.made = None
        if user is None:
            self.user_message = None
            return
        self.user_message = self._keep(self._by_blob_id(user).SerializeToString())

    def _by_blob_id(self, user: pb.UserMessage) -> pb.UserMessage:
        """The message as the client keeps it: each image named by blob id
        (SHA-256 of its bytes), an inline one stored as a blob of its own
        first (as the official server does); one the client sent with its
        blob id it already holds."""
        images = user.selected_context.selected_images
        if not any(
            i.WhichOneof("data_or_blob_id") in ("data", "blob_id_with_data") for i in images
        ):
            return user
        kept = pb.UserMessage()
        kept.CopyFrom(user)
        for image in kept.selected_context.selected_images:
            match image.WhichOneof("data_or_blob_id"):
                case "data":
                    image.blob_id = self._keep(image.data)
                case "blob_id_with_data" if image.blob_id_with_data.blob_id:
                    image.blob_id = image.blob_id_with_data.blob_id
                case "blob_id_with_data" if image.blob_id_with_data.data:
                    image.blob_id = self._keep(image.blob_id_with_data.data)
        return kept

    def release(self) -> None:
        """The stream has ended: no checkpoint follows, so the turns the
        client sent back (one id per turn of the conversation) and the
        turn's steps go. An ended session is kept a while for a reconnect;
        a long conversation's sessions would otherwise each keep its turns."""
        self.prior_turns = ()
        self.user_message = None
        self.steps = []
        self.made = None

    def kv_number(self) -> int:
        """The id of a KV request of this stream (the client's answer names it)."""
        number = self.next_kv
        self.next_kv += 1
        return number

    def keep(self, data: bytes) -> bytes:
        """A blob a message is about to name: its id, and the client's KV
        store gets it with the next `flush` (once per stream)."""
        return self._keep(data)

    def _keep(self, data: bytes) -> bytes:
        found = blob_id(data)
        if found not in self.sent:
            self.unsent[found] = data
        return found

    def add_step(self, step: pb.ConversationStep) -> None:
        if self.user_message is not None:
            self.steps.append(self._keep(step.SerializeToString()))

    def add_answer(self, message: AssistantMessage) -> None:
        """The thinking and text of a finished model call, as steps."""
        for block in message.content:
            if isinstance(block, ThinkingContent) and block.thinking:
                self.add_step(
                    pb.ConversationStep(thinking_message=pb.ThinkingMessage(text=block.thinking))
                )
            elif isinstance(block, TextContent) and block.text:
                self.add_step(
                    pb.ConversationStep(assistant_message=pb.AssistantMessage(text=block.text))
                )

    def turns(self) -> list[bytes]:
        if self.user_message is None:
            return list(self.prior_turns)
        return [*self.prior_turns, self._turn()]

    def _turn(self) -> bytes:
        """The blob id of this turn's structure, made again only when a step
        was added (the structure names every step: its bytes grow with the
        turn, a new blob each time)."""
        made = self.made
        if made is not None and made[0] == len(self.steps):
            return made[1]
        assert self.user_message is not None
        turn = pb.AgentConversationTurnStructure(
            user_message=self.user_message, steps=self.steps, request_id=self.request_id
        )
        structure = pb.ConversationTurnStructure(agent_conversation_turn=turn)
        found = self._keep(structure.SerializeToString())
        self.made = (len(self.steps), found)
        return found

    def flush(self) -> list[pb.AgentServerMessage]:
        """`set_blob_args` for every blob the client does not have yet."""
        messages = []
        for found, data in self.unsent.items():
            store = pb.SetBlobArgs(blob_id=found, blob_data=data)
            kv = pb.KvServerMessage(id=self.kv_number(), set_blob_args=store)
            messages.append(pb.AgentServerMessage(kv_server_message=kv))
            self.sent.add(found)
        self.unsent.clear()
        return messages


def note_completed(blobs: TurnBlobs, call_id: str, card: pb.ToolCall) -> None:
    """What a completed card adds to the checkpoints: a plan shown becomes
    the conversation's plan; a question answered or skipped is listed (one
    the user answers later is listed when its answer arrives)."""
    match card.WhichOneof("tool"):
        case "create_plan_tool_call":
            plan = card.create_plan_tool_call
            if plan.result.HasField("success") and plan.args.plan:
                blobs.set_plan(plan.args.plan)
        case "ask_question_tool_call":
            result = card.ask_question_tool_call.result.WhichOneof("result")
            if result in ("success", "rejected", "error"):
                blobs.add_answered(call_id)


def pending_call_json(call: ToolCall) -> str:
    """A pending tool call as the checkpoint lists it: the assistant's
    tool-call message as inline JSON."""
    part = {
        "type": "tool-call",
        "toolCallId": call.id,
        "toolName": call.name,
        "args": call.arguments,
    }
    return json.dumps({"role": "assistant", "content": [part]}, ensure_ascii=False)


def checkpoint(
    blobs: TurnBlobs,
    meter_checkpoint: pb.AgentServerMessage,
    pending: Iterable[ToolCall] = (),
    mode: int = 0,
) -> list[pb.AgentServerMessage]:
    """The blobs the client lacks, then the checkpoint that names them: the
    meter's checkpoint (token details) with the turns and pending calls added."""
    message = pb.AgentServerMessage()
    message.CopyFrom(meter_checkpoint)
    state = message.conversation_checkpoint_update
    state.turns.extend(blobs.turns())
    state.todos.extend(blobs.todos)
    if blobs.plan:
        state.plan = blobs.plan
    state.completed_ask_question_tool_call_ids.extend(blobs.answered)
    state.pending_tool_calls.extend(pending_call_json(call) for call in pending)
    for agent_id, subagent in blobs.subagents.items():
        state.subagent_states[agent_id].CopyFrom(subagent)
    if mode:
        state.mode = mode  # type: ignore[assignment]
    return [*blobs.flush(), message]
