"""The Cursor dialect: protobuf to loop inputs and loop events to protobuf,
the tools the client runs, checkpoints and the context meter. No HTTP here."""
