"""The Connect wire: the ASGI server on top; envelope framing, codecs and
error shapes as the primitives every part of transport may use."""
