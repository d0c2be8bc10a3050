"""Files this installation writes for the user (the proxy's CA, Cursor's
settings) are replaced whole: a crash mid-write never leaves half a file."""

from __future__ import annotations

import os
from pathlib import Path


def replace_whole(path: Path, data: bytes, mode: int | None = None) -> None:
    """Write `data` beside `path` (created readable by the user alone), flush
    it to disk, give it `mode` if one is given, then rename it over `path`."""
    partial = path.with_name(f".{path.name}.cursor-byok-tmp")
    partial.unlink(missing_ok=True)
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(partial, mode)
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
