"""The build stage: knowledge files → document trees → chunks → rendered artifacts → vectors →
`data/` + manifest → the derived `index/` (`pipeline`: `build`, `seed_cache`), plus `kb watch`
(`watch`).

Owns the chunk records (`records`), cross-reference resolution (`xref`) and the chunker
(`chunk` over `chunk_text`, `chunk_sections`, `chunk_fine`). May import check, render,
markdown, embed, index, provenance, config, corpus, errors and fsutil; never query, ship,
agents or the CLI.
"""
