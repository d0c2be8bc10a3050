"""History as one provider will see it: the cross-provider rules.

The stored history is provider-neutral and never edited; each adapter runs
`prepare_history` right before rendering. The function is pure and depends
only on the message and the target, so a message renders the same way on
every later request (prefix stability):

- assistant messages that ended in `error` or `aborted` are left out: their
  partial reasoning or tool calls make providers reject the request; an
  interrupted response is the exception, recorded on purpose with what had
  streamed (no unsigned reasoning) and a result for each of its tool calls;
- thinking made by another provider or model becomes plain text (its
  signature means nothing elsewhere); redacted thinking from elsewhere and
  empty unsigned thinking are dropped;
- tool-call ids are normalized for the target (a deterministic function of
  the id), and the matching tool results follow the same mapping;
- a tool call left without a result when the conversation moved on gets a
  synthetic error result, so the transcript stays valid;
- images a model cannot take become one-line notes: every image for a model
  configured as text-only, one of a type or size its API refuses, and the
  oldest ones when the history holds more images (or image bytes) than one
  request takes (`images.oldest_left_out`: decided over the whole history,
  in steps, so the rendering of earlier messages changes rarely);
- everything before the last `HistoryRepair` is sent in plain form: text
  only, tool calls and results written out as text, thinking and images
  left out. A provider rejected a request built from that history, and this
  is the form every provider accepts. The markers themselves are not sent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from cursor_byok.llm.images import ImageBudget, oldest_left_out
from cursor_byok.llm.serialize import canonical_dumps
from cursor_byok.llm.types import (
    AssistantContent,
    AssistantMessage,
    HistoryRepair,
    ImageContent,
    JSONObject,
    Message,
    ProviderBlock,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)

NO_RESULT = "No result provided"
IMAGE_LEFT_OUT = "[image left out]"


@dataclass(frozen=True, slots=True)
class Target:
    api: str
    provider: str
    model: str
    images: bool = True
    """Whether the model takes images (False: each becomes a note)."""
    left_out: frozenset[int] | None = None
    """The images (by `id`) past the request's limits, decided over the whole
    history (`images.oldest_left_out`) by a caller that renders it in parts;
    None: decided over the messages `prepare_history` is given."""

    def made(self, message: AssistantMessage) -> bool:
        """Whether `message` came from this very model (its signatures are valid here)."""
        return (
            message.api == self.api
            and message.provider == self.provider
            and message.model == self.model
        )


IdNormalizer = Callable[[str], str]


def _identity(value: str) -> str:
    return value


def _assistant_content(
    message: AssistantMessage, same: bool, normalize: IdNormalizer, api: str = ""
) -> tuple[AssistantContent, ...]:
    """The blocks as `api` may take them: another model's signatures and a
    provider's own blocks (its search) are for their own API only."""
    out: list[AssistantContent] = []
    for block in message.content:
        match block:
            case ThinkingContent(thinking=text, thinking_signature=signature, redacted=redacted):
                if same and (signature or text):
                    out.append(block)
                elif not same and not redacted and text.strip():
                    out.append(TextContent(text))
            case TextContent(text=text):
                if same:
                    out.append(block)
                elif text:
                    out.append(TextContent(text))
            case ToolCall():
                call_id = normalize(block.id)
                signature = block.thought_signature if same else None
                if call_id != block.id or signature != block.thought_signature:
                    out.append(replace(block, id=call_id, thought_signature=signature))
                else:
                    out.append(block)
            case ProviderBlock():
                if block.api == api:
                    out.append(block)
    return tuple(out)


def canonical_text(value: JSONObject) -> str:
    return canonical_dumps(value).decode("utf-8", "surrogatepass")


def _plain_user(content: str | tuple[TextContent | ImageContent, ...]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.text if isinstance(b, TextContent) else IMAGE_LEFT_OUT for b in content)


def _plain(message: Message) -> Message | None:
    """`message` as text alone: what any provider accepts from any model."""
    match message:
        case UserMessage(content=content):
            return (
                message
                if isinstance(content, str)
                else replace(message, content=_plain_user(content))
            )
        case AssistantMessage():
            if message.stop_reason in ("error", "aborted"):
                return None
            lines = [b.text for b in message.content if isinstance(b, TextContent) and b.text]
            lines.extend(
                f"[called {b.name} {b.raw_arguments or canonical_text(b.arguments)}]"
                for b in message.tool_calls
            )
            if not lines:
                return None
            return replace(message, content=(TextContent("\n".join(lines)),))
        case ToolResultMessage(tool_name=name, content=content, is_error=error):
            flag = " (error)" if error else ""
            return UserMessage(
                f"[result of {name}{flag}]\n{_plain_user(content)}", message.timestamp
            )
        case HistoryRepair():
            return None


def plain_form(message: Message) -> Message | None:
    """`message` as a repaired history sends it (text alone); None: it sends nothing."""
    return _plain(message)


def _split_at_repair(messages: Sequence[Message]) -> tuple[list[Message], Sequence[Message]]:
    """The plain rendering of what precedes the last repair, and the rest."""
    last = max((i for i, m in enumerate(messages) if isinstance(m, HistoryRepair)), default=-1)
    if last < 0:
        return [], messages
    plain = [p for m in messages[:last] if (p := _plain(m)) is not None]
    return plain, messages[last + 1 :]


def prepare_history(
    messages: Sequence[Message], target: Target, normalize: IdNormalizer = _identity
) -> list[Message]:
    out, messages = _split_at_repair(messages)
    unanswered: list[ToolCall] = []
    left_out = target.left_out
    if left_out is None:
        left_out = oldest_left_out(messages, target.api, target.images)
    budget = ImageBudget(target.api, target.images, left_out)

    def settle() -> None:
        for call in unanswered:
            out.append(ToolResultMessage(call.id, call.name, (TextContent(NO_RESULT),), True))
        unanswered.clear()

    for message in messages:
        match message:
            case AssistantMessage():
                if message.stop_reason in ("error", "aborted") and not message.interrupted:
                    continue
                settle()
                content = _assistant_content(message, target.made(message), normalize, target.api)
                unanswered.extend(b for b in content if isinstance(b, ToolCall))
                same_content = content == message.content
                out.append(message if same_content else replace(message, content=content))
            case ToolResultMessage():
                call_id = normalize(message.tool_call_id)
                unanswered[:] = [c for c in unanswered if c.id != call_id]
                fitted = budget.fit(message.content)
                same = call_id == message.tool_call_id and fitted is message.content
                out.append(
                    message if same else replace(message, tool_call_id=call_id, content=fitted)
                )
            case UserMessage(content=user_content):
                settle()
                if isinstance(user_content, str):
                    out.append(message)
                    continue
                fitted = budget.fit(user_content)
                out.append(message if fitted is user_content else replace(message, content=fitted))
            case HistoryRepair():  # only the last one counts; it was handled above
                continue
    # Calls at the very end are awaiting their results, not orphaned.
    return out
