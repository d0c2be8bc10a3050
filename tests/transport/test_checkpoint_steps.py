"""The checkpoints of a long turn: each names the turn's structure with every
step so far, the blob the client is sent before it holds exactly those
bytes, and a checkpoint that adds no step names the same blob again."""

from __future__ import annotations

import hashlib

from cursor_byok.llm.types import TextContent
from cursor_byok.loop.commands import Final
from cursor_byok.transport.dialect import checkpoints, meter
from cursor_byok.transport.dialect.checkpoints import TurnBlobs
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.session import Session
from tests.factories import assistant


def checkpoint(blobs: TurnBlobs) -> tuple[bytes, dict[bytes, bytes]]:
    """The turn the checkpoint names last, and the blobs sent before it."""
    *stored, state = checkpoints.checkpoint(blobs, meter.checkpoint(10, 100, {}))
    sent = {
        m.kv_server_message.set_blob_args.blob_id: m.kv_server_message.set_blob_args.blob_data
        for m in stored
    }
    return list(state.conversation_checkpoint_update.turns)[-1], sent


def test_every_checkpoint_of_a_long_turn_names_its_steps_so_far() -> None:
    blobs = TurnBlobs()
    blobs.begin(pb.UserMessage(text="go"), (b"earlier",), "req")
    known: dict[bytes, bytes] = {}
    for step in range(60):
        blobs.add_answer(assistant(TextContent(f"step {step}")))
        turn, sent = checkpoint(blobs)
        known.update(sent)
        again, resent = checkpoint(blobs)  # the checkpoint naming a pending call
        assert again == turn and resent == {}
        structure = pb.ConversationTurnStructure.FromString(known[turn])
        made = structure.agent_conversation_turn
        assert len(made.steps) == step + 1 and made.request_id == "req"
        assert turn == hashlib.sha256(known[turn]).digest()
        last = pb.ConversationStep.FromString(known[made.steps[-1]])
        assert last.assistant_message.text == f"step {step}"
    blobs.begin(pb.UserMessage(text="next"), (b"earlier", turn), "req-2")
    blobs.add_answer(assistant(TextContent("fresh")))
    fresh, sent = checkpoint(blobs)
    assert fresh != turn and fresh in sent
    assert (
        len(pb.ConversationTurnStructure.FromString(sent[fresh]).agent_conversation_turn.steps) == 1
    )


def test_an_ended_stream_lets_go_of_the_turns_the_client_sent() -> None:
    """An ended session stays a while (a reconnect reads what is left), but
    no checkpoint follows its end: the client's turn ids (one per turn of
    the conversation, every run) are not kept with it."""
    session = Session("req", lambda *_: None, lambda *_: None)
    prior = tuple(bytes([n % 256]) * 32 for n in range(1000))
    session.context.turn.begin(pb.UserMessage(text="go"), prior, "req")
    session.context.turn.add_answer(assistant(TextContent("done")))
    session.deliver("c", Final(assistant(TextContent("done"))))
    assert session.ended
    assert session.context.turn.prior_turns == () and session.context.turn.steps == []
    last = [m for m in session.outbox.take(100) if isinstance(m, pb.AgentServerMessage)]
    names = [
        m.conversation_checkpoint_update
        for m in last
        if m.HasField("conversation_checkpoint_update")
    ]
    assert list(names[-1].turns)[:1000] == list(prior)  # the last checkpoint named them all
