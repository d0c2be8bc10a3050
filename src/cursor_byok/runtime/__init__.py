"""The Cursor-agnostic driver: the runner that executes the loop's commands
(store, model calls) and feeds their results back, the store form of the
records the loop names, model-call retries, and observability. It imports no
protobuf and nothing of `transport`; it decides nothing the loop could."""
