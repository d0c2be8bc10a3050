"""What went wrong quietly: the protocol wants 200s for appends that are
late, duplicate or undecodable, so they are counted (for logs and /metrics)
instead of refused."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(slots=True)
class Counters:
    undecodable_appends: int = 0
    late_appends: int = 0
    unknown_exec_results: int = 0
    ignored_messages: int = 0
    failed_appends: int = 0
    over_budget_appends: int = 0
    """Appends ignored because their request id's state was dropped or failed."""
    late_query_answers: int = 0
    """Answers to interaction queries already answered or given up on (ignored)."""
    late_kv_answers: int = 0
    """KV answers that came after their stream ended (taken, with 200)."""
    kv_unanswered: int = 0
    """KV requests whose answer had not come when their stream ended."""
    undecodable_output: int = 0
    """Rows of output relayed from another process that did not decode (skipped)."""
    ignored_transcripts: int = 0
    """Transcripts a run opened a conversation with that had history already (left out)."""

    def quiet(self) -> dict[str, int]:
        """The client messages taken with 200 but not applied, by reason (/metrics)."""
        return {
            "undecodable": self.undecodable_appends,
            "late": self.late_appends,
            "unknown_exec_result": self.unknown_exec_results,
            "ignored": self.ignored_messages,
            "over_budget": self.over_budget_appends,
            "late_kv_answer": self.late_kv_answers,
            "late_query_answer": self.late_query_answers,
            "ignored_transcript": self.ignored_transcripts,
        }
