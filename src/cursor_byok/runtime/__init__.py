"""The Cursor-agnostic driver: the runner that executes the loop's commands
(store, model calls) and feeds their results back, plus observability."""
