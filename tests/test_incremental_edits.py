"""Edits an author really makes, in a Git repository, each followed by an incremental build
(into the dist/ the previous build wrote, with its caches) and compared with a full
`--no-cache` build of the same tree: data/ and the manifest byte for byte, the BM25 files,
the store's rows and `kb query --json`'s answers (`tests/test_incremental.py` compares
the same without Git; here every build blames and judges reviews, as `kb build` does)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.selfcheck import check_derived
from tests.kbfixtures import copy_example
from tests.test_incremental import (
    TEST_HASH,
    answers,
    change_formula,
    copied,
    release,
    store_rows,
    tree,
)

OPTS = dict(progress=False, lenient=True)
FAULTS = "knowledge/equipment/hx260-ch05-fault-codes.md"
ADR = "knowledge/engineering/adr-0001-sqlite-on-devices.md"
REPORT = "knowledge/field_reports/2026-03-machine3-e17.md"
SCAB = "knowledge/crops/wheat-scab.md"
RUST = "knowledge/crops/corn-southern-rust.md"


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[Path, Path]:
    """The example knowledge (test-hash vectors) committed, and a build of it."""
    root = tmp_path_factory.mktemp("edits")
    repo = copy_example(root / "repo")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace('model = "use"', TEST_HASH),
                    encoding="utf-8")
    _commit(repo, "test-hash vectors")
    dist = root / "dist"
    assert build(load_config(repo), BuildOptions(out=dist, **OPTS)).derivation == "full"
    return repo, dist


def _commit(repo: Path, message: str) -> None:
    r = git.Repo(repo)
    r.git.add("-A")
    r.git.commit("-q", "--allow-empty", "-m", message)


def _git(repo: Path, *args: str) -> None:
    git.Repo(repo).git.execute(["git", *args])


def _replace(repo: Path, rel: str, old: str, new: str) -> None:
    path = repo / rel
    text = path.read_text(encoding="utf-8")
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def git_mv(repo: Path) -> None:
    _git(repo, "mv", ADR, ADR.replace("adr-0001-sqlite", "adr-0001-embedded-sqlite"))


def move_folder(repo: Path) -> None:
    """A document moved to another folder (another shard, another category's folder)."""
    (repo / "knowledge/archive").mkdir()
    _git(repo, "mv", FAULTS, "knowledge/archive/hx260-ch05-fault-codes.md")


def verify(repo: Path) -> None:
    """A field report reviewed: verified false → true with its reviewer and date."""
    _replace(repo, REPORT, "verified: false\n", "verified: true\nverified_by: "
             "zhang.wei@plant.example.com\nverified_at: \"2026-03-20T10:00:00+08:00\"\n")


def retag(repo: Path) -> None:
    _replace(repo, SCAB, "tags: [SOP, 风险预警, 扬花期]",
             "tags: [SOP, 扬花期, 赤霉病预警]")


def dictionary(repo: Path) -> None:
    path = repo / "knowledge/_dict.txt"
    path.write_text(path.read_text(encoding="utf-8") + "伺服过载 10 n\n", encoding="utf-8")


def synonyms(repo: Path) -> None:
    _replace(repo, "knowledge/_synonyms.txt", "= 烂穗病 =", "= 烂穗病 = 病穗 =")


def chunk_sizes(repo: Path) -> None:
    with (repo / "kb.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[chunk]\ntarget_chars = 300\nmax_chars = 450\n")


def model_settings(repo: Path) -> None:
    _replace(repo, "kb.toml", 'languages = { en = "test-hash" }', "")


def image(repo: Path) -> None:
    """A new image, and the paragraph that shows it."""
    shutil.copy(repo / "assets/images/rice-blast-leaf.png", repo / "assets/images/rice-neck.png")
    path = repo / "knowledge/crops/rice-blast.md"
    path.write_text(path.read_text(encoding="utf-8") + "\n## 穗颈瘟\n\n穗颈瘟病斑如图。\n\n"
                    "![穗颈瘟](../../assets/images/rice-neck.png)\n", encoding="utf-8")


def duplicate(repo: Path) -> None:
    """The same bytes under a second name (a copy an author forgot to change)."""
    shutil.copy(repo / FAULTS, repo / FAULTS.replace(".md", "-copy.md"))


def heading(repo: Path) -> None:
    """A heading another document's link names (`#2-病情指数`) renamed."""
    _replace(repo, "knowledge/crops/field-survey-methods.md", "## 2. 病情指数", "## 2. 病情指数与分级")


def chinese_name(repo: Path) -> None:
    _git(repo, "mv", FAULTS, "knowledge/equipment/故障代码表.md")


def case_only(repo: Path) -> None:
    _git(repo, "mv", ADR, ADR.replace("adr-0001", "ADR-0001"))


def drop_folder(repo: Path) -> None:
    _git(repo, "rm", "-r", "-q", "knowledge/engineering")


def reviewers(repo: Path) -> None:
    """The reviewers of a folder changed: its verified documents' reviews are judged anew."""
    _replace(repo, "kb.toml", '["alice@eng.example.com", "bob@eng.example.com"]',
             '["bob@eng.example.com"]')


def query_settings(repo: Path) -> None:
    with (repo / "kb.toml").open("a", encoding="utf-8") as fh:
        fh.write("\n[query]\ncandidates = 30\nrrf_k = 40\n")


def english_edit(repo: Path) -> None:
    _replace(repo, ADR, "\n## ", "\nDevices keep a write-ahead log of every sync.\n\n## ")


def crlf(repo: Path) -> None:
    """Saved with Windows line endings (the copy in data/source/ keeps LF)."""
    path = repo / FAULTS
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


def bom(repo: Path) -> None:
    path = repo / ADR
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


def touch(repo: Path) -> None:
    """Saved without a change (a new modification time, the same bytes)."""
    path = repo / FAULTS
    path.write_bytes(path.read_bytes())


def mailmap(repo: Path) -> None:
    """`.mailmap` maps the importer to another name: every line's blame says so."""
    (repo / ".mailmap").write_text("Tidy Author <tidy@example.com> <author@example.com>\n",
                                   encoding="utf-8")


def ignored(repo: Path) -> None:
    """A new document that `.gitignore` names (a local note): no part of the repository, the
    build leaves it out (`kbtools.ignored`), incremental or not."""
    (repo / ".gitignore").write_text("knowledge/**/local-*.md\n", encoding="utf-8")
    shutil.copy(repo / ADR, repo / "knowledge/engineering/local-notes.md")


def vocabulary(repo: Path) -> None:
    """Fewer front-matter fields feed the dictionary and the facets."""
    with (repo / "kb.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[vocabulary]\ndictionary = ["crop", "disease", "tags"]\n'
                 'facets = ["category", "crop", "tags"]\n')


def broken_yaml(repo: Path) -> None:
    """A front-matter syntax error (--lenient: the document is indexed with what was read)."""
    _replace(repo, SCAB, "tags: [SOP,", "tags: [SOP")
    _replace(repo, SCAB, "扬花期]", "扬花期")


EDITS: dict[str, Callable[[Path], None]] = {
    "git-mv": git_mv, "move-folder": move_folder, "verify": verify, "retag": retag,
    "dictionary": dictionary, "synonyms": synonyms, "chunk-sizes": chunk_sizes,
    "model-settings": model_settings, "image": image, "formula": change_formula,
    "duplicate": duplicate, "heading": heading, "chinese-name": chinese_name,
    "case-only": case_only, "drop-folder": drop_folder, "reviewers": reviewers,
    "query-settings": query_settings, "english-edit": english_edit, "crlf": crlf,
    "bom": bom, "touch": touch, "mailmap": mailmap, "ignored": ignored,
    "vocabulary": vocabulary, "broken-yaml": broken_yaml,
}


def assert_equal_to_full(repo: Path, dist: Path, full: Path) -> None:
    """`dist` (built incrementally) holds what a cache-less full build of `repo` writes."""
    stats = build(load_config(repo), BuildOptions(out=full, use_cache=False, **OPTS))
    assert stats.derivation == "full"
    assert tree(dist, "data") == tree(full, "data")
    assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
    assert tree(dist, "index/bm25") == tree(full, "index/bm25")
    assert store_rows(dist) == store_rows(full)
    assert check_derived(dist) == [] and check_derived(full) == []
    assert answers(dist) == answers(full)


def assert_edit_builds_as_full(base: tuple[Path, Path], tmp_path: Path, name: str,
                               edit: Callable[[Path], None], commit: bool) -> None:
    """`edit` made to a copy of `base` (and committed, reviewed, if `commit`), built
    incrementally into the copied dist/: what a full build of the edited tree writes."""
    repo, dist = copied(base, tmp_path)
    edit(repo)
    if commit:
        _commit(repo, f"{name}\n\nReviewed-by: zhang <zhang.wei@plant.example.com>")
    build(load_config(repo), BuildOptions(out=dist, **OPTS))
    assert_equal_to_full(repo, dist, tmp_path / "full")


@pytest.mark.parametrize("commit", [False, True], ids=["uncommitted", "committed"])
@pytest.mark.parametrize("edit", sorted(EDITS))
def test_an_authors_edit_builds_as_a_full_build(base, tmp_path, edit, commit):
    assert_edit_builds_as_full(base, tmp_path, edit, EDITS[edit], commit)


def test_delete_then_re_add_and_edit_then_commit(base, tmp_path):
    """Chained builds into one dist/: a document deleted, built, put back, built; a
    paragraph edited and built before and after its commit (its blame changes)."""
    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    kept = (repo / ADR).read_bytes()
    (repo / ADR).unlink()
    assert build(cfg, BuildOptions(out=dist, **OPTS)).derivation == "incremental"
    (repo / ADR).write_bytes(kept)
    assert build(cfg, BuildOptions(out=dist, **OPTS)).derivation == "incremental"
    assert_equal_to_full(repo, dist, tmp_path / "full")
    _replace(repo, FAULTS, "\n\n", "\n\nAn added sentence about calibration.\n\n")
    build(cfg, BuildOptions(out=dist, **OPTS))
    _commit(repo, "calibration")
    build(cfg, BuildOptions(out=dist, **OPTS))
    assert_equal_to_full(repo, dist, tmp_path / "full2")


def test_an_image_added_after_the_document_that_shows_it(base, tmp_path):
    """A document shows an image not there yet (a warning, --lenient), then the image is
    added, then replaced, then removed: each build ships what a full build ships."""
    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    doc = repo / "knowledge/crops/wheat-aphids.md"
    doc.write_text(doc.read_text(encoding="utf-8") + "\n## 蚜虫图\n\n麦蚜如图。\n\n"
                   "![麦长管蚜](../../assets/images/aphid.png)\n", encoding="utf-8")
    build(cfg, BuildOptions(out=dist, **OPTS))
    image = repo / "assets/images/aphid.png"
    for source in ("rice-blast-leaf.png", "corn-rust-leaf.png", None):
        if source is None:
            image.unlink()
        else:
            shutil.copy(repo / "assets/images" / source, image)
        build(cfg, BuildOptions(out=dist, **OPTS))
        assert_equal_to_full(repo, dist, tmp_path / f"full-{source}")
        shipped = dist / "data/source/assets/images/aphid.png"
        assert shipped.is_file() == (source is not None)


@pytest.mark.parametrize("edit", ["git-mv", "dictionary", "drop-folder"])
def test_a_device_syncs_an_authors_edit_redoing_only_what_changed(base, tmp_path, edit):
    """A device serving the first release syncs the release of an edit: its index is
    derived from the served one (only the changed shards redone) and holds what a fresh
    derivation of the release holds."""
    import subprocess

    from kbtools.index.incremental import changed_shards
    from kbtools.index.materialize import materialize
    from kbtools.ship import device
    from kbtools.ship.sync import sync

    repo0, _ = base
    repo = tmp_path / "repo"
    shutil.copytree(repo0, repo)
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    release(repo, art, "first")
    dev = tmp_path / "device"
    assert sync(str(art), dev).tag == "kb-r1"
    first = device.served_release(dev)
    assert first is not None
    kept = tmp_path / "first"
    shutil.copytree(first, kept)
    EDITS[edit](repo)
    release(repo, art, edit)
    assert sync(str(art), dev).tag == "kb-r2"
    served = device.served_release(dev)
    assert served is not None and check_derived(served) == []
    verified = json.loads((served / "verified.json").read_text(encoding="utf-8"))
    assert verified["derivation"] == "incremental"
    redone = changed_shards(served, kept)
    # (a word of the dictionary changes no chunk: BM25 alone is derived again)
    assert bool(redone) == (edit != "dictionary")
    assert len(redone) < len(list((served / "data/chunks").iterdir()))
    fresh = tmp_path / "fresh"
    shutil.copytree(served, fresh, ignore=shutil.ignore_patterns("index"))
    materialize(fresh)
    assert store_rows(served) == store_rows(fresh)
    assert tree(served, "index/bm25") == tree(fresh, "index/bm25")
    assert answers(served) == answers(fresh)


@pytest.mark.parametrize("saved", [b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"],
                         ids=["bom", "bom-blank-first-line"])
def test_a_dictionary_saved_with_a_byte_order_mark_keeps_its_words(base, tmp_path, saved):
    """Windows Notepad saves `_dict.txt` as UTF-8 with a byte-order mark: its first word
    became "\\ufeff赤霉病" in data/dictionary.txt, a word no text holds (kb check, which
    strips the mark, said nothing). The index is the one of the file without the mark."""
    repo0, _ = base
    repo = tmp_path / "repo"
    shutil.copytree(repo0, repo)
    path = repo / "knowledge/_dict.txt"
    plain = path.read_bytes()
    assert plain.startswith("赤霉病 ".encode())
    path.write_bytes(saved + plain.replace(b"\n", b"\r\n" if b"\r" in saved else b"\n"))
    cfg = load_config(repo)
    build(cfg, BuildOptions(out=tmp_path / "marked", **OPTS))
    path.write_bytes(plain)
    build(cfg, BuildOptions(out=tmp_path / "plain", **OPTS))
    words = (tmp_path / "marked/data/dictionary.txt").read_text(encoding="utf-8").split()
    assert "赤霉病" in words and not any("\ufeff" in w for w in words)
    assert tree(tmp_path / "marked", "data") == tree(tmp_path / "plain", "data")
    assert tree(tmp_path / "marked", "index/bm25") == tree(tmp_path / "plain", "index/bm25")


def test_skip_invalid_leaves_out_a_broken_document_then_takes_it_back(base, tmp_path):
    """`kb build --skip-invalid` into the same dist/: a document broken, then fixed."""
    repo, dist = copied(base, tmp_path)
    cfg = load_config(repo)
    opts = dict(progress=False, skip_invalid=True)
    good = (repo / ADR).read_bytes()
    (repo / ADR).write_text("---\ntitle: [broken\n---\n\n# Broken\n\nText.\n", encoding="utf-8")
    for step in ("broken", "fixed"):
        stats = build(cfg, BuildOptions(out=dist, **opts))
        assert stats.derivation == "incremental"
        assert [s["doc"] for s in stats.skipped] == ([ADR] if step == "broken" else [])
        full = tmp_path / f"full-{step}"
        build(cfg, BuildOptions(out=full, use_cache=False, **opts))
        assert tree(dist, "data") == tree(full, "data")
        assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
        assert store_rows(dist) == store_rows(full)
        assert answers(dist) == answers(full)
        (repo / ADR).write_bytes(good)


def test_settings_changed_and_changed_back(base, tmp_path):
    """kb.toml's chunk sizes and models changed, then put back: every build into the one
    dist/ (caches of both settings warm) writes what a full build of its settings writes."""
    repo, dist = copied(base, tmp_path)
    toml = repo / "kb.toml"
    original = toml.read_bytes()
    for step, edit in enumerate((chunk_sizes, model_settings, None, chunk_sizes, None)):
        toml.write_bytes(original)
        if edit is not None:
            edit(repo)
        build(load_config(repo), BuildOptions(out=dist, **OPTS))
        assert_equal_to_full(repo, dist, tmp_path / f"full-{step}")
