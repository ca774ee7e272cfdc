"""Agent-facing operations over an opened index: the MCP server, section reads, recent
changes, field-report drafts. Imports query, index, decision, provenance, review.
"""
