"""What fitting an image costs when it enters a conversation (llm/image_fit.py).

Prints, from one run on this machine (median of rounds):
  fit_ms[within] = X        a 1600x1000 PNG screenshot within the limits: the
                            header is read, the bytes are kept (no decode)
  fit_ms[jpeg 4000x3000] = X    a 12-megapixel photo scaled to 2000 px (JPEG
                            decoded at a reduced scale, then Lanczos)
  fit_ms[png 2400x1600] = X     a noisy screenshot over 2000 px and the bytes
                            limit: decoded, scaled, encoded until it fits
  peak_rss_mib[jpeg 4000x3000] = X (read only: X)
                            a fresh process's peak resident memory when it
                            fits the photo, and when it only imports the
                            server's code and reads the file (Pillow's
                            buffers included: the decode is at half scale)
  peak_rss_mib[bomb] = X (read only: X)
                            the same for a 60000x60000 PNG header (refused
                            from its header, never decoded)
"""

from __future__ import annotations

import io
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from PIL import Image

from cursor_byok.llm.image_fit import fit

ROUNDS = 5


def picture(width: int, height: int, fmt: str, noise: bool) -> bytes:
    if noise:
        image = Image.effect_noise((width, height), 60).convert("RGB")
    else:
        image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    out = io.BytesIO()
    image.save(out, fmt)
    return out.getvalue()


def bomb() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 60_000, 60_000, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def median_ms(work: Callable[[], object]) -> float:
    times = []
    for _ in range(ROUNDS):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


RSS_CHILD = """
import resource, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from cursor_byok.llm.image_fit import fit
data = Path(sys.argv[1]).read_bytes()
mime = "image/jpeg" if data.startswith(bytes.fromhex("ffd8ff")) else "image/png"
if sys.argv[3] == "fit":
    fit(data, mime)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def rss_mib(data: bytes) -> tuple[float, float]:
    """A fresh process's peak RSS when it fits `data`, and when it only
    reads it (the median of rounds of each)."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    with tempfile.NamedTemporaryFile(suffix=".img") as file:
        file.write(data)
        file.flush()

        def peak(what: str) -> float:
            argv = [sys.executable, "-c", RSS_CHILD, file.name, src, what]
            done = subprocess.run(argv, capture_output=True, text=True, check=True)
            return float(done.stdout)

        fitted = statistics.median(peak("fit") for _ in range(3))
        read = statistics.median(peak("read") for _ in range(3))
    return fitted, read


def main() -> None:
    within = picture(1600, 1000, "PNG", noise=False)
    photo = picture(4000, 3000, "JPEG", noise=True)
    noisy = picture(2400, 1600, "PNG", noise=True)
    print(f"fit_ms[within] = {median_ms(lambda: fit(within, 'image/png')):.2f}")
    print(f"fit_ms[jpeg 4000x3000] = {median_ms(lambda: fit(photo, 'image/jpeg')):.1f}")
    print(f"fit_ms[png 2400x1600] = {median_ms(lambda: fit(noisy, 'image/png')):.1f}")
    for name, data in (("jpeg 4000x3000", photo), ("bomb", bomb())):
        fitted, read = rss_mib(data)
        print(f"peak_rss_mib[{name}] = {fitted:.1f} (read only: {read:.1f})")


if __name__ == "__main__":
    main()
