"""Persistence: conversation state, call records, input and tool de-duplication.

The store records what the loop decided; it decides nothing itself.
"""
