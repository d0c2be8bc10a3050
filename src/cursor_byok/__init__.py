"""cursor-byok: the Cursor agent protocol, answered with your own LLM keys."""

__version__ = "0.1.0"
