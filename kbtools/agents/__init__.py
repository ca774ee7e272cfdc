"""Agent-facing operations over an opened index: the MCP server (`mcp_server`), section
reads (`read`), recent changes (`recent`) and field-report drafts (`draft`, an unverified
document on a new branch).

May import query, index, decision, review, build (cross-reference numbers), markdown,
provenance, config, corpus, schemas and errors; never ship or the CLI.
"""
