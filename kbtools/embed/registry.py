"""Embedders by name: the names `[embedding] model` and `languages` in kb.toml may use.

Built in:

- ``use``: Universal Sentence Encoder multilingual v3, pure numpy (`kbtools.embed.use`).
- ``minilm``: all-MiniLM-L6-v2 in numpy, no torch. Questions are embedded by
  `kbtools.embed.bert` (one text, bfloat16 products where the CPU has them); builds by
  `kbtools.embed.bert_packed` (many texts per product, a text's vector the same bits in any
  batch). Both report the fingerprint of sentence-transformers for the same files
  (`sentence_models.minilm_reference`, the reference implementation the tests compare
  against): the three agree to cosine ≥ 0.999 (tested), so an index built by any answers
  questions embedded by any. A build's vectors also carry a revision (`embed.base.model_meta`):
  "3" for the numpy build path, "2" for sentence-transformers' before it, so the embedding
  cache never mixes the two.
- ``test-hash``: hashed character n-grams, for tests only (`kbtools.embed.hashed`).
- any other name: a sentence-transformers model name or local path, loaded offline.

`register_embedder(name, factory)` adds a backend: the factory gets the configured name and
returns an object with the `Embedder` interface (`kbtools.embed.base`); pass `reference=` a
second factory when builds must embed with another implementation than questions. The name
is used for file names in the index (``vectors-<name>.usearch``), so keep it to letters,
digits, ``-``, ``_`` and ``.``. A backend's fingerprint must change whenever its vectors would.

`get_embedder` is what questions (and model checks) use, `get_reference_embedder` what a
build uses; neither loads weights before the first `embed_batch`, and `model_loads()` counts
the loads that happened.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from kbtools.embed.base import Embedder, model_loads
from kbtools.embed.bert import minilm
from kbtools.embed.bert_packed import minilm_build
from kbtools.embed.hashed import hash_embedder
from kbtools.embed.sentence_models import sentence_transformer
from kbtools.embed.use import UseEmbedder
from kbtools.errors import UsageError

__all__ = ["get_embedder", "get_reference_embedder", "model_loads", "register_embedder",
           "registered_embedders"]

EmbedderFactory = Callable[[str], Embedder]

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_FACTORIES: dict[str, EmbedderFactory] = {}
_REFERENCES: dict[str, EmbedderFactory] = {}  # names whose builds embed differently
# a name nobody registered is a sentence-transformers model name or local path
FALLBACK: EmbedderFactory = sentence_transformer


def register_embedder(name: str, factory: EmbedderFactory, *, replace: bool = False,
                      reference: EmbedderFactory | None = None) -> None:
    """Make `name` (as written in kb.toml) load with `factory(name)`, and builds with
    `reference(name)` when given (else the same factory)."""
    if not NAME.match(name):
        raise UsageError(f"embedder name {name!r} must be letters, digits, '.', '-' or '_'")
    if name in _FACTORIES and not replace:
        raise UsageError(f"an embedder named {name!r} is already registered")
    _FACTORIES[name] = factory
    _REFERENCES.pop(name, None)
    if reference is not None:
        _REFERENCES[name] = reference
    get_embedder.cache_clear()
    get_reference_embedder.cache_clear()


def registered_embedders() -> list[str]:
    """The registered names (any other name means a sentence-transformers model)."""
    return sorted(_FACTORIES)


@lru_cache(maxsize=4)
def get_embedder(name: str) -> Embedder:
    """The embedder for a configured name, as questions use it. Cached per process."""
    return _FACTORIES.get(name, FALLBACK)(name)


@lru_cache(maxsize=4)
def get_reference_embedder(name: str) -> Embedder:
    """The embedder a build uses for a configured name (the one whose vectors ship)."""
    if name in _REFERENCES:
        return _REFERENCES[name](name)
    return get_embedder(name)


def _use(name: str) -> Embedder:
    return UseEmbedder()


register_embedder("use", _use)
register_embedder("minilm", minilm, reference=minilm_build)
register_embedder("test-hash", hash_embedder)
