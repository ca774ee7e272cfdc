"""MiniLM for builds in numpy: many texts per matrix product, each vector the same bits
whatever it is batched with.

A build stores the vectors it computes (float16, in `data/` and in the embedding cache), and
a warm build embeds only the texts its cache lacks, in other batches than a cold build of
the same commit: to write the same bytes, a text's vector must depend on the text alone —
not on the rest of its batch, the batch's order, the BLAS thread count or the process.

`PackedEncoder` runs `NumpyBert`'s arithmetic (same weights, same layer norm, GELU and
softmax) with the tokens of a whole batch laid end to end, no padding between texts:

- the linear layers (query/key/value, attention output, the feed-forward pair: nearly all of
  the multiply-adds) are one matrix product over every token of the batch, whose rows are
  each the same bits wherever they are among its rows (`use_windows.matmul`: numkong's
  float32 products, as for USE; OpenBLAS's depend on a row's place on some CPUs);
- attention runs per text on that text's rows only, so its products have the text's own
  shapes in any batch;
- the embeddings, layer norms and GELU work row by row, and a text's mean pools its own rows.

Texts are not sorted or padded to a common length, so a batch costs what its tokens cost
(sentence-transformers embedding each text alone on one torch thread, the reference it
replaces, cost about as much CPU but needed torch). The vectors agree with
sentence-transformers' to cosine ≥ 0.999 and are the same bits alone, in any batch and on
one BLAS thread or two (`tests/test_embed_bert.py`). On a CPU with bfloat16 units
(`kbtools.embed.bf16`) the linear layers run on them against weights packed once (0.63×
the CPU; numkong computes each row alike for any number of rows, so the vectors stay
batch-independent; another revision, `PackedBertEmbedder.revision`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from kbtools.embed import bf16
from kbtools.embed.base import Vectors, blas_threads, empty, normalise, record_load
from kbtools.embed.bert import (
    F32,
    MINILM_ID,
    BertFiles,
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
# a layer's linear weights (`bert_question.Layer`, stored (out, in)), in the order they are applied
LINEAR = ("qkv", "attn_out", "inter", "out")


class PackedEncoder:
    """`NumpyBert`'s forward pass over many texts at once, each text's vector independent of
    the others (see the module docstring)."""

    def __init__(self, model: NumpyBert, bfloat16: bool = False):
        self.model = model
        s = model.settings
        self.heads, self.head = s.heads, s.hidden // s.heads
        self.scale = np.float32(1.0 / np.sqrt(self.head))
        # with `bfloat16`, each layer's linear weights packed once for `bf16.dot` (a row of
        # its product the same bits whatever the other rows); attention stays float32
        self._packed = [{name: bf16.pack(getattr(layer, name)) for name in LINEAR}
                        for layer in model.layers] if bfloat16 else None

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
        for i, layer in enumerate(m.layers):
            qkv = self._linear(x, i, "qkv")
            qkv += layer.qkv_bias
            ctx = np.empty_like(x)
            for a, b in spans:
                ctx[a:b] = self._attention(qkv[a:b])
            for a in range(0, len(x), BLOCK):  # the rest row by row: blocks stay in cache
                x[a:a + BLOCK] = self._feed_forward(i, ctx[a:a + BLOCK], x[a:a + BLOCK])
        pooled = np.empty((len(seqs), s.hidden), dtype=np.float32)
        for row, (a, b) in enumerate(spans):
            pooled[row] = x[a:b].sum(axis=0) / np.float32(b - a)
        return pooled

    def _linear(self, x: F32, i: int, name: str) -> F32:
        """x @ w.T for layer `i`'s weight `name` (stored (out, in)): float32
        (`use_windows.matmul`), or bfloat16 products (`bf16.dot`)."""
        if self._packed is None:
            out: F32 = matmul(x, getattr(self.model.layers[i], name).T)
            return out
        return bf16.dot(x, self._packed[i][name])

    def _feed_forward(self, i: int, ctx: F32, x: F32) -> F32:
        """A block of rows from the attention's output to layer `i`'s output."""
        eps = self.model.settings.eps
        layer = self.model.layers[i]
        h = self._linear(ctx, i, "attn_out")
        h += layer.attn_out_bias
        h += x
        h = layer_norm(h, *layer.attn_norm, eps)
        inner = self._linear(h, i, "inter")
        inner += layer.inter_bias
        out = self._linear(gelu_in_place(inner), i, "out")
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

    # One BLAS thread: a build runs a small job of this model on a thread of its own process
    # beside the worker processes embedding USE (`kbtools.build.embed_stage`), which keep
    # both cores busy, and a big one in worker processes; alone, a second BLAS thread cost
    # 1.5-1.7x the CPU for little or no less wall time on the busy 2-core machine
    # (benchmarks/README.md, "MiniLM builds in numpy").
    threads: int = 1
    # a big job (an English corpus) is spread over worker processes as USE's is
    # (`kbtools.embed.parallel`), after it; a few texts run on a thread beside it
    processes: ClassVar[bool] = True
    # the linear layers in bfloat16 (`PackedEncoder`): None = where the CPU has bfloat16
    # units (`bf16.available`; ``KB_USE_BF16=0`` turns it off)
    bfloat16: bool | None = None
    _encoder: PackedEncoder | None = field(default=None, init=False, repr=False)

    @property
    def revision(self) -> str:
        """What the stored vectors are computed by: "5" = `PackedEncoder` in float32 (its
        products numkong's, `use_windows.matmul`; "3": OpenBLAS's, whose rows depend on
        their place on some CPUs), "4-<unit>" = its linear layers in bfloat16 on that kind
        of unit (`bf16.kind`); "2" was sentence-transformers embedding each text alone on
        one torch thread. Same
        fingerprint, vectors within cosine 0.9999 of each other but not the same bits: the
        embedding cache keeps them apart (`embed.base.vectors_key`), questions read any."""
        return f"4-{bf16.kind()}" if bf16.chosen(self.bfloat16) else "5"

    def embed_batch(self, texts: list[str]) -> Vectors:
        if not texts:
            return empty(self.dim)
        if self._encoder is None:
            self._encoder = PackedEncoder(NumpyBert(self.root), bfloat16=bf16.chosen(self.bfloat16))
            record_load(self.key)
        with blas_threads(self.threads):
            return self._encoder.encode(list(texts))


def minilm_build(name: str) -> PackedBertEmbedder:
    """all-MiniLM-L6-v2 for builds: the registry's ``minilm`` reference (what releases store)."""
    return PackedBertEmbedder(key=name, root=minilm_root(), model_id=MINILM_ID)
