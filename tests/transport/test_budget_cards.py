"""What a call refused for its user's budget ends the stream with: a card
of its own, never the provider-error banner with its retry button."""

from __future__ import annotations

from cursor_byok.llm.notice import BUDGET, BUDGET_UNCHECKED, server_error
from cursor_byok.loop import Failed
from cursor_byok.transport.connect.errors import Code
from cursor_byok.transport.dialect import dialect
from cursor_byok.transport.proto.aiserver.v1 import error_details_pb2


def card(kind: str, text: str) -> tuple[Code, error_details_pb2.ErrorDetails]:
    error = dialect.error_for(Failed(server_error(kind, text)))
    assert error.message == text
    return error.code, error.details[0].unpack(error_details_pb2.ErrorDetails)


def test_a_used_up_budget_is_a_card_without_a_retry() -> None:
    code, details = card(BUDGET, "The daily budget of user ana, $1.00, is used up: ...")
    assert code is Code.RESOURCE_EXHAUSTED
    assert details.error == error_details_pb2.ErrorDetails.ERROR_CUSTOM_MESSAGE
    assert details.details.title == "Budget reached" and not details.details.is_retryable
    assert details.details.detail.startswith("The daily budget of user ana")


def test_a_budget_that_could_not_be_checked_may_be_tried_again() -> None:
    code, details = card(BUDGET_UNCHECKED, "the budget could not be checked: database down")
    assert code is Code.UNAVAILABLE
    assert details.details.title == "Budget not checked" and details.details.is_retryable
