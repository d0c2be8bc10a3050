"""Reading the configuration's TOML tables: typed values, and errors that
name the file, the line and the key, so a user can fix them without
reading code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """The configuration is invalid; the message says where and why."""


class Locator:
    """Finds the line of a key in the TOML text, for error messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, table: str | None, key: str | None) -> int | None:
        start = 0
        if table is not None:
            header = re.compile(
                r"^\s*\[\s*" + re.escape(table).replace(r"\.", r"\s*\.\s*") + r"\s*\]"
            )
            for number, line in enumerate(self.lines):
                if header.match(line):
                    start = number + 1
                    break
            else:
                return None
            if key is None:
                return start
        if key is None:
            return None
        pattern = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
        for number in range(start, len(self.lines)):
            if table is not None and number > start and self.lines[number].lstrip().startswith("["):
                break
            if pattern.match(self.lines[number]):
                return number + 1
        return start or None

    def error(self, table: str | None, key: str | None, message: str) -> ConfigError:
        line = self.line_of(table, key)
        where = f"{self.path}:{line}" if line else str(self.path)
        name = ".".join(part for part in (table, key) if part)
        return ConfigError(f"{where}: {name}: {message}" if name else f"{where}: {message}")


def take(
    doc: dict[str, Any], key: str, kind: type | tuple[type, ...], where: Locator, table: str
) -> Any:
    value = doc.pop(key, None)
    if value is None:
        return None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise where.error(table, key, f"expected {kind_names(kinds)}, got a boolean")
    if not isinstance(value, kinds):
        raise where.error(table, key, f"expected {kind_names(kinds)}, got {type(value).__name__}")
    return value


def or_default(value: Any, default: Any) -> Any:
    return default if value is None else value


def kind_names(kinds: tuple[type, ...]) -> str:
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        dict: "a table",
        bool: "true or false",
        list: "a list",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def no_leftovers(doc: dict[str, Any], where: Locator, table: str | None) -> None:
    for key in doc:
        raise where.error(table, key, "unknown key")


def positive(
    doc: dict[str, Any], key: str, default: float, unit: str, where: Locator, table: str
) -> Any:
    """A positive `unit` count (seconds, bytes): an integer where the default
    is one, else any number; the default when the key is absent."""
    kinds = int if isinstance(default, int) else (int, float)
    value = or_default(take(doc, key, kinds, where, table), default)
    if not value > 0:
        raise where.error(table, key, f"must be a positive number of {unit}")
    return value if isinstance(default, int) else float(value)
