"""Where the bash grammar reads a line otherwise than bash does.

tree-sitter's grammar is error-tolerant: where bash's own rules differ, it
still builds a tree, and a command bash runs can then sit in it as an
argument, a redirect target, a comment or heredoc text, or in no node at
all (`x=$ rm -rf v` is one expansion to it, an assignment and rm to bash;
a heredoc line `EOF ` ends the heredoc for it, not for bash). Each such
place found is a doubt, and a doubt makes the client ask. Most were found
by running random lines through bash and the parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})


_WORD_BREAK = frozenset(b" \t\n;&|()<>")
"""Bytes after which a `#` starts a comment."""


def ancestors(node: tree_sitter.Node | None) -> Iterator[tree_sitter.Node]:
    while node is not None:
        yield node
        node = node.parent


def starts_word(data: bytes, pos: int) -> bool:
    """Whether a word starts at `pos` (a `#` there starts a comment): line
    continuations before it join it to the word they end."""
    while pos >= 2 and data[pos - 2 : pos] == b"\\\n":
        pos -= 2
    return pos == 0 or data[pos - 1] in _WORD_BREAK


def _quoted(node: tree_sitter.Node) -> bool:
    """Whether a node is inside double quotes or a heredoc body (within its
    innermost substitution), where words do not split."""
    for ancestor in ancestors(node.parent):
        if ancestor.type in SUBSTITUTIONS:
            return False
        if ancestor.type in ("string", "translated_string", "heredoc_body"):
            return True
    return False


def escaped(data: bytes, pos: int) -> bool:
    count = 0
    while pos - count - 1 >= 0 and data[pos - count - 1] == ord("\\"):
        count += 1
    return count % 2 == 1


def quoted_heredoc(node: tree_sitter.Node) -> bool:
    """Whether a heredoc (its redirect, or its body) has a quoted delimiter."""
    redirect = node.parent if node.type == "heredoc_body" else node
    if redirect is None:
        return False
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in (start.text or b"") for q in b"'\"\\")


def _delimiter(start: tree_sitter.Node) -> bytes:
    return bytes(b for b in (start.text or b"") if b not in b"'\"\\")


def _terminates(line: bytes, delimiter: bytes, tabs: bool) -> bool:
    return line == delimiter or (tabs and line.lstrip(b"\t") == delimiter)


_CONTENT = frozenset({"heredoc_body", "string", "translated_string", "comment"})
"""Nodes whose whole text is theirs, children or not."""


_CONTINUATION = re.compile(rb"(?<=[^ \t\n])\\\n(?=[^ \t\n])")
"""A line continuation with no blank on either side: bash joins the two
lines into one word before reading it, the grammar may not."""


_EMPTY_CONTINUATION = re.compile(rb"\\\n[ \t]*\n|\n[ \t]*\\\n")
"""A line continuation before an empty line, or starting a line: bash ends
the command at the newline, the grammar may go on into the next line."""


def split_words(root: tree_sitter.Node, data: bytes) -> list[str]:
    """A doubt for a line continuation inside a word, or before an empty
    line, outside quotes (within quotes it only joins text)."""
    for match in [*_CONTINUATION.finditer(data), *_EMPTY_CONTINUATION.finditer(data)]:
        pos = match.start() if data[match.start()] == ord("\\") else match.end() - 2
        if escaped(data, pos) or _in_text(root.descendant_for_byte_range(pos, pos + 1)):
            continue
        return ["a line continuation inside a word, before an empty line or starting a line"]
    return []


def _in_text(node: tree_sitter.Node | None) -> bool:
    """Whether a node is in quotes, a comment or a heredoc body, and not in
    a substitution inside them (where the text is code again)."""
    for ancestor in ancestors(node):
        if ancestor.type in SUBSTITUTIONS:
            return False
        if ancestor.type in ("raw_string", "string", "comment", "heredoc_body"):
            return True
    return False


def uncovered_text(nodes: list[tree_sitter.Node], data: bytes) -> list[str]:
    """A doubt if some text is in no node but blanks and line continuations:
    bash reads words where the grammar saw nothing (`ls\\<newline>\\ ` is
    the command `ls `)."""
    spans = sorted(
        (n.start_byte, n.end_byte) for n in nodes if n.child_count == 0 or n.type in _CONTENT
    )
    named = {n.start_byte for n in nodes if n.type == "heredoc_redirect" and _after_a_name(n)}
    covered = 0
    for start, end in [*spans, (len(data), len(data))]:
        gap = data[covered:start].replace(b"\\\n", b"").strip(b" \t\n")
        # The grammar drops a lone `-` before a heredoc (`python3 - <<EOF`):
        # after a command's name it is an argument.
        if gap and not (gap == b"-" and start in named):
            return ["text the grammar leaves out of its tree"]
        covered = max(covered, end)
    return []


def _after_a_name(heredoc: tree_sitter.Node) -> bool:
    """Whether a heredoc redirects a command that has a name."""
    parent = heredoc.parent
    body = parent.child_by_field_name("body") if parent is not None else None
    return (
        body is not None and body.type == "command" and body.child_by_field_name("name") is not None
    )


def heredoc_doubts(nodes: list[tree_sitter.Node], data: bytes) -> list[str]:
    """A doubt for each heredoc the grammar ends elsewhere than bash does.

    The grammar ends a heredoc on a line holding its delimiter with blanks
    around it; bash only on the delimiter alone (tabs before it for `<<-`),
    and not after a line continuation. Lines the grammar reads as commands
    would be heredoc text to bash, run through its substitutions."""
    doubts: list[str] = []
    for node in nodes:
        if node.type != "heredoc_redirect":
            continue
        kinds = {c.type: c for c in node.children}
        start, end = kinds.get("heredoc_start"), kinds.get("heredoc_end")
        if start is None or end is None:
            doubts.append("a heredoc without its end")
            continue
        delimiter, tabs = _delimiter(start), "<<-" in kinds
        first = data.find(b"\n", start.end_byte) + 1
        last = data.rfind(b"\n", 0, end.start_byte) + 1
        stop = data.find(b"\n", end.end_byte)
        line = data[last : len(data) if stop < 0 else stop]
        body = data[first:last].split(b"\n")[:-1] if first <= last else None
        if (
            body is None
            or not _terminates(line, delimiter, tabs)
            or any(_terminates(b, delimiter, tabs) for b in body)
            or (not quoted_heredoc(node) and body and body[-1].endswith(b"\\"))
        ):
            doubts.append("a heredoc whose end bash reads elsewhere")
    return doubts


_BARE_METACHARACTER = re.compile(rb"(?<!\\)(?:\\\\)*[ \t\n;&|()<>]")
"""A blank or operator character no backslash escapes: bash ends a word there."""


def _loose_braces(node: tree_sitter.Node, data: bytes) -> bool:
    """`{` and `}` are words to bash: a group needs a blank after `{` and a
    `;`, `&` or newline before `}` (`{}2` and `{touch a; }` are commands)."""
    if not node.children or node.children[0].type != "{":
        return False
    after = data[node.start_byte + 1 : node.start_byte + 2]
    before = data[: node.end_byte - 1].rstrip(b" \t")[-1:]
    return after not in (b" ", b"\t", b"\n") or before not in (b";", b"&", b"\n")


def _reexpanded(node: tree_sitter.Node) -> bool:
    """`>&'$(cmd)'` runs cmd: bash expands a duplication's target, then again
    once its quotes are gone. Only a plain target is safe there."""
    operators = [c.text or b"" for c in node.children if not c.is_named]
    if not any(op in (b">&", b"<&") for op in operators):
        return False
    target = node.child_by_field_name("destination")
    if target is None:  # `>&-` closes
        return not (node.text or b"").endswith(b"&-")
    # `>& -x` is `>&-` and then the word `x` to bash
    return not re.fullmatch(rb"[0-9]+-?|-|[A-Za-z0-9_./+][A-Za-z0-9_./+-]*", target.text or b"")


def extra_redirect_words(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The words after a redirect's target, which the grammar keeps in the
    redirect and bash passes to the command (`ls >out -la`)."""
    if node.type == "heredoc_redirect":
        return node.children_by_field_name("argument")
    if node.type == "file_redirect":
        targets = node.children_by_field_name("destination")
        closes = any((c.text or b"").endswith(b"&-") for c in node.children if not c.is_named)
        return targets if closes else targets[1:]  # `>&-` takes no target
    return []


def _stray_redirect_words(node: tree_sitter.Node) -> bool:
    """Words after a redirect that belongs to no single command (`a | b >f
    rm x`): which command bash gives them to is beyond this parse."""
    if not extra_redirect_words(node):
        return False
    parent = node.parent
    if parent is not None and parent.type == "command":
        return False
    if parent is not None and parent.type == "redirected_statement":
        body = parent.child_by_field_name("body")
        return body is None or body.type != "command"
    return True


def _loose_brackets(node: tree_sitter.Node, data: bytes) -> str | None:
    """`[` and `[[` are words to bash, so blanks must part them from what
    they hold (`[}]` is the command `[}]`)."""
    first, last = node.children[0], node.children[-1]
    if data[first.end_byte : first.end_byte + 1] not in (b" ", b"\t", b"\n") or (
        data[last.start_byte - 1 : last.start_byte] not in (b" ", b"\t", b"\n")
    ):
        return "brackets bash does not read as a test"
    if first.type == "[" and b"\n" in (node.text or b""):
        return "a `[` test across lines, which a newline ends in bash"
    # Inside `[ ]` (a command) `|`, `&`, `;`, `<`, `>` are bash's operators;
    # inside `[[ ]]` only `|`, `&` and `;` alone are.
    operators = _COMMAND_OPERATORS if first.type == "[" else _LIST_OPERATORS
    if any(not n.is_named and n.text in operators for n in _descendants(node)):
        return "an operator inside a test, which bash reads as the test's end"
    return None


_LIST_OPERATORS = frozenset({b"|", b"&", b";", b"|&", b";;"})
_COMMAND_OPERATORS = _LIST_OPERATORS | {b"&&", b"||", b"(", b")", b"<", b">", b">>", b"<<"}


def _descendants(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = list(node.children[1:-1])
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def _inside_command(node: tree_sitter.Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type in (
        "command",
        "declaration_command",
        "unset_command",
        "file_redirect",
        "herestring_redirect",
        "test_command",
    )


def _invalid_assignment(node: tree_sitter.Node) -> bool:
    """`?A=1 cmd` is no assignment to bash: it runs `?A=1`."""
    name = node.child_by_field_name("name")
    text = (name.text or b"").decode("utf-8", errors="replace") if name is not None else ""
    return not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text.split("[", 1)[0])


def misreads(nodes: list[tree_sitter.Node], data: bytes) -> list[str]:
    """A doubt for each node the grammar built where bash reads otherwise."""
    doubts: list[str] = []
    for node in nodes:
        kind = node.type
        doubt: str | None = None
        if kind == "file_descriptor" and not re.fullmatch(
            rb"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}", node.text or b""
        ):
            doubt = "a redirect's descriptor bash reads as a word (`-2>f` runs `-2`)"
        elif (
            kind == "simple_expansion" and re.search(rb"\s", node.text or b"") and not _quoted(node)
        ):
            doubt = "a `$` the grammar joins to the word after a blank (`x=$ rm …` runs rm)"
        elif kind == "comment" and not starts_word(data, node.start_byte):
            doubt = "a `#` the grammar reads as a comment inside a word"
        elif kind == "comment" and node.next_sibling is not None and _inside_command(node):
            doubt = "a command the grammar continues past a comment's line"
        elif kind == "word" and _BARE_METACHARACTER.search(node.text or b""):
            doubt = "a word the grammar reads across a blank or an operator"
        elif kind == "compound_statement" and _loose_braces(node, data):
            doubt = "braces bash does not read as a group"
        elif kind == "file_redirect" and _reexpanded(node):
            doubt = "a `>&` target bash reads unlike the grammar (expanded twice, or `-x`)"
        elif kind in ("file_redirect", "heredoc_redirect") and _stray_redirect_words(node):
            doubt = "words after a redirect that the grammar gives to no command"
        elif kind == "test_command":
            doubt = _loose_brackets(node, data)
        elif kind == "command_substitution" and (node.text or b"").startswith(b"`"):
            if b"\\" in (node.text or b""):
                doubt = "a backslash inside backticks, where bash reads escapes twice"
        elif kind == "negated_command" and data[node.start_byte + 1 : node.start_byte + 2] not in (
            b" ",
            b"\t",
            b"\n",
        ):
            doubt = "a `!` joined to a word, which bash reads as one word (`!x` runs `!x`)"
        elif kind in ("declaration_command", "unset_command") and data[
            node.children[0].end_byte : node.children[0].end_byte + 1
        ] not in (b"", b" ", b"\t", b"\n", b";", b"&", b"|", b")"):
            doubt = "a builtin's name the grammar parts from the word it starts"
        elif kind == "variable_assignment" and _invalid_assignment(node):
            doubt = "a word the grammar reads as an assignment and bash as a command"
        if doubt:
            doubts.append(doubt)
    return doubts
