"""What the command line prints: colour and a live status line on a terminal,
plain lines everywhere else (a pipe, a file, a log collector).

`NO_COLOR` (any value) turns colour off, and `TERM=dumb` makes a terminal
plain. `rich` does the rendering and is imported only when a terminal will
use it, so `--help` and piped output do not pay for it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from rich.console import Console

Piece = tuple[str, str | None]
"""Text and the colour to show it in on a terminal (None: the default)."""


def is_terminal(stream: TextIO, env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    isatty = getattr(stream, "isatty", None)
    return bool(isatty is not None and isatty()) and env.get("TERM") != "dumb"


class Printer:
    """Lines to one stream; styled and live only when it is a terminal."""

    def __init__(self, out: TextIO, env: Mapping[str, str] | None = None) -> None:
        env = os.environ if env is None else env
        self.out = out
        self.live = is_terminal(out, env)
        self.colour = self.live and not env.get("NO_COLOR")
        self._console: Console | None = None

    def console(self) -> Console:
        if self._console is None:
            from rich.console import Console  # noqa: PLC0415 (lazy: see the module doc)

            self._console = Console(
                file=self.out,
                no_color=not self.colour,
                highlight=False,
                markup=False,
                emoji=False,
                soft_wrap=True,
            )
        return self._console

    def line(self, *pieces: Piece | str) -> None:
        """One line made of pieces; a plain `str` piece has no colour."""
        parts = [(p, None) if isinstance(p, str) else p for p in pieces]
        if not self.live:
            print("".join(text for text, _ in parts), file=self.out)
            return
        from rich.text import Text  # noqa: PLC0415

        styled = Text.assemble(*((text, style or "") for text, style in parts))
        self.console().print(styled)

    @contextlib.contextmanager
    def status(self, text: str) -> Iterator[Callable[[str], None]]:
        """A live line (with a spinner) kept at the bottom while the block
        runs; yields a function that replaces its text. Off a terminal the
        line is not shown at all: a log file wants lines, not redraws."""
        if not self.live:
            yield lambda _text: None
            return
        with self.console().status(text) as status:
            yield status.update
