"""Collecting a streamed shell run into the one result the model is shown."""

from __future__ import annotations

from cursor_byok.transport.dialect.tools import MAX_RESULT_CHARS
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

SHELL_KEEP_CHARS = 2 * MAX_RESULT_CHARS
PROGRESS_KEEP_CHARS = MAX_RESULT_CHARS
"""Output kept with a running command in the committed state (what its
result says if its run is cut off); what comes after is not kept there."""
PROGRESS_CUT = "\n[more output came; it was not kept]"


class ShellCollector:
    """Shell output arrives as a stream of exec messages; the model needs one
    result. Collect until exit (or a refusal) and build a `ShellResult`."""

    def __init__(self, command: str, working_directory: str) -> None:
        self.command = command
        self.working_directory = working_directory
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self.kept = 0
        self.fresh = ""
        """The output the last message brought, as it is kept with the
        running command (`progress`); empty when it brought none."""
        self.progressed = 0
        self.stream = "stdout"

    def progress(self, stream: str, data: str) -> str:
        """The piece of the running command's output to keep with it: the
        two streams interleaved as they came, a switch marked, up to
        PROGRESS_KEEP_CHARS in all, then a note once that more came."""
        if self.progressed >= PROGRESS_KEEP_CHARS or not data:
            return ""
        if stream != self.stream:
            self.stream = stream
            data = f"\n[{stream}]\n{data}"
        room = PROGRESS_KEEP_CHARS - self.progressed
        piece = data[:room] + (PROGRESS_CUT if len(data) > room else "")
        self.progressed += min(len(data), room)
        return piece

    def _keep(self, into: list[str], data: str) -> None:
        """Keep output up to what the model will be shown (plus a margin)."""
        room = SHELL_KEEP_CHARS - self.kept
        if room > 0:
            into.append(data[:room])
            self.kept += min(len(data), room)

    def feed(self, message: pb.ExecClientMessage) -> pb.ExecClientMessage | None:
        if message.WhichOneof("message") != "shell_stream":
            return message  # a client that answers with a plain shell_result
        event = message.shell_stream
        kind = event.WhichOneof("event")
        self.fresh = ""
        if kind == "stdout":
            self._keep(self.stdout, event.stdout.data)
            self.fresh = self.progress(kind, event.stdout.data)
        elif kind == "stderr":
            self._keep(self.stderr, event.stderr.data)
            self.fresh = self.progress(kind, event.stderr.data)
        elif kind == "exit":
            exit_ = event.exit
            command, cwd = self.command, exit_.cwd or self.working_directory
            out, err = "".join(self.stdout), "".join(self.stderr)
            if exit_.code == 0 and not exit_.aborted:
                result = pb.ShellResult(
                    success=pb.ShellSuccess(
                        command=command, working_directory=cwd, exit_code=0, stdout=out, stderr=err
                    )
                )
            else:
                result = pb.ShellResult(
                    failure=pb.ShellFailure(
                        command=command,
                        working_directory=cwd,
                        exit_code=exit_.code,
                        stdout=out,
                        stderr=err,
                        aborted=exit_.aborted,
                    )
                )
            return pb.ExecClientMessage(id=message.id, exec_id=message.exec_id, shell_result=result)
        elif kind == "rejected":
            result = pb.ShellResult(rejected=event.rejected)
            return pb.ExecClientMessage(id=message.id, exec_id=message.exec_id, shell_result=result)
        elif kind == "permission_denied":
            result = pb.ShellResult(permission_denied=event.permission_denied)
            return pb.ExecClientMessage(id=message.id, exec_id=message.exec_id, shell_result=result)
        elif kind == "sandbox_unsupported":
            # Final, like a refusal: the command did not run (no exit follows).
            unsupported = event.sandbox_unsupported
            reason = unsupported.reason or unsupported.sandbox_policy_type
            error = pb.ShellSpawnError(
                command=self.command,
                working_directory=self.working_directory,
                error=f"the client cannot run it in a sandbox: {reason}",
            )
            result = pb.ShellResult(spawn_error=error)
            return pb.ExecClientMessage(id=message.id, exec_id=message.exec_id, shell_result=result)
        elif kind == "backgrounded":
            done_bg = pb.ShellSuccess(
                command=self.command,
                working_directory=self.working_directory,
                stdout="".join(self.stdout) + "\n[the command keeps running in the background]",
            )
            result = pb.ShellResult(success=done_bg, is_background=True)
            return pb.ExecClientMessage(id=message.id, exec_id=message.exec_id, shell_result=result)
        return None
