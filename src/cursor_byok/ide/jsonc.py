"""Reading and editing JSON with comments (VS Code's `settings.json` dialect)
without disturbing what the user wrote: comments, trailing commas, order,
indentation. Only the values of the keys set change, and new keys are added
before the closing brace.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from typing import Any

PUNCTUATION = "{}[]:,"
_LITERAL_END = " \t\r\n" + PUNCTUATION + '"/'


class JsoncError(ValueError):
    """The text is not JSON with comments, or not an object at the top."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # one of PUNCTUATION, "string", "literal", "comment"
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Member:
    key: str
    key_start: int
    value_start: int
    value_end: int


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n\ufeff":
            i += 1
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            token = Token("comment", i, n if end < 0 else end)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise JsoncError(f"{_where(text, i)}: a /* comment is never closed")
            token = Token("comment", i, end + 2)
        elif c == '"':
            token = Token("string", i, _string_end(text, i))
        elif c in PUNCTUATION:
            token = Token(c, i, i + 1)
        else:
            end = i
            while end < n and text[end] not in _LITERAL_END:
                end += 1
            if end == i:
                raise JsoncError(f"{_where(text, i)}: unexpected {c!r}")
            token = Token("literal", i, end)
        tokens.append(token)
        i = token.end
    return tokens


def _string_end(text: str, start: int) -> int:
    i = start + 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1
        elif c == "\n":
            break
        else:
            i += 1
    raise JsoncError(f"{_where(text, start)}: a string is never closed")


def _where(text: str, index: int) -> str:
    line = text.count("\n", 0, index) + 1
    return f"line {line} column {index - (text.rfind(chr(10), 0, index) + 1) + 1}"


def _significant(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t.kind != "comment"]


def _as_json(text: str, tokens: list[Token]) -> str:
    """The same text, same length, with comments and trailing commas blanked."""
    chars = list(text.replace("\ufeff", " "))
    significant = _significant(tokens)
    blank = [t for t in tokens if t.kind == "comment"]
    blank += [
        t
        for t, after in itertools.pairwise(significant)
        if t.kind == "," and after.kind in ("}", "]")
    ]
    for token in blank:
        for index in range(token.start, token.end):
            if chars[index] not in "\r\n":
                chars[index] = " "
    return "".join(chars)


def loads(text: str) -> Any:
    """Parses JSON with comments and trailing commas; errors name line and column."""
    try:
        return json.loads(_as_json(text, tokenize(text)))
    except json.JSONDecodeError as error:
        raise JsoncError(f"line {error.lineno} column {error.colno}: {error.msg}") from None


def members(text: str) -> tuple[list[Member], list[Token]]:
    """The top-level object's members (in order) and its significant tokens."""
    document = loads(text)
    if not isinstance(document, dict):
        raise JsoncError("the top level is not a JSON object")
    significant = _significant(tokenize(text))
    found: list[Member] = []
    depth = 0
    key: tuple[str, int] | None = None
    value_start = -1
    for index, token in enumerate(significant):
        if depth == 1:
            before = significant[index - 1].kind
            if token.kind == "string" and before in ("{", ","):
                key = (json.loads(text[token.start : token.end]), token.start)
            elif token.kind == ":" and key is not None:
                value_start = significant[index + 1].start
            elif token.kind in (",", "}") and key is not None:
                found.append(Member(key[0], key[1], value_start, significant[index - 1].end))
                key = None
        if token.kind in ("{", "["):
            depth += 1
        elif token.kind in ("}", "]"):
            depth -= 1
    return found, significant


def set_values(text: str, values: dict[str, Any]) -> str:
    """`text` with each top-level key of `values` set; everything else as it was."""
    if not _significant(tokenize(text)):  # empty, or comments only: an empty object
        text = (text.rstrip() + "\n" if text.strip() else "") + "{\n}\n"
    found, significant = members(text)
    last = {m.key: m for m in found}  # a repeated key: the last one counts
    edits: list[tuple[int, int, str]] = []
    for key, value in values.items():
        member = last.get(key)
        if member is not None and loads(text[member.value_start : member.value_end]) != value:
            edits.append((member.value_start, member.value_end, json.dumps(value)))
    new = [(k, v) for k, v in values.items() if k not in last]
    if new:
        edits.extend(_insertions(text, new, found, significant))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    result = loads(text)
    assert all(result[k] == v for k, v in values.items()), "edit did not take"
    return text


def _insertions(
    text: str, new: list[tuple[str, Any]], found: list[Member], significant: list[Token]
) -> list[tuple[int, int, str]]:
    close = significant[-1]
    before = significant[-2]
    open_at = significant[0].start
    newline = "\r\n" if "\r\n" in text else "\n"
    pairs = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in new]
    if newline not in text[open_at : close.start]:  # a one-line object
        joined = ", ".join(pairs)
        if before.kind == "{":
            return [(before.end, before.end, joined)]
        if before.kind == ",":
            return [(before.end, before.end, f" {joined},")]
        return [(before.end, before.end, f", {joined}")]
    indent = _indent(text, found[0].key_start) if found else "    "
    lines = (newline + indent).join(f"{p}," for p in pairs).rstrip(",")
    if before.kind == "{":
        return [(before.end, before.end, newline + indent + lines)]
    if before.kind == ",":  # keep the trailing-comma style
        return [(before.end, before.end, newline + indent + lines + ",")]
    line_end = text.find("\n", before.end)
    at = line_end if 0 <= line_end < close.start else before.end
    if at == line_end and text[at - 1] == "\r":
        at -= 1
    if at == before.end:
        return [(at, at, "," + newline + indent + lines)]
    return [(before.end, before.end, ","), (at, at, newline + indent + lines)]


def _indent(text: str, key_start: int) -> str:
    line_start = text.rfind("\n", 0, key_start) + 1
    prefix = text[line_start:key_start]
    return prefix if prefix and not prefix.strip() else "    "
