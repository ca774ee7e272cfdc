"""BM25 over our tokenizer's output, stored with bm25s (a plain directory of arrays).

Next to bm25s's matrices we keep our vocabulary and every chunk's term ids, so a derivation
from a previous release tokenizes only the chunks that changed (`kbtools.index.incremental`)
and still writes what a full build writes.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.index.layout import BM25_OFFSETS, BM25_TOKENS, BM25_VOCAB
from kbtools.index.tokenize import Tokenizer


def tokenize(texts: list[str], tok: Tokenizer, vocab: dict[str, int]) -> list[list[int]]:
    """Term ids of each text; terms not yet in `vocab` are added to it (next free id)."""
    return [[vocab.setdefault(w, len(vocab)) for w in tok(t)] for t in texts]


def build(path: Path, texts: list[str], tok: Tokenizer, *, k1: float, b: float) -> None:
    vocab: dict[str, int] = {}
    ids = tokenize(texts, tok, vocab)
    flat = np.fromiter((i for row in ids for i in row), dtype=np.int32)
    offsets = np.zeros(len(ids) + 1, dtype=np.int64)
    np.cumsum([len(row) for row in ids], out=offsets[1:])
    build_from_ids(path, flat, offsets, vocab, k1=k1, b=b)


def canonical(flat: np.ndarray, vocab: dict[str, int]) -> tuple[np.ndarray, dict[str, int]]:
    """Renumber term ids in order of first occurrence and drop terms that occur nowhere: the
    ids `build` gives the same texts in the same order, whatever ids `flat` came with."""
    used, first = np.unique(flat, return_index=True)
    order = used[np.argsort(first, kind="stable")]
    remap = np.full(max(len(vocab), int(flat.max()) + 1 if len(flat) else 0), -1, dtype=np.int32)
    remap[order] = np.arange(len(order), dtype=np.int32)
    names = {i: w for w, i in vocab.items()}
    return remap[flat], {names[int(i)]: n for n, i in enumerate(order)}


def build_from_ids(path: Path, flat: np.ndarray, offsets: np.ndarray, vocab: dict[str, int], *,
                   k1: float, b: float) -> None:
    """Write the BM25 matrices of chunks whose term ids are flat[offsets[i]:offsets[i+1]],
    with our vocabulary and the ids themselves (kept so that a later derivation tokenizes
    only new chunks: `load_tokens`). Ids are made canonical first (`canonical`), so the
    files depend only on the chunks' terms and their order."""
    import bm25s

    flat, vocab = canonical(np.asarray(flat, dtype=np.int32), vocab)
    offsets = np.asarray(offsets, dtype=np.int64)
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    ids = len(offsets) > 1
    if ids:  # what `retriever.index` computes (the same arithmetic), without Python loops
        retriever.scores = lucene_scores(flat, offsets, len(vocab), k1=k1, b=b)
        vocab.setdefault("", max(vocab.values(), default=-1) + 1)  # bm25s's empty token
        retriever.vocab_dict = vocab
        retriever.nonoccurrence_array = None  # lucene has none
    path.mkdir(parents=True, exist_ok=True)
    if ids:
        retriever.save(str(path), show_progress=False)
    # bm25s writes its vocab; we keep our own, canonical copy for lookups
    (path / BM25_VOCAB).write_text(
        json.dumps(vocab, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    np.save(path / BM25_TOKENS, flat.astype(np.int32), allow_pickle=False)
    np.save(path / BM25_OFFSETS, np.asarray(offsets, dtype=np.int64), allow_pickle=False)


def lucene_scores(flat: np.ndarray, offsets: np.ndarray, n_vocab: int, *, k1: float,
                  b: float) -> dict[str, Any]:
    """The BM25 score matrix (CSC: terms are columns) bm25s's `BM25(method="lucene").index`
    makes of the chunks whose term ids are flat[offsets[i]:offsets[i+1]], computed over
    whole arrays: the same float operations in the same precisions (float64 term-frequency
    part, float32 idf, float32 scores), so the same bytes (`tests/test_bm25.py` compares).
    """
    n_docs = len(offsets) - 1
    lengths = np.diff(offsets)
    avg_len = lengths.mean()
    doc = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
    # one entry per (chunk, term) with the term's count in the chunk
    pairs, tf = np.unique(doc * n_vocab + flat.astype(np.int64), return_counts=True)
    rows, cols = pairs // n_vocab, pairs % n_vocab
    df = np.bincount(cols, minlength=n_vocab)
    idf = np.zeros(n_vocab, dtype=np.float32)
    for term in np.flatnonzero(df).tolist():  # math.log, as bm25s computes it
        idf[term] = math.log(1 + (n_docs - int(df[term]) + 0.5) / (int(df[term]) + 0.5))
    tfs = tf.astype(np.float32)
    tfc = tfs / (k1 * ((1 - b) + b * lengths[rows] / avg_len) + tfs)
    scores = (idf[cols] * tfc).astype(np.float32)
    order = np.lexsort((rows, cols))  # column by column, rows ascending
    indptr = np.zeros(n_vocab + 1, dtype=np.int64)
    np.cumsum(np.bincount(cols, minlength=n_vocab), out=indptr[1:])
    return {"data": scores[order], "indices": rows[order].astype(np.int32), "indptr": indptr,
            "num_docs": n_docs}


def load_tokens(path: Path) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """(flat term ids, offsets, vocabulary) written by `build_from_ids`."""
    vocab = json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))
    flat = np.load(path / BM25_TOKENS, allow_pickle=False)
    offsets = np.load(path / BM25_OFFSETS, allow_pickle=False)
    if offsets.ndim != 1 or len(offsets) == 0 or int(offsets[-1]) != len(flat):
        raise ValueError(f"BM25 token arrays do not agree: {path}")
    return flat, offsets, vocab


class Bm25:
    def __init__(self, path: Path, tok: Tokenizer):
        import bm25s

        self.tok = tok
        self.vocab: dict[str, int] = json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))
        self.retriever: Any = bm25s.BM25.load(str(path), mmap=True, load_vocab=False,
                                         show_progress=False) if self.vocab else None
        # plain ndarray views of the memory-mapped postings: slicing a np.memmap costs a
        # subclass round trip per slice, and `matched` slices per term and per hit
        s = self.retriever.scores if self.retriever is not None else {}
        self._indptr = np.asarray(s.get("indptr", np.zeros(1, dtype=np.int64)))
        self._indices = np.asarray(s.get("indices", np.zeros(0, dtype=np.int64)))
        # every chunk's term ids (`build_from_ids`): which terms a hit holds is one slice
        self._tokens: tuple[np.ndarray, np.ndarray] | None = None
        if (path / BM25_TOKENS).is_file() and (path / BM25_OFFSETS).is_file():
            self._tokens = (np.asarray(np.load(path / BM25_TOKENS, mmap_mode="r")),
                            np.asarray(np.load(path / BM25_OFFSETS, mmap_mode="r")))

    def query_terms(self, query: str) -> tuple[list[str], list[int], list[str]]:
        """(known terms, their ids, unknown terms) of a question, tokenized once.

        Unknown terms occur nowhere in the index: strong "not in here" evidence.
        """
        tokens = list(dict.fromkeys(self.tok(query)))
        terms = [t for t in tokens if t in self.vocab]
        return terms, [self.vocab[t] for t in terms], [t for t in tokens if t not in self.vocab]

    def max_idf(self) -> float:
        n = self.retriever.scores["num_docs"] if self.retriever is not None else 0
        return float(np.log(1 + (n + 0.5) / 0.5))

    def scores(self, ids: list[int]) -> np.ndarray | None:
        if not ids or self.retriever is None:
            return None
        return np.asarray(self.retriever.get_scores_from_ids(ids))

    def idf(self, ids: list[int]) -> np.ndarray:
        """Document frequency based idf of each term (for coverage/explain)."""
        indptr = self._indptr
        n = float(self.retriever.scores["num_docs"])
        df = np.array([indptr[i + 1] - indptr[i] for i in ids], dtype=np.float64)
        return np.log(1 + (n - df + 0.5) / (df + 0.5))

    def share(self, ids: list[int]) -> np.ndarray:
        """Share of the chunks that hold each term (0 when the index is empty)."""
        if not ids or self.retriever is None:
            return np.zeros(len(ids))
        indptr = self._indptr
        n = max(float(self.retriever.scores["num_docs"]), 1.0)
        return np.array([(indptr[i + 1] - indptr[i]) / n for i in ids], dtype=np.float64)

    def holders(self, ids: list[int], limit: int) -> list[int]:
        """Up to ``limit`` chunks holding any of the terms, the best BM25 score on them first
        (ties by chunk number)."""
        s = self.scores(ids)
        if s is None:
            return []
        pos = np.flatnonzero(s > 0)
        return [int(n) for n in pos[np.lexsort((pos, -s[pos]))][:limit]]

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
