"""A release is a closed set of regular files: hostile trees, signed with the real key so
only the tree is hostile, are refused before anything is written; nothing outside the device
directory is read or written; a FIFO or /dev/zero never hangs a sync; links planted in the
device directory are never written through."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from forge_helpers import (
    EXEC,
    GITLINK,
    LINK,
    REGULAR,
    edit_manifest,
    forge_tree,
    list_artifact,
    run_forked,
    snapshot,
)
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files

from kbtools.index.manifest import load_manifest, verify_files
from kbtools.ship import device
from kbtools.ship.operate import rollback
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen, load_private
from kbtools.ship.sync import sync


class World:
    """A signed artifacts repository made by `kb release`, a device synced to it, and an
    `outside` directory (files, a directory, a FIFO) that no sync may touch."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.priv, self.pub, self.kid = keygen(tmp / "keys" / "ci")
        self.key = load_private(self.priv)
        self.kr = make_knowledge_repo(tmp / "kr")
        self.art = tmp / "art.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.art)], check=True)
        self.n = 0
        self.release()
        self.release()
        self.dev = tmp / "dev"
        self.outside = tmp / "outside"
        (self.outside / "dir").mkdir(parents=True)
        (self.outside / "victim.txt").write_text("precious\n")
        (self.outside / "dir" / "keep.txt").write_text("keep\n")
        os.mkfifo(self.outside / "fifo")
        assert self.sync()[0] == "ok"
        self.before = snapshot(self.outside)

    def release(self) -> str:
        self.n += 1
        dist = make_dist(self.tmp / "dist", sample_files(self.n), commit=f"src{self.n}")
        self.good = make_release(self.kr, dist, remote=str(self.art), sign_key=self.priv).tag
        return self.good

    def forge(self, mutate) -> str:
        """The next release: the last genuine one's files after `mutate`, validly signed."""
        return forge_tree(self.art, mutate, key=self.key, base=self.good)

    def sync(self, timeout: float = 60.0) -> tuple[str, object]:
        return run_forked(lambda: sync(str(self.art), self.dev, trusted=[self.pub]).tag,
                          timeout=timeout)

    def assert_refused(self, fragment: str) -> str:
        served = device.served_tag(self.dev)
        kind, msg = self.sync()
        assert kind == "kberror", (kind, msg)
        assert "\n" not in str(msg) and fragment in str(msg), msg
        assert device.served_tag(self.dev) == served
        rel = device.served_release(self.dev)
        assert rel is not None and verify_files(rel, load_manifest(rel)) == []
        assert not list((self.dev / "releases").glob("*.staging"))
        assert snapshot(self.outside) == self.before
        return str(msg)


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_release_json_linked_to_a_fifo_is_refused_without_hanging(world: World):
    fifo = str(world.outside / "fifo")
    world.forge(lambda e: e.update({"release.json": (LINK, fifo.encode())}))
    world.assert_refused("release.json")
    # the lock was released: a genuine release is taken at once, exactly its listed files
    tag = world.release()
    assert world.sync(timeout=30) == ("ok", tag)
    rel = device.served_release(world.dev)
    assert rel is not None and rel.name == tag
    on_disk = {p.relative_to(rel).as_posix() for p in rel.rglob("*") if not p.is_dir()}
    listed = set(load_manifest(rel)["artifacts"])
    assert on_disk == listed | {"manifest.json", "release.json", "release.sig", "verified.json"}
    assert not [p for p in rel.rglob("*") if p.is_symlink()]


def test_release_files_linked_to_dev_zero_do_not_eat_memory(world: World):
    world.forge(lambda e: e.update({"release.json": (LINK, b"/dev/zero")}))
    world.assert_refused("release.json")
    world.forge(lambda e: e.update({"manifest.json": (LINK, b"/dev/zero")}))
    world.assert_refused("manifest.json")


def test_verified_marker_shipped_as_a_link_is_never_written_through(world: World):
    victim = str(world.outside / "victim.txt").encode()
    world.forge(lambda e: e.update({"verified.json": (LINK, victim)}))
    world.assert_refused("verified.json: symbolic link")


@pytest.mark.parametrize("name,entry,fragment", [
    ("evil.sh", (REGULAR, b"#!/bin/sh\nrm -rf ~\n"), "evil.sh: not listed in manifest"),
    ("index", (LINK, b"../../../outside/dir"), "index: symbolic link"),
    ("data/etc", (LINK, b"/etc"), "data/etc: symbolic link"),
    ("data/chunks/01.jsonl", (EXEC, b"x"), "data/chunks/01.jsonl: executable file"),
    ("index/store.sqlite", (REGULAR, b"SQLite format 3\0"), "index/store.sqlite: not listed"),
])
def test_unlisted_or_irregular_entries_are_refused(world: World, name, entry, fragment):
    world.forge(lambda e: e.update({name: entry}))
    world.assert_refused(fragment)


def test_submodules_and_git_names_are_refused(world: World):
    tip = git(world.art, "rev-parse", "refs/heads/kb-index").strip()
    world.forge(lambda e: e.update({"data/sub": (GITLINK, tip)}))
    world.assert_refused("data/sub: submodule")
    world.forge(lambda e: e.update({"data/.git/config": (REGULAR, b"[core]\n")}))
    world.assert_refused(".git")
    world.forge(lambda e: list_artifact(e, "data/.GITATTRIBUTES", b"* filter=x\n"))
    world.assert_refused("git's own name")


def test_listed_artifact_replaced_by_a_link_to_identical_bytes_is_refused(world: World):
    # the link target holds exactly the listed bytes: only the link itself is wrong
    target = world.outside / "same.jsonl"
    files = sample_files(2)
    target.write_bytes(files["chunks/01.jsonl"])
    world.before = snapshot(world.outside)
    world.forge(lambda e: e.update(
        {"data/chunks/01.jsonl": (LINK, str(target).encode())}))
    world.assert_refused("data/chunks/01.jsonl: symbolic link")
    # and a regular file must have the listed size
    world.forge(lambda e: e.update({"data/chunks/03.jsonl": (REGULAR, files["chunks/03.jsonl"]
                                                             + b"more\n")}))
    world.assert_refused("data/chunks/03.jsonl: size")


def test_manifest_paths_must_stay_inside_data(world: World):
    # `..` in a listed path: the hashes are those of the served release's manifest, which
    # sits at releases/kb-r2/manifest.json, i.e. staging/../kb-r2/manifest.json
    served = (world.dev / "releases" / "kb-r2" / "manifest.json").read_bytes()
    world.forge(lambda e: edit_manifest(e, lambda m: m["artifacts"].update(
        {"../kb-r2/manifest.json": {"sha256": _sha(served), "size": len(served)}})))
    world.assert_refused("'..' path segment")
    # listed and shipped, but beside data/ rather than in it
    world.forge(lambda e: list_artifact(e, "notes.txt", b"hello\n"))
    world.assert_refused("notes.txt: artifacts must lie under data/")
    world.forge(lambda e: list_artifact(e, "data\\..\\x", b"x"))
    world.assert_refused("backslash")


def test_a_release_must_name_one_source_commit(world: World):
    """A signed release whose release.json (what `kb status` shows) or tag message names
    another source commit than its manifest (what answers cite) is refused."""
    forge_tree(world.art, lambda e: None, key=world.key, base=world.good,
               rel_change=lambda rel: rel["source"].update(commit="1" * 40))
    world.assert_refused("release.json names source commit 111111111111 but the manifest "
                         f"names src{world.n}")
    tag = world.forge(lambda e: None)  # a consistent release.json; its tag is made again
    body = git(world.art, "cat-file", "tag", tag)
    mhash = body.split("manifest-sha256:")[1].split()[0]
    commit = git(world.art, "rev-parse", f"{tag}^{{commit}}").strip()
    git(world.art, "tag", "-f", "-a", tag, commit, "-m",
        f"kb release {tag}\n\nsource-commit: {'2' * 40}\nmanifest-sha256: {mhash}\n")
    world.assert_refused("the tag names source commit 222222222222 but the manifest names "
                         f"src{world.n}")
    # a genuine release's tag and release.json name its manifest's commit: taken
    tag = world.release()
    assert world.sync() == ("ok", tag)


@pytest.mark.parametrize("first,second", [
    ("data/chunks/00.jsonl", "data/chunks/00.JSONL"),          # case folding
    ("data/source/caf\u00e9.md", "data/source/cafe\u0301.md"),  # NFC vs NFD
])
def test_names_that_collide_on_a_folding_file_system_are_refused(world: World, first, second):
    def mutate(e):
        list_artifact(e, first, b"one\n")
        list_artifact(e, second, b"two\n")
    world.forge(mutate)
    world.assert_refused("collides with")


# --- links planted in the device directory: never written through ----------------------

@pytest.mark.parametrize("name,kind", [
    (".lock", "file"), ("state.json", "file"), ("releases", "dir"), ("repo.git", "dir"),
    ("trusted_keys", "dir"),
])
def test_links_planted_in_a_fresh_device_dir(world: World, tmp_path: Path, name, kind):
    dev = tmp_path / "fresh"
    dev.mkdir()
    os.symlink(world.outside / ("victim.txt" if kind == "file" else "dir"), dev / name)
    kind_, msg = run_forked(lambda: sync(str(world.art), dev, trusted=[world.pub]).tag)
    assert snapshot(world.outside) == world.before
    assert kind_ == "kberror" and "\n" not in msg and "symbolic link" in msg, (kind_, msg)


def test_links_planted_beside_releases(world: World, tmp_path: Path):
    fake = world.outside / "dir"
    os.symlink(fake, world.dev / "releases" / "kb-r3")  # where the next release would go
    world.release()
    world.assert_refused("releases/kb-r3 is a symbolic link")
    os.unlink(world.dev / "releases" / "kb-r3")
    os.symlink(fake, world.dev / "releases" / "kb-r3.staging")  # cleaned, never followed
    assert world.sync() == ("ok", "kb-r3")
    assert snapshot(world.outside) == world.before


def test_rollback_log_planted_as_a_link(world: World):
    world.release()
    assert world.sync() == ("ok", "kb-r3")
    os.symlink(world.outside / "victim.txt", world.dev / "rollback.log")
    kind, msg = run_forked(lambda: rollback(world.dev)["to"])
    assert snapshot(world.outside) == world.before
    assert kind == "kberror" and "rollback.log is a symbolic link" in msg, (kind, msg)
    assert device.served_tag(world.dev) == "kb-r3"


def test_current_pointing_outside_releases_is_not_served(world: World):
    os.unlink(world.dev / "current")
    os.symlink(world.dev / "releases" / "kb-r2", world.dev / "current")  # absolute
    assert device.served_release(world.dev) is None
    os.unlink(world.dev / "current")
    os.symlink("releases/../releases/kb-r2", world.dev / "current")
    assert device.served_release(world.dev) is None


def test_verify_files_never_follows_links_or_blocks(tmp_path: Path, world: World):
    rel = tmp_path / "copy"
    files = sample_files(1, n=3)
    make_dist(rel, files)
    manifest = load_manifest(rel)
    real = rel / "data" / "chunks" / "01.jsonl"
    (tmp_path / "same").write_bytes(real.read_bytes())
    real.unlink()
    os.symlink(tmp_path / "same", real)
    fifo = rel / "data" / "chunks" / "02.jsonl"
    fifo.unlink()
    os.mkfifo(fifo)
    kind, problems = run_forked(lambda: verify_files(rel, manifest), timeout=20)
    assert kind == "ok", (kind, problems)
    assert problems == ["data/chunks/01.jsonl: symbolic link (refused)",
                        "data/chunks/02.jsonl: not a regular file"]
    manifest["artifacts"]["data/../manifest.json"] = manifest["artifacts"].pop(
        "data/chunks/00.jsonl")
    assert verify_files(rel, manifest)[0].startswith("data/../manifest.json: empty")


# --- a real build: the derived index is written by materialize -------------------------

DOC = """---
title: Pump maintenance
category: engineering
project: knowledge-base
source: test
author: t@example.org
timestamp: "2026-01-01T09:00:00+00:00"
verified: false
lang: en
---
# Pump maintenance

Replace the mechanical seal of the irrigation pump every 2000 operating hours.
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A real `kb build` of a small knowledge repo, released signed by `kb release`."""
    from click.testing import CliRunner

    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.cli import main
    from kbtools.config import load_config

    base = tmp_path_factory.mktemp("built")
    kr = base / "kr"
    assert CliRunner().invoke(main, ["init", str(kr)]).exit_code == 0
    (kr / "knowledge" / "pump.md").write_text(DOC)
    git(kr, "add", "-A")
    git(kr, "commit", "-q", "-m", "knowledge")
    cfg = load_config(kr)
    build(cfg, BuildOptions(progress=False))
    priv, pub, _ = keygen(base / "ci")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    tag = make_release(kr, cfg.path("dist"), remote=str(art), sign_key=priv).tag
    return cfg.path("dist"), art, priv, pub, tag


@pytest.mark.slow
def test_real_release_with_index_linked_outside(built, tmp_path: Path):
    dist, art0, priv, pub, tag = built
    art = tmp_path / "art.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(art0), str(art)], check=True)
    dev, outside = tmp_path / "dev", tmp_path / "outside"
    outside.mkdir()
    assert sync(str(art), dev, trusted=[pub]).tag == tag
    forge_tree(art, lambda e: e.update({"index": (LINK, str(outside).encode())}),
               key=load_private(priv))
    kind, msg = run_forked(lambda: sync(str(art), dev, trusted=[pub]).tag, timeout=120)
    assert kind == "kberror" and "index: symbolic link" in msg, (kind, msg)
    assert list(outside.iterdir()) == []
    assert device.served_tag(dev) == tag


@pytest.mark.slow
def test_materialize_never_writes_through_a_linked_index(built, tmp_path: Path):
    from kbtools.index.materialize import materialize

    dist = built[0]
    root, outside = tmp_path / "rel", tmp_path / "outside"
    outside.mkdir()
    root.mkdir()
    (root / "manifest.json").write_bytes((dist / "manifest.json").read_bytes())
    subprocess.run(["cp", "-r", str(dist / "data"), str(root / "data")], check=True)
    os.symlink(outside, root / "index")
    kind, msg = run_forked(lambda: materialize(root), timeout=120)
    assert kind != "ok", msg
    assert "symbolic link" in msg or "not a plain directory" in msg, msg
    assert list(outside.iterdir()) == []
    os.unlink(root / "index")
    materialize(root)  # a plain directory is (re)made
    assert verify_files(root, load_manifest(root), derived=True) == []
