"""Connect server, Bidi/RunSSE, the Cursor dialect, and the runner that glues
the pure loop to the network, the LLM adapters and the store."""
