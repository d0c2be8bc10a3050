"""Start-up benchmark: how long a command takes before it is useful.

Prints, from one run (medians of REPEATS alternating runs, seconds):
  python_s = X         a bare `python -c pass`: the floor every command pays
  help_s = X           `cursor-byok --help` to exit (goal <= 0.15)
  serve_ready_s = X    `cursor-byok serve` spawned -> first `GET /healthz` answered
                       (goal <= 0.3)
The configuration is a temporary file with one OpenAI-compatible model on
loopback (no key, no network), the database a new file in a temporary folder.
`--baseline-src DIR` also times another tree's package (e.g. an older
checkout's src/), alternately in the same run: `baseline_help_s`,
`baseline_serve_ready_s`.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPEATS = 7
COMMAND = [sys.executable, "-m", "cursor_byok"]
CONFIG = """
default_model = "local"
[providers.local]
api = "openai-chat"
base_url = "http://127.0.0.1:9/v1"
[models.local]
provider = "local"
model = "local-model"
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def timed_run(args: list[str], env: dict[str, str] | None = None) -> float:
    began = time.perf_counter()
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - began


def healthz(port: int) -> bool:
    """One `GET /healthz`; True when it answered 200."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            head = f"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nconnection: close\r\n\r\n"
            conn.sendall(head.encode())
            return conn.recv(64).startswith(b"HTTP/1.1 200")
    except OSError:
        return False


def serve_ready(folder: Path, env: dict[str, str] | None = None) -> float:
    port = free_port()
    config = folder / "config.toml"
    config.write_text(CONFIG)
    database = folder / f"state-{port}.sqlite3"
    args = [
        *COMMAND,
        "--config",
        str(config),
        "serve",
        "--port",
        str(port),
        "--database",
        str(database),
    ]
    began = time.perf_counter()
    process = subprocess.Popen(args, stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    try:
        while not healthz(port):
            if process.poll() is not None:
                raise RuntimeError(f"serve exited with {process.returncode}")
            if time.perf_counter() - began > 30:
                raise RuntimeError("serve did not answer within 30 s")
            time.sleep(0.002)
        return time.perf_counter() - began
    finally:
        process.terminate()
        process.wait(10)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument(
        "--baseline-src",
        type=Path,
        default=None,
        help="also time the cursor_byok package under this folder",
    )
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURSOR_BYOK")}
    env.pop("PYTHONPATH", None)
    trees = {"": env}
    if args.baseline_src is not None:
        trees["baseline_"] = {**env, "PYTHONPATH": str(args.baseline_src.resolve())}
    bare: list[float] = []
    helps: dict[str, list[float]] = {name: [] for name in trees}
    serves: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        for _ in range(args.repeats):  # alternated, so load drifts hit all alike
            bare.append(timed_run([sys.executable, "-c", "pass"], env))
            for name, tree_env in trees.items():
                helps[name].append(timed_run([*COMMAND, "--help"], tree_env))
                serves[name].append(serve_ready(Path(tmp), tree_env))
    print(f"python_s = {statistics.median(bare):.3f}")
    for name in trees:
        print(f"{name}help_s = {statistics.median(helps[name]):.3f}")
        print(f"{name}serve_ready_s = {statistics.median(serves[name]):.3f}")


if __name__ == "__main__":
    main()
