"""The lines a read asked for, when the client sent the whole file.

The official CLI ignores `ReadArgs.offset`/`limit` and answers with the
whole file and no `range_applied`; the model asked for a window, so the
server cuts it. A client that did apply the range says so, and its answer
is kept as it is.
"""

from __future__ import annotations

from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb


def apply_range(args: pb.ReadArgs, result: pb.ExecClientMessage) -> pb.ExecClientMessage:
    """`result` with its content cut to the lines `args` asked for (offset is
    1-based; none or below 1 means the first line)."""
    if result.WhichOneof("message") != "read_result":
        return result
    read = result.read_result
    wanted = args.HasField("offset") or args.HasField("limit")
    if read.WhichOneof("result") != "success" or read.success.range_applied or not wanted:
        return result
    if read.success.WhichOneof("output") != "content":
        return result
    lines = read.success.content.splitlines(keepends=True)
    first = max(args.offset, 1) - 1 if args.HasField("offset") else 0
    last = first + args.limit if args.HasField("limit") and args.limit > 0 else len(lines)
    cut = pb.ExecClientMessage()
    cut.CopyFrom(result)
    success = cut.read_result.success
    success.content = "".join(lines[first:last])
    success.total_lines = success.total_lines or len(lines)
    success.range_applied = True
    return cut
