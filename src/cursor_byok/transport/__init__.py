"""Cursor's side of the server: the Connect wire (`wire/`) and the Cursor
dialect (`cursor/`). Nothing outside this package sees protobuf or HTTP/2."""
