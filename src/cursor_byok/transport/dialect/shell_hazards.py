"""Where a command line runs code its parse does not list.

Two kinds. A substitution the bash grammar leaves unparsed: a backtick in an
unquoted heredoc body or in `${x:-…}`, `$` and `(` split by a line
continuation; bash runs it, the tree shows plain text. So every backtick
and `$(`, `<(`, `>(` of the source must be a parsed substitution, or sit
where bash does not run it (single quotes, a heredoc with a quoted
delimiter, a comment, escaped). And places where bash evaluates a
variable's value as code: arithmetic on a variable (`x='a[$(cmd)]'; echo
$((x))` runs `cmd`), array subscripts, `${!x}`, `${x@P}`, `-v` tests, and the
builtins that take a variable name with a subscript. Each is a doubt, and a
doubt makes the client ask.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from cursor_byok.transport.dialect.shell_words import Entry, literal
from cursor_byok.transport.dialect.shell_wrappers import CODE_VARIABLES

SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})

_OPENER = re.compile(rb"`|[$<>](?:\\\r?\n)*\(")
"""A backtick, or `$`, `<`, `>` then `(` (a line continuation between them
is removed before bash reads the line)."""

_WORD_BREAK = frozenset(b" \t\r\n;&|()<>")
"""Bytes after which a `#` starts a comment."""

_ARITHMETIC_PARTS = frozenset(
    {"number", "binary_expression", "unary_expression", "parenthesized_expression"}
    | {"ternary_expression", "postfix_expression"}
)
"""Arithmetic that reads no variable."""

_TEST_ARITHMETIC = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})

_NAME_TAKERS = frozenset({"read", "unset", "mapfile", "readarray", "getopts", "wait"})
"""Builtins whose arguments name variables (a subscript there is arithmetic)."""

_DECLARERS = frozenset({"declare", "typeset", "local", "export", "readonly"})

_OPTION_DOUBTS = {
    "hash": "p",
    "complete": "CF",
    "compgen": "CF",
    "bind": "x",
    "mapfile": "C",
    "readarray": "C",
}
"""Builtin options that run a command or change which program a name means."""


def _ancestors(node: tree_sitter.Node | None) -> Iterator[tree_sitter.Node]:
    while node is not None:
        yield node
        node = node.parent


def _starts_word(data: bytes, pos: int) -> bool:
    """Whether a word starts at `pos` (a `#` there starts a comment): line
    continuations before it join it to the word they end."""
    while pos >= 2 and data[pos - 2 : pos] == b"\\\n":
        pos -= 2
    return pos == 0 or data[pos - 1] in _WORD_BREAK


def _quoted(node: tree_sitter.Node) -> bool:
    """Whether a node is inside double quotes or a heredoc body (within its
    innermost substitution), where words do not split."""
    for ancestor in _ancestors(node.parent):
        if ancestor.type in SUBSTITUTIONS:
            return False
        if ancestor.type in ("string", "translated_string", "heredoc_body"):
            return True
    return False


def _escaped(data: bytes, pos: int) -> bool:
    count = 0
    while pos - count - 1 >= 0 and data[pos - count - 1] == ord("\\"):
        count += 1
    return count % 2 == 1


def _quoted_heredoc(node: tree_sitter.Node) -> bool:
    """Whether a heredoc (its redirect, or its body) has a quoted delimiter."""
    redirect = node.parent if node.type == "heredoc_body" else node
    if redirect is None:
        return False
    start = next((c for c in redirect.children if c.type == "heredoc_start"), None)
    return start is not None and any(q in (start.text or b"") for q in b"'\"\\")


def _accounted(root: tree_sitter.Node, data: bytes, pos: int) -> bool:
    """Whether the opener at `pos` is a parsed substitution, or text bash
    does not run."""
    ancestors = list(_ancestors(root.descendant_for_byte_range(pos, pos + 1)))
    for node in ancestors:
        if node.type in SUBSTITUTIONS or node.type == "arithmetic_expansion":
            if node.start_byte == pos:
                return True
            if data[node.start_byte] == ord("`") and node.end_byte == pos + 1:
                return True
    if any(n.type == "command_substitution" and data[n.start_byte] == ord("`") for n in ancestors):
        return False  # bash rereads the text inside backticks: escapes and quotes do not hold
    single = double = comment = False
    for node in ancestors:  # the quoting inside the innermost substitution is what holds
        kind = node.type
        if kind in SUBSTITUTIONS or kind == "arithmetic_expansion":
            break
        if kind in ("raw_string", "ansi_c_string"):
            single = True
        elif kind in ("string", "translated_string"):
            double = True  # single quotes inside double quotes are text (`"${x:-'$(…)'}"`)
        elif kind == "heredoc_body":
            if _quoted_heredoc(node):
                return True
            double = True
        elif kind == "comment":
            comment = _starts_word(data, node.start_byte)
    process = data[pos] in b"<>"  # no process substitution inside double quotes or a heredoc
    return (single and not double) or (process and double) or comment or _escaped(data, pos)


def _delimiter(start: tree_sitter.Node) -> bytes:
    return bytes(b for b in (start.text or b"") if b not in b"'\"\\")


def _terminates(line: bytes, delimiter: bytes, tabs: bool) -> bool:
    return line == delimiter or (tabs and line.lstrip(b"\t") == delimiter)


_CONTENT = frozenset({"heredoc_body", "string", "translated_string", "comment"})
"""Nodes whose whole text is theirs, children or not."""


_CONTINUATION = re.compile(rb"(?<=[^ \t\n])\\\n(?=[^ \t\n])")
"""A line continuation with no blank on either side: bash joins the two
lines into one word before reading it, the grammar may not."""


def split_words(root: tree_sitter.Node, data: bytes) -> list[str]:
    """A doubt for a line continuation inside a word, outside quotes (within
    quotes it only joins text)."""
    for match in _CONTINUATION.finditer(data):
        pos = match.start()
        if _escaped(data, pos):
            continue
        kinds = [n.type for n in _ancestors(root.descendant_for_byte_range(pos, pos + 1))]
        if any(k in ("raw_string", "string", "comment", "heredoc_body") for k in kinds):
            continue
        return ["a line continuation inside a word"]
    return []


def uncovered_text(nodes: list[tree_sitter.Node], data: bytes) -> list[str]:
    """A doubt if some text is in no node but blanks and line continuations:
    bash reads words where the grammar saw nothing (`ls\\<newline>\\ ` is
    the command `ls `)."""
    spans = sorted(
        (n.start_byte, n.end_byte) for n in nodes if n.child_count == 0 or n.type in _CONTENT
    )
    covered = 0
    for start, end in [*spans, (len(data), len(data))]:
        gap = data[covered:start].replace(b"\\\n", b"").strip(b" \t\n")
        # The grammar drops a lone `-` before a heredoc (`python3 - <<EOF`): an
        # argument, never a command.
        if gap and not (gap == b"-" and data[start : start + 2] == b"<<"):
            return ["text the grammar leaves out of its tree"]
        covered = max(covered, end)
    return []


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
            or (not _quoted_heredoc(node) and body and body[-1].endswith(b"\\"))
        ):
            doubts.append("a heredoc whose end bash reads elsewhere")
    return doubts


def unparsed_substitutions(root: tree_sitter.Node, data: bytes) -> list[str]:
    """A doubt for each substitution bash runs that the tree leaves as text."""
    return [
        f"a substitution at byte {m.start()} the grammar leaves unparsed"
        for m in _OPENER.finditer(data)
        if not _accounted(root, data, m.start())
    ]


def _reads_variables(node: tree_sitter.Node) -> bool:
    """Whether arithmetic reads a variable (whose value bash evaluates too)."""
    stack = list(node.named_children)
    while stack:
        child = stack.pop()
        if child.type not in _ARITHMETIC_PARTS:
            return True
        stack.extend(child.named_children)
    return False


def _expansion_doubt(node: tree_sitter.Node) -> str | None:
    kinds = [c.type for c in node.children]
    text = (node.text or b"").decode("utf-8", errors="replace")
    if len(kinds) > 1 and kinds[1] == "!" and not re.fullmatch(r"\$\{!\w+(\[[@*]\]|[@*])\}", text):
        return "an indirect expansion, which evaluates a variable's value"
    if "@" in kinds and "P" in kinds:
        return "a prompt expansion, which runs a variable's value"
    if ":" in kinds:
        after = node.children[kinds.index(":") + 1 :]
        if any(c.is_named and c.type not in _ARITHMETIC_PARTS for c in after):
            return "a substring offset that reads a variable"
    return None


def _subscript_doubt(node: tree_sitter.Node) -> str | None:
    index = [c for c in node.named_children[1:]]
    if all(c.type == "number" or (c.text or b"") in (b"@", b"*") for c in index):
        return None
    return "an array subscript, which evaluates a variable's value"


def _test_doubt(node: tree_sitter.Node) -> str | None:
    double = bool(node.children) and node.children[0].type == "[["
    for child in _descendants(node):
        if child.type != "test_operator":
            continue
        operator = (child.text or b"").decode()
        if operator in ("-v", "-R"):
            return f"a `{operator}` test, which evaluates a variable name's subscript"
        if double and operator in _TEST_ARITHMETIC and child.parent is not None:
            operands = [c for c in child.parent.named_children if c is not child]
            if any(c.type != "number" for c in operands):
                return f"`[[ … {operator} … ]]` evaluates its operands as arithmetic"
    return None


def _descendants(node: tree_sitter.Node) -> Iterator[tree_sitter.Node]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.children)


def evaluation_sinks(nodes: list[tree_sitter.Node], data: bytes) -> list[str]:
    """A doubt for each place bash evaluates a variable's value as code."""
    doubts: list[str] = []
    for node in nodes:
        kind = node.type
        doubt: str | None = None
        if kind == "arithmetic_expansion" or (
            kind == "compound_statement" and node.children and node.children[0].type == "(("
        ):
            if _reads_variables(node):
                doubt = "arithmetic on a variable, whose value bash evaluates"
        elif kind == "c_style_for_statement":
            header = [c for c in node.named_children if c.type != "do_group"]
            if any(c.type not in _ARITHMETIC_PARTS or _reads_variables(c) for c in header):
                doubt = "arithmetic on a variable, whose value bash evaluates"
        elif kind == "subscript":
            doubt = _subscript_doubt(node)
        elif kind == "expansion":
            doubt = _expansion_doubt(node)
        elif kind == "test_command":
            doubt = _test_doubt(node) or _loose_brackets(node, data)
        elif kind == "variable_assignment":
            doubt = _assignment_doubt(node)
        elif kind == "file_descriptor" and not re.fullmatch(
            rb"[0-9]+|\{[A-Za-z_][A-Za-z0-9_]*\}", node.text or b""
        ):
            doubt = "a redirect's descriptor bash reads as a word (`-2>f` runs `-2`)"
        elif (
            kind == "simple_expansion" and re.search(rb"\s", node.text or b"") and not _quoted(node)
        ):
            doubt = "a `$` the grammar joins to the word after a blank (`x=$ rm …` runs rm)"
        elif kind == "comment" and not _starts_word(data, node.start_byte):
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
        if doubt:
            doubts.append(doubt)
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
    return None


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


def _assignment_doubt(node: tree_sitter.Node) -> str | None:
    """An assignment to a variable that changes what commands run, or one
    bash does not read as an assignment at all (`?A=1 cmd` runs `?A=1`)."""
    name = node.child_by_field_name("name")
    text = (name.text or b"").decode("utf-8", errors="replace") if name is not None else ""
    variable = text.split("[", 1)[0]
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", variable):
        return "a word the grammar reads as an assignment and bash as a command"
    if CODE_VARIABLES.fullmatch(variable):
        return f"assigns {variable}, which changes what commands run"
    return None


def _options(values: list[str | None]) -> str:
    return "".join(v[1:] for v in values if v and v[:1] in "-+" and not v.startswith("--"))


_CHECKED = frozenset(
    {*_OPTION_DOUBTS, *_NAME_TAKERS, *_DECLARERS, "let", "test", "[", "trap", "alias", "printf"}
)
"""The commands `command_doubts` has rules for."""


def command_doubts(entry: Entry) -> list[str]:
    """Doubts about what one listed command runs, by its name and arguments."""
    name = entry.name
    if name not in _CHECKED:
        return []
    values = [literal(a) for a in entry.args]
    texts = [(a.text or b"").decode("utf-8", errors="replace") for a in entry.args]
    doubts: list[str] = []
    letters = _options(values)
    if name in _OPTION_DOUBTS and (
        set(letters) & set(_OPTION_DOUBTS[name]) or any(v is None for v in values)
    ):
        doubts.append(f"`{name}` with these options runs a command or renames one")
    if name == "let" and any(v is None or re.search(r"[A-Za-z_$`]", v) for v in values):
        doubts.append("`let` evaluates variables as arithmetic")
    if name in ("test", "[") and any(v in ("-v", "-R") for v in values):
        doubts.append("a `-v` test evaluates a variable name's subscript")
    if name == "trap" and _trap_sets_action(values):
        doubts.append("`trap` runs a string later")
    if name == "alias" and any(v is None or "=" in v for v in values):
        doubts.append("an alias runs a string in place of a command")
    named = name in _NAME_TAKERS or name in _DECLARERS
    if name == "printf" and "-v" in values[:-1]:
        named, texts = True, [texts[values.index("-v") + 1]]
    if named and any("[" in t for t in texts):
        doubts.append(f"`{name}` is given a subscripted name, which bash evaluates")
    if named and any(CODE_VARIABLES.fullmatch(t.partition("=")[0]) for t in texts):
        doubts.append(f"`{name}` sets a variable that changes what commands run")
    if name in _DECLARERS and set(letters) & set("in"):
        doubts.append(f"`{name} -i` or `-n` makes later assignments evaluate values")
    return doubts


def _trap_sets_action(values: list[str | None]) -> bool:
    operands = [v for v in values if v is None or not v.startswith("-")]
    if values and values[0] == "-":
        return False
    return len(operands) >= 2 and operands[0] not in ("",)
