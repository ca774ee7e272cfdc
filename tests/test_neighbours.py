"""Linked pages (kbtools.query.neighbours): the pages the first pages found link to join the
ranking right after the page that cites them, never before it; links the build could not
resolve (an exported site's original paths) are resolved by the documents' `source` paths
or titles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query import neighbours
from kbtools.query.fusion import FusionParams, Hit, best_first
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import PAGE as DOC

GUIDE = ("系统盘空间不足时可以在控制台扩容系统盘，扩容后需要在实例内扩展分区和文件系统。"
         "也可以调用 [ResizeDisk](api/resize-disk.md) 接口完成。扩容前请阅读"
         "[使用限制](/cn.zh-CN/产品简介/使用限制.md)，并参见[快照概述](#)。")
API = "ResizeDisk 调整一块云盘的容量。请求参数 DiskId 与 NewSize，返回 RequestId。"
LIMITS = "单台实例最多挂载 64 块云盘，单块云盘容量上限为 32 TiB。"
FILLERS = {f"knowledge/other{i}.md": DOC.format(
    title=t, source=f"test {i}", body=b) for i, (t, b) in enumerate([
        ("更换系统盘", "更换系统盘会清除系统盘数据，空间与分区按新镜像重新创建。" * 2),
        ("扩容数据盘", "数据盘扩容后在实例内扩展分区，控制台操作与系统盘相同。" * 2),
        ("系统盘快照", "为系统盘创建快照可在扩容前备份数据，分区表与文件系统一并保存。" * 2),
        ("分区与文件系统", "实例内的分区和文件系统可以在线扩展，适用于系统盘与数据盘。" * 2),
    ])}
# asked in a word no page uses (不够用): the guide is found, the words are not all there
QUESTION = "系统盘空间不够用怎么扩容？"
# asked in the guide's own words: the guide says it all, its links are not followed
IN_ITS_WORDS = "系统盘空间不足怎么扩容？"


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> object:
    repo = make_repo(tmp_path_factory.mktemp("links"), docs={
        "knowledge/guide.md": DOC.format(title="扩容系统盘", source="test", body=GUIDE),
        "knowledge/api/resize-disk.md": DOC.format(title="ResizeDisk", source="test", body=API),
        "knowledge/limits.md": DOC.format(
            title="使用限制", source="Docs cn.zh-CN/产品简介/使用限制.md", body=LIMITS),
        **FILLERS})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False, lenient=True))
    return open_index(Path(out))


def _num(index, doc: str) -> int:
    return next(i for i, d in enumerate(index.docs()) if d["doc"] == doc)


def test_links_resolved_by_the_build_by_source_path_and_not_to_anchors(index):
    graph = neighbours.link_graph(index)
    guide = _num(index, "knowledge/guide.md")
    assert graph[guide] == {_num(index, "knowledge/api/resize-disk.md"),
                            _num(index, "knowledge/limits.md")}
    assert all(not graph[d] for d in range(len(graph)) if d != guide)
    assert neighbours.link_graph(index) is graph  # read once per index object


def test_linked_page_scores_below_the_page_that_cites_it():
    doc_of = np.array([0, 0, 1, 2, 3])
    graph = [frozenset({2, 3}), frozenset(), frozenset(), frozenset()]
    hits = [Hit(0, 1.0), Hit(3, 0.5), Hit(1, 0.4)]  # documents 0, 2, 0
    sim = np.array([0.0, 0.0, 1.0, 0.5])
    got = neighbours.linked_scores(hits, doc_of, graph, sim, weight=2.0)
    assert got == {2: pytest.approx(neighbours.LINK_CAP * 1.0),  # capped below its citer
                   3: pytest.approx(neighbours.LINK_CAP * 1.0)}
    small = neighbours.linked_scores(hits, doc_of, graph, sim, weight=0.1)
    assert small == {2: pytest.approx(0.6), 3: pytest.approx(0.05)}
    # a page already scoring more than the bonus gives keeps its score (not listed)
    assert neighbours.linked_scores([Hit(0, 1.0), Hit(3, 0.95)], doc_of, graph,
                                    np.zeros(4), weight=1.0) == {}


def test_linked_pages_stopped_by_the_cap_keep_the_order_of_their_evidence(index):
    """Both pages the guide links to reach the cap (0.9 × the guide): the one the question
    is closer to comes first, whichever has the lower chunk number."""
    guide, api, limits = (_num(index, f"knowledge/{d}.md")
                          for d in ("guide", "api/resize-disk", "limits"))
    first = neighbours.first_chunks(index)
    for closer, farther in ((api, limits), (limits, api)):
        sim = np.zeros(len(index.docs()))
        sim[closer], sim[farther] = 1.0, 0.5
        uncapped: dict[int, float] = {}
        got = neighbours.reweigh(index, [Hit(int(first[guide]), 1.0)], sim, 5.0,
                                 uncapped=uncapped)
        assert [h.num for h in got] == [first[guide], first[closer], first[farther]]
        assert got[1].score == got[2].score == pytest.approx(neighbours.LINK_CAP)
        assert uncapped == {first[closer]: pytest.approx(5.0),
                            first[farther]: pytest.approx(2.5)}


def test_equal_scores_are_ordered_by_their_score_without_the_caps():
    hits = [Hit(1, 0.9), Hit(2, 0.9), Hit(3, 1.0), Hit(4, 0.9)]
    assert [h.num for h in best_first(hits, {2: 1.4, 4: 1.1})] == [3, 2, 4, 1]
    assert [h.num for h in best_first(hits)] == [3, 1, 2, 4]  # none: chunk number


def test_hub_scores_count_the_pages_linking_to_a_page(index):
    hubs = neighbours.hub_scores(index)
    linked = {_num(index, "knowledge/api/resize-disk.md"), _num(index, "knowledge/limits.md")}
    assert hubs.tolist() == [1.0 if d in linked else 0.0 for d in range(len(index.docs()))]
    assert neighbours.hub_scores(index) is hubs  # once per index object


def test_hubs_rise_only_for_a_question_the_pages_do_not_word(index):
    """The guide's two linked pages are the index's hubs: for a question in words no page
    uses they rise by the hub weight (``why.hub``); asked in the guide's own words, the
    ranking is the retrievers' alone."""
    def ranked(question: str, weight: float) -> list[dict]:
        return search(index, question, k=8, keep_results=True, params=FusionParams(
            hub_weight=weight, link_weight=0.0, anchor_weight=0.0)).to_dict()["results"]

    limits = "knowledge/limits.md"
    on, off = ranked(QUESTION, 0.5), ranked(QUESTION, 0.0)
    assert [r["why"]["hub"] for r in on if r["doc"] == limits] == [pytest.approx(0.5)]
    assert not any("hub" in r["why"] for r in off)
    assert on[0]["doc"] == off[0]["doc"] == "knowledge/guide.md"
    assert [r["doc"] for r in on].index(limits) < [r["doc"] for r in off].index(limits)
    assert not any("hub" in r["why"] for r in ranked(IN_ITS_WORDS, 0.5))
    assert not any("hub" in r["why"] for r in search(  # single retrievers: as they are
        index, QUESTION, k=8, mode="bm25", keep_results=True,
        params=FusionParams(hub_weight=0.5)).to_dict()["results"])


def test_hybrid_search_brings_the_linked_api_page_after_its_guide(index):
    def docs(weight: float) -> list[str]:
        res = search(index, QUESTION, k=8, keep_results=True,
                     params=FusionParams(link_weight=weight)).to_dict()
        return list(dict.fromkeys(r["doc"] for r in res["results"]))

    off, on = docs(0.0), docs(1.0)
    assert off[0] == on[0] == "knowledge/guide.md"
    api = "knowledge/api/resize-disk.md"
    assert on.index(api) < off.index(api)  # lifted by its guide's link …
    assert on.index(api) > on.index("knowledge/guide.md")  # … and never above it
    res = search(index, QUESTION, k=8, keep_results=True,
                 params=FusionParams(link_weight=1.0)).to_dict()
    assert any("linked" in r["why"] for r in res["results"] if r["doc"] == api)
    for mode in ("bm25", "vector"):  # single retrievers are left as they are
        res = search(index, QUESTION, k=8, mode=mode, keep_results=True,
                     params=FusionParams(link_weight=1.0)).to_dict()
        assert not any("linked" in r["why"] for r in res["results"])


def test_links_do_not_count_for_a_question_a_page_already_words(index):
    def linked(found_share: float) -> list[str]:
        res = search(index, IN_ITS_WORDS, k=8, keep_results=True, params=FusionParams(
            link_weight=1.0, found_share=found_share)).to_dict()
        assert res["results"][0]["doc"] == "knowledge/guide.md"
        return [r["doc"] for r in res["results"] if "linked" in r["why"]]

    assert linked(FusionParams().found_share) == []  # the guide holds every word
    assert "knowledge/api/resize-disk.md" in linked(1.01)  # a share no page reaches


def test_a_linked_page_outside_the_filters_does_not_join(index):
    api = "knowledge/api/resize-disk.md"
    res = search(index, QUESTION, k=8, keep_results=True, where=[f"doc!={api}"],
                 params=FusionParams(link_weight=1.0)).to_dict()
    assert res["results"] and api not in {r["doc"] for r in res["results"]}
    assert any("linked" in r["why"] for r in res["results"])  # limits.md still joins
