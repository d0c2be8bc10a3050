"""A GOAWAY that leaves h2's connection open.

h2 closes its whole state machine on a GOAWAY it receives, so a stream the
GOAWAY lets finish (RFC 9113 section 6.8) could neither send nor receive
another frame. The server's connection and the project's client both take
a GOAWAY as a report instead, made here as h2 would make it.
"""

from __future__ import annotations

import h2.errors
import h2.events
from hyperframe.frame import GoAwayFrame


def goaway_received(frame: GoAwayFrame) -> h2.events.ConnectionTerminated:
    """The event h2 reports for `frame`, its state machine left as it was."""
    event = h2.events.ConnectionTerminated()
    event.error_code = h2.errors._error_code_from_int(frame.error_code)
    event.last_stream_id = frame.last_stream_id
    event.additional_data = frame.additional_data or None
    return event
