"""BM25 matrices: ours (`kbtools.index.bm25.lucene_scores`, whole-array arithmetic) against
bm25s's own `BM25.index`, the reference implementation, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.index import bm25 as bm25index
from kbtools.index import bm25_splice
from kbtools.index.layout import BM25_OFFSETS, BM25_TF, BM25_TOKENS, BM25_VOCAB


def reference(path: Path, ids: list[list[int]], vocab: dict[str, int], k1: float,
              b: float) -> None:
    """What bm25s writes for the same (canonical) ids: its own index() and save()."""
    retriever = bm25s.BM25(k1=k1, b=b, method="lucene")
    retriever.index(bm25s.tokenization.Tokenized(ids=ids, vocab=vocab), show_progress=False)
    retriever.save(str(path), show_progress=False)


def matrices(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())
            if p.name not in (BM25_VOCAB, BM25_TOKENS, BM25_OFFSETS, BM25_TF)}


def both(tmp: Path, docs: list[list[int]], k1: float = 1.5, b: float = 0.75) -> tuple[Path, Path]:
    flat = np.array([t for d in docs for t in d], dtype=np.int32)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    vocab = {f"w{i}": i for i in range(int(flat.max()) + 1 if len(flat) else 0)}
    ours, ref = tmp / "ours", tmp / "ref"
    bm25index.build_from_ids(ours, flat, offsets, dict(vocab), k1=k1, b=b)
    canon, canon_vocab = bm25index.canonical(flat, dict(vocab))
    ref_ids = [canon[offsets[i]:offsets[i + 1]].tolist() for i in range(len(docs))]
    reference(ref, ref_ids, canon_vocab, k1, b)
    return ours, ref


def test_scores_match_bm25s_on_a_corpus_with_repeats_and_empty_chunks(tmp_path):
    rng = np.random.default_rng(7)
    docs = [rng.zipf(1.3, size=int(n)).clip(max=400).tolist() for n in rng.integers(0, 120, 500)]
    docs[3] = []  # a chunk without a term
    ours, ref = both(tmp_path, docs, k1=1.2, b=0.75)
    got, want = matrices(ours), matrices(ref)
    assert set(got) == set(want) and "data.csc.index.npy" in got
    assert got == want
    # our vocabulary is bm25s's, empty token included, in canonical order
    vocab = json.loads((ours / BM25_VOCAB).read_text(encoding="utf-8"))
    assert vocab == json.loads((ref / "vocab.index.json").read_text(encoding="utf-8"))
    assert vocab[""] == len(vocab) - 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 30), max_size=25), min_size=1, max_size=30),
       st.sampled_from([(1.5, 0.75), (0.9, 0.4), (2.0, 1.0), (1.2, 0.0)]))
def test_scores_match_bm25s_on_any_corpus(tmp_path_factory: pytest.TempPathFactory,
                                          docs: list[list[int]],
                                          params: tuple[float, float]) -> None:
    if not any(docs):
        return  # bm25s cannot index a corpus without a single term
    ours, ref = both(tmp_path_factory.mktemp("bm25"), docs, *params)
    assert matrices(ours) == matrices(ref)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=200_000), min_size=1, max_size=300),
       st.integers(min_value=1, max_value=7))
def test_term_order_is_the_stable_argsort_of_the_ids(ids, stride):
    """The radix sort over 16-bit halves orders like a stable comparison sort, for ids
    above 65,535 too; the (term, chunk) pairs and counts the scores use are np.unique's."""
    terms = np.array(ids, dtype=np.int32)
    assert np.array_equal(bm25index.term_order(terms), np.argsort(terms, kind="stable"))
    offsets = np.array(sorted({0, len(ids), *range(0, len(ids), stride)}), dtype=np.int64)
    ordered, _ = bm25index.canonical(terms, {str(i): i for i in range(max(ids, default=0) + 1)})
    size = int(ordered.max()) + 1 if len(ordered) else 0
    got = bm25index.lucene_scores(ordered, offsets, size, k1=1.2, b=0.75)
    doc = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    pairs, _ = np.unique((ordered.astype(np.int64) << 32) | doc, return_counts=True)
    assert np.array_equal(got["indices"], (pairs & 0xFFFFFFFF).astype(np.int32))
    assert np.array_equal(got["indptr"][1:], np.cumsum(np.bincount(pairs >> 32, minlength=size)))


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


def _index(path: Path, docs: list[list[str]]) -> dict[str, int]:
    """`build_from_ids` of documents of words (ids in order of first appearance); returns
    the vocabulary as written."""
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(w, len(vocab)) for w in d] for d in docs]
    flat = np.array([i for d in ids for i in d], dtype=np.int32)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    bm25index.build_from_ids(path, flat, offsets, vocab, k1=1.2, b=0.75)
    return json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))


word = st.sampled_from([f"w{i}" for i in range(40)])
runs = st.lists(st.lists(st.lists(word, max_size=12), min_size=1, max_size=6), min_size=1,
                max_size=8)


@settings(max_examples=80, deadline=None)
@given(runs, st.data())
def test_a_splice_writes_the_files_of_a_full_build(tmp_path_factory: pytest.TempPathFactory,
                                                   before: list[list[list[str]]],
                                                   data: st.DataObject) -> None:
    """Runs of chunks (shards) replaced, dropped or added: `bm25_splice.splice` from the
    previous index writes the bytes `build_from_ids` writes for the new chunks afresh,
    new terms, terms that move or vanish, and reordered first occurrences included."""
    tmp = tmp_path_factory.mktemp("splice")
    old_docs = [d for run in before for d in run]
    if not any(old_docs):
        return
    vocab = _index(tmp / "old", old_docs)
    flat, offsets, loaded = bm25index.load_tokens(tmp / "old")
    assert loaded == vocab
    after: list[list[list[str]]] = []
    pieces: list[np.ndarray] = []
    lengths: list[np.ndarray] = []
    origin: list[int | None] = []
    at = 0
    for run in before:
        what = data.draw(st.sampled_from(["keep", "keep", "edit", "drop"]))
        if what == "keep":
            after.append(run)
            pieces.append(flat[offsets[at]:offsets[at + len(run)]])
            lengths.append(np.diff(offsets[at:at + len(run) + 1]))
            origin.append(at)
        elif what == "edit":
            after.append(data.draw(st.lists(st.lists(word, max_size=12), min_size=1,
                                            max_size=6)))
        at += len(run)
        if what == "edit" or data.draw(st.booleans()) and what == "drop":
            if what == "drop":  # a new run where one was dropped
                after.append(data.draw(st.lists(st.lists(word, max_size=12), min_size=1,
                                                max_size=6)))
            ids = [[vocab.setdefault(w, len(vocab)) for w in d] for d in after[-1]]
            pieces.append(np.array([i for d in ids for i in d], dtype=np.int32))
            lengths.append(np.array([len(d) for d in ids], dtype=np.int64))
            origin.append(None)
    new_docs = [d for run in after for d in run]
    if not any(new_docs):
        return
    spliced = bm25_splice.splice(tmp / "old", tmp / "new", pieces, lengths, origin,
                                 (flat, offsets), vocab, k1=1.2, b=0.75)
    assert spliced
    _index(tmp / "full", new_docs)
    assert _files(tmp / "new") == _files(tmp / "full")


def test_a_splice_refuses_postings_that_do_not_add_up(tmp_path: Path) -> None:
    """A previous index whose counts disagree with its term ids (or without them, from an
    older kbtools) is not spliced from: the caller indexes afresh."""
    _index(tmp_path / "old", [["a", "b", "a"], ["b", "c"]])
    flat, offsets, vocab = bm25index.load_tokens(tmp_path / "old")
    args = ([flat[:3]], [np.array([3])], [0], (flat, offsets), vocab)
    tf = np.load(tmp_path / "old" / BM25_TF)
    tf[0] += 1
    np.save(tmp_path / "old" / BM25_TF, tf)
    assert not bm25_splice.splice(tmp_path / "old", tmp_path / "new", *args, k1=1.2, b=0.75)
    (tmp_path / "old" / BM25_TF).unlink()
    assert not bm25_splice.splice(tmp_path / "old", tmp_path / "new", *args, k1=1.2, b=0.75)
    assert not (tmp_path / "new").exists()


def dense_holders(bm: bm25index.Bm25, ids: list[int], limit: int) -> list[int]:
    """`Bm25.holders` by its definition: every chunk scored, the positive ones best first."""
    s = bm.scores(ids)
    if s is None:
        return []
    pos = np.flatnonzero(s > 0)
    return [int(n) for n in pos[np.lexsort((pos, -s[pos]))][:limit]]


def built_from(path: Path, docs: list[list[int]]) -> tuple[bm25index.Bm25, dict[str, int]]:
    """A BM25 index at `path` of chunks holding term ids `docs` (term i named ``w{i}``), and
    its vocabulary."""
    flat = np.array([t for d in docs for t in d], dtype=np.int32)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    vocab = {f"w{i}": i for i in range(int(flat.max()) + 1)}
    bm25index.build_from_ids(path, flat, offsets, vocab, k1=1.2, b=0.75)
    bm = bm25index.Bm25(path, tok=None)  # type: ignore[arg-type]  # no question tokenized
    return bm, json.loads((path / BM25_VOCAB).read_text(encoding="utf-8"))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), max_size=20), min_size=1, max_size=40),
       st.lists(st.integers(0, 12), min_size=1, max_size=4), st.integers(1, 50))
def test_holders_from_the_postings_are_those_of_every_chunks_scores(
        tmp_path_factory: pytest.TempPathFactory, docs: list[list[int]], terms: list[int],
        limit: int) -> None:
    if not any(docs):
        return
    bm, known = built_from(tmp_path_factory.mktemp("bm25"), docs)
    ids = [known[f"w{t}"] for t in terms if f"w{t}" in known]  # repeats kept: scored twice
    got = bm.holders(ids, limit)
    assert got == dense_holders(bm, ids, limit)
    assert bm._postings_scores(ids) is not None or not ids  # the postings path was taken


def test_scoring_reads_the_mapped_postings_as_plain_arrays(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    docs = [rng.integers(0, 40, size=int(n)).tolist() for n in rng.integers(1, 30, 200)]
    flat = np.array([t for d in docs for t in d], dtype=np.int32)
    offsets = np.zeros(len(docs) + 1, dtype=np.int64)
    np.cumsum([len(d) for d in docs], out=offsets[1:])
    bm25index.build_from_ids(tmp_path, flat, offsets, {f"w{i}": i for i in range(40)},
                             k1=1.2, b=0.75)
    bm = bm25index.Bm25(tmp_path, tok=None)  # type: ignore[arg-type]  # no question tokenized
    assert all(type(bm.retriever.scores[k]) is np.ndarray for k in ("data", "indices", "indptr"))
    own = bm25s.BM25.load(str(tmp_path), mmap=True, load_vocab=False, show_progress=False)
    ids = [3, 17, 17, 39]
    assert isinstance(own.scores["data"], np.memmap)  # what bm25s itself loads
    assert np.array_equal(bm.scores(ids), own.get_scores_from_ids(ids))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 12), max_size=20), min_size=1, max_size=40),
       st.lists(st.integers(0, 12), min_size=1, max_size=4), st.integers(1, 50))
def test_chunks_holding_all_terms_are_those_whose_tokens_hold_them(
        tmp_path_factory: pytest.TempPathFactory, docs: list[list[int]], terms: list[int],
        limit: int) -> None:
    """`holding_all` by its definition (the chunks whose token lists hold every term), both
    the way ascending postings are intersected and the way any postings are."""
    if not any(docs):
        return
    bm, known = built_from(tmp_path_factory.mktemp("bm25"), docs)
    held = [t for t in terms if f"w{t}" in known]  # terms some chunk holds
    ids = [known[f"w{t}"] for t in held]
    expected = [n for n, d in enumerate(docs) if all(t in d for t in held)][:limit] if ids else []
    assert bm._ascending_postings()  # as bm25s writes them
    assert bm.holding_all(ids, limit) == expected
    longest = int(np.argmax(np.diff(bm._indptr)))  # postings in another order: found so,
    a, b = int(bm._indptr[longest]), int(bm._indptr[longest + 1])  # and sorted together
    bm._indices = bm._indices.copy()
    bm._indices[a:b] = bm._indices[a:b][::-1].copy()
    bm._ascending = None
    assert bm._ascending_postings() == (b - a < 2)
    assert bm.holding_all(ids, limit) == expected
