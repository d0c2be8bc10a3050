"""The unary RPCs a client makes around its runs: connectivity, server
config, the model lists, the default model, and a chat's title.

The official CLI asks for models under `aiserver.v1.AiService` (the IDE and
newer clients also under `agent.v1.AgentService`): both are served. With no
`--model` and nothing stored, the CLI starts only if `GetDefaultModelForCli`
names a model, so it always does when any model is configured. `NameAgent`
titles a chat from its first message without a model call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from google.protobuf.message import Message

from cursor_byok.transport.connect.codec import CodecError, ContentType, decode_message
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import models_pb2, network_pb2, server_config_pb2

TITLE_WORDS = 6
TITLE_CHARS = 48
DEFAULT_TITLE = "New Agent"
SETUP_MODEL = "cursor-byok-setup"
"""The default named when no model is configured (no key yet): the CLI then
still starts, and its first turn answers with what to set up instead of
stopping with "No model found"."""


@dataclass(frozen=True, slots=True)
class ModelEntry:
    """A model as the client's picker shows it."""

    name: str
    context_window: int
    supports_thinking: bool = False


Handler = Callable[[bytes, ContentType], Message]


def chat_title(message: str) -> str:
    """A short title: the first words of the first line that says something."""
    for line in message.splitlines():
        words = re.sub(r"[`*_#>\[\]]+", " ", line).split()
        if words:
            title = " ".join(words[:TITLE_WORDS])
            if len(title) > TITLE_CHARS:
                title = title[: TITLE_CHARS - 1].rstrip() + "…"
            return title[0].upper() + title[1:]
    return DEFAULT_TITLE


def _details(name: str) -> pb.ModelDetails:
    return pb.ModelDetails(
        model_id=name, display_model_id=name, display_name=name, display_name_short=name
    )


class AuxRpcs:
    """The handlers, by Connect path."""

    def __init__(
        self,
        models: Callable[[], Iterable[ModelEntry]],
        default_model: Callable[[], str | None],
        http2: bool = True,
    ) -> None:
        self.models = models
        self.default_model = default_model
        self.http2 = http2

    def only(self, allowed: tuple[str, ...]) -> AuxRpcs:
        """The same RPCs for a user who may use `allowed` alone: the lists
        show only those, and the default is the configured one if allowed,
        else the first allowed."""

        def models() -> list[ModelEntry]:
            return [entry for entry in self.models() if entry.name in allowed]

        def default_model() -> str | None:
            default = self.default_model()
            return default if default in allowed else None

        return AuxRpcs(models, default_model, self.http2)

    def routes(self) -> dict[str, Handler]:
        return {
            "/aiserver.v1.NetworkService/IsConnected": self.is_connected,
            "/aiserver.v1.ServerConfigService/GetServerConfig": self.server_config,
            "/aiserver.v1.AiService/AvailableModels": self.available_models,
            "/agent.v1.AgentService/GetUsableModels": self.usable_models,
            "/aiserver.v1.AiService/GetUsableModels": self.usable_models,
            "/agent.v1.AgentService/GetDefaultModelForCli": self.default_model_for_cli,
            "/aiserver.v1.AiService/GetDefaultModelForCli": self.default_model_for_cli,
            "/agent.v1.AgentService/NameAgent": self.name_agent,
            "/aiserver.v1.AiService/NameAgent": self.name_agent,
        }

    def is_connected(self, _body: bytes, _content_type: ContentType) -> Message:
        return network_pb2.IsConnectedResponse()

    def server_config(self, _body: bytes, _content_type: ContentType) -> Message:
        # Tell clients which agent path is served: Run over HTTP/2, or only
        # RunSSE + BidiAppend over HTTP/1.1 (server.http2 = false).
        http2 = server_config_pb2.HTTP2_CONFIG_FORCE_ALL_ENABLED
        if not self.http2:
            http2 = server_config_pb2.HTTP2_CONFIG_FORCE_ALL_DISABLED
        return server_config_pb2.GetServerConfigResponse(http2_config=http2)

    def available_models(self, _body: bytes, _content_type: ContentType) -> Message:
        entries = list(self.models())
        response = models_pb2.AvailableModelsResponse(model_names=[m.name for m in entries])
        for entry in entries:
            tooltip = models_pb2.AvailableModelsResponse.TooltipData(
                markdown_content=f"**{entry.name}**<br />Served by cursor-byok with your own key."
                f"<br /><br />{entry.context_window // 1000}k context window"
            )
            response.models.append(
                models_pb2.AvailableModelsResponse.AvailableModel(
                    name=entry.name,
                    default_on=True,
                    supports_agent=True,
                    supports_thinking=entry.supports_thinking,
                    supports_images=True,
                    supports_max_mode=False,
                    supports_non_max_mode=True,
                    tooltip_data=tooltip,
                    client_display_name=entry.name,
                    server_model_name=entry.name,
                    inputbox_short_model_name=entry.name,
                    supports_plan_mode=True,
                )
            )
        return response

    def usable_models(self, _body: bytes, _content_type: ContentType) -> Message:
        return pb.GetUsableModelsResponse(models=[_details(m.name) for m in self.models()])

    def default_model_for_cli(self, _body: bytes, _content_type: ContentType) -> Message:
        """The configured default, else the first model, else the set-up
        placeholder: a fresh install (no `--model`, nothing stored, maybe no
        key yet) must always find one. The lists stay honest (empty)."""
        first = next((m.name for m in self.models()), SETUP_MODEL)
        name = self.default_model() or first
        return pb.GetDefaultModelForCliResponse(model=_details(name))

    def name_agent(self, body: bytes, content_type: ContentType) -> Message:
        try:
            request = decode_message(body, pb.NameAgentRequest, content_type.codec)
        except CodecError:
            request = pb.NameAgentRequest()  # a title is cosmetic: never fail for it
        return pb.NameAgentResponse(name=chat_title(request.user_message))
