"""Sessions: one per run request, joining its appends to its stream (registry,
inbox, outbox, sink, exec tracking, the memory budget, handover on reconnect)."""
