"""The execs a server-run tool sends on one stream: sent once per key, an
answer kept until it is taken (it may come before anyone waits), a throw
taken as the client's error, and an exec nobody answers aborted."""

from __future__ import annotations

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb
from cursor_byok.transport.sessions.tool_execs import ToolExecs


class Numbers:
    def __init__(self) -> None:
        self.next = 7

    def __call__(self) -> int:
        self.next += 1
        return self.next - 1


def args(call_id: str) -> pb.SubagentArgs:
    return pb.SubagentArgs(tool_call_id=call_id, prompt="look")


async def test_an_exec_goes_out_once_and_its_early_answer_is_kept() -> None:
    sent: list[pb.AgentServerMessage] = []
    execs, numbers = ToolExecs(), Numbers()
    assert execs.send("k1", "subagent_args", args("a"), numbers, 100, sent.append) == 100
    assert execs.send("k1", "subagent_args", args("a"), numbers, 900, sent.append) == 100
    assert len(sent) == 1 and numbers.next == 8, "asked again: not sent, no number used"
    request = sent[0].exec_server_message
    assert (request.id, request.exec_id, request.subagent_args.tool_call_id) == (7, "k1", "a")
    answer = pb.ExecClientMessage(id=7, subagent_result=pb.SubagentResult())
    assert execs.answer(7, answer)
    assert not execs.answer(99, answer), "no exec of a server tool has that number"
    assert await execs.result("k1", 1.0) == answer


async def test_a_throw_is_the_clients_error_and_silence_aborts_the_exec() -> None:
    sent: list[pb.AgentServerMessage] = []
    execs, numbers = ToolExecs(), Numbers()
    execs.send("k1", "subagent_args", args("a"), numbers, 1, sent.append)
    execs.send("k2", "subagent_args", args("b"), numbers, 1, sent.append)
    execs.answer(7, "the client cannot run subagents")
    assert await execs.result("k1", 1.0) == "the client cannot run subagents"
    assert await execs.result("k2", 0.01) is None
    assert sent[-1].exec_server_control_message.abort.id == 8
    assert await execs.result("never-sent", 0.01) is None


async def test_the_end_of_the_turn_aborts_what_is_still_out() -> None:
    sent: list[pb.AgentServerMessage] = []
    execs, numbers = ToolExecs(), Numbers()
    for key in ("k1", "k2"):
        execs.send(key, "subagent_args", args(key), numbers, 1, sent.append)
    execs.answer(7, pb.ExecClientMessage(id=7))
    execs.abort_all()
    aborted = [
        m.exec_server_control_message.abort.id
        for m in sent
        if m.HasField("exec_server_control_message")
    ]
    assert aborted == [8], "the answered one is not aborted"
    assert await execs.result("k2", 1.0) is None
