"""An incremental `kb build` stopped by SIGTERM at any stage: the previous index keeps
serving whole (its manifest, its self-check, its answers) and the next build writes what a
full `--no-cache` build of the tree writes."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from hostile import GOOD_DOC, kb, make_repo
from test_build_staging import build_until, staging_dirs

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.index.selfcheck import check_derived
from kbtools.query.search import search
from tests.test_incremental import store_rows, tree


def _docs(n: int) -> dict[str, str]:
    return {f"knowledge/{'zh' if i % 2 else 'en'}/d{i:03}.md":
            GOOD_DOC.replace("Pump maintenance", f"Pump {i}")
            + (f"\n第 {i} 节：密封件磨损编号 {i}。\n" if i % 2 else
               f"\nSection {i} on seal wear number {i}.\n") for i in range(n)}


def _answer(stdout: bytes) -> dict:
    out = json.loads(stdout)
    out.pop("took_ms")
    return out


@pytest.mark.parametrize("stage", ["check", "chunk", "render", "blame", "embed", "index"])
def test_an_interrupted_incremental_build_keeps_the_previous_index(tmp_path, stage):
    _interrupted(tmp_path, stage, signal.SIGTERM)


# Ctrl-C and a kill -9 (the OOM killer, a CI job cancelled) while it embeds (after "blame")
# and while it writes data/ and derives index/ (after "embed")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
@pytest.mark.parametrize("stage", ["blame", "embed"])
def test_ctrl_c_or_a_kill_mid_embed_or_mid_write_keeps_the_previous_index(tmp_path, stage, sig):
    _interrupted(tmp_path, stage, sig)


def _interrupted(tmp_path: Path, stage: str, sig: signal.Signals) -> None:
    """Build, edit, start an incremental build and send it `sig` once `stage` is done:
    dist/ is the previous index or (stopped after "index") the new one, whole; the next
    build writes the full build's bytes and sweeps the stopped one's staging folder."""
    repo = make_repo(tmp_path / "repo", docs=_docs(40))
    home = tmp_path / "home"
    assert kb(repo, "build", "-q", home=home).returncode == 0
    dist = repo / "dist"
    before = (dist / "manifest.json").read_bytes()
    old = kb(repo, "query", "seal wear number 8", "--json", home=home)
    assert old.returncode == 0 and b"number 8" in old.stdout
    doc = repo / "knowledge/en/d008.md"
    doc.write_text(doc.read_text(encoding="utf-8").replace("seal wear number 8",
                                                           "gasket creep number 8"),
                   encoding="utf-8")
    (repo / "knowledge/zh/d011.md").unlink()
    (repo / "knowledge/zh/d041.md").write_text(
        GOOD_DOC.replace("Pump maintenance", "水泵 41") + "\n第 41 节：叶轮汽蚀。\n",
        encoding="utf-8")

    full = tmp_path / "full"  # what the edited tree builds to
    build(load_config(repo), BuildOptions(out=full, progress=False, use_cache=False))
    after = (full / "manifest.json").read_bytes()

    proc = build_until(repo, home, stage.encode())
    proc.send_signal(sig)
    code = proc.wait(timeout=120)
    proc.stderr.close()  # type: ignore[union-attr]
    served = (dist / "manifest.json").read_bytes()
    # stopped before the swap: the previous index, whole; after it (only once the
    # "index" stage is done): the new one, whole
    assert served == before or (stage == "index" and served == after), (stage, code)
    if sig == signal.SIGINT and served == before:
        assert code == 130, code  # Ctrl-C's exit status, not a traceback's
    if served == before:
        assert _answer(kb(repo, "query", "seal wear number 8", "--json", home=home).stdout) \
            == _answer(old.stdout)
    assert check_derived(dist) == []

    again = kb(repo, "build", "-q", home=home)
    assert again.returncode == 0, again.stderr.decode()
    assert staging_dirs(repo) == set()
    assert tree(dist, "data") == tree(full, "data")
    assert (dist / "manifest.json").read_bytes() == after
    assert tree(dist, "index/bm25") == tree(full, "index/bm25")
    assert store_rows(dist) == store_rows(full)
    assert check_derived(dist) == []
    new = kb(repo, "query", "gasket creep number 8", "--json", home=home)
    assert b"gasket creep number 8" in new.stdout


@pytest.mark.parametrize("step", ["_store", "_bm25", "_graph"])
def test_another_build_swapping_dist_mid_derivation_is_not_mixed_in(tmp_path, step):
    """`kb watch` and a `kb build` in a terminal write one dist/: the other build's tree
    swapped in while this one derives index/ from dist/ (here: just as its store, BM25 or
    graph step starts) gave a derivation reading one tree's manifest and another's files.
    The result is the index a full build of this build's tree derives."""
    import shutil

    from kbtools.index import incremental

    repo = make_repo(tmp_path / "repo", docs=_docs(12))
    cfg = load_config(repo)
    dist = repo / "dist"
    opts = dict(progress=False)
    build(cfg, BuildOptions(out=dist, **opts))
    (repo / "knowledge/en/d004.md").unlink()  # the other build's tree: without d004
    other = tmp_path / "other"
    build(cfg, BuildOptions(out=other, use_cache=False, **opts))
    shutil.copy(repo / "knowledge/en/d002.md", repo / "knowledge/en/d004.md")  # this one's
    (repo / "knowledge/zh/d003.md").unlink()

    assert _build_swapped_at(getattr(incremental, step), cfg, dist, other, opts)
    full = tmp_path / "full"
    build(cfg, BuildOptions(out=full, use_cache=False, **opts))
    assert tree(dist, "data") == tree(full, "data")
    assert check_derived(dist) == []
    assert store_rows(dist) == store_rows(full)
    assert tree(dist, "index/bm25") == tree(full, "index/bm25")
    for question in ("seal wear number 2", "密封件磨损编号 5", "pump 7"):
        assert _search(dist, question) == _search(full, question)


def _build_swapped_at(fn, cfg, dist: Path, other: Path, opts: dict) -> bool:
    """Build into `dist` while another build's tree `other` is swapped in (`replace_dir`, as
    that build's end does) at the first call of `fn`; whether that call came."""
    import sys

    from kbtools.fsutil import replace_dir

    swapped = []

    def swap_in(frame, event, arg):
        if event == "call" and frame.f_code is fn.__code__ and not swapped:
            swapped.append(True)
            replace_dir(other, dist)

    sys.setprofile(swap_in)
    try:
        build(cfg, BuildOptions(out=dist, **opts))
    finally:
        sys.setprofile(None)
    return bool(swapped)


def _search(dist: Path, question: str) -> dict:
    index = open_index(dist)
    try:
        out = search(index, question, k=5, keep_results=True).to_dict()
    finally:
        index.close()
    out.pop("took_ms")
    assert out["results"]
    return out


@pytest.mark.parametrize("at", ["_embed", "write_release"])
def test_another_build_swapping_dist_after_shards_were_planned(tmp_path, at):
    """The other build's tree swapped in after this build chose the shards it takes from
    dist/ as they are (before they were linked, before the page vectors copied their
    rows): another tree's files were taken under this one's manifest entries."""

    from kbtools.build import pipeline
    from kbtools.index.layout import shard_of
    from kbtools.query import pages

    repo = make_repo(tmp_path / "repo", docs=_docs(12))
    cfg = load_config(repo)
    dist = repo / "dist"
    opts = dict(progress=False)
    build(cfg, BuildOptions(out=dist, **opts))
    edited, other_doc = "knowledge/en/d002.md", next(
        f"knowledge/{'zh' if i % 2 else 'en'}/d{i:03}.md" for i in range(3, 12)
        if shard_of(f"knowledge/{'zh' if i % 2 else 'en'}/d{i:03}.md") != shard_of(
            "knowledge/en/d002.md"))
    kept_text = (repo / other_doc).read_text(encoding="utf-8")
    (repo / other_doc).write_text(kept_text + "\nOnly in the other build.\n", encoding="utf-8")
    other = tmp_path / "other"
    build(cfg, BuildOptions(out=other, use_cache=False, **opts))
    (repo / other_doc).write_text(kept_text, encoding="utf-8")
    (repo / edited).write_text((repo / edited).read_text(encoding="utf-8") + "\nEdited.\n",
                               encoding="utf-8")

    assert _build_swapped_at(pipeline._embed if at == "_embed" else pages.write_release,
                             cfg, dist, other, opts)
    full = tmp_path / "full"
    build(cfg, BuildOptions(out=full, use_cache=False, **opts))
    assert tree(dist, "data") == tree(full, "data")
    assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
    assert check_derived(dist) == []
    assert store_rows(dist) == store_rows(full)
