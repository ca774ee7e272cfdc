"""kb build: artifacts, manifest, reproducibility, incremental embedding, atomicity."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, BuildStats, build
from kbtools.cli import main
from kbtools.commands.output import vectors_said
from kbtools.config import load_config
from kbtools.errors import FindingsError
from kbtools.index.manifest import load_manifest, sha256_file, verify_files
from tests.kbfixtures import PAGE, copy_example

# three self-contained docs (no links to docs outside the set): formulas, tables, English
SMALL = [
    "knowledge/crops/field-survey-methods.md",
    "knowledge/equipment/hx260-ch05-fault-codes.md",
    "knowledge/engineering/adr-0001-sqlite-on-devices.md",
]

# documents that link each other and an image
IMAGED = ["knowledge/crops/wheat-scab.md", "knowledge/crops/pesticide-dilution-and-phi.md",
          "knowledge/crops/pesticide-operator-safety.md",
          "knowledge/crops/field-survey-methods.md"]


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory) -> Path:
    return copy_example(tmp_path_factory.mktemp("small"), SMALL)


@pytest.fixture(scope="module")
def cold_build(small_repo, tmp_path_factory):
    out = tmp_path_factory.mktemp("b1") / "dist"
    stats = build(load_config(small_repo), BuildOptions(out=out, progress=False))
    return out, stats


def tree_hashes(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p)
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_build_writes_verified_artifacts(cold_build):
    out, stats = cold_build
    manifest = load_manifest(out)
    assert stats.documents == 3 and stats.chunks > 20
    records = [json.loads(line) for p in (out / "data" / "chunks").glob("*.jsonl")
               for line in p.read_text(encoding="utf-8").splitlines()]
    # one vector per distinct text and model; English chunks also get the English model
    assert stats.embedded == len({(r["content_hash"], m) for r in records for m in r["models"]})
    assert {m for r in records for m in r["models"]} == {"use", "minilm"}
    # more vectors than chunks: said with the models that made them, not as "N embedded"
    assert (stats.vectors, stats.vector_models) == (stats.embedded, 2)
    assert vectors_said(stats, "from cache") == \
        f"{stats.vectors} vectors by 2 models: {stats.embedded} embedded, 0 from cache"
    one = BuildStats(embedded=3, reused=1, vectors=4, vector_models=1)  # as before
    assert vectors_said(one, "from cache") == "3 embedded, 1 from cache"
    assert verify_files(out, manifest) == []
    assert manifest["counts"]["documents"] == 3
    assert manifest["source"]["dirty"] is False and len(manifest["source"]["commit"]) == 40
    assert set(manifest["models"]) == {"use", "minilm"}
    assert (out / "index" / "store.sqlite").is_file()
    assert any(p.suffix == ".svg" for p in (out / "data" / "formulas").rglob("*"))
    assert any(p.suffix == ".csv" for p in (out / "data" / "tables").iterdir())
    # every file of data/ is listed in the manifest; index/ is self-checked, not listed
    assert manifest["derived"] == {} and manifest["derived_check"] == "selfcheck-1"
    on_disk = {p for p in tree_hashes(out) if not p.startswith("index/")}
    assert on_disk - {"manifest.json"} == set(manifest["artifacts"])


def test_tampered_artifact_is_detected(cold_build, tmp_path):
    import shutil

    out, _ = cold_build
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    shard = next((copy / "data" / "chunks").glob("*.jsonl"))
    shard.write_text(shard.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    problems = verify_files(copy, load_manifest(copy))
    assert problems and "size" in problems[0]


def test_same_commit_builds_are_byte_identical(small_repo, cold_build, tmp_path):
    out1, _ = cold_build
    cfg = load_config(small_repo)
    warm = build(cfg, BuildOptions(out=tmp_path / "warm" / "dist", progress=False))
    assert warm.embedded == 0 and warm.reused > 0
    # a second checkout of the same commit, with its own (cold) cache
    other = Path(git.Repo(small_repo).clone(tmp_path / "other").working_tree_dir)
    cold2 = build(load_config(other), BuildOptions(out=tmp_path / "cold2" / "dist",
                                                   progress=False))
    assert cold2.embedded > 0
    reference = tree_hashes(out1)
    assert tree_hashes(tmp_path / "warm" / "dist") == reference
    assert tree_hashes(tmp_path / "cold2" / "dist") == reference


def test_a_checkout_with_crlf_line_endings_builds_the_same_bytes(small_repo, cold_build, tmp_path):
    """Git's line-ending settings (core.autocrlf on Windows-minded machines, `eol`
    attributes) change the work tree's bytes, not the commit: the release is the same."""
    out1, _ = cold_build
    other = tmp_path / "crlf"
    subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", str(small_repo), str(other)],
                   check=True)
    assert b"\r\n" in (other / SMALL[0]).read_bytes()
    assert git.Repo(other).git.status("--porcelain") == ""
    build(load_config(other), BuildOptions(out=tmp_path / "dist", progress=False))
    assert tree_hashes(tmp_path / "dist") == tree_hashes(out1)


def test_a_build_warmed_by_another_commit_writes_a_cold_builds_bytes(tmp_path):
    """CI restores the embedding cache of earlier commits, so a release build embeds only
    what changed, in batches of a few texts, where a cold build of the same commit embeds
    them among all the others: each text's vector must not depend on its batch."""
    repo = copy_example(tmp_path / "repo", SMALL)
    build(load_config(repo), BuildOptions(out=tmp_path / "before", progress=False))
    doc = repo / SMALL[0]
    text = doc.read_text(encoding="utf-8")
    old = "至少 10 点。"
    assert old in text
    doc.write_text(text.replace(old, "至少 12 点，阴雨天加密到 15 点。"), encoding="utf-8")
    english = repo / SMALL[2]  # and an English document (a second model embeds it)
    text = english.read_text(encoding="utf-8")
    assert "3 of 40 files were truncated" in text
    english.write_text(text.replace("3 of 40 files", "3 of 41 files"), encoding="utf-8")
    git.Repo(repo).index.add([SMALL[0], SMALL[2]])
    git.Repo(repo).index.commit("more sampling points")
    warm = build(load_config(repo), BuildOptions(out=tmp_path / "warm" / "dist", progress=False))
    assert 2 <= warm.embedded < 16 and warm.reused > 0  # small batches of the new texts
    other = Path(git.Repo(repo).clone(tmp_path / "other").working_tree_dir)
    cold = build(load_config(other), BuildOptions(out=tmp_path / "cold" / "dist", progress=False))
    assert cold.embedded > warm.embedded and cold.reused == 0
    assert tree_hashes(tmp_path / "warm" / "dist") == tree_hashes(tmp_path / "cold" / "dist")


def test_edit_reembeds_only_changed_chunks(tmp_path):
    repo = copy_example(tmp_path / "repo", SMALL)
    cfg = load_config(repo)
    first = build(cfg, BuildOptions(out=tmp_path / "d1", progress=False))
    doc = repo / SMALL[2]
    text = doc.read_text(encoding="utf-8")
    marker = "3 of 40 files were truncated"
    assert marker in text
    doc.write_text(text.replace(marker, "3 of 41 files were truncated"), encoding="utf-8")
    second = build(cfg, BuildOptions(out=tmp_path / "d2", progress=False))
    assert second.chunks == first.chunks
    # only the chunks whose text holds the edited sentence are embedded again
    changed = [line for p in (tmp_path / "d2" / "data" / "chunks").glob("*.jsonl")
               for line in p.read_text(encoding="utf-8").splitlines() if "3 of 41 files" in line]
    assert second.embedded == len({(json.loads(line)["content_hash"], m) for line in changed
                                   for m in json.loads(line)["models"]}) >= 1
    assert second.reused + second.embedded == first.embedded
    assert load_manifest(tmp_path / "d2")["source"]["dirty"] is True


def test_a_build_that_read_files_the_commit_lacks_is_dirty(tmp_path):
    """The manifest ties the release to its commit: an image changed since the commit, or
    an untracked document, is in the release but not in the commit, so it is dirty. A
    document Git ignores is no part of the repository (since session 36, `kbtools.ignored`):
    never read, so it leaves the build clean, as ignored files the build does not read
    (editor files) do."""
    repo = copy_example(tmp_path / "repo", IMAGED)
    cfg = load_config(repo)
    (repo / ".git" / "info" / "exclude").write_text("knowledge/crops/notes.md\n*.swp\n")
    notes = repo / "knowledge" / "crops" / "notes.md"
    notes.write_text(PAGE.format(title="Notes", source="me", body="Private notes."),
                     encoding="utf-8")
    assert git.Repo(repo).git.status("--porcelain") == ""
    build(cfg, BuildOptions(out=tmp_path / "d1", progress=False))
    manifest = load_manifest(tmp_path / "d1")
    assert "data/source/knowledge/crops/notes.md" not in manifest["artifacts"]
    assert manifest["source"]["dirty"] is False
    draft = repo / "knowledge" / "crops" / "draft.md"  # untracked, not ignored: read
    draft.write_text(PAGE.format(title="Draft", source="me", body="A draft."), encoding="utf-8")
    build(cfg, BuildOptions(out=tmp_path / "d1b", progress=False))
    manifest = load_manifest(tmp_path / "d1b")
    assert "data/source/knowledge/crops/draft.md" in manifest["artifacts"]
    assert manifest["source"]["dirty"] is True and manifest["source"]["tree"] == "dirty"
    notes.unlink()
    draft.unlink()
    (repo / "knowledge" / "crops" / ".x.md.swp").write_bytes(b"\0")
    (repo / "assets" / "unused.txt").write_text("not read by the build\n")
    build(cfg, BuildOptions(out=tmp_path / "d2", progress=False))
    manifest = load_manifest(tmp_path / "d2")
    assert manifest["source"]["dirty"] is False
    image = next(a for a in manifest["artifacts"] if a.startswith("data/source/assets/"))
    with open(repo / image.removeprefix("data/source/"), "ab") as fh:
        fh.write(b"\0")
    build(cfg, BuildOptions(out=tmp_path / "d3", progress=False))
    assert load_manifest(tmp_path / "d3")["source"]["dirty"] is True


def test_a_build_of_a_sparse_checkout_is_dirty(tmp_path):
    """A sparse checkout (CI fetching one folder) leaves documents of the commit out of the
    work tree, and `git status` says nothing of them: the build indexed part of the commit,
    so it must not claim the commit's tree (it did: dirty false, the full tree's hash)."""
    repo = copy_example(tmp_path / "repo", SMALL)
    cfg = load_config(repo)
    left_out = str(Path(SMALL[0]).parent)
    kept = sorted({str(Path(d).parent) for d in SMALL} - {left_out})
    assert kept, SMALL
    git.Repo(repo).git.status()  # fresh stat data in the index: else nothing is left out
    git.Repo(repo).git.sparse_checkout("set", "--cone", "assets", "schemas", *kept)
    assert not (repo / SMALL[0]).exists() and git.Repo(repo).git.status("--porcelain") == ""
    build(cfg, BuildOptions(out=tmp_path / "d1", progress=False))
    assert load_manifest(tmp_path / "d1")["source"] | {"commit": "", "base": ""} == {
        "commit": "", "base": "", "dirty": True, "tree": "dirty"}
    git.Repo(repo).git.sparse_checkout("disable")
    build(cfg, BuildOptions(out=tmp_path / "d2", progress=False))
    assert load_manifest(tmp_path / "d2")["source"]["dirty"] is False


def test_front_matter_only_change_reembeds_nothing_and_delete_drops_chunks(tmp_path):
    repo = copy_example(tmp_path / "repo", SMALL)
    cfg = load_config(repo)
    build(cfg, BuildOptions(out=tmp_path / "d1", progress=False))
    doc = repo / SMALL[0]
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text.replace("tags: [调查方法,", "tags: [复核, 调查方法,", 1), encoding="utf-8")
    assert doc.read_text(encoding="utf-8") != text
    again = build(cfg, BuildOptions(out=tmp_path / "d2", progress=False))
    assert again.embedded == 0
    (repo / SMALL[1]).unlink()
    fewer = build(cfg, BuildOptions(out=tmp_path / "d3", progress=False))
    docs = {json.loads(line)["doc"] for p in (tmp_path / "d3" / "data" / "chunks").glob("*.jsonl")
            for line in p.read_text(encoding="utf-8").splitlines()}
    assert SMALL[1] not in docs and fewer.documents == 2


def built_once(tmp_path):
    """(repo, its config, its dist/, the dist's file hashes) of one example document built."""
    repo = copy_example(tmp_path / "repo", SMALL[:1])
    cfg = load_config(repo)
    out = tmp_path / "dist"
    build(cfg, BuildOptions(out=out, progress=False))
    return repo, cfg, out, tree_hashes(out)


def test_failed_build_leaves_previous_index(tmp_path):
    repo, cfg, out, before = built_once(tmp_path)
    bad = repo / "knowledge" / "crops" / "broken.md"
    bad.write_text("---\ntitle: [unclosed\n---\n# x\n", encoding="utf-8")
    with pytest.raises(FindingsError) as err:
        build(cfg, BuildOptions(out=out, progress=False))
    assert "knowledge/crops/broken.md" in str(err.value)
    assert tree_hashes(out) == before
    assert not list(tmp_path.glob(".dist.build-*"))  # staging cleaned up
    skipped = build(cfg, BuildOptions(out=out, skip_invalid=True, progress=False))
    assert [s["doc"] for s in skipped.skipped] == ["knowledge/crops/broken.md"]


def test_skip_invalid_with_every_document_invalid_keeps_the_previous_index(tmp_path):
    """--skip-invalid left no document to index and replaced the index with an empty one."""
    repo, cfg, out, before = built_once(tmp_path)
    for doc in (repo / "knowledge").rglob("*.md"):
        doc.write_text("---\ntitle: [unclosed\n---\n# x\n", encoding="utf-8")
    with pytest.raises(FindingsError, match="every document has errors.*previous index stays"):
        build(cfg, BuildOptions(out=out, skip_invalid=True, progress=False))
    assert tree_hashes(out) == before


def test_build_cli_json_and_errors(tmp_path, monkeypatch):
    repo = copy_example(tmp_path / "repo", SMALL[:1])
    monkeypatch.chdir(repo)
    runner = CliRunner()
    res = runner.invoke(main, ["build", "--json", "-q"])
    assert res.exit_code == 0, res.output
    stats = json.loads(res.output)
    assert stats["documents"] == 1 and set(stats["seconds"]) >= {"check", "chunk", "embed"}
    assert stats["vectors"] == stats["embedded"] + stats["reused"] > 0  # added keys
    assert stats["vector_models"] >= 1
    (repo / "knowledge" / "crops" / "broken.md").write_text("no front matter\n", encoding="utf-8")
    res = runner.invoke(main, ["build", "-q"])
    assert res.exit_code == 1
    assert "knowledge/crops/broken.md" in res.output and "Traceback" not in res.output


def test_foreign_corpus_lenient(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("---\ntitle: A\nweird: 1\n---\n# Alpha\n\nTiDB 是分布式数据库。\n",
                                 encoding="utf-8")
    (corpus / "b.md").write_text("# No front matter\n\nPlain English text about raft.\n",
                                 encoding="utf-8")
    cfg = load_config(tmp_path)
    with pytest.raises(FindingsError):
        build(cfg, BuildOptions(corpus=corpus, out=tmp_path / "strict", progress=False))
    stats = build(cfg, BuildOptions(corpus=corpus, out=tmp_path / "out", lenient=True,
                                    progress=False))
    assert stats.documents == 2 and stats.warnings > 0
    docs = [json.loads(line)["doc"] for line in
            (tmp_path / "out" / "data" / "docs.jsonl").read_text(encoding="utf-8").splitlines()]
    assert docs == ["a.md", "b.md"]
    assert not (corpus / ".kb-cache").exists()  # the cache never lands in the corpus


def test_cache_from_a_previous_build_means_nothing_to_embed(cold_build, small_repo, tmp_path,
                                                           monkeypatch):
    """`kb build --cache-from DIST` on a machine with an empty cache re-embeds nothing."""
    out, stats = cold_build
    fresh = copy_example(tmp_path / "fresh", SMALL)
    monkeypatch.chdir(fresh)
    assert not (fresh / ".kb-cache").exists()
    result = CliRunner().invoke(main, ["build", "--json", "--cache-from", str(out),
                                       "--out", str(tmp_path / "dist")])
    assert result.exit_code == 0, result.output
    again = json.loads(result.stdout)
    assert again["embedded"] == 0 and again["reused"] == stats.embedded
    assert f"seeded {stats.embedded} cached vectors" in result.stderr


def test_a_git_lfs_pointer_is_not_shipped_as_a_picture(tmp_path, capsys):
    """A clone made without git-lfs holds pointer files where the pictures should be: the
    build leaves them out and says, at each link, what to do."""
    repo = tmp_path / "kb"
    (repo / "knowledge").mkdir(parents=True)
    (repo / "assets").mkdir()
    (repo / "kb.toml").write_text('[embedding]\nmodel = "test-hash"\n'
                                  'languages = { en = "test-hash", zh = "test-hash" }\n')
    (repo / "assets" / "pump.png").write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:" + "4d7a" * 16 + "\nsize 48213\n")
    (repo / "assets" / "seal.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    body = "Photo of the pump:\n\n![pump](../assets/pump.png)\n\n![seal](../assets/seal.png)"
    (repo / "knowledge" / "pump.md").write_text(
        PAGE.format(title="Pump", source="me", body=body), encoding="utf-8")
    stats = build(load_config(repo), BuildOptions(out=tmp_path / "dist", progress=True))
    artifacts = load_manifest(tmp_path / "dist")["artifacts"]
    assert "data/source/assets/seal.png" in artifacts
    assert "data/source/assets/pump.png" not in artifacts
    err = capsys.readouterr().err
    line = next(i for i, t in enumerate(PAGE.format(title="Pump", source="me", body=body)
                                        .splitlines(), 1) if "pump.png" in t)
    assert f"knowledge/pump.md:{line}:9: warning: image-lfs-pointer" in err  # where check says
    assert "git lfs pull" in err and stats.warnings >= 1
