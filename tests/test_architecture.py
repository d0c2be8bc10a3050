"""The dependency direction of the design (DESIGN.md §2), checked on the source.

transport -> runtime -> loop, llm, store;  store -> loop, llm;  loop -> llm contracts;
llm -> nothing of ours. `loop` also imports nothing that does I/O; `runtime`
imports no protobuf. Inside transport: the ASGI server (wire.server, wire.app)
-> sessions -> dialect -> the Connect primitives (framing, codec, errors) and the
generated protobuf. The top-level modules are above every package, in a fixed
order, and the benches use the package, never the tests.
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

COMMAND_PACKAGES: dict[str, set[str]] = {
    # The IDE takeover, for `cli` only: it reaches the server over a socket.
    "proxy": {"proxy", "guards", "config", "cli_base", "serve", "runtime", "transport"},
    "ide": {"ide", "config", "cli_base", "serve", "proxy"},
}

# Modules of `llm` the pure loop may use: the contracts, not the adapters.
LOOP_MAY_USE_FROM_LLM = {
    "cursor_byok.llm",
    "cursor_byok.llm.types",
    "cursor_byok.llm.events",
    "cursor_byok.llm.serialize",
}

LOOP_FORBIDDEN_TOP_LEVEL = {
    "asyncio",
    "socket",
    "sqlite3",
    "http",
    "urllib",
    "ssl",
    "subprocess",
    "threading",
    "time",
    "random",
    "uuid",
    "os",
    "google",
    "httpx",
    "httpx2",
    "uvicorn",
    "connectrpc",
}


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


TRANSPORT_LEVELS: dict[str, int] = {
    "cursor_byok.transport.proto": 0,
    "cursor_byok.transport.wire.framing": 0,
    "cursor_byok.transport.wire.codec": 0,
    "cursor_byok.transport.wire.errors": 0,
    "cursor_byok.transport.cursor.tool_base": 1,
    "cursor_byok.transport.cursor.file_tools": 1,
    "cursor_byok.transport.cursor.shell_tool": 1,
    "cursor_byok.transport.cursor.shell_parsing": 1,
    "cursor_byok.transport.cursor.read_range": 1,
    "cursor_byok.transport.cursor.mcp_tools": 1,
    "cursor_byok.transport.wire.request_body": 0,
    "cursor_byok.transport.wire.one_port": 0,
    "cursor_byok.transport.wire.http_server": 0,
    "cursor_byok.transport.cursor.run_client": 1,
    "cursor_byok.transport.cursor.tools": 1,
    "cursor_byok.transport.cursor.aux_rpcs": 1,
    "cursor_byok.transport.cursor.run_request": 1,
    "cursor_byok.transport.cursor.checkpoints": 1,
    "cursor_byok.transport.cursor.request_context": 2,
    "cursor_byok.transport.cursor.dialect": 1,
    "cursor_byok.transport.cursor.ids": 1,
    "cursor_byok.transport.cursor.meter": 1,
    "cursor_byok.transport.cursor.shell": 1,
    "cursor_byok.transport.cursor.client": 1,
    "cursor_byok.transport.cursor.editor": 1,
    "cursor_byok.transport.cursor.append_inbox": 2,
    "cursor_byok.transport.cursor.counters": 2,
    "cursor_byok.transport.cursor.memory_budget": 2,
    "cursor_byok.transport.cursor.exec_tracker": 2,
    "cursor_byok.transport.cursor.registry": 2,
    "cursor_byok.transport.cursor.sink": 2,
    "cursor_byok.transport.cursor.sessions": 2,
    "cursor_byok.transport.cursor.session": 2,
    "cursor_byok.transport.cursor.outbox": 2,
    "cursor_byok.transport.cursor.handover": 2,
    "cursor_byok.transport.cursor.input_ids": 1,
    "cursor_byok.transport.cursor.relay": 2,
    "cursor_byok.transport.cursor.relay_rows": 2,
    "cursor_byok.transport.cursor.relay_host": 2,
    "cursor_byok.transport.cursor.relay_pipe": 2,
    "cursor_byok.transport.wire.stream_writer": 3,
    "cursor_byok.transport.wire.run_stream": 3,
    "cursor_byok.transport.wire.server": 3,
    "cursor_byok.transport.wire.append_body": 3,
    "cursor_byok.transport.wire.health": 3,
    "cursor_byok.transport.wire.app": 3,
}
"""0 Connect primitives and protobuf, 1 the dialect (and the test client that
speaks it), 2 sessions, 3 the server. A module imports its own level or lower."""

TOP_LEVEL_ORDER = [
    "guards",
    "big_buffers",
    "collector",
    "allocator",
    "secret",
    "config_reader",
    "config_server",
    "terminal",
    "cli_base",
    "config",
    "demo_provider",
    "routing",
    "check",
    "demo",
    "workers",
    "serve",
    "cli",
    "__main__",
]
"""Each top-level module may import only the ones before it."""


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def transport_level(name: str) -> int | None:
    for prefix, level in TRANSPORT_LEVELS.items():
        if name == prefix or name.startswith(prefix + "."):
            return level
    return None


def test_every_transport_module_has_a_level() -> None:
    unplaced = [
        module_name(path)
        for path in modules_of("transport")
        if path.name != "__init__.py" and transport_level(module_name(path)) is None
    ]
    assert unplaced == []


def test_transport_imports_point_down_its_levels() -> None:
    violations = []
    for path in modules_of("transport"):
        own = transport_level(module_name(path))
        if own is None:
            continue
        for name in imports_of(path):
            if name == "cursor_byok.transport.cursor":
                continue  # `from cursor_byok.transport.cursor import dialect`: checked below
            level = transport_level(name)
            if level is not None and level > own:
                violations.append(f"{module_name(path)} (level {own}) imports {name}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "cursor_byok.transport.cursor":
                for alias in node.names:
                    level = transport_level(f"{node.module}.{alias.name}")
                    if level is not None and level > own:
                        violations.append(f"{module_name(path)} imports {alias.name}")
    assert violations == []


def test_runtime_imports_no_protobuf_and_no_transport() -> None:
    violations = [
        f"{path.name} imports {name}"
        for path in modules_of("runtime")
        for name in imports_of(path)
        if name.split(".")[0] == "google" or name.startswith("cursor_byok.transport")
    ]
    assert violations == []


@pytest.mark.parametrize("package", sorted(COMMAND_PACKAGES))
def test_command_packages_import_only_what_they_serve(package: str) -> None:
    violations = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for path in modules_of(package)
        for name in imports_of(path)
        if name.startswith("cursor_byok.") and name.split(".")[1] not in COMMAND_PACKAGES[package]
    ]
    assert violations == []


def test_top_level_modules_obey_the_direction() -> None:
    top = set(TOP_LEVEL_ORDER)
    violations = []
    for path in sorted(PACKAGE.glob("*.py")):
        if path.stem == "__init__":
            continue
        assert path.stem in top, f"{path.name}: place it in TOP_LEVEL_ORDER"
        allowed = set(TOP_LEVEL_ORDER[: TOP_LEVEL_ORDER.index(path.stem)])
        for name in imports_of(path):
            parts = name.split(".")
            mine = parts[0] == "cursor_byok" and len(parts) > 1 and parts[1] in top
            if mine and parts[1] not in allowed:
                violations.append(f"{path.name} imports {name}")
    for package in ALLOWED:
        for path in modules_of(package):
            for name in imports_of(path):
                parts = name.split(".")
                if parts[0] == "cursor_byok" and len(parts) > 1 and parts[1] in top:
                    violations.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert violations == []


BENCH = PACKAGE.parents[1] / "bench"


def test_benches_use_the_package_never_the_tests() -> None:
    violations = [
        f"{path.name} imports {name}"
        for path in sorted(BENCH.glob("*.py"))
        for name in imports_of(path)
        if name.split(".")[0] == "tests"
    ]
    assert violations == []


def test_formatting_is_never_skipped_outside_generated_code() -> None:
    root = PACKAGE.parents[1]
    skipped = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("src", "tests", "bench")
        for path in sorted((root / folder).rglob("*.py"))
        if "proto" not in path.relative_to(root).parts
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if line.rstrip().endswith(("# fmt" + ": skip", "# fmt" + ": off"))
    ]
    assert skipped == []


def test_the_checker_sees_a_violation() -> None:
    """Guard against a checker that can never fail (e.g. a wrong path)."""
    assert any("cursor_byok.llm.events" in names for names in map(imports_of, modules_of("loop")))
    sessions = PACKAGE / "transport" / "cursor" / "sessions.py"
    assert transport_level(module_name(sessions)) == 2
    assert "cursor_byok.transport.wire.codec" in imports_of(sessions)  # a level-0 import
    assert transport_level("cursor_byok.transport.wire.server") == 3
