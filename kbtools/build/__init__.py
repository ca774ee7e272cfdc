"""The build stage: knowledge files → document trees → chunks → rendered artifacts → vectors →
`data/` + manifest → the derived `index/` (`pipeline`: `build`; `embed_stage.seed_cache`), plus `kb watch`
(`watch`).

Owns the chunk records (`records`), cross-reference resolution (`xref`) and the chunker
(`chunk` over `chunk_text`, `chunk_sections`, `chunk_fine`) and `verified` per chunk
(`verified`, over `kbtools.review.lapse`). May import check, render, markdown, embed, index,
review, provenance, config, corpus, errors and fsutil; never query, ship, agents or the CLI.
"""
