"""The build stage: knowledge files → chunks → rendered artifacts → vectors → `data/` + manifest.

Owns chunk records, cross-reference resolution, the chunker and the build pipeline (`kb build`,
`kb watch`). May import markdown, render, check, embed and index; never query, ship or agents.
"""
