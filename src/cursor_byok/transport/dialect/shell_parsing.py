"""What a shell command line runs, as the client's approval checks need it.

The official client refuses a shell exec without `ShellArgs.parsing_result`,
and it checks each listed command against the user's allow and deny lists
(by `full_text`) and against deleting files (by `name` and arguments); a
line runs without asking when every listed command is allowed. So the list
must hold every command bash would run: each command of a pipeline,
`&&`/`||`/`;` chain, subshell, loop, function or substitution, and the
command a wrapper runs (`sudo env A=1 rm x` lists sudo, env and rm).

When in doubt the client must ask. Where bash would run something the
parse cannot list (a substitution the grammar leaves as text, `eval`,
`sh -c`, a command name that expands, arithmetic on data, words the grammar
splits unlike bash, a line it cannot read), the result is marked failed,
flags substitution, and ends with an entry whose name and text no
allow-list holds: they begin with `(`, which no command name can, and carry
a digest of the line, so allowing it allows that line only. The commands
found are listed too, for the deny list. What runs unlisted is found in
`shell_hazards`, where the grammar misreads bash in `shell_misreads`, what
wrappers run in `shell_words`; the tests run a corpus of lines through
bash itself and compare what ran with what is listed.

The parser is tree-sitter's bash grammar (a maintained, error-tolerant
parser of real bash syntax, and the grammar whose node type names the
message's `target_node_type` uses), never a regex; no subprocess runs per
call. Its external scanner has a known, still open memory fault: a `{`
followed somewhere later by a 4-byte UTF-8 character (U+10000 and up) can
crash the whole process. Such a line is not handed to the parser; it is a
doubt, as for a parse failure.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import re
import shlex

import tree_sitter
import tree_sitter_bash

from cursor_byok.transport.dialect.shell_hazards import (
    command_doubts,
    evaluation_sinks,
    unparsed_substitutions,
)
from cursor_byok.transport.dialect.shell_misreads import (
    SUBSTITUTIONS,
    extra_redirect_words,
    heredoc_doubts,
    misreads,
    split_words,
    uncovered_text,
)
from cursor_byok.transport.dialect.shell_words import Entry, Found, literal, unwrap
from cursor_byok.transport.proto.agent.v1 import agent_pb2 as pb

Parsing = pb.ShellCommandParsingResult

COMMAND_NODES = frozenset({"command", "declaration_command", "unset_command"})
"""Nodes that run something: plain commands and the `export`/`declare`/
`local`/`readonly`/`unset` builtins, which the grammar names apart."""

REDIRECT_NODES = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
DEV_NULL = "/dev/null"

UNPARSED = "(unparsed"
"""How the name of the entry that makes the client ask begins."""

_CRASHES_THE_GRAMMAR = re.compile(rb"\{.*[\xf0-\xf7]", re.DOTALL)
"""A brace, then the lead byte of a 4-byte UTF-8 character: the input the
bash grammar's scanner can fault on."""


_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]")
"""Control characters other than tab and newline: the grammar may read
some as blanks where bash reads a word (`ls\fx` is one command name)."""


@functools.cache
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _value(node: tree_sitter.Node) -> str:
    """An argument as the command receives it where that is plain (quotes
    removed); anything with expansions keeps its source text."""
    value = literal(node)
    return _text(node) if value is None else value


def _walk(root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Every node, in source order (iteratively: a long line must not recurse deeply)."""
    found: list[tree_sitter.Node] = []
    stack = [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(reversed(node.children))
    return found


def _entries(node: tree_sitter.Node, data: bytes, found: Found) -> None:
    """The commands one command node runs, wrapped ones included."""
    if node.type != "command":  # `export A=1`, `unset B`: the keyword is the name
        name = _text(node.children[0]) if node.children else ""
        found.entries.append(Entry(name, node.children[1:], _text(node)))
        return
    name_node = node.child_by_field_name("name")
    if name_node is None or not name_node.children:
        found.entries.append(Entry("", node.children_by_field_name("argument"), _text(node)))
        return
    words = sorted(
        [*name_node.children, *node.children_by_field_name("argument"), *_redirected_words(node)],
        key=lambda w: w.start_byte,
    )
    parts = sorted(
        [c for c in node.children if c.type == "variable_assignment" or c.type in REDIRECT_NODES]
        + words,
        key=lambda n: n.start_byte,
    )
    if any(
        b.type not in REDIRECT_NODES and not data[a.end_byte : b.start_byte].replace(b"\\\n", b"")
        for a, b in itertools.pairwise(parts)
    ):
        found.doubts.append("words the grammar splits where bash joins them (`]\\&`)")
        words = words[:1]
    end = max(node.end_byte, words[-1].end_byte)
    parent = node.parent
    piped = parent is not None and parent.type == "pipeline" and parent.named_children[0] != node
    # `time` and `!` are keywords only where a pipeline starts, `coproc` where
    # any command of one does; none after an assignment or redirect.
    first = node.children[0] == name_node
    keyword = first and (not piped or _text(name_node) == "coproc")
    unwrap(words, data, (node.start_byte, end), found, keyword=keyword)


def _redirected_words(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Words the grammar puts in a redirect that bash gives the command:
    `nohup >log rm -rf x` runs `rm -rf x`."""
    redirects = [c for c in node.children if c.type in REDIRECT_NODES]
    parent = node.parent
    if parent is not None and parent.child_by_field_name("body") == node:
        redirects += parent.children_by_field_name("redirect")
    return [w for r in redirects for w in extra_redirect_words(r)]


def _executable(entry: Entry) -> Parsing.ExecutableCommand:
    return Parsing.ExecutableCommand(
        name=entry.name,
        args=[Parsing.ExecutableCommandArg(type=a.type, value=_value(a)) for a in entry.args],
        full_text=entry.text,
    )


def _unparsed(command: str, doubts: list[str]) -> Parsing.ExecutableCommand:
    """The entry that makes the client ask: a name and text no allow-list
    holds (`(` cannot start a command name), the same for the same line only."""
    digest = hashlib.sha256(command.encode("utf-8", errors="replace")).hexdigest()[:12]
    name = f"{UNPARSED}:{digest})"
    reasons = "; ".join(dict.fromkeys(doubts))
    return Parsing.ExecutableCommand(name=name, full_text=f"{name} {reasons}")


def _redirect(node: tree_sitter.Node) -> Parsing.Redirect:
    operator = next((c for c in node.children if not c.is_named), None)
    op = _text(operator) if operator is not None else ""
    descriptor = node.child_by_field_name("descriptor")
    if descriptor is not None and _text(descriptor).isdigit():
        fds = [int(_text(descriptor))]
    elif op.startswith("&"):
        fds = [1, 2]  # `&>` and `&>>` redirect stdout and stderr
    else:
        fds = [0] if op.startswith("<") else [1]
    redirect = Parsing.Redirect(operator=op, destination_fds=fds)
    target = node.child_by_field_name("destination")
    if target is not None:
        redirect.target_node_type = target.type
        redirect.target_text = _value(target)
    return redirect


def _whole(command: str) -> Parsing.ExecutableCommand:
    """The line as one command, for a line that names none (`FOO=1`)."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    name, args = (words[0], words[1:]) if words else (command.strip(), [])
    return Parsing.ExecutableCommand(
        name=name,
        args=[Parsing.ExecutableCommandArg(type="word", value=arg) for arg in args],
        full_text=command.strip(),
    )


def _doubted(command: str, found: Found) -> Parsing:
    """A parse the client must ask about: what was found, and the entry no
    allow-list matches."""
    result = Parsing(parsing_failed=True, has_command_substitution=True)
    result.executable_commands.extend(_executable(e) for e in found.entries)
    result.executable_commands.append(_unparsed(command, found.doubts))
    return result


def parse_command(command: str) -> Parsing:
    """The parsing result of one command line. Never an empty command list
    for a non-blank line."""
    if not command.strip():
        return Parsing()
    data = command.encode("utf-8", errors="replace")
    if _CRASHES_THE_GRAMMAR.search(data):
        return _doubted(command, Found(doubts=["a line the grammar may crash on"]))
    tree = _parser().parse(data)
    nodes = _walk(tree.root_node)
    found = Found()
    if _CONTROL.search(data):
        found.doubts.append("a control character, which bash and the grammar may split apart")
    for node in nodes:
        if node.type in COMMAND_NODES:
            _entries(node, data, found)
    for entry in found.entries:
        found.doubts.extend(command_doubts(entry))
    if tree.root_node.has_error:
        found.doubts.append("a line the grammar cannot read")
    found.doubts.extend(unparsed_substitutions(tree.root_node, data))
    found.doubts.extend(heredoc_doubts(nodes, data))
    found.doubts.extend(uncovered_text(nodes, data))
    found.doubts.extend(split_words(tree.root_node, data))
    found.doubts.extend(evaluation_sinks(nodes))
    found.doubts.extend(misreads(nodes, data))
    if found.doubts:
        result = _doubted(command, found)
    else:
        result = Parsing(
            executable_commands=[_executable(e) for e in found.entries],
            has_command_substitution=any(n.type in SUBSTITUTIONS for n in nodes),
        )
    result.redirects.extend(_redirect(n) for n in nodes if n.type in REDIRECT_NODES)
    if not result.executable_commands:
        # e.g. a bare assignment or arithmetic: nothing named, still asked about
        result.executable_commands.append(_whole(command))
    if result.redirects:
        result.has_redirects = True
        result.all_redirects_are_dev_null = all(r.target_text == DEV_NULL for r in result.redirects)
    return result


def fill_shell_args(args: pb.ShellArgs) -> pb.ShellArgs:
    """Add the parse of `args.command` (and what the older fields derive from
    it) to a `ShellArgs`; `skip_approval` stays unset."""
    parsing = parse_command(args.command)
    args.parsing_result.CopyFrom(parsing)
    args.simple_commands.extend(c.full_text for c in parsing.executable_commands)
    fds = [fd for r in parsing.redirects for fd in r.destination_fds]
    args.has_input_redirect = 0 in fds
    args.has_output_redirect = any(fd != 0 for fd in fds)
    return args
