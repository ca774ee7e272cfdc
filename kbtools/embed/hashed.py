"""The ``test-hash`` embedder: hashed character n-grams, no model files, fully deterministic.

For tests of pipeline logic that are not about embedding quality (configure it with
``[embedding] model = "test-hash"``): it loads instantly and gives the same vectors on every
machine and in every process. Texts sharing many character n-grams get a high cosine, so a
question still lands near the passage it quotes, but it knows no meaning; never ship it.
"""

from __future__ import annotations

import hashlib
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from kbtools.embed.base import Vectors, empty, normalise

VERSION = "1"  # bump when the vectors change for the same text (it is in the fingerprint)


@dataclass
class HashEmbedder:
    key: str = "test-hash"
    dim: int = 256
    ngrams: tuple[int, ...] = (1, 2, 3)
    model_id: str = field(init=False)

    def __post_init__(self) -> None:
        sizes = ",".join(map(str, self.ngrams))
        self.model_id = f"test-hash (character {sizes}-grams hashed to {self.dim} dims; tests only)"

    def fingerprint(self) -> str:
        return f"test-hash:v{VERSION}:{self.dim}:" + ",".join(map(str, self.ngrams))

    def embed_batch(self, texts: list[str]) -> Vectors:
        if not texts:
            return empty(self.dim)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for gram in self._grams(text):
                digest = hashlib.blake2b(gram.encode("utf-8"), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dim
                out[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return normalise(out)

    def _grams(self, text: str) -> list[str]:
        folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
        return [folded[i:i + n] for n in self.ngrams for i in range(len(folded) - n + 1)]


def hash_embedder(name: str) -> HashEmbedder:
    """The registry's factory for ``test-hash``."""
    return HashEmbedder(key=name)
