"""Embedders: a registry of named backends with one `embed_batch(texts)` interface, and the
vector cache keyed by model fingerprint and text hash. Heavy libraries are imported lazily.

`base` (the `Embedder` interface, the model-load counter), `registry` (name → factory,
`get_embedder` for questions, `get_reference_embedder` for builds), the backends `use`, `bert`
(MiniLM in numpy for questions) and `bert_packed` (for builds), `sentence_models`
(sentence-transformers: other models, the reranker, MiniLM's reference) and `hashed`
(`test-hash`), and `cache`. Imports config, errors and fsutil only.
"""
