"""Pseudo-relevance feedback (kbtools.query.feedback, opt-in): the salient words of the first
pages found are searched too, so a page that shares them but not the question's words can
become a candidate."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query import feedback
from kbtools.query.fusion import FusionParams, Hit, Ranked
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
GUIDES = {f"knowledge/guide{i}.md": DOC.format(title=f"扩容系统盘 {i}", body=b) for i, b in
          enumerate(["系统盘空间不足时在控制台扩容系统盘，也可以调用 ResizeDisk 接口。",
                     "扩容系统盘之后在实例内扩展分区，脚本可以调用 ResizeDisk 完成扩容。"])}
API = DOC.format(title="接口参考", body="ResizeDisk：请求参数 DiskId 与 NewSize，返回 RequestId。")
QUESTION = "系统盘空间不足怎么扩容"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> object:
    repo = make_repo(tmp_path_factory.mktemp("feedback"), docs={
        **GUIDES, "knowledge/api.md": API})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return open_index(Path(out))


def test_merge_adds_the_feedback_list_rescaled_to_the_first():
    first = Ranked(np.array([3, 1]), np.array([4.0, 2.0], dtype=np.float32))
    second = Ranked(np.array([1, 7]), np.array([10.0, 5.0], dtype=np.float32))
    got = feedback.merge(first, second, weight=0.5, count=10)
    # scale = 0.5 × 4 / 10: chunk 1 = 2 + 2, chunk 3 = 4, chunk 7 = 1; ties by chunk number
    assert got.keys.tolist() == [1, 3, 7]
    assert got.scores.tolist() == pytest.approx([4.0, 4.0, 1.0])
    assert feedback.merge(first, second, weight=0.0, count=10) is first
    assert len(feedback.merge(first, second, weight=0.5, count=2).keys) == 2


def test_salient_terms_are_shared_by_the_first_pages_not_the_questions(index):
    terms, ids, _ = index.bm25.query_terms(QUESTION)
    hits = [Hit(n, 1.0) for n in range(len(index.chunk_table().doc))
            if index.docs()[index.chunk_table().doc[n]]["doc"] in GUIDES]
    texts = {n: r["embed_text"] for n, r in index.store.ranking_rows([h.num for h in hits]).items()}
    got = feedback.salient_terms(index, hits, texts, set(ids), n_terms=5, min_support=2)
    vocab = {i: t for t, i in index.bm25.vocab.items()}
    assert "resizedisk" in {vocab[i].lower() for i in got}
    assert not set(got) & set(ids)


def test_feedback_brings_the_page_sharing_the_first_pages_words(index):
    def docs(weight: float) -> list[str]:
        res = search(index, QUESTION, k=5, mode="hybrid", keep_results=True,
                     params=FusionParams(feedback_weight=weight, feedback_support=2)).to_dict()
        return [r["doc"] for r in res["results"] if r["why"]["bm25_rank"] is not None]

    assert "knowledge/api.md" not in docs(0.0)  # no word of the question
    assert "knowledge/api.md" in docs(0.5)
