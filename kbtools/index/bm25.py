"""BM25 over our tokenizer's output, stored with bm25s (a plain directory of arrays)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from kbtools.index.layout import BM25_VOCAB
from kbtools.index.tokenize import Tokenizer


def build(path: Path, texts: list[str], tok: Tokenizer, *, k1: float, b: float) -> None:
    import bm25s

    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(w, len(vocab)) for w in tok(t)] for t in texts]
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    if texts:
        retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    path.mkdir(parents=True, exist_ok=True)
    if texts:
        retriever.save(str(path), show_progress=False)
    # bm25s writes its vocab; we keep our own, canonical copy for lookups
    (path / BM25_VOCAB).write_text(
        json.dumps(vocab, ensure_ascii=False, sort_keys=True), encoding="utf-8")


class Bm25:
    def __init__(self, path: Path, tok: Tokenizer):
        import bm25s

        self.tok = tok
        self.vocab: dict[str, int] = json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))
        self.retriever: Any = bm25s.BM25.load(str(path), mmap=True, load_vocab=False,
                                         show_progress=False) if self.vocab else None

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
        indptr = self.retriever.scores["indptr"]
        n = float(self.retriever.scores["num_docs"])
        df = np.array([indptr[i + 1] - indptr[i] for i in ids], dtype=np.float64)
        return np.log(1 + (n - df + 0.5) / (df + 0.5))

    def share(self, ids: list[int]) -> np.ndarray:
        """Share of the chunks that hold each term (0 when the index is empty)."""
        if not ids or self.retriever is None:
            return np.zeros(len(ids))
        indptr = self.retriever.scores["indptr"]
        n = max(float(self.retriever.scores["num_docs"]), 1.0)
        return np.array([(indptr[i + 1] - indptr[i]) / n for i in ids], dtype=np.float64)

    def matched(self, ids: list[int], terms: list[str], num: int) -> list[str]:
        """Which of the query terms occur in chunk `num`."""
        s = self.retriever.scores
        out: list[str] = []
        for t, i in zip(terms, ids, strict=True):
            docs = s["indices"][s["indptr"][i]:s["indptr"][i + 1]]
            pos = np.searchsorted(docs, num)
            if pos < len(docs) and docs[pos] == num:
                out.append(t)
        return out
