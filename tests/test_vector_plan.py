"""Finer chunks that share their section's vector: which chunks get vectors of their own,
and that a chunk without one is still found, scored through its parent and cited with its
own lines (real USE model, real build, real index). Embedding on worker processes gives the
same vectors as in the build process."""

from __future__ import annotations

import numpy as np
import pytest

from kbtools.build.chunk import chunk_document
from kbtools.build.chunk_text import ChunkConfig
from kbtools.build.pipeline import BuildOptions, build
from kbtools.build.vector_plan import models_for, plan_models
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.embed.parallel import embed_batches, workers_for
from kbtools.embed.registry import get_reference_embedder
from kbtools.index.reader import open_index
from kbtools.query.candidates import CandidateRequest
from kbtools.query.fusion import FusionParams, Ranked, fuse
from kbtools.query.inherit import Sharing, inherit, vector_models, widen_mask
from kbtools.query.local_candidates import LOCAL_CANDIDATES
from kbtools.query.search import search
from tests.kbfixtures import REPO

# Chinese only: the English model (and torch) stays out of these builds
DOC = """---
title: 伺服驱动器故障处理
---
# 伺服驱动器故障处理

驱动器面板显示故障码时，先记录故障码，再按下表处理。每次处理后复位并观察十分钟。

| 故障码 | 含义 | 处理 |
| --- | --- | --- |
| A31 | 编码器线缆断开 | 检查编码器插头是否松动并重新插紧 |
| A52 | 母线电压过高 | 延长减速时间或加装制动电阻 |
| A77 | 散热风扇停转 | 清理风扇滤网灰尘，必要时更换风扇 |

## 日常保养

保养按以下步骤进行，每一步完成后在记录表上签字：

1. 断开主电源并挂上警示牌，等待五分钟让电容放电。
2. 用压缩空气吹扫散热片和风道里的积尘。
3. 检查所有接线端子的紧固力矩，松动的重新拧紧。

```bash
servo-tool --reset --log /var/log/servo.log
```
"""

OTHER = """---
title: 润滑油更换
---
# 润滑油更换

减速机每运行两千小时更换一次润滑油，使用指定型号的合成齿轮油，加注到油标中线。
"""


def test_finer_chunks_inside_their_section_have_no_models(tmp_path):
    cfg = load_config(REPO)
    chunks = chunk_document(parse_source(DOC, tmp_path / "d.md", "d.md"))
    plan = dict(zip((c.id for c in chunks), plan_models(chunks, cfg), strict=True))
    kinds = {c.kind for c in chunks}
    assert {"section", "table", "table_row", "list_item", "code"} <= kinds
    for c in chunks:
        if c.kind in ("section", "list_item", "table_row"):  # statements of their own
            assert plan[c.id] == ["use"]
        else:  # each lies inside its parent section (a code block by its own lines)
            assert plan[c.id] == [], c
    own = load_config(REPO, overrides={"embedding": {"fine_vectors": "own"}})
    assert all(models == ["use"] for models in plan_models(chunks, own))


def test_second_model_only_for_chunks_in_their_documents_language():
    cfg = load_config(REPO)  # en = minilm
    command = "servo-tool --reset --log /var/log/servo.log and restart the drive"
    assert models_for(command, cfg) == ["minilm", "use"]
    assert models_for(command, cfg, "en") == ["minilm", "use"]
    assert models_for(command, cfg, "zh") == ["use"]  # an English line in a Chinese page
    assert models_for("驱动器面板显示故障码时先记录故障码", cfg, "zh") == ["use"]


@pytest.fixture(scope="module")
def corpus_index(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    (corpus / "servo.md").write_text(DOC, encoding="utf-8")
    (corpus / "oil.md").write_text(OTHER, encoding="utf-8")
    out = tmp_path_factory.mktemp("out") / "dist"
    stats = build(load_config(REPO), BuildOptions(corpus=corpus, out=out, lenient=True, use_cache=False,
                                                  progress=False))
    assert stats.shared_vectors > 0 and stats.embedded == stats.chunks - stats.shared_vectors
    return open_index(out)


def _rows(index):
    return index.store.chunks(list(range(index.store.count())))


def test_only_embedded_chunks_are_in_the_graph(corpus_index):
    rows = _rows(corpus_index)
    embedded = [n for n, r in rows.items() if r["models"]]
    assert len(corpus_index.vectors("use")) == len(embedded) < len(rows)
    assert corpus_index.manifest["counts"]["shared_vectors"] == len(rows) - len(embedded)


def test_table_without_vector_is_found_and_cited_by_its_own_lines(corpus_index):
    rows = _rows(corpus_index)
    table = next(r for r in rows.values() if r["kind"] == "table")
    assert table["models"] == ""
    section = next(r for r in rows.values() if r["id"] == table["extra"]["parent"])
    q = "故障码表：编码器线缆断开、母线电压过高、散热风扇停转"
    res = search(corpus_index, q, k=3, where=["kind=table"]).to_dict()
    top = res["results"][0]
    assert (top["chunk_id"], top["kind"]) == (table["id"], "table")
    assert (top["line_start"], top["line_end"]) == (table["line_start"], table["line_end"]) == (8, 12)
    # its vector evidence is the section's: the graph does not hold the table at all
    req = CandidateRequest(q, "vector", (), False, None, (), 50)
    raw = LOCAL_CANDIDATES.ranked_lists(corpus_index, req)["vector:use"]
    assert table["num"] not in raw.keys.tolist() and section["num"] in raw.keys.tolist()
    got = inherit(corpus_index, {"vector:use": raw}, None)["vector:use"]
    score = dict(zip(got.keys.tolist(), got.scores.tolist(), strict=True))
    assert score[table["num"]] == score[section["num"]]
    # (the search's filtered path computes the cosine in numpy, the graph in usearch, whose
    # kernels on a CPU with AVX-512 FP16 multiply in float16: equal to ~1e-4, not 1e-5)
    assert top["why"]["vector_score"] == pytest.approx(score[section["num"]], abs=1e-3)


def test_filters_reach_a_chunk_through_its_parents_vector(corpus_index):
    rows = _rows(corpus_index)
    table = next(r for r in rows.values() if r["kind"] == "table")
    parent = next(r["num"] for r in rows.values() if r["id"] == table["extra"]["parent"])
    mask = np.zeros(len(rows), dtype=bool)
    mask[table["num"]] = True  # only the table is allowed, not its section
    wide = widen_mask(corpus_index, mask)
    assert wide is not None and wide[parent] and wide.sum() == 2
    lists = {"vector:use": Ranked(np.array([parent, 0]), np.array([0.8, 0.5], dtype=np.float32)),
             "bm25": Ranked(np.array([parent, table["num"]]), np.array([3.0, 2.0]))}
    got = inherit(corpus_index, lists, mask)
    assert got["vector:use"].keys.tolist() == [table["num"]]
    assert got["vector:use"].scores.tolist() == pytest.approx([0.8])
    assert got["bm25"].keys.tolist() == [table["num"]]


def test_sharing_chunks_are_seen_by_their_parents_models(corpus_index):
    rows = _rows(corpus_index)
    seen = vector_models(corpus_index)
    ids = {r["id"]: n for n, r in rows.items()}
    shared = [n for n, r in rows.items() if not r["models"]]
    assert shared
    for n in shared:
        assert seen[n] == rows[ids[rows[n]["extra"]["parent"]]]["models"] == "use"
    assert all(seen[n] == r["models"] for n, r in rows.items() if r["models"])


def test_a_block_past_the_end_of_its_sections_embedded_text_keeps_its_own_vector(tmp_path):
    cfg = load_config(REPO)
    cap = ChunkConfig.from_config(cfg).embed_cap
    long_code = "\n".join(f"step_{i} --flag value_{i}" for i in range(cap // 20))
    doc = ("---\ntitle: 长脚本\n---\n# 长脚本\n\n先运行准备脚本：\n\n```bash\n" + long_code
           + "\n```\n\n运行完成后检查日志。\n\n再把结果记入巡检表。\n\n## 清理\n\n最后清理：\n\n```bash\n"
           "cleanup --all\n```\n")  # (a block whose context is its section piece is no chunk)
    chunks = chunk_document(parse_source(doc, tmp_path / "d.md", "d.md"))
    plan = dict(zip((c.id for c in chunks), plan_models(chunks, cfg), strict=True))
    by_id = {c.id: c for c in chunks}
    long_block, short_block = (c for c in chunks if c.kind == "code")
    section = by_id[long_block.extra["parent"]]
    assert len(section.text) > cap and section.line_end >= long_block.extra["code_lines"][1]
    assert "step_1 " in section.embed_text and long_code[-30:] not in section.embed_text
    assert "use" in plan[long_block.id]  # its end is cut off the section's vector
    assert plan[short_block.id] == []  # wholly in its section's embedded text


def test_worker_processes_embed_exactly_as_the_build_process(monkeypatch):
    emb = get_reference_embedder("use")
    texts = [f"第{i}号设备的巡检记录：温度{20 + i}度，振动正常。" * (1 + i % 3) for i in range(40)]
    monkeypatch.setenv("KB_EMBED_WORKERS", "1")
    assert workers_for(emb, 10) == 1
    here = np.concatenate([v for _, v in embed_batches(emb, texts, 4)])
    monkeypatch.setenv("KB_EMBED_WORKERS", "2")
    if workers_for(emb, 10) < 2:
        pytest.skip("one core: no worker processes")
    offsets, parts = zip(*embed_batches(emb, texts, 4), strict=True)
    assert list(offsets) == list(range(0, 40, 4))
    assert np.array_equal(np.concatenate(parts), here)
    assert workers_for(get_reference_embedder("test-hash"), 100) == 1  # not opted in


UNGUARDED = """
import hashlib, sys
import numpy as np
from kbtools.embed.parallel import embed_batches
from kbtools.embed.registry import get_reference_embedder
texts = [f"第{i}号设备的巡检记录：温度{20 + i}度，振动正常。" for i in range(40)]
vecs = np.concatenate([v for _, v in embed_batches(get_reference_embedder("use"), texts, 4)])
print(len(vecs), hashlib.sha256(np.ascontiguousarray(vecs).tobytes()).hexdigest())
"""


def test_a_script_without_a_main_guard_still_embeds_everything(tmp_path, monkeypatch):
    """Spawned workers re-run an unguarded calling script and die; the batches left are
    embedded in the calling process, to the same vectors."""
    import hashlib
    import os
    import subprocess
    import sys

    script = tmp_path / "embed_all.py"
    script.write_text(UNGUARDED, encoding="utf-8")
    env = {**os.environ, "KB_EMBED_WORKERS": "2", "PYTHONPATH": str(REPO)}
    if workers_for(get_reference_embedder("use"), 10) < 2:
        pytest.skip("one core: no worker processes")
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                         text=True, timeout=600, check=True).stdout.split()
    monkeypatch.setenv("KB_EMBED_WORKERS", "1")
    texts = [f"第{i}号设备的巡检记录：温度{20 + i}度，振动正常。" for i in range(40)]
    here = np.concatenate([v for _, v in embed_batches(get_reference_embedder("use"), texts, 4)])
    assert out == ["40", hashlib.sha256(np.ascontiguousarray(here).tobytes()).hexdigest()]


def test_sharing_expands_each_parent_by_its_children_in_order():
    rng = np.random.default_rng(7)
    n = 400
    parent = np.full(n, -1, dtype=np.int64)
    sections = np.sort(rng.choice(n, 60, replace=False))
    for i in range(n):  # a chunk shares the vector of the last section before it, often
        before = sections[sections < i]
        if len(before) and i not in sections and rng.random() < 0.7:
            parent[i] = before[-1]
    share = Sharing.of(parent)
    keys = rng.choice(np.flatnonzero(parent < 0), 25, replace=False)
    scores = rng.random(25).astype(np.float32)
    got_keys, got_scores, source = share.expand(keys, scores)
    want_keys, want_scores = [], []
    for k, s in zip(keys.tolist(), scores.tolist(), strict=True):
        for c in [k, *np.flatnonzero(parent == k).tolist()]:
            want_keys.append(c)
            want_scores.append(s)
    assert got_keys.tolist() == want_keys
    assert got_scores.tolist() == pytest.approx(want_scores)
    assert keys[source].tolist() == [k if parent[k] < 0 else parent[k] for k in want_keys]
    empty_keys, empty_scores, _ = share.expand(np.zeros(0, dtype=np.int64),
                                            np.zeros(0, dtype=np.float32))
    assert len(empty_keys) == len(empty_scores) == 0


def test_chunks_sharing_a_vector_share_its_rank(corpus_index):
    rows = _rows(corpus_index)
    share = Sharing.of(corpus_index.chunk_table().parent)
    parent = next(n for n in rows if share.start[n + 1] > share.start[n])
    kids = share.children[share.start[parent]:share.start[parent + 1]].tolist()
    other = next(n for n, r in rows.items() if r["models"] and n != parent)
    for order in ([parent, other], [other, parent]):  # a near tie either way round
        raw = Ranked(np.array(order), np.array([0.5, 0.5], dtype=np.float32))
        got = inherit(corpus_index, {"vector:use": raw}, None)["vector:use"]
        rank = dict(zip(got.keys.tolist(), got.rank_of_each().tolist(), strict=True))
        assert {rank[k] for k in kids} == {rank[parent]} == {order.index(parent) + 1}
        assert rank[other] == order.index(other) + 1  # one place behind or ahead, never more
        fused = fuse({"vector:use": got}, FusionParams())
        assert {h.why["vector_rank"] for h in fused if h.num in kids} == {rank[parent]}
    mask = np.zeros(len(rows), dtype=bool)
    mask[kids[0]] = mask[other] = True  # the section itself filtered out
    raw = Ranked(np.array([parent, other]), np.array([0.6, 0.5], dtype=np.float32))
    got = inherit(corpus_index, {"vector:use": raw}, mask)["vector:use"]
    assert got.keys.tolist() == [kids[0], other] and got.rank_of_each().tolist() == [1, 2]


def test_parents_are_one_array_of_the_store(corpus_index):
    rows = _rows(corpus_index)
    ids = {r["id"]: n for n, r in rows.items()}
    parent = corpus_index.chunk_table().parent
    for n, r in rows.items():
        assert parent[n] == (ids[r["extra"]["parent"]] if not r["models"] else -1)
