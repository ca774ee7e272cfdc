"""Query: hybrid search over an opened index (filters, BM25 + vector candidates, fusion,
no-answer threshold, cited results) and retrieval-quality evaluation. Imports index and embed.
"""
