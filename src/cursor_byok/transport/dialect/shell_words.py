"""Words as bash reads them, and the commands a command line runs through
wrappers (`sudo env A=1 rm x` runs `rm`).

A word is literal when its value is fixed by the source alone: quotes and
backslashes removed, nothing expanded, no glob or brace pattern. Whatever
is not literal where a command name is decided makes the parse doubt
(`$x -rf victim` runs whatever `$x` holds), and a doubt makes the client
ask. Options a wrapper is not known to take are doubts too: guessing where
the wrapped command starts is how one hides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import tree_sitter

from cursor_byok.transport.dialect.shell_wrappers import (
    CODE_VARIABLES,
    KEYWORD_SPECS,
    KEYWORDS,
    RESERVED,
    RUNS_DATA,
    SHELLS,
    WRAPPERS,
    Spec,
)


@dataclass
class Entry:
    """One command the line runs: its name, argument nodes and source text."""

    name: str
    args: list[tree_sitter.Node]
    text: str


@dataclass
class Found:
    """The commands of one command node and the doubts about it."""

    entries: list[Entry] = field(default_factory=list)
    doubts: list[str] = field(default_factory=list)


_UNQUOTED_DOUBLE_ESCAPES = frozenset('$`"\\\n')


def _word_chars(text: str) -> list[tuple[str, bool]]:
    """The characters of an unquoted word, each with whether it was escaped."""
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            if text[i + 1] != "\n":
                out.append((text[i + 1], True))
            i += 2
            continue
        out.append((text[i], False))
        i += 1
    return out


def _chars(node: tree_sitter.Node) -> list[tuple[str, bool]] | None:
    """A word's characters after quote removal, each with whether it was
    quoted; None when the word holds anything bash expands."""
    text = (node.text or b"").decode("utf-8", errors="replace")
    kind = node.type
    if kind in ("word", "number"):
        return _word_chars(text)
    if kind == "raw_string" and len(text) >= 2:
        return [(c, True) for c in text[1:-1]]
    if kind == "string":
        # From the text between the quotes: the grammar leaves some of it
        # (a lone newline) out of every child.
        if any(c.type not in ('"', "string_content") for c in node.children):
            return None
        return _double_quoted(text[1:-1] if len(text) >= 2 else "")
    if kind == "concatenation":
        joined: list[tuple[str, bool]] = []
        for child in node.children:
            part = _chars(child)
            if part is None:
                return None
            joined.extend(part)
        return joined
    return None


def _double_quoted(content: str) -> list[tuple[str, bool]]:
    out: list[tuple[str, bool]] = []
    i = 0
    while i < len(content):
        if (
            content[i] == "\\"
            and i + 1 < len(content)
            and content[i + 1] in _UNQUOTED_DOUBLE_ESCAPES
        ):
            if content[i + 1] != "\n":
                out.append((content[i + 1], True))
            i += 2
            continue
        out.append((content[i], True))
        i += 1
    return out


def _is_pattern(chars: list[tuple[str, bool]]) -> bool:
    """Unquoted glob or extglob characters, or a brace expansion."""
    bare = "".join(c if not quoted else "\x00" for c, quoted in chars)
    if any(c in bare for c in "*?[("):
        return True
    return re.search(r"\{[^}]*(,|\.\.)[^{]*\}", bare) is not None


_PLAIN = re.compile(rb"[^\\*?\[({\s]*")
"""A word with nothing to remove or expand: its text is its value."""


def literal(node: tree_sitter.Node) -> str | None:
    """The value of a word fixed by its source alone, or None."""
    if node.type == "word" and _PLAIN.fullmatch(text := node.text or b""):
        return text.decode("utf-8", errors="replace")
    chars = _chars(node)
    if chars is None or _is_pattern(chars):
        return None
    return "".join(c for c, _ in chars)


def _quoted_option(node: tree_sitter.Node) -> bool:
    """`time \\-p x` runs the command `-p`: the keyword reads its option raw."""
    value = literal(node)
    return value is not None and value.startswith("-") and node.text != value.encode()


def _text(data: bytes, start: int, end: int) -> str:
    return data[start:end].decode("utf-8", errors="replace").strip()


def _assignment_doubt(value: str) -> str | None:
    name, eq, _ = value.partition("=")
    if eq and CODE_VARIABLES.fullmatch(name.removesuffix("+")):
        return f"assigns {name}, which changes what commands run"
    return None


def _is_assignment(value: str) -> bool:
    return re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=", value) is not None


@dataclass(frozen=True)
class Wrapped:
    """Where a wrapper's command is: the index of its name, of the first word
    of its text (an assignment `env A=1 rm` passes on), and the string
    `xargs -I` replaces with input, if one is set."""

    name: int
    text: int
    replace: str = ""


def _unsplit(node: tree_sitter.Node) -> bool:
    """A word that stays one word: literal, or double-quoted."""
    return node.type == "string" or literal(node) is not None


def _skip_options(name: str, spec: Spec, words: list[tree_sitter.Node], i: int) -> Wrapped | str:
    """Where the command a wrapper runs is (past its options, assignments
    and operands), or a doubt. An option's value or an operand that may
    split into several words (`sudo -u $u`) is a doubt too."""
    replace = ""
    splits = f"`{name}` is given a word that may split into several before its command"
    while i < len(words) and not spec.bare:
        value = literal(words[i])
        if value is None:
            return splits
        if value == "--":
            i += 1
            break
        if value == "-" and name == "env":  # `env -` is `env -i`
            i += 1
            continue
        taken: str | None = None
        if value.startswith("--") and len(value) > 2:
            key, eq, attached = value[2:].partition("=")
            if key in spec.long_data:
                return f"`{name} --{key}` runs a string"
            if key in spec.long_valued and not eq:
                if i + 1 >= len(words) or not _unsplit(words[i + 1]):
                    return splits
                taken, i = literal(words[i + 1]), i + 2
            elif key in spec.long_valued or key in spec.long_flags:
                taken, i = attached, i + 1
            elif not (spec.numeric and key.isdigit()):
                return f"`{name}` has an option this parse does not know: --{key}"
            else:
                i += 1
            if key == "replace":
                replace = taken or "{}"
            continue
        if not value.startswith("-") or len(value) == 1:
            break
        if spec.numeric and value[1:].isdigit():
            i += 1
            continue
        letters = value[1:]
        for k, letter in enumerate(letters):
            if letter in spec.data:
                return f"`{name} -{letter}` runs a string"
            if letter in spec.valued and k == len(letters) - 1:
                if i + 1 >= len(words) or not _unsplit(words[i + 1]):
                    return splits
                taken = literal(words[i + 1])
                i += 1
            elif letter in spec.valued or letter in spec.attached:
                taken = letters[k + 1 :]
            elif letter not in spec.flags:
                return f"`{name}` has an option this parse does not know: -{letter}"
            if letter in spec.valued or letter in spec.attached:
                if letter in spec.replace:
                    replace = taken or "{}"
                break
        i += 1
    for operand in words[i : i + spec.operands]:
        if not _unsplit(operand):
            return splits
    i += spec.operands
    if i < len(words) and (literal(words[i]) or "").startswith("-"):
        return f"`{name}` has an option after its operands (`flock FILE -c …`)"
    text = i
    while spec.assignments and i < len(words):
        value = literal(words[i])
        # bash reads an assignment from the source (`FO\\O=1` is a command)
        if value is None or not (
            _is_assignment((words[i].text or b"").decode("utf-8", errors="replace"))
            or (spec.assignments == "any" and "=" in value)
        ):
            break
        if doubt := _assignment_doubt(value):
            return doubt
        i += 1
    return Wrapped(i, text, replace)


def _shell_doubt(words: list[tree_sitter.Node]) -> str | None:
    """Why a shell given these arguments runs data, if it does."""
    i = 0
    while i < len(words):
        value = literal(words[i])
        if value is None:
            return "a shell is given a word that expands"
        if value in ("-", "--"):
            i += 1
            break
        if value.startswith("--"):
            if "command" in value:
                return "a shell runs a string"
            i += 2 if value in ("--rcfile", "--init-file") else 1
            continue
        if value[:1] in "-+" and len(value) > 1:
            if set(value[1:]) & set("csi"):
                return "a shell runs a string or its standard input"
            i += 2 if set(value[1:]) & set("oO") else 1
            continue
        break
    if i >= len(words):
        return "a shell runs its standard input"
    script = literal(words[i])
    if script is None or script.startswith(("/dev/", "/proc/")):
        return "a shell runs a script that is not a named file"
    return None


def _find_commands(words: list[tree_sitter.Node], data: bytes, end: int, found: Found) -> None:
    """The commands of `find`'s -exec, -execdir, -ok and -okdir. A word that
    may split (`find . $x`) may hold an `-exec` of its own: a doubt."""
    if not all(_unsplit(w) for w in words):
        found.doubts.append("`find` is given a word that may split into expressions")
        return
    i = 0
    while i < len(words):
        if literal(words[i]) not in ("-exec", "-execdir", "-ok", "-okdir"):
            i += 1
            continue
        start = i + 1
        j = start
        while j < len(words):
            value = literal(words[j])
            if value == ";" or (value == "+" and literal(words[j - 1]) == "{}"):
                break
            j += 1
        stop = words[j].start_byte if j < len(words) else end
        if start < j:
            unwrap(words[start:j], data, (words[start].start_byte, stop), found, keyword=False)
        i = j + 1


def unwrap(
    words: list[tree_sitter.Node],
    data: bytes,
    span: tuple[int, int],
    found: Found,
    keyword: bool = True,
) -> None:
    """Add the commands `words` (a command name and its arguments, the text
    between the bytes of `span`) run to `found`: the command itself and, for
    a wrapper, what it wraps, followed through any depth of wrapping.
    `keyword`: the words start a pipeline, where `time` and `coproc` are
    keywords."""
    i = 0
    start, end = span
    replace = ""
    while i < len(words):
        if words[i].type == "subshell":
            return  # `time (…)`: the grammar parsed the subshell, and its commands are walked
        name = literal(words[i])
        if name is None:
            found.doubts.append("a command name that expands")
            name = _text(data, words[i].start_byte, words[i].end_byte)
            found.entries.append(Entry(name, words[i + 1 :], _text(data, start, end)))
            return
        if "{}" in name or (replace and replace in name):
            found.doubts.append("a command name that input or found files replace")
        # `time` is a keyword only unquoted (`\time` is the program)
        keyword = keyword and name in KEYWORDS and words[i].text == name.encode()
        if keyword and any(literal(w) in ("{", "}") for w in words[i + 1 :]):
            found.doubts.append(f"`{name}` runs a compound command the grammar did not parse")
            return
        if keyword and i + 1 < len(words) and _quoted_option(words[i + 1]):
            found.doubts.append(f"`{name}` is given a quoted option, which bash takes as a command")
            return
        program = name.rsplit("/", 1)[-1]  # `/usr/bin/env` is `env`
        spec = KEYWORD_SPECS[name] if keyword else WRAPPERS.get(program)
        if not keyword:
            found.entries.append(Entry(name, words[i + 1 :], _text(data, start, end)))
        keyword = False
        if program in RUNS_DATA:
            found.doubts.append(f"`{name}` runs data")
            return
        if program in SHELLS:
            if doubt := _shell_doubt(words[i + 1 :]):
                found.doubts.append(doubt)
            return
        if program == "find":
            _find_commands(words[i + 1 :], data, end, found)
            return
        if spec is None:
            return
        wrapped = _skip_options(program, spec, words, i + 1)
        if isinstance(wrapped, str):
            found.doubts.append(wrapped)
            return
        if wrapped.name >= len(words):
            if spec.default:
                found.entries.append(Entry(spec.default, [], spec.default))
            return
        if literal(words[wrapped.name]) in RESERVED:
            found.doubts.append(f"`{name}` runs a compound command the grammar did not parse")
            return
        start = words[wrapped.text].start_byte
        i, replace = wrapped.name, wrapped.replace or replace
