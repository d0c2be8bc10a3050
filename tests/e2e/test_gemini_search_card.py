"""A Google Search Gemini ran itself (`provider_search`), through the real
server: the client sees a web search card with the grounding's queries and
sources as references, without an approval query (the provider searched
mid-answer), and `cursor-byok show` names the search and its results."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

from cursor_byok.cli.main import main
from cursor_byok.llm.types import ProviderBlock, TextContent
from tests.e2e.test_web_tools import completed, newer_turn, order, web_rig
from tests.factories import assistant, stream_of
from tests.llm.test_gemini_search import CALL_PART, GROUNDING, QUERY, RESPONSE_PART

API = "google-generative-ai"


async def test_a_search_gemini_ran_is_drawn_as_a_search_card(tmp_path: Path) -> None:
    blocks = [ProviderBlock(API, json.dumps(part)) for part in (CALL_PART, RESPONSE_PART)]
    grounding = ProviderBlock(API, json.dumps({"groundingMetadata": GROUNDING}))
    message = replace(assistant(*blocks, TextContent("It reads tokens."), grounding), api=API)
    async with web_rig(tmp_path, [stream_of(message)], provider_search=True) as rig:
        run = await newer_turn(rig, "proto", tmp_path, "what changed in the parser?")
    assert run.errors == [] and run.end is not None and run.end.ok
    assert run.of("interaction_query") == []
    assert order(run, "web_search_tool_call", "web_search_request_query") == [
        "started",
        "completed",
    ]
    card = completed(run, "web_search_tool_call")
    assert (card.args.search_term, card.args.tool_call_id) == (QUERY, "gs_7f3a")
    assert [(r.title, r.url) for r in card.result.success.references] == [
        (c["web"]["title"], c["web"]["uri"]) for c in GROUNDING["groundingChunks"]
    ]
    assert rig.site.hits == []  # the backend was not asked
    out = io.StringIO()
    assert main(["show", "conv-web", "--database", str(tmp_path / "db.sqlite3")], out=out) == 0
    assert f'web search "{QUERY}" by the provider: 2 results' in out.getvalue()
