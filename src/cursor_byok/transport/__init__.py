"""Cursor's side of the server: the Connect wire (`wire/`) and the Cursor
dialect (`cursor/`). Nothing outside this package sees protobuf or the Cursor
protocol. Imports point one way: the server (`wire.server`, `wire.app`,
`wire.stream_writer`) -> sessions (`cursor.sessions` and its registry, sink
and exec tracker) -> the dialect and tools -> the Connect primitives
(`wire.framing`, `wire.codec`, `wire.errors`) and the generated protobuf."""
