"""The bounds of one fetch and one search: the `[web]` table fills them, the
defaults apply without it. Apart from the modules that do I/O, so reading
the configuration loads no HTTP client."""

from __future__ import annotations

from dataclasses import dataclass, field

from cursor_byok.runtime.web.addresses import PrivateHosts

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class FetchLimits:
    """What one fetch may cost, and where it may go."""

    timeout_s: float = 30.0
    """The whole fetch, redirects and body included: a page that drips in
    slowly is cut here."""
    first_byte_s: float = 10.0
    """Each hop's name lookup, connection and response head."""
    max_bytes: int = 5 * MIB
    """Body bytes read (after decompression); reading stops here."""
    max_chars: int = 100_000
    """Characters of markdown or text handed on; the rest is cut, and the
    cut is stated."""
    max_redirects: int = 5
    private_hosts: PrivateHosts = field(default_factory=PrivateHosts)
    """Private hosts and networks that may be fetched (an intranet); none
    by default."""


@dataclass(frozen=True, slots=True)
class SearchLimits:
    """What one search may cost."""

    max_results: int = 8
    timeout_s: float = 20.0
    max_chunk_chars: int = 30_000
    """Per reference: a backend that returns whole pages is cut here."""
    max_response_bytes: int = 4 * MIB
