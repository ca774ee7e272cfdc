"""An index opened while a build replaces it is one tree, never parts of two.

`open_index` reads a release's files by path (manifest, BM25, store, vectors). A `kb build`
that swaps a new `dist/` in while a `kb query`, `kb mcp` or `kb serve` is opening the old one
used to give the manifest and BM25 of one tree and the store of the other, so chunks were
cited from the wrong build (or the open failed with "index/ unreadable").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hostile import GOOD_DOC, kb, make_repo

import kbtools.index.reader as reader
from kbtools import fsutil
from kbtools.agents.read import open_knowledge
from kbtools.errors import IndexLoadError
from kbtools.fsutil import replace_dir, staging_dir
from kbtools.index.reader import open_index
from kbtools.query.search import search
from kbtools.serve import i18n
from kbtools.serve.source import Served

EXTRA = {f"knowledge/extra{i}.md": GOOD_DOC.replace("Pump maintenance", f"Valve {i} checks")
         .replace("mechanical seal of the irrigation pump", f"gasket of valve {i}")
         for i in range(3)}


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory) -> tuple[Path, Path]:
    """Two different builds: one document, and four."""
    base = tmp_path_factory.mktemp("swap")
    out = []
    for name, docs in (("small", None), ("large", EXTRA)):
        repo = make_repo(base / name, docs=docs)
        res = kb(repo, "build", "-q", home=base / "home", timeout=600)
        assert res.returncode == 0, res.stderr.decode()
        out.append(repo / "dist")
    return out[0], out[1]


def swap_in(tree: Path, target: Path) -> None:
    """What a build's last step does: a copy of `tree` replaces `target`."""
    with staging_dir(target) as staging:
        shutil.copytree(tree, staging, dirs_exist_ok=True)
        replace_dir(staging, target)


def swap_during_open(monkeypatch, target: Path, trees: list[Path]) -> None:
    """Each open of `target` reads its manifest, then the next of `trees` is swapped in."""
    real = reader.load_manifest

    def load_then_swap(root: Path) -> Any:
        manifest = real(root)
        if trees:
            swap_in(trees.pop(0), target)
        return manifest

    monkeypatch.setattr(reader, "load_manifest", load_then_swap)


def test_open_during_a_swap_gives_the_new_tree_whole(two_builds, tmp_path, monkeypatch):
    small, large = two_builds
    target = tmp_path / "dist"
    swap_in(small, target)
    swap_during_open(monkeypatch, target, [large])
    idx = open_index(target)
    try:
        on_disk = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
        assert idx.manifest == on_disk  # the large build's manifest ...
        assert idx.store.count() == on_disk["counts"]["chunks"]  # ... with its own store
        hits = search(idx, "gasket of valve 2", k=1).results
        assert hits and hits[0].doc == "knowledge/extra2.md"
    finally:
        idx.close()


def test_an_index_replaced_at_every_open_is_one_line_error(two_builds, tmp_path, monkeypatch):
    small, large = two_builds
    target = tmp_path / "dist"
    swap_in(small, target)
    swap_during_open(monkeypatch, target, [large, small, large, small])
    with pytest.raises(IndexLoadError) as err:
        open_index(target)
    assert "replaced again and again while it was being opened" in err.value.format()
    assert i18n.error_zh(err.value) == i18n.ERRORS["index_replaced"]  # a Chinese page's words
    assert "\n" not in err.value.format()


def test_documents_are_read_from_the_tree_the_index_opened(two_builds, tmp_path, monkeypatch):
    """`kb serve`/`kb mcp` on a dist/ read data/source by path after opening: a request
    straddling a build that swapped in a new dist/ read the new tree's source against the
    old index's line numbers. The opened tree is held; once it is deleted, a read says
    the index was replaced instead of reading the new one."""
    small, large = two_builds
    target = tmp_path / "dist"
    swap_in(small, target)
    idx = open_index(target)
    try:
        kn = open_knowledge(idx=idx)
        served = Served(idx, kn)
        [doc] = [d["doc"] for d in idx.docs()]
        before = kn.read(kn.resolve(doc)).text
        kept: list[Path] = []
        monkeypatch.setattr(fsutil, "discard_dir", kept.append)  # the old tree stays a while
        swap_in(large, target)
        (target / "data" / "source" / doc).write_text("---\ntitle: new\n---\n# New build\n")
        assert kn.read(kn.resolve(doc)).text == before
        assert served.data_file(f"source/{doc}").decode("utf-8") == before
        [old] = kept
        shutil.rmtree(old)  # the old tree deleted: no read of the new one in its place
        with pytest.raises(IndexLoadError, match="replaced .* while this request read it"):
            kn.read(kn.resolve(doc))
        with pytest.raises(IndexLoadError, match="ask again") as err:
            served.data_file(f"source/{doc}")
        assert i18n.error_zh(err.value) == i18n.ERRORS["index_replaced"]
    finally:
        idx.close()
    reopened = open_index(target)  # the next request opens the new tree
    try:
        assert open_knowledge(idx=reopened).read(Path(target / "data/source" / doc)).text \
            .endswith("# New build\n")
    finally:
        reopened.close()
