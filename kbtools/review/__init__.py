"""Review: what `verified` means, the reviewer policy, approve, pending and review diffs.
Imports provenance and check; never ship, query or agents.
"""
