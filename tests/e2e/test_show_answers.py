"""`cursor-byok show` prints what the user answered to a question asked
with `run_async`: the answers arrive later as the user's message, and show
lists them whole under it (each question and what was chosen), as it does
under a question answered at once."""

from __future__ import annotations

import io
from pathlib import Path

from cursor_byok.cli.main import main
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from tests.e2e.official_cli import NEWER, choose, never, user_message
from tests.e2e.test_official_cli import answer, clean, rig, uses
from tests.e2e.test_questions import LATER, as_build


async def test_show_prints_answers_given_later_whole(tmp_path: Path) -> None:
    scripts = [uses(LATER), answer("Going on meanwhile."), answer("PostgreSQL, noted.")]
    async with rig(tmp_path, "proto", scripts) as r:
        as_build(r.cli, NEWER, never)
        r.cli.later = choose(db=["pg"])
        clean(await r.cli.run(user_message("set up the service", r.cli.context), "sonnet"))
        [later] = r.cli.answer_later
        action = pb.ConversationAction(async_ask_question_completion_action=later)
        clean(await r.cli.run(action, "sonnet"))
    out = io.StringIO()
    database = str(tmp_path / "db.sqlite3")
    assert main(["show", "conv-cli", "--database", database], out=out) == 0
    lines = out.getvalue().splitlines()
    user = next(i for i, line in enumerate(lines) if "Answers to the questions" in line)
    assert lines[user].startswith("  user ")
    assert lines[user + 2 : user + 4] == [
        "             - Which database?",
        "               -> PostgreSQL",
    ]
