"""Embedders: a registry of named backends with one `embed_batch(texts)` interface, and the
vector cache keyed by model fingerprint and text hash. Heavy libraries are imported lazily.
"""
