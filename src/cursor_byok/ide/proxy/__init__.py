"""`cursor-byok proxy`: Cursor's agent RPCs to this server, everything else to Cursor.

mitmproxy does the intercepting (as a library, with our addon); it is imported
only on the `proxy` command's path, so the rest of the CLI starts fast.
"""

DEFAULT_PROXY_PORT = 8418
"""Next to the server's default 8417."""
