"""Connect and gRPC primitives: envelope framing, codecs, error codes and body
readers. Nothing here knows what Cursor means by a message."""
