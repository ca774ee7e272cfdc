"""Anchor text (kbtools.query.anchors): a page is found by the words other pages use when
they link to it, even when it shares none of them with the question; only its own page's
links count, identical anchor texts count once, and the filters still hold."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query import anchors
from kbtools.query.fusion import FusionParams, Hit
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import PAGE as DOC

# the editor page never says what it is used for here; the pages linking to it do
EDITOR = "按 i 进入插入模式，按 Esc 退出插入模式，输入 :wq 保存并退出。"
KDUMP = ("开启内核转储服务需要修改配置文件 kdump.conf，修改配置文件的方法请参见"
         "[Vim教程](/cn.zh-CN/最佳实践/Vim教程.md)。修改后重启服务。")
GRUB = ("调整启动参数需要修改配置文件 grub。请参见[Vim教程](/cn.zh-CN/最佳实践/Vim教程.md)"
        "修改配置文件。")
SELF = "本页的快捷键见[插入模式](#insert)与[Vim教程](vim.md)。"
FILLERS = {f"knowledge/other{i}.md": DOC.format(title=t, source=f"test {i}", body=b)
           for i, (t, b) in enumerate([
               ("重启实例", "在控制台重启实例，重启后服务自动启动。" * 2),
               ("查看日志", "系统日志保存在 /var/log 目录，可以按时间筛选。" * 2),
               ("安全组规则", "安全组规则控制实例的入方向与出方向流量。" * 2),
               ("创建快照", "创建快照可以备份云盘数据，快照按容量计费。" * 2),
               ("网卡", "多网卡实例需要修改网卡配置文件，然后重启网络服务。" * 2),
               ("时区", "修改时区配置文件后重启实例，日志时间随之改变。" * 2),
               ("DNS", "修改DNS配置文件 resolv.conf 以使用内网DNS。" * 2),
           ])}
QUESTION = "如何编辑配置文件？"  # 编辑: a word no page uses
IN_THEIR_WORDS = "如何修改配置文件？"  # held whole by several pages


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> object:
    repo = make_repo(tmp_path_factory.mktemp("anchors"), docs={
        "knowledge/vim.md": DOC.format(title="Vim教程", source="Docs cn.zh-CN/最佳实践/Vim教程.md",
                                       body=EDITOR + "\n\n" + SELF),
        "knowledge/kdump.md": DOC.format(title="开启kdump", source="test", body=KDUMP),
        "knowledge/grub.md": DOC.format(title="修改启动参数", source="test", body=GRUB + GRUB),
        **FILLERS})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False, lenient=True))
    return open_index(Path(out))


def _num(index, doc: str) -> int:
    return next(i for i, d in enumerate(index.docs()) if d["doc"] == doc)


def test_context_is_the_sentence_around_the_link_with_links_as_labels():
    text = "第一句。修改配置文件请参见[Vim教程](cn.zh-CN/最佳 实践/Vim教程.md#)和[grub](g.md)。下一句。"
    assert anchors.context(text, "[Vim教程](cn.zh-CN/最佳 实践/Vim教程.md#)") == \
        "修改配置文件请参见Vim教程和grub"
    assert anchors.context("x" * 500 + "[a](b.md)" + "y" * 500, "[a](b.md)") == \
        "x" * anchors.CONTEXT_CHARS + "a" + "y" * anchors.CONTEXT_CHARS
    assert anchors.context("elsewhere", "[label](b.md)") == "label"  # not found: the label


def test_a_reference_links_context_has_its_text_not_its_label():
    """Reference links are chunk links now: their label (`[safety]`) is no anchor word."""
    text = "第一句。拆卸前阅读[安全须知][safety]，复位见[复位][]。下一句。"
    assert anchors.context(text, "[安全须知][safety]") == "拆卸前阅读安全须知，复位见复位"


def test_anchor_texts_come_from_other_pages_once_each(index):
    texts = anchors.anchor_texts(index)
    vim = texts[_num(index, "knowledge/vim.md")]
    assert any("kdump.conf" in t and "Vim教程" in t for t in vim)
    assert vim.count("请参见Vim教程修改配置文件") == 1  # written twice on its page: once
    assert not any("插入模式" in t for t in vim)  # its own links are not its anchor text
    assert all(not t for d, t in enumerate(texts) if d != _num(index, "knowledge/vim.md"))
    assert anchors.anchor_field(index) is anchors.anchor_field(index)  # once per index


def test_anchor_field_scores_only_pages_with_the_terms(index):
    _, ids, _ = index.bm25.query_terms(QUESTION)
    scores = anchors.anchor_field(index).scores(ids)
    assert np.flatnonzero(scores).tolist() == [_num(index, "knowledge/vim.md")]
    assert anchors.anchor_field(index).scores([]).sum() == 0


def test_a_page_found_by_its_anchor_text_alone_joins(index):
    _, ids, _ = index.bm25.query_terms(QUESTION)
    others = [n for n in range(index.store.count())
              if index.chunk_table().doc[n] != _num(index, "knowledge/vim.md")]
    got = anchors.reweigh(index, [Hit(others[0], 1.0)], ids, 0.5)
    joined = [h for h in got if index.chunk_table().doc[h.num] == _num(index, "knowledge/vim.md")]
    assert [h.why["anchor"] for h in joined] == [pytest.approx(0.5)]
    assert joined[0].num == min(n for n in range(index.store.count()) if n not in others)
    mask = np.ones(index.store.count(), dtype=bool)
    mask[joined[0].num] = False
    assert len(anchors.reweigh(index, [Hit(others[0], 1.0)], ids, 0.5, mask)) == 1
    assert anchors.reweigh(index, [Hit(others[0], 1.0)], ids, 0.0) == [Hit(others[0], 1.0)]


def test_hybrid_search_finds_the_page_by_its_anchor_text(index):
    def docs(weight: float, mode: str = "hybrid", where: list[str] | None = None) -> list[dict]:
        return search(index, QUESTION, k=8, keep_results=True, mode=mode, where=where,
                      params=FusionParams(anchor_weight=weight, hub_weight=0.0),
                      ).to_dict()["results"]

    def rank(results: list[dict]) -> int:
        return list(dict.fromkeys(r["doc"] for r in results)).index("knowledge/vim.md")

    off, on = docs(0.0), docs(1.0)
    assert rank(on) < rank(off), (rank(on), rank(off))  # by words it never uses itself
    vim = next(r for r in on if r["doc"] == "knowledge/vim.md")
    assert vim["why"]["anchor"] > 0.5
    # lifted up to the best answer, never past it
    assert vim["score"] == pytest.approx(anchors.ANCHOR_CAP * on[0]["score"], abs=1e-5)
    assert "kdump" not in vim["text"]  # shown with its own text, not the anchors
    for mode in ("bm25", "vector"):  # single retrievers are left as they are
        assert not any("anchor" in r["why"] for r in docs(0.5, mode))
    assert "knowledge/vim.md" not in {r["doc"] for r in
                                      docs(0.5, where=["doc!=knowledge/vim.md"])}


def test_anchor_text_does_not_count_for_a_question_a_page_already_words(index):
    def anchored(found_share: float) -> list[str]:
        res = search(index, IN_THEIR_WORDS, k=8, keep_results=True, params=FusionParams(
            anchor_weight=1.0, found_share=found_share)).to_dict()
        return [r["doc"] for r in res["results"] if "anchor" in r["why"]]

    assert anchored(FusionParams().found_share) == []
    assert "knowledge/vim.md" in anchored(1.01)


def test_a_new_process_reads_the_graph_and_field_kept_under_kb_home(index, tmp_path,
                                                                     monkeypatch):
    """What the first question derived is kept under KB_HOME: a fresh index object (a new
    `kb query`) reads the same graph and field instead of deriving them; a damaged file is
    derived again; another release (another manifest) never reads it."""
    from kbtools.query import neighbours

    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    first = open_index(Path(index.root))
    field, graph = anchors.anchor_field(first), neighbours.link_graph(first)
    kept = sorted((tmp_path / "home" / "cache" / "links").glob("*.npz"))
    assert sorted(p.name.split(".")[1] for p in kept) == ["anchors", "graph"]
    assert any(graph) and len(field.docs)

    again = open_index(Path(index.root))
    calls: list[int] = []
    monkeypatch.setattr(type(again.store), "chunk_links_text",
                        lambda self: calls.append(1) or [])
    monkeypatch.setattr(type(again.store), "chunk_links", lambda self: calls.append(1) or [])
    assert neighbours.link_graph(again) == graph
    got = anchors.anchor_field(again)
    assert not calls  # read, not derived
    for a, b in zip((got.indptr, got.docs, got.weights), (field.indptr, field.docs,
                                                           field.weights), strict=True):
        assert np.array_equal(a, b)
    assert got.n_docs == field.n_docs
    first_hits = search(first, QUESTION, k=3).results
    assert [h.chunk_id for h in search(again, QUESTION, k=3).results] == \
        [h.chunk_id for h in first_hits]

    for p in kept:  # damaged: derived again, from the store
        p.write_bytes(b"not an npz")
    monkeypatch.undo()
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    third = open_index(Path(index.root))
    assert neighbours.link_graph(third) == graph
    assert np.array_equal(anchors.anchor_field(third).weights, field.weights)

    other = open_index(Path(index.root))
    other.manifest = {**other.manifest, "commit": "another"}
    from kbtools.query import link_cache
    assert link_cache.load(other, "graph") is None


def test_a_device_whose_clock_was_set_back_keeps_what_it_just_derived(index, tmp_path,
                                                                      monkeypatch):
    """Files used before the clock was set back were "newer" than the one just written,
    which was removed at once: every process derived the links again."""
    import os
    import time

    from kbtools.query import link_cache

    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / "cache" / "links"
    folder.mkdir(parents=True)
    ahead = time.time() + 400 * 86400
    for n in range(link_cache.KEEP + 2):
        other = folder / f"{n:032x}.graph.npz"
        np.savez(other, x=np.zeros(1))
        os.utime(other, (ahead + n, ahead + n))
    fresh = open_index(Path(index.root))
    link_cache.save(fresh, "graph", {"x": np.arange(3)})
    got = link_cache.load(open_index(Path(index.root)), "graph")
    assert got is not None and np.array_equal(got["x"], np.arange(3))
    assert len(list(folder.glob("*.npz"))) == link_cache.KEEP
