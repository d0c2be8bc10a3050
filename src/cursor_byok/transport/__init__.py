"""Cursor's side of the server. Nothing outside this package sees protobuf or
the Cursor protocol. One folder a layer, each importing only those below it:
`http/` (one port, the servers, `Run` streams) -> `sessions/` (a run's
appends joined to its stream) -> `dialect/` (protobuf <-> loop, the tools)
-> `connect/` (framing, codecs, errors) -> `proto/` (generated)."""
