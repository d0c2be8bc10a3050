"""The Cursor side, built in: a client that speaks the protocol as the official
ones do, the editor that runs its tools, and `cursor-byok demo` with its
replayed provider. The server never imports this package."""
