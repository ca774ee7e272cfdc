"""Query: the pipeline from a question to cited results (`search`: cleaning, filters and
routing, BM25 + vector candidates, `fusion`, the no-answer threshold), the typed results
(`results`: `SearchResponse`, `SearchResult`, `Citation`) and retrieval-quality evaluation
(`quality`, behind `kb eval`).

May import index, embed, config and errors; never build, ship, agents or the CLI.
"""
