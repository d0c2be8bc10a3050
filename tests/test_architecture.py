"""The dependency direction of the design (DESIGN.md §2), checked on the source.

The packages stand in one order, each importing only itself and those below:
llm <- loop <- store <- runtime <- transport <- cluster <- config <- client
<- ide <- cli. `loop` uses only the llm contracts and imports nothing that
does I/O; `runtime` imports no protobuf. Inside transport each folder is a
layer: http -> sessions -> dialect -> connect -> proto. The server never
imports the built-in client; the benches use the package, never the tests.
The package sends HTTP with aiohttp alone. No import circle, no module over
450 lines, at most ten entries at the top.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "cursor_byok"

ORDER = [
    "llm",
    "loop",
    "store",
    "runtime",
    "transport",
    "cluster",
    "config",
    "client",
    "ide",
    "cli",
]
"""Bottom to top: a package imports only itself and the packages before it."""

TRANSPORT_FOLDERS = ["proto", "connect", "dialect", "sessions", "http"]
"""Bottom to top inside `transport/`."""

CLI_ORDER = [
    "history_lines",
    "subagent_lines",
    "terminal",
    "tuning",
    "workers",
    "base",
    "token_command",
    "check",
    "serve",
    "conversations_command",
    "usage_command",
    "users_command",
    "proxy_arguments",
    "proxy_command",
    "ide_command",
    "main",
]
"""Inside `cli/`: each module imports only the ones before it."""

CLIENT_USERS = {"cursor_byok.cli.main"}
"""The one server-side module that may load the built-in client: the command
line, for `cursor-byok demo`."""

OTHER_HTTP_CLIENTS = {"httpx", "httpx2"}
"""Client libraries the package never imports: aiohttp is its one HTTP client
(provider calls, the built-in client, `ide status`). Tests may use httpx2 to
check the server with a client independent of the package's."""

MAX_LINES = 450
MAX_TOP_LEVEL_ENTRIES = 10

# Modules of `llm` the pure loop may use: the contracts, not the adapters.
LOOP_MAY_USE_FROM_LLM = {
    "cursor_byok.llm",
    "cursor_byok.llm.types",
    "cursor_byok.llm.events",
    "cursor_byok.llm.serialize",
    "cursor_byok.llm.shared_tuple",  # the history's sequence: plain data, no I/O
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


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def source_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def import_graph() -> dict[str, list[str]]:
    """Module -> the modules of ours it imports; `from package import module`
    counts as importing the module."""
    modules = source_modules()
    graph: dict[str, list[str]] = {}
    for name, path in modules.items():
        targets: list[str] = []
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets.extend(a.name for a in node.names if a.name.startswith("cursor_byok"))
            elif isinstance(node, ast.ImportFrom) and node.module:
                if not node.module.startswith("cursor_byok"):
                    continue
                targets.append(node.module)
                targets.extend(
                    f"{node.module}.{a.name}"
                    for a in node.names
                    if f"{node.module}.{a.name}" in modules
                )
        graph[name] = sorted(set(targets) - {name})
    return graph


def _rank(name: str, order: list[str], depth: int) -> int | None:
    parts = name.split(".")
    if len(parts) <= depth or parts[depth] not in order:
        return None
    return order.index(parts[depth])


def direction_violations(
    graph: Mapping[str, Iterable[str]], order: list[str], depth: int, within: str = "cursor_byok"
) -> list[str]:
    """Imports from a module under `within` whose part at `depth` of its
    dotted name ranks below the imported module's part at the same depth."""
    found = []
    for module, targets in graph.items():
        if not module.startswith(within + "."):
            continue
        own = _rank(module, order, depth)
        for target in targets:
            if not target.startswith(within + "."):
                continue
            theirs = _rank(target, order, depth)
            if own is not None and theirs is not None and theirs > own:
                found.append(f"{module} imports {target}")
    return found


def test_every_package_is_placed() -> None:
    entries = {
        path.stem if path.suffix == ".py" else path.name
        for path in PACKAGE.iterdir()
        if path.name != "__pycache__"
    }
    assert entries - {"__init__", "__main__", "py"} - set(ORDER) <= {"py.typed"}
    assert set(ORDER) <= entries
    for folder in TRANSPORT_FOLDERS:
        assert (PACKAGE / "transport" / folder / "__init__.py").is_file()
    transport = {p.name for p in (PACKAGE / "transport").iterdir() if p.is_dir()}
    assert transport - {"__pycache__"} == set(TRANSPORT_FOLDERS)
    assert {p.stem for p in (PACKAGE / "cli").glob("*.py")} - {"__init__"} == set(CLI_ORDER)


def test_the_top_level_is_short() -> None:
    entries = [
        p.name
        for p in PACKAGE.iterdir()
        if p.name not in {"__init__.py", "__main__.py", "py.typed", "__pycache__"}
    ]
    assert len(entries) <= MAX_TOP_LEVEL_ENTRIES, sorted(entries)


def test_packages_import_only_downwards() -> None:
    assert direction_violations(import_graph(), ORDER, 1) == []


def test_transport_folders_import_only_downwards() -> None:
    graph = import_graph()
    assert direction_violations(graph, TRANSPORT_FOLDERS, 2, "cursor_byok.transport") == []


def test_cli_modules_import_only_downwards() -> None:
    assert direction_violations(import_graph(), CLI_ORDER, 2, "cursor_byok.cli") == []


def test_the_ide_proxy_knows_nothing_of_the_ide_settings() -> None:
    """`ide/proxy/` is the layer below `ide/`: the settings commands use it."""
    violations = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if module.startswith("cursor_byok.ide.proxy")
        for target in targets
        if target.startswith("cursor_byok.ide.") and not target.startswith("cursor_byok.ide.proxy")
    ]
    assert violations == []


def test_the_server_never_imports_the_built_in_client() -> None:
    violations = [
        f"{module} imports {target}"
        for module, targets in import_graph().items()
        if not module.startswith("cursor_byok.client") and module not in CLIENT_USERS
        for target in targets
        if target == "cursor_byok.client" or target.startswith("cursor_byok.client.")
    ]
    assert violations == []


def package_imports() -> dict[str, list[str]]:
    """Module -> every module it imports, ours or not, wherever in the file
    (inside functions and under TYPE_CHECKING too)."""
    return {name: imports_of(path) for name, path in source_modules().items()}


def imports_of_libraries(imports: Mapping[str, Iterable[str]], libraries: set[str]) -> list[str]:
    """Imports of any module of `libraries` (by top-level name)."""
    return [
        f"{module} imports {name}"
        for module, names in imports.items()
        for name in names
        if name.split(".")[0] in libraries
    ]


def test_the_package_uses_one_http_client_library() -> None:
    assert imports_of_libraries(package_imports(), OTHER_HTTP_CLIENTS) == []


def test_the_top_level_modules_only_start_the_command_line() -> None:
    graph = import_graph()
    assert graph["cursor_byok"] == []
    assert graph["cursor_byok.__main__"] == ["cursor_byok.cli.main"]


def circles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in graph:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circle() -> None:
    """Type-checking imports count too: a circle there is still a circle to a reader."""
    graph = {
        module: [t for t in targets if not (module.startswith(t + ".") and t != module)]
        for module, targets in import_graph().items()
    }
    assert circles(graph) == []


def test_no_module_is_long() -> None:
    long = [
        f"{path.relative_to(PACKAGE)}: {lines} lines"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "proto" not in path.relative_to(PACKAGE).parts
        and (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    ]
    assert long == []


def test_the_checkers_see_violations() -> None:
    """Guard against checkers that can never fail: a lower folder importing a
    higher one, a package importing one above it, a circle."""
    upward = {"cursor_byok.transport.connect.codec": ["cursor_byok.transport.http.server"]}
    assert direction_violations(upward, TRANSPORT_FOLDERS, 2, "cursor_byok.transport") == [
        "cursor_byok.transport.connect.codec imports cursor_byok.transport.http.server"
    ]
    sideways = {"cursor_byok.transport.http.server": ["cursor_byok.transport.connect.codec"]}
    assert direction_violations(sideways, TRANSPORT_FOLDERS, 2, "cursor_byok.transport") == []
    assert direction_violations({"cursor_byok.store.x": ["cursor_byok.runtime.y"]}, ORDER, 1)
    assert circles({"a": ["b"], "b": ["a"], "c": ["a"]}) == [["a", "b"]]
    graph = import_graph()
    assert "cursor_byok.transport.connect.codec" in graph["cursor_byok.transport.sessions.hub"]
    assert "cursor_byok.llm.events" in graph["cursor_byok.loop.transition"]
    planted = {"cursor_byok.ide.status": ["json", "httpx2"], "cursor_byok.x": ["httpx._client"]}
    assert imports_of_libraries(planted, OTHER_HTTP_CLIENTS) == [
        "cursor_byok.ide.status imports httpx2",
        "cursor_byok.x imports httpx._client",
    ]
    # A library imported only inside a function is seen (llm/http.py's aiohttp).
    assert "aiohttp" in package_imports()["cursor_byok.llm.http"]


def test_loop_uses_only_llm_contracts_and_no_io() -> None:
    violations = []
    for path in modules_of("loop"):
        for name in imports_of(path):
            if name.startswith("cursor_byok.llm") and name not in LOOP_MAY_USE_FROM_LLM:
                violations.append(f"{path.name} imports {name}")
            if name.split(".")[0] in LOOP_FORBIDDEN_TOP_LEVEL:
                violations.append(f"{path.name} imports {name}")
    assert violations == []


def test_runtime_imports_no_protobuf_and_no_transport() -> None:
    violations = [
        f"{path.name} imports {name}"
        for path in modules_of("runtime")
        for name in imports_of(path)
        if name.split(".")[0] == "google" or name.startswith("cursor_byok.transport")
    ]
    assert violations == []


PROTOBUF_SPEAKERS = ("transport", "client")
"""Protobuf lives in the Cursor side of the server and in the built-in client."""


def test_protobuf_stays_in_transport_and_the_client() -> None:
    violations = [
        f"{path.relative_to(PACKAGE)} imports {name}"
        for package in ORDER
        if package not in PROTOBUF_SPEAKERS
        for path in modules_of(package)
        for name in imports_of(path)
        if name.startswith(("google.protobuf", "cursor_byok.transport.proto"))
    ]
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
