"""`python -m cursor_byok`: the same as the `cursor-byok` command."""

from __future__ import annotations

import sys

from cursor_byok.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
