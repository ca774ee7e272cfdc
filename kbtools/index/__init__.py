"""The index: where every file of a release lives (`layout`), opening one for reading
(`reader`: `open_index`, `KbIndex`), the manifest (`manifest`), and the structures derived from
`data/` (`materialize`: the SQLite chunk store `store`, BM25 `bm25` over the `tokenize`
analyzer, usearch graphs `vectors`).

May import embed (the model check), schemas, config, errors and fsutil; never build, query,
ship, agents or the CLI.
"""
