"""The Cursor dialect: protobuf <-> loop inputs and events, tools, and sessions."""
