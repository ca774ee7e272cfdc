"""The index: the layout of a built release (`data/`, `index/`, manifest), its reader, and the
derived structures (SQLite chunk store, BM25, usearch vectors, tokenizer). May import embed;
never build, query, ship or agents.
"""
