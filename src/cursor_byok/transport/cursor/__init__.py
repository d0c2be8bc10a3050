"""The Cursor dialect (protobuf <-> loop inputs and events, and the tools)
and the sessions that join a run's appends to its stream; plus the one
Cursor client the demo, tests and benches speak through."""
