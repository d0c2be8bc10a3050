"""`cursor-byok ide`: point Cursor at the proxy through its user settings only.

Never Cursor's state database or application files: edits there are what
lost users their logins. The settings file is JSON with comments; edits keep
the user's comments and formatting, and `undo` restores the saved bytes.
"""

PROBE_HOST = "api2.cursor.sh"
"""The Cursor host `ide status` requests through the proxy."""
