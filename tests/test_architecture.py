"""The dependency direction of the design (DESIGN.md §2), checked on the source.

transport -> runtime -> loop, llm, store;  store -> loop, llm;  loop -> llm contracts;
llm -> nothing of ours. `loop` also imports nothing that does I/O.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cursor_byok"

ALLOWED: dict[str, set[str]] = {
    "llm": {"llm"},
    "loop": {"loop", "llm"},
    "store": {"store", "loop", "llm"},
    "runtime": {"runtime", "loop", "llm", "store"},
    "transport": {"transport", "runtime", "loop", "llm", "store"},
}

# Modules of `llm` the pure loop may use: the contracts, not the adapters.
LOOP_MAY_USE_FROM_LLM = {"cursor_byok.llm", "cursor_byok.llm.types", "cursor_byok.llm.events",
                         "cursor_byok.llm.serialize"}  # fmt: skip

LOOP_FORBIDDEN_TOP_LEVEL = {
    "asyncio", "socket", "sqlite3", "http", "urllib", "ssl", "subprocess", "threading",
    "time", "random", "uuid", "os", "google", "httpx", "httpx2", "uvicorn", "connectrpc",
}  # fmt: skip


def imports_of(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise AssertionError(f"{path}: use absolute imports")
            if node.module:
                found.append(node.module)
    return found


def modules_of(package: str) -> list[Path]:
    return sorted((PACKAGE / package).rglob("*.py"))


def test_every_layer_exists() -> None:
    for package in ALLOWED:
        assert (PACKAGE / package / "__init__.py").is_file()


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_layers_import_only_downwards(package: str) -> None:
    violations = []
    for path in modules_of(package):
        for name in imports_of(path):
            parts = name.split(".")
            if parts[0] == "cursor_byok" and len(parts) > 1 and parts[1] not in ALLOWED[package]:
                violations.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert violations == []


def test_loop_uses_only_llm_contracts_and_no_io() -> None:
    violations = []
    for path in modules_of("loop"):
        for name in imports_of(path):
            if name.startswith("cursor_byok.llm") and name not in LOOP_MAY_USE_FROM_LLM:
                violations.append(f"{path.name} imports {name}")
            if name.split(".")[0] in LOOP_FORBIDDEN_TOP_LEVEL:
                violations.append(f"{path.name} imports {name}")
    assert violations == []


def test_the_checker_sees_a_violation() -> None:
    """Guard against a checker that can never fail (e.g. a wrong path)."""
    assert any("cursor_byok.llm.events" in names for names in map(imports_of, modules_of("loop")))
