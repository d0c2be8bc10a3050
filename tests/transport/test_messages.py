"""The generated agent.v1 / aiserver.v1 classes against real and documented bytes.

Real payloads come from ../shared/fixtures/cursor; the small hand-checked
frames are the worked examples of shared/protocol/reference.md §1.9.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.protobuf import json_format

from cursor_byok.transport.proto.agent.v1 import agent_pb2
from cursor_byok.transport.proto.aiserver.v1 import models_pb2
from tests.transport.shared_fixtures import load_cursor_fixture


def turn_ended_samples() -> list[dict[str, Any]]:
    """The live client's TurnEndedUpdate payloads with the usage recorded
    beside each (read when a test runs: skipped without ../shared)."""
    samples = load_cursor_fixture("turn_ended_usage_live.json")["samples"]
    return [sample for sample in samples if sample["terminal_hex"] is not None]


def test_real_turn_ended_payloads_decode_to_the_recorded_usage() -> None:
    for sample in turn_ended_samples():
        update = agent_pb2.TurnEndedUpdate.FromString(bytes.fromhex(sample["terminal_hex"]))
        case = f"{sample['case']}-{sample['model']}"

        assert update.input_tokens == sample["input"], case
        assert update.output_tokens == sample["output"], case
        assert update.cache_read_tokens == sample["cache_read"], case
        assert update.cache_write_tokens == sample["cache_write"], case
        assert update.reasoning_tokens == sample["reasoning"], case


def test_recorded_usage_encodes_to_the_real_turn_ended_bytes() -> None:
    for sample in turn_ended_samples():
        # Zero counts are on the wire too: the fields have explicit presence.
        update = agent_pb2.TurnEndedUpdate(
            input_tokens=sample["input"],
            output_tokens=sample["output"],
            cache_read_tokens=sample["cache_read"],
            cache_write_tokens=sample["cache_write"],
            reasoning_tokens=sample["reasoning"],
        )
        hex_payload = update.SerializeToString().hex()
        assert hex_payload == sample["terminal_hex"], f"{sample['case']}-{sample['model']}"


def test_the_turn_ended_fixture_has_payloads_to_check() -> None:
    assert len(turn_ended_samples()) >= 4


def test_available_models_json_survives_a_json_and_binary_round_trip() -> None:
    original = load_cursor_fixture("available_models_response.json")

    # Unknown JSON names are an error here: every field of the real response must be declared.
    parsed = json_format.ParseDict(original, models_pb2.AvailableModelsResponse())
    reparsed = models_pb2.AvailableModelsResponse.FromString(parsed.SerializeToString())

    assert json_format.MessageToDict(reparsed) == original
    assert len(reparsed.models) == len(original["models"])


def test_available_models_fields_land_on_the_documented_numbers() -> None:
    original = load_cursor_fixture("available_models_response.json")
    parsed = json_format.ParseDict(original, models_pb2.AvailableModelsResponse())
    first = parsed.models[0]

    assert first.name == original["models"][0]["name"]
    assert first.tooltip_data.markdown_content.startswith("**")
    composer = original["composerModelConfig"]
    assert parsed.composer_model_config.default_model == composer["defaultModel"]
    # name = 1 and client_display_name = 17 inside models = 2.
    model = models_pb2.AvailableModelsResponse.AvailableModel(name="m", client_display_name="M")
    single = models_pb2.AvailableModelsResponse(models=[model])
    assert single.SerializeToString().hex() == "1207" + "0a016d" + "8a01014d"


def test_official_checkpoint_token_details_keep_every_category() -> None:
    original = load_cursor_fixture("checkpoint_token_details_official.json")

    details = json_format.ParseDict(original, agent_pb2.ConversationTokenDetails())
    checkpoint = agent_pb2.AgentServerMessage(
        conversation_checkpoint_update=agent_pb2.ConversationStateStructure(token_details=details)
    )
    decoded = agent_pb2.AgentServerMessage.FromString(checkpoint.SerializeToString())
    token_details = decoded.conversation_checkpoint_update.token_details

    assert (token_details.used_tokens, token_details.max_tokens) == (105094, 256000)
    assert [c.id for c in token_details.breakdown.categories][-1] == "conversation"
    assert json_format.MessageToDict(token_details, preserving_proto_field_name=True) == original


# (message, serialized payload) pairs worked out in reference.md §1.9.
DOCUMENTED_FRAMES: list[tuple[str, Any, str]] = [
    (
        "heartbeat",
        agent_pb2.AgentServerMessage(
            interaction_update=agent_pb2.InteractionUpdate(heartbeat=agent_pb2.HeartbeatUpdate())
        ),
        "0a026a00",
    ),
    (
        "text_delta",
        agent_pb2.AgentServerMessage(
            interaction_update=agent_pb2.InteractionUpdate(
                text_delta=agent_pb2.TextDeltaUpdate(text="Hi")
            )
        ),
        "0a060a040a024869",
    ),
    (
        "thinking_delta",
        agent_pb2.AgentServerMessage(
            interaction_update=agent_pb2.InteractionUpdate(
                thinking_delta=agent_pb2.ThinkingDeltaUpdate(
                    text="ok", thinking_style=agent_pb2.THINKING_STYLE_DEFAULT
                )
            )
        ),
        "0a0822060a026f6b1001",
    ),
    (
        "turn_ended",
        agent_pb2.AgentServerMessage(
            interaction_update=agent_pb2.InteractionUpdate(
                turn_ended=agent_pb2.TurnEndedUpdate(
                    input_tokens=3137,
                    output_tokens=45,
                    cache_read_tokens=448,
                    cache_write_tokens=0,
                    reasoning_tokens=0,
                )
            )
        ),
        "0a0e720c08c118102d18c00320002800",
    ),
    (
        "exec_read",
        agent_pb2.AgentServerMessage(
            exec_server_message=agent_pb2.ExecServerMessage(
                id=1,
                exec_id="x1",
                read_args=agent_pb2.ReadArgs(path="/a.txt", tool_call_id="c1"),
            )
        ),
        "121408013a0c0a062f612e747874120263317a027831",
    ),
    (
        "kv_set_blob",
        agent_pb2.AgentServerMessage(
            kv_server_message=agent_pb2.KvServerMessage(
                id=1,
                set_blob_args=agent_pb2.SetBlobArgs(blob_id=b"\x01\x01\x01\x01", blob_data=b"{}"),
            )
        ),
        "220e08011a0a0a040101010112027b7d",
    ),
    (
        "client_heartbeat",
        agent_pb2.AgentClientMessage(client_heartbeat=agent_pb2.ClientHeartbeat()),
        "3a00",
    ),
    (
        "kv_set_blob_result",
        agent_pb2.AgentClientMessage(
            kv_client_message=agent_pb2.KvClientMessage(
                id=1, set_blob_result=agent_pb2.SetBlobResult()
            )
        ),
        "1a0408011a00",
    ),
    (
        "exec_stream_close",
        agent_pb2.AgentClientMessage(
            exec_client_control_message=agent_pb2.ExecClientControlMessage(
                stream_close=agent_pb2.ExecClientStreamClose(id=1)
            )
        ),
        "2a040a020801",
    ),
]


@pytest.mark.parametrize(
    ("message", "payload_hex"),
    [(m, h) for _, m, h in DOCUMENTED_FRAMES],
    ids=[name for name, _, _ in DOCUMENTED_FRAMES],
)
def test_documented_frames_encode_and_decode_byte_for_byte(message: Any, payload_hex: str) -> None:
    assert message.SerializeToString().hex() == payload_hex
    assert type(message).FromString(bytes.fromhex(payload_hex)) == message
