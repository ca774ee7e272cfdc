"""Embedders by name: the names `[embedding] model` and `languages` in kb.toml may use.

Built in:

- ``use``: Universal Sentence Encoder multilingual v3, pure numpy (`kbtools.embed.use`).
- ``minilm``: all-MiniLM-L6-v2 through sentence-transformers (`kbtools.embed.sentence_models`).
- ``test-hash``: hashed character n-grams, for tests only (`kbtools.embed.hashed`).
- any other name: a sentence-transformers model name or local path, loaded offline.

`register_embedder(name, factory)` adds a backend: the factory gets the configured name and
returns an object with the `Embedder` interface (`kbtools.embed.base`). The name is used for
file names in the index (``vectors-<name>.usearch``), so keep it to letters, digits, ``-``, ``_``
and ``.``. A backend's fingerprint must change whenever its vectors would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from kbtools.embed.base import Embedder
from kbtools.embed.hashed import hash_embedder
from kbtools.embed.sentence_models import minilm, sentence_transformer
from kbtools.embed.use import UseEmbedder
from kbtools.errors import UsageError

EmbedderFactory = Callable[[str], Embedder]

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_FACTORIES: dict[str, EmbedderFactory] = {}
# a name nobody registered is a sentence-transformers model name or local path
FALLBACK: EmbedderFactory = sentence_transformer


def register_embedder(name: str, factory: EmbedderFactory, *, replace: bool = False) -> None:
    """Make `name` (as written in kb.toml) load with `factory(name)`."""
    if not NAME.match(name):
        raise UsageError(f"embedder name {name!r} must be letters, digits, '.', '-' or '_'")
    if name in _FACTORIES and not replace:
        raise UsageError(f"an embedder named {name!r} is already registered")
    _FACTORIES[name] = factory
    get_embedder.cache_clear()


def registered_embedders() -> list[str]:
    """The registered names (any other name means a sentence-transformers model)."""
    return sorted(_FACTORIES)


@lru_cache(maxsize=4)
def get_embedder(name: str) -> Embedder:
    """The embedder for a configured name. Cached: models load once per process."""
    return _FACTORIES.get(name, FALLBACK)(name)


def _use(name: str) -> Embedder:
    return UseEmbedder()


register_embedder("use", _use)
register_embedder("minilm", minilm)
register_embedder("test-hash", hash_embedder)
