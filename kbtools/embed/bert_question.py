"""One question through a BERT encoder (MiniLM) on bfloat16 products: the forward pass of
`bert.NumpyBert.encode_question`.

A warm English search embeds one question of about 20 word pieces. The batch path
(`NumpyBert._forward`) serves builds: padded batches, a mask, float32 products. Run for one
question (on bfloat16 products) it spent ~7 of its ~10 ms in the 24 products and ~3 ms
around them: a temporary for every step of GELU's erf, `mean` through Python, a mask added
to every attention score. Here the same arithmetic runs on one unpadded sequence:

- every product on bfloat16 units (float32 sums): on AVX-512 BF16 without tiles (Zen 4)
  through `bf16.dot_t`, the layer's weights streamed once as the left operand against the
  question's rows packed small, 0.6-0.9× the time of `bf16.dot` on packed weights; on AMX
  tiles through `bf16.dot` on weights packed once, the faster way round there (a question
  0.70× the CPU of `dot_t`), with the same bits: the query/key/value product is laid out by
  columns in memory either way, so the attention products read the same strides. numpy's
  float32 products are 2-4.5× slower at these shapes, so none is left on numpy (per
  product: benchmarks/README.md);
- the query, key and value projections as one product (their weights stacked), attention
  for all heads at once as stacked (heads, tokens, tokens) products, no mask;
- the same erf approximation as `bert.erf` (Abramowitz & Stegun 7.1.26, 1.5e-7) with its
  constants folded into GELU, in place; layer norms in place.

- each weight matrix read once, sequentially, just before its product (`bf16.warm`): the
  product's kernel reads weights that are not in cache ~1.6× slower than hot ones, and the
  plain read costs less than that difference.

What is left is mostly the products, bound by streaming 21 MB of weights per question rather
than by arithmetic or numkong's per-call cost. The vectors are those of the float32 path to
float rounding (cosine ≥ 0.9999, tested; ≥ 0.999 against sentence-transformers in
tests/test_embed_bert.py). Builds never use this path.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from kbtools.embed import bf16

F32 = npt.NDArray[np.float32]

# GELU(x) = x·Φ(x) = ½(x + |x|) − ½|x|·poly(t)·exp(−x²/2) with t = 1/(1 + p|x|/√2), where
# 1 − poly(t)·exp(−z²) is A&S 7.1.26's erf(z) for z = |x|/√2 ≥ 0 (`bert.erf`: same p and
# coefficients). The ½ and the 1/√2 are folded into the constants below.
_P = np.float32(0.3275911 * np.sqrt(0.5))
_HALF_A = tuple(np.float32(0.5 * a) for a in (0.254829592, -0.284496736, 1.421413741,
                                              -1.453152027, 1.061405429))
_MINUS_HALF = np.float32(-0.5)


def gelu_(x: F32) -> F32:
    """BERT's exact GELU (to erf's 1.5e-7) of `x`, in place; returns `x`."""
    a = np.abs(x)
    t = a * _P
    t += np.float32(1.0)
    np.divide(np.float32(1.0), t, out=t)  # numpy's reciprocal is the slower of the two
    poly = t * _HALF_A[4]
    for coef in _HALF_A[3::-1]:
        poly += coef
        poly *= t
    np.multiply(a, _MINUS_HALF, out=t)  # t is spent: −x²/2 → exp
    t *= a
    np.exp(t, out=t)
    poly *= t
    poly *= a
    x += a  # ½(x + |x|) is x or 0 exactly
    x *= np.float32(0.5)
    x -= poly
    return x


def layer_norm_(x: F32, weight: F32, bias: F32, eps: np.float32) -> F32:
    """Layer norm over the rows of `x`, in place; returns `x`."""
    inv = np.float32(1.0 / x.shape[1])
    mean = np.add.reduce(x, axis=1, keepdims=True)
    mean *= inv
    x -= mean
    var = np.einsum("ij,ij->i", x, x)[:, None]
    var *= inv
    var += eps
    np.sqrt(var, out=var)
    x /= var
    x *= weight
    x += bias
    return x


def _product(matrix: Any, rows: F32, tiles: bool) -> F32:
    """rows @ W.T by columns, (features, tokens), for `matrix` from
    `bf16.question_weights` (`bf16.columns`). Without matrix units (`tiles` false: `dot_t`)
    the weights are read into cache first (`bf16.warm`): a question's six layers stream 21
    MB of weights, which that kernel reads from L3 or memory ~1.6× slower than from cache,
    and a plain sequential read costs less than the difference (one question 0.89× of the
    CPU without it, measured on a Zen 4)."""
    if not tiles:
        bf16.warm(matrix)
    return bf16.columns(matrix, rows, tiles)


def _added(columns: F32, bias: F32) -> F32:
    """columns.T + bias, as a new C-ordered (tokens, features) array."""
    out: F32 = np.empty((columns.shape[1], columns.shape[0]), dtype=np.float32)
    np.add(columns.T, bias, out=out)
    return out


M = TypeVar("M")  # how a layer holds its matrices


@dataclass(frozen=True)
class Layer(Generic[M]):
    """One encoder layer's weights: as `bert.NumpyBert` loads them (``Layer[F32]``: (out, in)
    matrices, used as ``x @ w.T``: BLAS reads the transpose in place, so loading copies
    nothing but the fused projection), or with its matrices in bfloat16 for `bf16.dot_t`
    (`packed`). Here rather than in `bert`, which imports this module."""

    qkv: M  # (3·hidden, hidden): query, key and value projections stacked
    qkv_bias: F32
    attn_out: M
    attn_out_bias: F32
    attn_norm: tuple[F32, F32]
    inter: M
    inter_bias: F32
    out: M
    out_bias: F32
    out_norm: tuple[F32, F32]


def packed(w: Layer[F32], tiles: bool) -> Layer[Any]:
    """`w` with its matrices in bfloat16 for `_product` (packed for `bf16.dot` on `tiles`,
    else plain for `bf16.dot_t`) and the query/key/value bias as a column (that product
    comes out by columns); the rest as it was."""
    convert = partial(bf16.question_weights, tiles=tiles)
    return replace(w, qkv=convert(w.qkv), qkv_bias=w.qkv_bias[:, None],
                   attn_out=convert(w.attn_out), inter=convert(w.inter), out=convert(w.out))


class QuestionEncoder:
    """BERT's forward pass and mean pooling for one sequence of word-piece ids, over the
    arrays of a loaded `NumpyBert` (read, never changed) with its layers in bfloat16 here.

    `bf16.dot_t` returns a product by columns, (features, tokens). The query, key and value
    projections stay that way (each head's block is then a plain reshape); the other products
    are added to their bias into (tokens, features) rows, the layout the layer norms and the
    next product read fastest."""

    def __init__(self, word: F32, position: F32, token_type: F32, embed_norm: tuple[F32, F32],
                 layers: Sequence[Layer[F32]], heads: int, eps: float):
        self.word = word
        self.position = position + token_type[0]  # every token is of type 0
        self.embed_norm = embed_norm
        self.tiles = bf16.has_tiles()  # which way round the products run (`_product`)
        self.layers = [packed(layer, self.tiles) for layer in layers]
        self.heads = heads
        self.eps = np.float32(eps)

    def pooled(self, ids: Sequence[int]) -> F32:
        """The mean of the last hidden states over the tokens `ids`, shape (1, hidden)."""
        n, hidden, heads, eps = len(ids), self.word.shape[1], self.heads, self.eps
        head, tiles = hidden // heads, self.tiles
        scale = np.float32(1.0 / np.sqrt(head))
        x = self.word[np.asarray(ids, dtype=np.intp)]
        x += self.position[:n]
        layer_norm_(x, *self.embed_norm, eps)
        for layer in self.layers:
            # by columns in memory too (a view of `dot`'s rows would reshape into heads with
            # other strides, and the attention products sum in another order on those)
            qkv = np.ascontiguousarray(_product(layer.qkv, x, tiles))
            qkv += layer.qkv_bias
            q, k, v = qkv.reshape(3, heads, head, n)  # each (heads, head, tokens)
            scores = q.transpose(0, 2, 1) @ k  # (heads, query token, key token)
            scores *= scale
            scores -= scores.max(axis=2, keepdims=True)
            np.exp(scores, out=scores)
            scores /= np.add.reduce(scores, axis=2, keepdims=True)
            ctx = (v @ scores.transpose(0, 2, 1)).reshape(hidden, n)
            attended = _added(_product(layer.attn_out, ctx.T, tiles), layer.attn_out_bias)
            attended += x
            x = layer_norm_(attended, *layer.attn_norm, eps)
            inner = gelu_(_added(_product(layer.inter, x, tiles), layer.inter_bias))
            out = _added(_product(layer.out, inner, tiles), layer.out_bias)
            out += x
            x = layer_norm_(out, *layer.out_norm, eps)
        pooled: F32 = np.add.reduce(x, axis=0, keepdims=True) * np.float32(1.0 / n)
        return pooled
