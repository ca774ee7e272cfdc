"""Embedders: a registry of named backends with one `embed_batch(texts)` interface, and the
vector cache keyed by model fingerprint and text hash. Heavy libraries are imported lazily.

`base` (the `Embedder` interface), `registry` (name → factory, `get_embedder`), the backends
`use`, `sentence_models` (sentence-transformers, also the reranker) and `hashed` (`test-hash`),
and `cache`. Imports config, errors and fsutil only.
"""
