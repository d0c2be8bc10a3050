"""The model lists clients ask for: the IDE's picker (`AvailableModels`) and
the agent's (`GetUsableModels`, `GetDefaultModelForCli`), built from the
configured models so the picker shows exactly what this server answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.proto.aiserver.v1 import models_pb2


class Listed(Protocol):
    """A model as a picker shows it."""

    @property
    def name(self) -> str: ...
    @property
    def context_window(self) -> int: ...
    @property
    def supports_thinking(self) -> bool: ...


def available_models(entries: Sequence[Listed]) -> models_pb2.AvailableModelsResponse:
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


def usable_models(entries: Sequence[Listed]) -> pb.GetUsableModelsResponse:
    return pb.GetUsableModelsResponse(models=[details(m.name) for m in entries])


def default_model(name: str | None) -> pb.GetDefaultModelForCliResponse:
    response = pb.GetDefaultModelForCliResponse()
    if name:
        response.model.CopyFrom(details(name))
    return response


def details(name: str) -> pb.ModelDetails:
    return pb.ModelDetails(
        model_id=name, display_model_id=name, display_name=name, display_name_short=name
    )
