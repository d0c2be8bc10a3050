"""CPU cost of the shell parse every shell tool call carries, over the grammar.

`parse_command` builds `ShellArgs.parsing_result`: tree-sitter's bash
grammar, then the listing of every command (wrappers followed) and the
checks for what bash would run unlisted. The baseline is the part any
tree-sitter parse pays on the same lines: parsing, and walking every node
once. Lines: a set of command lines an agent typically runs, and one long
line (a 300-command `&&` chain with a heredoc), to show the cost grows with
the line and not faster. No subprocess, no I/O.

Prints `shell_parse_us[<lines>]` (CPU microseconds per line, best of the
rounds), `grammar_us[<lines>]` and `shell_parse_over_grammar[<lines>]`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import tree_sitter
import tree_sitter_bash

from cursor_byok.transport.dialect.shell_parsing import parse_command

ROUNDS = 30
MIN_SECONDS = 0.05

TYPICAL = [
    "cd src && npm test",
    'git add -A && git commit -m "Fix the parser"',
    "git commit -m \"$(cat <<'EOF'\nFix the thing\n\nWith `code` in it.\nEOF\n)\"",
    "python -m pytest tests/ -q 2>&1 | tail -20",
    'find . -name "*.py" | xargs grep -l foo',
    "for f in src/*.py; do echo $f; done",
    'grep -rn "TODO" src/ --include="*.ts"',
    "sed -i 's/foo/bar/g' file.txt",
    "curl -s https://example.com/api | jq '.items[] | .name'",
    "kill $(lsof -t -i:3000)",
    "cat > file.py << 'EOF'\ndef f():\n    return 1\nEOF",
    "ps aux | grep node | awk '{print $2}' | xargs kill -9",
    "mkdir -p build && cd build && cmake .. && make -j$(nproc)",
    "sudo apt-get install -y jq",
    "timeout 60 npm test -- --coverage",
    'docker run --rm -v "$(pwd)":/app -w /app node:20 npm test',
    "nohup python app.py > app.log 2>&1 &",
    "ls ~/.cache | head",
    "env RUST_LOG=debug cargo run --release",
    "bash -c 'echo hi'",
]

LONG = [
    " && ".join(f"touch file{i} >> log{i}.txt" for i in range(300))
    + " && cat <<EOF\n"
    + "line $(date) `x` ${y:-z}\n" * 200
    + "EOF"
]


def per_run(run: Callable[[], None]) -> float:
    """CPU seconds of one `run`, averaged over at least MIN_SECONDS of repeats."""
    count = 0
    start = time.process_time()
    while True:
        run()
        count += 1
        elapsed = time.process_time() - start
        if elapsed >= MIN_SECONDS:
            return elapsed / count


def grammar(lines: list[str]) -> Callable[[], None]:
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    encoded = [line.encode() for line in lines]

    def run() -> None:
        for data in encoded:
            stack = [parser.parse(data).root_node]
            while stack:
                stack.extend(stack.pop().children)

    return run


def parse(lines: list[str]) -> Callable[[], None]:
    def run() -> None:
        for line in lines:
            parse_command(line)

    return run


def main() -> None:
    for label, lines in (("typical", TYPICAL), ("long", LONG)):
        ours, floor = parse(lines), grammar(lines)
        best_ours = best_floor = float("inf")
        for _ in range(ROUNDS):  # alternately, so load drifts hit both alike
            best_floor = min(best_floor, per_run(floor))
            best_ours = min(best_ours, per_run(ours))
        print(f"shell_parse_us[{label}] = {best_ours / len(lines) * 1e6:.1f}")
        print(f"grammar_us[{label}] = {best_floor / len(lines) * 1e6:.1f}")
        print(f"shell_parse_over_grammar[{label}] = {best_ours / best_floor:.2f}")


if __name__ == "__main__":
    main()
