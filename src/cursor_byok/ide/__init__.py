"""Reaching the Cursor IDE: the intercepting proxy (`proxy/`) and Cursor's user
settings that point the IDE at it.

Never Cursor's state database or application files: edits there are what
lost users their logins. The settings file is JSON with comments; edits keep
the user's comments and formatting, and `undo` restores the saved bytes.
"""

PROBE_HOST = "api2.cursor.sh"
"""The Cursor host `ide status` requests through the proxy."""
