"""The Connect wire: the ASGI server, envelope framing, codecs and error shapes."""
