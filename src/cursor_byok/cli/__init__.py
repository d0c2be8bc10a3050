"""The command line: `cursor-byok` and each of its commands."""
