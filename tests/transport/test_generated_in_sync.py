"""The committed protobuf modules are exactly what scripts/gen_proto.sh produces.

Catches a .proto edited without regenerating, and a generated file edited by hand.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
GENERATED = REPO_ROOT / "src" / "cursor_byok" / "transport" / "proto"


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.mark.skipif(importlib.util.find_spec("grpc_tools") is None, reason="needs grpcio-tools")
def test_committed_generated_code_matches_a_fresh_generation(tmp_path: Path) -> None:
    subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / "gen_proto.sh"), str(tmp_path)],
        check=True,
        env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"},
    )

    fresh = _files(tmp_path)
    assert fresh, "the generator produced nothing"
    assert _files(GENERATED) == fresh
