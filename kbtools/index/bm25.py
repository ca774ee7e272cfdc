"""BM25 over our tokenizer's output, stored in bm25s's format (a plain directory of arrays).

Next to bm25s's matrices we keep our vocabulary and every chunk's term ids, so a derivation
from a previous release tokenizes only the chunks that changed (`kbtools.index.incremental`)
and still writes what a full build writes. The matrices are computed here over whole arrays
(`lucene_scores`) and written in the files `bm25s.BM25.save` writes, byte for byte
(`tests/test_bm25.py`), so deriving an index never imports bm25s and scipy (a second and
more in a new process); the query side loads them with bm25s.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import math
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.index.layout import BM25_OFFSETS, BM25_TF, BM25_TOKENS, BM25_VOCAB
from kbtools.index.token_cache import remember_tokens
from kbtools.index.tokenize import Tokenizer


def tokenize(texts: list[str], tok: Tokenizer, vocab: dict[str, int],
             remember: Collection[int] | None = None) -> list[list[int]]:
    """Term ids of each text; terms not yet in `vocab` are added to it (next free id). What
    the tokenizer said of the texts at positions `remember` (default: all) is kept for the
    self-check (`kbtools.index.token_cache`)."""
    said = [tok(t) for t in texts]
    kept = range(len(texts)) if remember is None else remember
    remember_tokens(tok, {texts[i]: said[i] for i in kept})
    return [[vocab.setdefault(w, len(vocab)) for w in words] for words in said]


def build(path: Path, texts: list[str], tok: Tokenizer, *, k1: float, b: float,
          remember: Collection[int] | None = None) -> None:
    """The BM25 files of `texts` (see `tokenize` for `remember`)."""
    vocab: dict[str, int] = {}
    ids = tokenize(texts, tok, vocab, remember)
    flat = np.fromiter((i for row in ids for i in row), dtype=np.int32)
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum([len(row) for row in ids], out=offsets[1:])
    build_from_ids(path, flat, offsets, vocab, k1=k1, b=b)


def term_order(terms: np.ndarray) -> np.ndarray:
    """The stable argsort of non-negative term ids (int32): positions by term, ascending
    within each term. A radix sort over the ids' two 16-bit halves (numpy sorts 16-bit keys
    stably by radix), linear where a comparison sort of millions of tokens is not."""
    ids = np.asarray(terms).astype(np.uint32)
    order = np.argsort(ids.astype(np.uint16), kind="stable")  # the low half (truncated)
    if len(ids) and int(ids.max()) > 0xFFFF:
        order = order[np.argsort((ids[order] >> 16).astype(np.uint16), kind="stable")]
    return order


def canonical(flat: np.ndarray, vocab: dict[str, int]) -> tuple[np.ndarray, dict[str, int]]:
    """Renumber term ids in order of first occurrence and drop terms that occur nowhere: the
    ids `build` gives the same texts in the same order, whatever ids `flat` came with."""
    size = max(len(vocab), int(flat.max()) + 1 if len(flat) else 0)
    first = np.full(size, len(flat), dtype=np.int64)  # each term's first position
    order = term_order(flat)  # positions by term, ascending within a term
    starts = np.flatnonzero(np.r_[True, np.diff(flat[order]) != 0]) if len(flat) else order
    first[flat[order[starts]]] = order[starts]
    used = np.flatnonzero(first < len(flat))
    order = used[np.argsort(first[used], kind="stable")]
    remap = np.full(size, -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    names = {i: w for w, i in vocab.items()}
    return remap[flat], {names[int(i)]: n for n, i in enumerate(order)}


def build_from_ids(path: Path, flat: np.ndarray, offsets: np.ndarray, vocab: dict[str, int], *,
                   k1: float, b: float) -> None:
    """Write the BM25 matrices of chunks whose term ids are flat[offsets[i]:offsets[i+1]],
    with our vocabulary and the ids themselves (kept so that a later derivation tokenizes
    only new chunks: `load_tokens`). Ids are made canonical first (`canonical`), so the
    files depend only on the chunks' terms and their order."""
    flat, vocab = canonical(np.asarray(flat, dtype=np.int32), vocab)
    offsets = np.asarray(offsets, dtype=np.int64)
    cols, rows, tf = postings(flat, offsets)
    write_index(path, flat, offsets, vocab, np.bincount(cols, minlength=len(vocab)), rows, tf,
                k1=k1, b=b)


def write_index(path: Path, flat: np.ndarray, offsets: np.ndarray, vocab: dict[str, int],
                df: np.ndarray, rows: np.ndarray, tf: np.ndarray, *, k1: float,
                b: float) -> None:
    """Write the BM25 files of chunks with canonical term ids flat[offsets[i]:offsets[i+1]]
    (`vocab`: canonical) whose (term, chunk, count) postings, in CSC order, are `rows` and
    `tf`, `df[t]` of them in term t's column: bm25s's matrices, our vocabulary, the ids, and
    the counts (`BM25_TF`, so that a later derivation need not sort the ids again:
    `kbtools.index.bm25_splice`)."""
    path.mkdir(parents=True, exist_ok=True)
    if len(offsets) > 1:  # what bm25s's `index` computes (the same arithmetic), and saves
        scores = score_postings(df, rows, tf, np.diff(offsets), k1=k1, b=b)
        vocab.setdefault("", max(vocab.values(), default=-1) + 1)  # bm25s's empty token
        save_bm25s(path, scores, vocab, k1=k1, b=b)
    # bm25s writes its vocab; we keep our own, canonical copy for lookups (the bytes older
    # releases pinned in their "derived" hashes: json's, not orjson's, ~15 ms at 44k terms)
    (path / BM25_VOCAB).write_text(
        json.dumps(vocab, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    np.save(path / BM25_TOKENS, flat.astype(np.int32), allow_pickle=False)
    np.save(path / BM25_OFFSETS, np.asarray(offsets, dtype=np.int64), allow_pickle=False)
    np.save(path / BM25_TF, np.asarray(tf, dtype=np.int32), allow_pickle=False)


def postings(flat: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(term, chunk, count) of every term in every chunk whose ids are
    flat[offsets[i]:offsets[i+1]], sorted column by column, rows ascending (the CSC order),
    as int64 arrays."""
    lengths = np.diff(offsets)
    doc = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    # chunks already ascend along `flat`, so a stable sort by term alone orders them (what
    # np.unique of (term << 32 | chunk) gives)
    keys = ((flat.astype(np.int64) << 32) | doc)[term_order(flat)]
    heads = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if len(keys) else \
        np.zeros(0, dtype=np.int64)
    pairs, tf = keys[heads], np.diff(np.r_[heads, len(keys)])
    return pairs >> 32, pairs & 0xFFFFFFFF, tf


def lucene_scores(flat: np.ndarray, offsets: np.ndarray, n_vocab: int, *, k1: float,
                  b: float) -> dict[str, Any]:
    """The BM25 score matrix (CSC: terms are columns) bm25s's `BM25(method="lucene").index`
    makes of the chunks whose term ids are flat[offsets[i]:offsets[i+1]], computed over
    whole arrays: the same float operations in the same precisions (float64 term-frequency
    part, float32 idf, float32 scores), so the same bytes (`tests/test_bm25.py` compares).
    """
    cols, rows, tf = postings(flat, offsets)
    return score_postings(np.bincount(cols, minlength=n_vocab), rows, tf, np.diff(offsets),
                          k1=k1, b=b)


def score_postings(df: np.ndarray, rows: np.ndarray, tf: np.ndarray, lengths: np.ndarray, *,
                   k1: float, b: float) -> dict[str, Any]:
    """`lucene_scores` of postings in CSC order: `df[t]` postings in term t's column, their
    chunks `rows` and counts `tf` (`lengths`: every chunk's number of terms)."""
    n_docs = len(lengths)
    lengths = np.asarray(lengths, dtype=np.int64)
    avg_len = lengths.mean()
    n_vocab = len(df)
    idf = np.zeros(n_vocab, dtype=np.float32)
    seen = np.flatnonzero(df)
    # the argument in float64 (the same IEEE operations as bm25s's Python floats), then
    # math.log, as bm25s computes it
    args = 1 + (n_docs - df[seen] + 0.5) / (df[seen] + 0.5)
    idf[seen] = [math.log(x) for x in args.tolist()]
    tfs = tf.astype(np.float32)
    # per chunk, then per posting: the same float64 operations on the same values
    norm = (k1 * ((1 - b) + b * lengths / avg_len))[rows]
    tfc = tfs / (norm + tfs)
    scores = (np.repeat(idf, df) * tfc).astype(np.float32)  # idf of each posting's term
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    return {"data": scores, "indices": rows.astype(np.int32), "indptr": indptr,
            "num_docs": n_docs}


# the files of `bm25s.BM25.save` (lucene has no non-occurrence array)
SCORE_FILES = {"data": "data.csc.index.npy", "indices": "indices.csc.index.npy",
               "indptr": "indptr.csc.index.npy"}
BM25S_VOCAB, BM25S_PARAMS = "vocab.index.json", "params.index.json"


def _bm25s_json(value: dict[str, int]) -> str:
    """bm25s's own serialisation of its vocabulary (orjson when installed, else json)."""
    if importlib.util.find_spec("orjson") is not None:
        import orjson

        return orjson.dumps(value).decode("utf-8")
    return json.dumps(value, ensure_ascii=False)


def save_bm25s(path: Path, scores: dict[str, Any], vocab: dict[str, int], *, k1: float,
               b: float) -> None:
    """Write `scores` (`lucene_scores`) and `vocab` as `bm25s.BM25(method="lucene").save`
    does, so `bm25s.BM25.load` reads them; the backend recorded is numpy (what loads
    everywhere)."""
    for key, name in SCORE_FILES.items():
        np.save(path / name, scores[key], allow_pickle=False)
    (path / BM25S_VOCAB).write_text(_bm25s_json(vocab), encoding="utf-8")
    params = {"k1": k1, "b": b, "delta": 0.5, "method": "lucene", "idf_method": "lucene",
              "dtype": "float32", "int_dtype": "int32", "num_docs": scores["num_docs"],
              "version": importlib.metadata.version("bm25s"), "backend": "numpy"}
    with open(path / BM25S_PARAMS, "w") as f:  # bm25s's layout: json.dump, indent 4
        json.dump(params, f, indent=4)


def load_scores(path: Path) -> dict[str, Any]:
    """The score matrix `save_bm25s` wrote (memory-mapped), without importing bm25s."""
    params = json.loads((path / BM25S_PARAMS).read_text(encoding="utf-8"))
    out: dict[str, Any] = {key: np.load(path / name, mmap_mode="r", allow_pickle=False)
                           for key, name in SCORE_FILES.items()}
    out["num_docs"] = int(params["num_docs"])
    return out


def _own_scoring(path: Path, params: dict[str, Any]) -> bool:
    """Whether `Bm25.scores` sums the matrix at `path` itself: the lucene method (no
    non-occurrence array, which the other methods add to every chunk), float32 or float64."""
    return params.get("method") == "lucene" and params.get("dtype") in ("float32", "float64") \
        and not (path / "nonoccurrence_array.index.npy").exists()


def load_tokens(path: Path) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """(flat term ids, offsets, vocabulary) written by `build_from_ids`."""
    vocab = json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))
    flat = np.load(path / BM25_TOKENS, allow_pickle=False)
    offsets = np.load(path / BM25_OFFSETS, allow_pickle=False)
    if offsets.ndim != 1 or len(offsets) == 0 or int(offsets[-1]) != len(flat):
        raise ValueError(f"BM25 token arrays do not agree: {path}")
    return flat, offsets, vocab


class Bm25:
    """An index's BM25: its terms and statistics, and (``scoring``) each chunk's score for a
    question's terms, summed from the score matrix the way bm25s's lucene method does (term
    by term, `np.add.at` into the matrix's float dtype: the same floats). A cold `kb query`
    so never imports bm25s and scipy (~0.3 s in a new process); a matrix of another method
    (a non-occurrence array, another dtype) is scored by bm25s itself, and `retriever` (the
    engine's publish) loads bm25s on first use. Without ``scoring`` `scores` refuses: what
    needs only terms, idf and shares (the no-answer calibration a build writes) opens it so."""

    _path: Path | None = None
    _scoring = False
    _retriever: Any = None
    _data: np.ndarray | None = None  # the score matrix's values, when we score it ourselves
    _dtype = np.dtype(np.float32)

    def __init__(self, path: Path, tok: Tokenizer, *, scoring: bool = True):
        self.tok = tok
        self.vocab: dict[str, int] = json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))
        self._path, self._scoring = path, bool(self.vocab) and scoring
        # loaded (memory-mapped) when the index is opened: a query in flight keeps its files
        # even after a sync prunes its release
        s: dict[str, Any] = load_scores(path) if self.vocab else {}
        if self._scoring:
            params = json.loads((path / BM25S_PARAMS).read_text(encoding="utf-8"))
            if _own_scoring(path, params):
                self._dtype = np.dtype(params["dtype"])
                self._data = np.asarray(s["data"])
            else:
                s = self.retriever.scores
        self.num_docs = int(s.get("num_docs", 0))
        # plain ndarray views of the memory-mapped postings: slicing a np.memmap costs a
        # subclass round trip per slice, and `matched` slices per term and per hit
        self._indptr = np.asarray(s.get("indptr", np.zeros(1, dtype=np.int64)))
        self._indices = np.asarray(s.get("indices", np.zeros(0, dtype=np.int64)))
        self._ascending: bool | None = None  # `_ascending_postings`, once asked
        # every chunk's term ids (`build_from_ids`): which terms a hit holds is one slice
        self._tokens: tuple[np.ndarray, np.ndarray] | None = None
        if (path / BM25_TOKENS).is_file() and (path / BM25_OFFSETS).is_file():
            self._tokens = (np.asarray(np.load(path / BM25_TOKENS, mmap_mode="r")),
                            np.asarray(np.load(path / BM25_OFFSETS, mmap_mode="r")))

    @property
    def retriever(self) -> Any:
        """bm25s over the score matrix (None without ``scoring``), loaded on first use."""
        if self._retriever is None and self._scoring and self._path is not None:
            import bm25s

            ret = bm25s.BM25.load(str(self._path), mmap=True, load_vocab=False,
                                  show_progress=False)
            # bm25s slices its postings once per question term: plain ndarray views of the
            # same mapping spare each slice np.memmap's subclass round trip (~18 a question)
            for key in ("data", "indices", "indptr"):
                if isinstance(ret.scores.get(key), np.memmap):
                    ret.scores[key] = np.asarray(ret.scores[key])
            self._retriever = ret
        return self._retriever

    @retriever.setter
    def retriever(self, value: Any) -> None:
        self._retriever = value

    def query_terms(self, query: str) -> tuple[list[str], list[int], list[str]]:
        """(known terms, their ids, unknown terms) of a question, tokenized once.

        Unknown terms occur nowhere in the index: strong "not in here" evidence.
        """
        tokens = list(dict.fromkeys(self.tok(query)))
        terms = [t for t in tokens if t in self.vocab]
        return terms, [self.vocab[t] for t in terms], [t for t in tokens if t not in self.vocab]

    def max_idf(self) -> float:
        return float(np.log(1 + (self.num_docs + 0.5) / 0.5))

    def scores(self, ids: list[int]) -> np.ndarray | None:
        if not ids or not self.vocab:
            return None
        if not self._scoring:
            raise RuntimeError("BM25 opened without scoring (Bm25(..., scoring=False))")
        data = self._data
        if data is None:
            return np.asarray(self.retriever.get_scores_from_ids(ids))
        terms = np.asarray(ids, dtype=np.int64)
        if terms.min() < 0 or terms.max() >= len(self._indptr) - 1:
            raise ValueError(f"term ids outside the BM25 vocabulary: {ids}")
        indptr, indices = self._indptr, self._indices
        out = np.zeros(self.num_docs, dtype=self._dtype)
        for i in terms.tolist():
            a, b = int(indptr[i]), int(indptr[i + 1])
            np.add.at(out, indices[a:b], data[a:b])
        return out

    def idf(self, ids: list[int]) -> np.ndarray:
        """Document frequency based idf of each term (for coverage/explain)."""
        indptr = self._indptr
        return self.idf_of(np.array([indptr[i + 1] - indptr[i] for i in ids], dtype=np.float64))

    def idf_of(self, df: np.ndarray) -> np.ndarray:
        """The idf of terms held by `df` chunks each (`idf`, for a term outside the
        vocabulary that chunks hold otherwise: a front-matter value, `kbtools.query.routing`)."""
        n = float(self.num_docs)
        return np.log(1 + (n - df + 0.5) / (df + 0.5))

    def share(self, ids: list[int]) -> np.ndarray:
        """Share of the chunks that hold each term (0 when the index is empty)."""
        if not ids or not self.vocab:
            return np.zeros(len(ids))
        indptr = self._indptr
        n = max(float(self.num_docs), 1.0)
        return np.array([(indptr[i + 1] - indptr[i]) / n for i in ids], dtype=np.float64)

    def holders(self, ids: list[int], limit: int) -> list[int]:
        """Up to ``limit`` chunks holding any of the terms, the best BM25 score on them first
        (ties by chunk number)."""
        sparse = self._postings_scores(ids)
        if sparse is None:
            s = self.scores(ids)
            if s is None:
                return []
            keys = np.arange(len(s))
        else:
            keys, s = sparse
        pos = np.flatnonzero(s > 0)
        keys = keys[pos]
        return list(keys[np.lexsort((keys, -s[pos]))][:limit].tolist())

    def holding_all(self, ids: list[int], limit: int) -> list[int]:
        """Up to ``limit`` chunks holding every one of the terms, by chunk number."""
        if not ids or not self.vocab:
            return []
        indptr, indices = self._indptr, self._indices
        ascending = self._ascending_postings()
        held: np.ndarray | None = None
        for i in sorted(ids, key=lambda i: int(indptr[i + 1] - indptr[i])):
            docs = indices[indptr[i]:indptr[i + 1]]
            if held is None:
                held = docs if ascending else np.unique(docs)
            elif ascending:  # the fewer looked up in the longer (a common word's: most chunks)
                at = np.minimum(np.searchsorted(docs, held), max(len(docs) - 1, 0))
                held = held[docs[at] == held] if len(docs) else docs
            else:
                held = np.intersect1d(held, docs, assume_unique=True)
        return [] if held is None else list(held[:limit].tolist())

    def co_held(self, term: int, ids: list[int], limit: int) -> dict[int, int]:
        """For each of `ids`: how many chunks hold both it and `term` (up to `limit`)."""
        return {i: len(self.holding_all([term, i], limit)) for i in ids}

    def _ascending_postings(self) -> bool:
        """Whether every term's postings list its chunks in ascending order (as bm25s
        writes them), so that `holding_all` may look the few up in the many instead of
        sorting both together (0.3 ms for a word most chunks hold); checked once."""
        if self._ascending is None:
            indptr, indices = self._indptr, self._indices
            falls = np.flatnonzero(np.diff(indices.astype(np.int64)) <= 0) + 1
            self._ascending = bool(np.isin(falls, indptr).all())  # only where a term starts
        return self._ascending

    def _postings_scores(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray] | None:
        """The chunks holding any of the terms and their `scores`, summed in the same order
        from the terms' postings alone (the rare terms of identifiers are held by a few
        chunks, and scoring every chunk cost more than the rest of `holders`). None where
        every chunk has a score (a variant with a non-occurrence score) or nothing scores."""
        if not ids or not self.vocab or not self._scoring:
            return None
        data, dtype = self._data, self._dtype
        if data is None:
            r = self.retriever
            if r is None or getattr(r, "nonoccurrence_array", None) is not None:
                return None
            data, dtype = r.scores["data"], np.dtype(r.dtype)
        indptr, indices = self._indptr, self._indices
        spans = [(int(indptr[i]), int(indptr[i + 1])) for i in ids]
        keys, at = np.unique(np.concatenate([indices[a:b] for a, b in spans]),
                             return_inverse=True)
        s = np.zeros(len(keys), dtype=dtype)
        np.add.at(s, at.reshape(-1), np.concatenate([data[a:b] for a, b in spans]))
        return keys.astype(np.int64), s

    def matched(self, ids: list[int], terms: list[str], num: int) -> list[str]:
        """Which of the query terms occur in chunk `num`."""
        if not ids:
            return []
        if self._tokens is not None and 0 <= num < len(self._tokens[1]) - 1:
            flat, offsets = self._tokens
            held = set(flat[offsets[num]:offsets[num + 1]].tolist())
            return [t for t, i in zip(terms, ids, strict=True) if i in held]
        indptr, indices = self._indptr, self._indices
        out: list[str] = []
        for t, i in zip(terms, ids, strict=True):
            docs = indices[indptr[i]:indptr[i + 1]]
            pos = np.searchsorted(docs, num)
            if pos < len(docs) and docs[pos] == num:
                out.append(t)
        return out
