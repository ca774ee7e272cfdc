"""MiniLM for builds in numpy: many texts per matrix product, each vector the same bits
whatever it is batched with.

A build stores the vectors it computes (float16, in `data/` and in the embedding cache), and
a warm build embeds only the texts its cache lacks, in other batches than a cold build of
the same commit: to write the same bytes, a text's vector must depend on the text alone —
not on the rest of its batch, the batch's order, the BLAS thread count or the process.

`PackedEncoder` runs `NumpyBert`'s arithmetic (same weights, same layer norm, GELU and
softmax) with the tokens of a whole batch laid end to end, no padding between texts:

- the linear layers (query/key/value, attention output, the feed-forward pair: nearly all of
  the multiply-adds) are one matrix product over every token of the batch. OpenBLAS computes
  a row of a product the same way whatever the other rows, except for a product of few rows,
  which it hands to kernels that sum in another order; so every product has at least
  `MIN_ROWS` rows (`use_windows.matmul`, zero-padded), as for USE;
- attention runs per text on that text's rows only, so its products have the text's own
  shapes in any batch;
- the embeddings, layer norms and GELU work row by row, and a text's mean pools its own rows.

Texts are not sorted or padded to a common length, so a batch costs what its tokens cost
(sentence-transformers embedding each text alone on one torch thread, the reference it
replaces, cost about as much CPU but needed torch). The vectors agree with
sentence-transformers' to cosine ≥ 0.999 and are the same bits alone, in any batch and on
one BLAS thread or two (`tests/test_embed_bert.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from kbtools.embed.base import Vectors, blas_threads, empty, normalise, record_load
from kbtools.embed.bert import (
    F32,
    MINILM_ID,
    BertFiles,
    Layer,
    NumpyBert,
    gelu_in_place,
    layer_norm,
    minilm_root,
)
from kbtools.embed.use_windows import matmul

# tokens per group of linear-layer products: a few thousand rows keep the activations of the
# feed-forward layer (tokens × 1536 floats) within a few tens of MB; a text is never split
TOKEN_BUDGET = 4096
# rows per block from the attention's output on: the feed-forward activations of a block
# (512 × 1536 floats, 3 MB) stay in the CPU's cache, and OpenBLAS is at full speed at this
# size (aliyun's English chunks: 3.8-4.1 CPU-s, 256 rows 4.1, 128 rows 4.3-4.7). A row's
# result does not depend on the block it is in (tested: any batch, the same bits)
BLOCK = 512


class PackedEncoder:
    """`NumpyBert`'s forward pass over many texts at once, each text's vector independent of
    the others (see the module docstring)."""

    def __init__(self, model: NumpyBert):
        self.model = model
        s = model.settings
        self.heads, self.head = s.heads, s.hidden // s.heads
        self.scale = np.float32(1.0 / np.sqrt(self.head))

    def encode(self, texts: list[str]) -> Vectors:
        """Unit vectors for `texts`, one row each, in the order given."""
        m = self.model
        if not texts:
            return empty(m.dim)
        seqs = [e.ids for e in m.tokenizer.encode_batch(list(texts))]
        out = np.zeros((len(texts), m.dim), dtype=np.float32)
        start = 0
        while start < len(seqs):
            end, tokens = start, 0
            while end < len(seqs) and (end == start or tokens + len(seqs[end]) <= TOKEN_BUDGET):
                tokens += len(seqs[end])
                end += 1
            out[start:end] = self._pooled(seqs[start:end])
            start = end
        return normalise(out)

    def _pooled(self, seqs: list[list[int]]) -> F32:
        """The mean of each sequence's last hidden states."""
        m, s = self.model, self.model.settings
        lengths = [len(q) for q in seqs]
        bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        spans = list(zip(bounds[:-1], bounds[1:], strict=True))
        ids = np.concatenate([np.asarray(q, dtype=np.int64) for q in seqs])
        positions = np.concatenate([np.arange(n, dtype=np.int64) for n in lengths])
        x = m.word[ids] + m.position[positions] + m.token_type[0][None]
        x = layer_norm(x, *m.embed_norm, s.eps)
        for layer in m.layers:
            qkv = matmul(x, layer.qkv.T)
            qkv += layer.qkv_bias
            ctx = np.empty_like(x)
            for a, b in spans:
                ctx[a:b] = self._attention(qkv[a:b])
            for a in range(0, len(x), BLOCK):  # the rest row by row: blocks stay in cache
                x[a:a + BLOCK] = self._feed_forward(layer, ctx[a:a + BLOCK], x[a:a + BLOCK])
        pooled = np.empty((len(seqs), s.hidden), dtype=np.float32)
        for row, (a, b) in enumerate(spans):
            pooled[row] = x[a:b].sum(axis=0) / np.float32(b - a)
        return pooled

    def _feed_forward(self, layer: Layer, ctx: F32, x: F32) -> F32:
        """A block of rows from the attention's output to the layer's output."""
        eps = self.model.settings.eps
        h = matmul(ctx, layer.attn_out.T)
        h += layer.attn_out_bias
        h += x
        h = layer_norm(h, *layer.attn_norm, eps)
        inner = matmul(h, layer.inter.T)
        inner += layer.inter_bias
        out = matmul(gelu_in_place(inner), layer.out.T)
        out += layer.out_bias
        out += h
        return layer_norm(out, *layer.out_norm, eps)

    def _attention(self, qkv: F32) -> F32:
        """Self-attention of one text over its own tokens: (length, 3·hidden) → (length,
        hidden)."""
        length = qkv.shape[0]
        q, k, v = qkv.reshape(length, 3, self.heads, self.head).transpose(1, 2, 0, 3)
        scores: npt.NDArray[np.float32] = (q @ k.transpose(0, 2, 1)) * self.scale
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx: F32 = (scores @ v).transpose(1, 0, 2).reshape(length, self.heads * self.head)
        return ctx


@dataclass
class PackedBertEmbedder(BertFiles):
    """The `Embedder` a build uses for a BERT model of `NumpyBert`'s kind (``minilm``):
    `PackedEncoder` on `threads` BLAS threads; weights load on the first `embed_batch`. Its
    fingerprint is the model files', as for the question path (`bert.BertEmbedder`) and
    sentence-transformers: the three agree to cosine ≥ 0.999, so an index built by one
    answers questions embedded by another."""

    # One BLAS thread: a build runs this model on a thread of its own process beside the
    # worker processes embedding USE (`kbtools.build.embed_stage`), which keep both cores
    # busy; and alone, a second BLAS thread cost 1.5-1.7x the CPU for little or no less wall
    # time on the busy 2-core machine (benchmarks/README.md, "MiniLM builds in numpy").
    threads: int = 1
    # stored vectors: "3" = `PackedEncoder` (numpy); "2" was sentence-transformers embedding
    # each text alone on one torch thread. Same fingerprint, vectors equal to float rounding:
    # the embedding cache keeps them apart (`embed.base.vectors_key`), questions read either.
    revision: ClassVar[str] = "3"
    _encoder: PackedEncoder | None = field(default=None, init=False, repr=False)

    def embed_batch(self, texts: list[str]) -> Vectors:
        if not texts:
            return empty(self.dim)
        if self._encoder is None:
            self._encoder = PackedEncoder(NumpyBert(self.root))
            record_load(self.key)
        with blas_threads(self.threads):
            return self._encoder.encode(list(texts))


def minilm_build(name: str) -> PackedBertEmbedder:
    """all-MiniLM-L6-v2 for builds: the registry's ``minilm`` reference (what releases store)."""
    return PackedBertEmbedder(key=name, root=minilm_root(), model_id=MINILM_ID)
