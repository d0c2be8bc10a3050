"""Where a command line runs code its parse does not list.

Two kinds. A substitution the bash grammar leaves unparsed: a backtick in an
unquoted heredoc body or in `${x:-…}`, `$` and `(` split by a line
continuation; bash runs it, the tree shows plain text. So every backtick
and `$(`, `<(`, `>(` of the source must be a parsed substitution, or sit
where bash does not run it (single quotes, a heredoc with a quoted
delimiter, a comment, escaped). And places where bash evaluates a
variable's value as code: arithmetic on a variable (`x='a[$(cmd)]'; echo
$((x))` runs `cmd`), array subscripts, `${!x}`, `${x@P}`, `-v` tests, and the
builtins that take a variable name with a subscript; and the commands that
run data (`trap`, `alias`, `hash -p`, ...). Each is a doubt, and a doubt
makes the client ask. Where the grammar reads a line otherwise than bash:
`shell_misreads`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import tree_sitter

from cursor_byok.transport.dialect.shell_misreads import (
    SUBSTITUTIONS,
    ancestors,
    escaped,
    quoted_heredoc,
    starts_word,
)
from cursor_byok.transport.dialect.shell_words import Entry, literal
from cursor_byok.transport.dialect.shell_wrappers import CODE_VARIABLES

_OPENER = re.compile(rb"`|[$<>](?:\\\n|[\"'])*\(")
"""A backtick, or `$`, `<`, `>` then `(`: a line continuation between them
is removed before bash reads the line, and inside a double-quoted `${...}`
bash can drop a quote between them (`"${x:-'$"(cmd)'}"` runs cmd)."""


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


def _accounted(root: tree_sitter.Node, data: bytes, pos: int) -> bool:
    """Whether the opener at `pos` is a parsed substitution, or text bash
    does not run."""
    chain = list(ancestors(root.descendant_for_byte_range(pos, pos + 1)))
    for node in chain:
        if node.type in SUBSTITUTIONS or node.type == "arithmetic_expansion":
            if node.start_byte == pos:
                return True
            if data[node.start_byte] == ord("`") and node.end_byte == pos + 1:
                return True
    if any(n.type == "command_substitution" and data[n.start_byte] == ord("`") for n in chain):
        return False  # bash rereads the text inside backticks: escapes and quotes do not hold
    single = double = comment = False
    for node in chain:  # the quoting inside the innermost substitution is what holds
        kind = node.type
        if kind in SUBSTITUTIONS or kind == "arithmetic_expansion":
            break
        if kind in ("raw_string", "ansi_c_string"):
            single = True
        elif kind in ("string", "translated_string"):
            double = True  # single quotes inside double quotes are text (`"${x:-'$(…)'}"`)
        elif kind == "heredoc_body":
            if quoted_heredoc(node):
                return True
            double = True
        elif kind == "comment":
            comment = starts_word(data, node.start_byte)
    process = data[pos] in b"<>"  # no process substitution inside double quotes or a heredoc
    return (single and not double) or (process and double) or comment or escaped(data, pos)


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


def evaluation_sinks(nodes: list[tree_sitter.Node]) -> list[str]:
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
            doubt = _test_doubt(node)
        elif kind == "variable_assignment":
            doubt = _assignment_doubt(node)
        if doubt:
            doubts.append(doubt)
    return doubts


def _assignment_doubt(node: tree_sitter.Node) -> str | None:
    """An assignment to a variable that changes what commands run."""
    name = node.child_by_field_name("name")
    text = (name.text or b"").decode("utf-8", errors="replace") if name is not None else ""
    variable = text.split("[", 1)[0]
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
    if name == "printf" and any(t.startswith(("-v", "'-v", '"-v')) for t in texts):
        named = True  # `printf -v NAME` (or `-vNAME`): a `[` anywhere is a doubt
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
