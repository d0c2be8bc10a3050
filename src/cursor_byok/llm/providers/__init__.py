"""One module per wire API. Each splits into a pure `build_request` (the
exact body, golden-tested) and a stream parser fed SSE events."""
