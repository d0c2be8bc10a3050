"""What the shell parse knows of commands that run other commands: wrappers
and the options they take, shells, builtins that run data, and variables
that change what a command name means. Tables only; `shell_words` reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SHELLS = frozenset(
    {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh"}
)
"""Shells: with `-c` or reading standard input, what they run is data."""

RUNS_DATA = frozenset(
    {"eval", "source", ".", "fc", "enable", "su", "runuser", "watch", "script", "parallel"}
)
"""Commands whose arguments or input are run as shell code (or, for
`enable -f`, loaded as machine code): the parse cannot list what runs."""

KEYWORDS = frozenset({"time", "coproc", "!"})
"""Bash keywords the grammar reads as a command name: not commands, so only
what they run is listed."""

RESERVED = frozenset(
    {"{", "}", "!", "[[", "]]", "if", "then", "else", "elif", "fi", "case", "esac", "for"}
    | {"select", "while", "until", "do", "done", "function", "in"}
)

CODE_VARIABLES = re.compile(
    r"(PS[0-4]|PROMPT_COMMAND|BASH_ENV|ENV|SHELLOPTS|BASHOPTS|PATH|BASH_FUNC_.*|LD_\w+|DYLD_\w+)"
)
"""Variables whose value bash or the loader turns into code or into which
program a name means: assigning one changes what the listed commands do."""


@dataclass(frozen=True)
class Spec:
    """The options of a command that runs another: letters and long names
    without a value, with one, with one attached only (`-i{}`), and those
    that make it run a string (`env -S`, `sudo -s`)."""

    flags: str = ""
    valued: str = ""
    attached: str = ""
    data: str = ""
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()
    long_data: frozenset[str] = frozenset()
    operands: int = 0
    """Words between the options and the command (`timeout 5`, `flock FILE`)."""
    assignments: str = ""
    """`NAME=value` words may come before the command: "name" where NAME must
    be a shell name (`time A=1 cmd`), "any" where any word with `=` is one
    (`env A!=1 cmd` sets `A!` and runs cmd)."""
    numeric: bool = False
    """`nice -5`: a number as an option."""
    default: str = ""
    """The command run when none is given (`xargs` runs `echo`)."""
    replace: str = ""
    """Options whose value input replaces in the command (`xargs -I{}`)."""
    bare: bool = False
    """Takes no options, not even `--`: the next word is the command."""


def _long(names: str) -> frozenset[str]:
    return frozenset(names.split())


WRAPPERS: dict[str, Spec] = {
    "nohup": Spec(),
    "builtin": Spec(),
    "busybox": Spec(),
    "exec": Spec(flags="cl", valued="a"),
    "command": Spec(flags="pvV"),
    "env": Spec(
        flags="i0v",
        valued="uC",
        data="S",
        long_flags=_long("ignore-environment null debug block-signal default-signal")
        | _long("ignore-signal list-signal-handling"),
        long_valued=_long("unset chdir"),
        long_data=_long("split-string"),
        assignments="any",
    ),
    "nice": Spec(valued="n", long_valued=_long("adjustment"), numeric=True),
    "timeout": Spec(
        flags="v",
        valued="sk",
        long_flags=_long("foreground preserve-status verbose"),
        long_valued=_long("signal kill-after"),
        operands=1,
    ),
    "stdbuf": Spec(valued="ioe", long_valued=_long("input output error")),
    "setsid": Spec(flags="cfw", long_flags=_long("ctty fork wait")),
    "xargs": Spec(
        flags="0oprtx",
        valued="adEILnPs",
        attached="eil",
        long_flags=_long("null open-tty interactive no-run-if-empty verbose exit eof replace")
        | _long("max-lines"),
        long_valued=_long("arg-file delimiter max-args max-procs max-chars process-slot-var"),
        default="echo",
        replace="Ii",
    ),
    "sudo": Spec(
        flags="AbBEHkKlnNPSVv",
        valued="CDghprRtTuU",
        data="eis",
        long_flags=_long("askpass background bell preserve-env set-home reset-timestamp")
        | _long("remove-timestamp list non-interactive no-update preserve-groups stdin")
        | _long("validate"),
        long_valued=_long("close-from chdir group host prompt chroot role type user")
        | _long("command-timeout other-user"),
        long_data=_long("edit login shell"),
        assignments="any",
    ),
    "doas": Spec(flags="nL", valued="uC", data="s"),
    "time": Spec(
        flags="apqvV",
        valued="fo",
        long_flags=_long("append portability quiet verbose"),
        long_valued=_long("format output"),
        assignments="name",
    ),
    "chrt": Spec(flags="abdefimoprRv", valued="DPT", operands=1),
    "ionice": Spec(flags="t", valued="cnpPu"),
    "taskset": Spec(flags="acp", operands=1),
    "flock": Spec(
        flags="eFnosuvx",
        valued="wE",
        data="c",
        long_flags=_long("shared exclusive nonblock unlock close no-fork verbose"),
        long_valued=_long("timeout conflict-exit-code"),
        long_data=_long("command"),
        operands=1,
    ),
    "chroot": Spec(
        long_flags=_long("skip-chdir"), long_valued=_long("userspec groups"), operands=1
    ),
    "unbuffer": Spec(flags="p"),
    "caffeinate": Spec(flags="dimsu", valued="tw"),
    "fakeroot": Spec(flags="u", valued="ilsb"),
    "strace": Spec(flags="cCdDfFhikqrtTvVwxyzZ", valued="abeEIoOpPsSuUX"),
    "ltrace": Spec(flags="bcCfhiLrStTV", valued="aAeEFlnopsuwx"),
}
"""Commands that run the command given in their arguments, with the options
they take (GNU and BSD spellings; an option not listed is a doubt)."""

KEYWORD_SPECS = {
    "time": Spec(flags="p", assignments="name"),
    "coproc": Spec(assignments="name", bare=True),
    "!": Spec(assignments="name", bare=True),
}
"""What the keywords take before their command: `time -p`; `coproc` and
`!` no options at all (`coproc -- x` runs `--`; the grammar reads the second
`!` of `! ! x` as a command)."""
