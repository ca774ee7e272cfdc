"""Page-level evidence (kbtools.query.pages): each document's page vector is the direction
of its chunks' vectors, and hybrid search adds the question's closeness to it to every
chunk of the document — which documents come first may change, never the order inside one."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import IndexLoadError
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import open_index
from kbtools.query import pages
from kbtools.query.fusion import FusionParams, Ranked, fuse_arrays
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
SNAPSHOT = "\n\n".join(f"## {h}\n\n{b}" for h, b in [
    ("创建快照", "在控制台为云盘创建快照，快照保存云盘某一时刻的数据，可用于备份与恢复。" * 3),
    ("快照计费", "快照按占用的存储容量计费，复制快照到其他地域会产生流量费用。" * 3),
    ("回滚云盘", "使用快照回滚云盘前必须停止实例，回滚后云盘数据恢复到快照时刻。" * 3),
])
BANDWIDTH = "\n\n".join(f"## {h}\n\n{b}" for h, b in [
    ("修改带宽", "包年包月实例可以临时升级公网带宽，升级期间按天计费。" * 3),
    ("带宽计费", "按使用流量计费的实例按每小时实际流量结算，快照不影响带宽费用。" * 3),
])


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> object:
    repo = make_repo(tmp_path_factory.mktemp("pages"), docs={
        "knowledge/snapshot.md": DOC.format(title="云盘快照", body=SNAPSHOT),
        "knowledge/bandwidth.md": DOC.format(title="公网带宽", body=BANDWIDTH)})
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return open_index(Path(out))


def _model(index) -> str:
    return sorted(index.manifest["models"])[0]


def test_page_vector_is_the_direction_of_the_documents_chunks(index):
    model = _model(index)
    table = index.chunk_table()
    got = pages.page_vectors(index, model)
    assert got.shape[0] == len(index.docs())
    for d, record in enumerate(index.docs()):
        keys = np.flatnonzero((table.doc == d) & np.array([model in m.split(",")
                                                           for m in table.models]))
        vecs = np.asarray(index.vectors(model).get(keys.astype(np.uint64)), dtype=np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        want = vecs.sum(0) / np.linalg.norm(vecs.sum(0))
        assert np.allclose(got[d], want, atol=1e-5), record["doc"]
    assert pages.page_vectors(index, model) is got  # computed once per index object


def test_bonus_spans_zero_to_the_weight(index):
    model = _model(index)
    bonus = pages.page_bonus(index, model, pages.question_vector(model, "快照怎么收费"), 0.2)
    assert bonus.min() == pytest.approx(0.0) and bonus.max() == pytest.approx(0.2)
    snapshot = next(i for i, d in enumerate(index.docs()) if d["doc"] == "knowledge/snapshot.md")
    assert bonus[snapshot] == pytest.approx(0.2)  # the page the question is about


def reference_bonus(pages_: np.ndarray, question: np.ndarray, weight: float) -> np.ndarray:
    """`page_bonus` as defined: cosines rescaled between the least and most similar page
    that has a vector; documents without one get 0."""
    cos = pages_ @ (question / max(float(np.linalg.norm(question)), 1e-9))
    present = np.linalg.norm(pages_, axis=1) > 0
    lo, hi = float(cos[present].min()), float(cos[present].max())
    return np.where(present, weight * (cos - lo) / (hi - lo), 0.0).astype(np.float32)


def test_bonus_is_its_definition_with_and_without_pageless_documents(index):
    model = _model(index)
    question = pages.question_vector(model, "公网带宽怎么收费")
    full = pages.page_vectors(index, model)
    assert np.array_equal(pages.page_bonus(index, model, question, 0.3),
                          reference_bonus(full, question, 0.3))
    other = open_index(index.root)  # its own caches: one document without a page vector
    lacking = np.vstack([np.zeros((1, full.shape[1]), dtype=np.float32), full])
    pages._PAGES[other] = {model: lacking}
    got = pages.page_bonus(other, model, question, 0.3)
    assert got[0] == 0.0 and got[1:].max() == pytest.approx(0.3)
    assert np.array_equal(got, reference_bonus(lacking, question, 0.3))


def test_reweigh_moves_documents_not_chunks_inside_them(index):
    model = _model(index)
    table = index.chunk_table()
    nums = list(range(len(table.doc)))
    fused = fuse_arrays({"bm25": Ranked(np.array(nums), np.array(
        [1.0 - 0.01 * i for i in range(len(nums))], dtype=np.float32))}, FusionParams())
    hits = fused.hits()
    out = pages.reweigh(index, fused, model, "快照怎么收费", weight=0.5).hits()
    assert sorted(h.num for h in out) == nums and all("page" in h.why for h in out)
    for d in set(table.doc.tolist()):  # each document's chunks keep their order
        assert [h.num for h in out if table.doc[h.num] == d] == \
            [h.num for h in hits if table.doc[h.num] == d]
    assert pages.reweigh(index, fused, model, "快照怎么收费", weight=0.0) is fused


def test_hybrid_search_uses_pages_single_retrievers_do_not(index):
    on = FusionParams(page_weight=0.2)
    res = search(index, "快照怎么收费", k=5, keep_results=True, params=on).to_dict()
    assert all("page" in r["why"] for r in res["results"])
    for mode in ("bm25", "vector"):
        res = search(index, "快照怎么收费", k=5, mode=mode, keep_results=True,
                     params=on).to_dict()
        assert not any("page" in r["why"] for r in res["results"])


def test_build_ships_page_vectors_reproducibly(index, tmp_path):
    """`kb build` writes each model's page vectors into data/ (listed in the manifest), the
    same vectors a search would compute from the release's vectors, and the same bytes
    when the same sources are built again."""
    for model in index.manifest["models"]:
        path = index.layout.pages(model)
        rel = path.relative_to(index.root).as_posix()
        assert index.manifest["artifacts"][rel]["size"] == path.stat().st_size
        shipped = np.load(path)
        assert shipped.dtype == np.float32 and shipped.shape[0] == len(index.docs())
        assert np.array_equal(pages.page_vectors(open_index(index.root), model), shipped)
        assert np.allclose(shipped, pages._compute(index, model), atol=0)
    again = tmp_path / "again"
    repo = index.root.parent
    build(load_config(repo), BuildOptions(out=again, progress=False))
    for model in index.manifest["models"]:
        assert index.layout.pages(model).read_bytes() == \
            open_index(again).layout.pages(model).read_bytes()


def _older_release(index, tmp_path: Path) -> Path:
    """A copy of the release as built before page vectors shipped (no data/pages)."""
    root = tmp_path / "older"
    shutil.copytree(index.root, root)
    shutil.rmtree(root / "data" / "pages")
    return root


def test_older_release_computes_and_keeps_them_between_processes(index, tmp_path, monkeypatch):
    """A release without shipped page vectors: a second process (a fresh index object) reads
    them from KB_HOME instead of the vectors; a cache file that does not fit this index is
    recomputed, an unwritable home skipped."""
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    older = _older_release(index, tmp_path)
    model = _model(index)
    first = pages.page_vectors(open_index(older), model)
    assert np.array_equal(first, pages.page_vectors(index, model))
    files = list((tmp_path / "home" / "cache" / "pages").glob("*.npy"))
    assert len(files) == 1 and np.array_equal(np.load(files[0]), first)
    np.save(files[0], np.ones((len(index.docs()) + 1, first.shape[1]), dtype=np.float32))
    again = pages.page_vectors(open_index(older), model)
    assert np.array_equal(again, first) and np.array_equal(np.load(files[0]), first)
    (tmp_path / "file").write_text("x", encoding="utf-8")
    monkeypatch.setenv("KB_HOME", str(tmp_path / "file"))  # a home that cannot be made
    assert np.array_equal(pages.page_vectors(open_index(older), model), first)


def test_a_device_whose_clock_was_set_back_keeps_the_vectors_it_computed(index, tmp_path,
                                                                          monkeypatch):
    """The cache kept its most recently used files by modification time: on a device whose
    clock was set back, the files used before it were "newer" than the one just written,
    which was removed at once, and every process computed the vectors again."""
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    folder = tmp_path / "home" / "cache" / "pages"
    folder.mkdir(parents=True)
    ahead = time.time() + 400 * 86400  # used before the clock went back a year
    for n in range(pages.KEEP_CACHED + 2):
        other = folder / f"{n:024x}-00000000.npy"
        np.save(other, np.zeros((1, 2), dtype=np.float32))
        os.utime(other, (ahead + n, ahead + n))
    older = _older_release(index, tmp_path)
    first = pages.page_vectors(open_index(older), _model(index))
    files = sorted(folder.glob("*.npy"))
    assert len(files) == pages.KEEP_CACHED
    mine = [f for f in files if not f.name.startswith("0" * 10)]
    assert len(mine) == 1 and np.array_equal(np.load(mine[0]), first)


def test_a_shipped_file_that_does_not_fit_is_one_line(index, tmp_path, monkeypatch):
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    root = tmp_path / "bad"
    shutil.copytree(index.root, root)
    model = _model(index)
    np.save(ReleaseLayout(root).pages(model), np.ones((1, 4), dtype=np.float32))
    with pytest.raises(IndexLoadError, match="do not fit this release"):
        pages.page_vectors(open_index(root), model)
    ReleaseLayout(root).pages(model).write_bytes(b"not numpy")
    res = CliRunner().invoke(main, ["query", "--index", str(root), "快照怎么收费"])
    assert res.exit_code != 0 and "Traceback" not in res.output
    assert "not a page-vector file" in res.output and "\n" not in res.output.strip()


def test_page_weight_is_a_query_setting(index):
    """`[query] page_weight` (FusionParams) sets the bonus, 0.2 by default; 0 turns it off."""
    assert FusionParams().page_weight == 0.2
    on = search(index, "快照怎么收费", k=5, keep_results=True,
                params=FusionParams(page_weight=0.5)).to_dict()
    assert max(r["why"]["page"] for r in on["results"]) == pytest.approx(0.5)
    off = search(index, "快照怎么收费", k=5, keep_results=True,
                 params=FusionParams(page_weight=0.0)).to_dict()
    assert not any("page" in r["why"] for r in off["results"])
