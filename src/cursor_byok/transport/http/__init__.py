"""The HTTP side: one port for HTTP/1.1 and HTTP/2, the Connect server, `Run`
streams, the stream writer, the auxiliary RPCs and the wiring of a service."""
