"""Attacks tried beyond the issue's list (docs/releases.md and docs/review.md list them all),
each end to end with real repositories, real signed releases and the real CLI or library:

- a `verified: true` document moved by a non-reviewer into a folder with other reviewers;
- a review commit that also edits another verified document;
- a release whose manifest lists a directory, or a path twice in different case;
- a giant manifest (over the size limit);
- a forged release listing a file under a hard-linked name (git has no hard links: the
  same blob under two names is two regular files, and both must match the manifest);
- a signed manifest naming one path twice, a signed release.json naming a key twice;
- paths that collide only when normalized again after case folding;
- a body edit on a side branch merged after the review (the merge is not a review).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import pytest
from forge_helpers import REGULAR, edit_manifest, snapshot
from hostile import kb, make_repo
from test_review_trust import ALICE, MALLORY, REV, commit, doc, git, lapsed_docs
from test_sync_hostile import World

from kbtools.index.manifest import manifest_path_problems
from kbtools.ship import device
from kbtools.ship.signing import keygen

OTHER = "other@example.org"
TOML = '''[embedding]
model = "test-hash"
languages = {{ en = "test-hash", zh = "test-hash" }}

[review.reviewers]
"knowledge/general/**" = ["{rev}"]
"knowledge/safety/**" = ["{other}"]
'''


def test_moves_and_riders_do_not_carry_verification(tmp_path):
    repo = make_repo(tmp_path / "repo", docs={
        "knowledge/general/moved.md": doc("moved"), "knowledge/general/kept.md": doc("kept"),
        "knowledge/general/rider.md": doc("rider"), "knowledge/general/control.md": doc("control"),
        "knowledge/general/fresh.md": doc("fresh")})
    commit(repo, ALICE, "policy", {"kb.toml": TOML.format(rev=REV, other=OTHER)})
    reviewed = {n: doc(n, REV) for n in ("moved", "kept", "rider", "control")}  # texts kept
    commit(repo, REV, "verify", {f"knowledge/general/{n}.md": text
                                 for n, text in reviewed.items()})
    # a non-reviewer moves a verified document where REV is not a reviewer
    (repo / "knowledge" / "safety").mkdir()
    git(repo, "mv", "knowledge/general/moved.md", "knowledge/safety/moved.md")
    git(repo, "commit", "-q", "-m", "move", who=MALLORY)
    # a reviewer's review of one document that also edits another, verified by REV too
    ridden = reviewed["rider"].replace("2000 operating hours", "20000 operating hours")
    commit(repo, OTHER, "verify fresh\n\nReviewed-by: Rev <rev@example.org>", {
        "knowledge/general/fresh.md": doc("fresh", REV), "knowledge/general/rider.md": ridden})
    lapsed = lapsed_docs(repo, tmp_path / "home")
    assert set(lapsed) == {"safety/moved.md", "general/rider.md"}, lapsed
    assert f"{REV} is not a reviewer for knowledge/safety/moved.md" in lapsed["safety/moved.md"]
    assert "changed after review" in lapsed["general/rider.md"]


def test_an_edit_merged_after_the_review_lapses(tmp_path):
    """A non-reviewer's body edit on a side branch, merged after the reviewer verified the
    document on main: blame names the side commit, which is no ancestor of the review."""
    repo = make_repo(tmp_path / "repo", docs={"knowledge/general/a.md": doc("a"),
                                               "knowledge/general/b.md": doc("b")})
    commit(repo, ALICE, "policy", {"kb.toml": TOML.format(rev=REV, other=OTHER)})
    git(repo, "checkout", "-q", "-b", "side")
    commit(repo, MALLORY, "edit", {"knowledge/general/a.md": doc("a").replace(
        "2000 operating hours", "9000 operating hours")})
    git(repo, "checkout", "-q", "-")
    commit(repo, REV, "verify", {"knowledge/general/a.md": doc("a", REV),
                                 "knowledge/general/b.md": doc("b", REV)})
    git(repo, "merge", "-q", "--no-edit", "side", who=MALLORY)
    assert "9000" in (repo / "knowledge" / "general" / "a.md").read_text(encoding="utf-8")
    lapsed = lapsed_docs(repo, tmp_path / "home")
    assert set(lapsed) == {"general/a.md"}, lapsed
    assert "changed after review" in lapsed["general/a.md"]


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_manifest_listing_a_directory_is_refused(world: World):
    def listed_dir(e):
        def change(m):
            m["artifacts"]["data/chunks"] = {"sha256": "0" * 64, "size": 0}
        edit_manifest(e, change)
    world.forge(listed_dir)
    world.assert_refused("")


def test_case_twin_paths_are_refused(world: World):
    """`data/X` and `data/x`: one file on a case-insensitive device, two in the manifest."""
    def twins(e):
        name = next(p for p in e if str(p).startswith("data/") and str(p) != str(p).upper())
        data = e[name][1]
        twin = str(name).upper().replace("DATA/", "data/", 1)
        e[twin] = (REGULAR, data)
        edit_manifest(e, lambda m: m["artifacts"].update(
            {twin: {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}}))
    world.forge(twins)
    world.assert_refused("")


def test_giant_manifest_is_refused_quickly(world: World):
    def giant(e):
        edit_manifest(e, lambda m: m.update(padding="x" * (65 << 20)))
    world.forge(giant)
    start = time.monotonic()
    world.assert_refused("")
    assert time.monotonic() - start < 60


def test_same_blob_under_two_names_must_both_match(world: World):
    def hard_linked(e):
        name = next(p for p in e if str(p).startswith("data/chunks/"))
        e["data/chunks/zz.jsonl"] = e[name]  # listed nowhere: an extra entry
    world.forge(hard_linked)
    world.assert_refused("")


@pytest.mark.parametrize("plant", ["hardlink", "fifo"])
def test_device_logs_planted_as_hard_link_or_fifo(world: World, plant: str):
    """A hard link (to a file outside) or a FIFO planted as the device's trust.log: a key
    change neither writes outside nor hangs; it is refused in one line."""
    log = world.dev / "trust.log"
    log.unlink(missing_ok=True)
    victim = world.outside / "victim.txt"
    if plant == "hardlink":
        os.link(victim, log)
    else:
        os.mkfifo(log)
    _, pub, _ = keygen(world.tmp / "keys" / "next")
    res = kb(world.tmp, "trust", "add", str(pub), "--to", str(world.dev),
             home=world.tmp / "home", timeout=60)
    err = res.stderr.decode()
    assert res.returncode == 1 and "Traceback" not in err, err
    assert len([ln for ln in err.splitlines() if ln.startswith("kb: ")]) == 1, err
    assert "not a plain file of its own" in err, err
    assert snapshot(world.outside) == world.before


def test_sync_refuses_a_device_whose_log_is_a_hard_link(world: World):
    world.release()
    os.link(world.outside / "victim.txt", world.dev / "rollback.log")
    kind, msg = world.sync()
    assert kind == "kberror" and "rollback.log is not a plain file" in str(msg), (kind, msg)
    assert device.served_tag(world.dev) == "kb-r2"
    assert snapshot(world.outside) == world.before


def _relist_raw(e, manifest: bytes) -> None:
    """Put raw manifest bytes in the tree, release.json naming their sha256."""
    e["manifest.json"] = (REGULAR, manifest)
    rel = json.loads(e["release.json"][1])
    rel["manifest_sha256"] = hashlib.sha256(manifest).hexdigest()
    e["release.json"] = (REGULAR, json.dumps(rel, sort_keys=True, indent=1).encode() + b"\n")


def test_manifest_naming_a_path_twice_is_refused(world: World):
    """Two entries for one path in the signed manifest's JSON: Python's reader keeps the
    last, other readers (an auditor's) the first; which one was signed is ambiguous, so the
    release is refused even when the last entry matches the file."""
    def twice(e):
        name = next(p for p in e if str(p).startswith("data/"))
        data = e[name][1]
        key = json.dumps(name)
        true = json.dumps({"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)})
        false = json.dumps({"sha256": "0" * 64, "size": len(data)})
        text = e["manifest.json"][1].decode()
        at = text.index(key + ":")
        end = text.index("}", at) + 1
        _relist_raw(e, (text[:at] + f"{key}: {false}, {key}: {true}" + text[end:]).encode())
    world.forge(twice)
    world.assert_refused("appears twice")


def test_release_json_naming_a_key_twice_is_refused(world: World):
    """A signed release.json saying two serials (or tags): one reader's release is not
    another's, so it is refused."""
    def twice(e):
        rel = e["release.json"][1].decode()
        first = json.dumps(json.loads(rel)["serial"] - 1)
        e["release.json"] = (REGULAR, rel.replace('"serial":', f'"serial": {first}, '
                                                  '"serial":', 1).encode())
    world.forge(twice)
    world.assert_refused("appears twice")


@pytest.mark.parametrize("a,b", [
    ("data/\u01f0\u0323.txt", "data/J\u0323\u030c.txt"),  # casefold undoes NFC: fold again
    ("data/caf\u00e9.txt", "data/CAFE\u0301.txt"),
    ("data/\u212b.txt", "data/\u00e5.txt"),
])
def test_caseless_twins_collide_however_composed(a: str, b: str):
    """Two paths one case-insensitive, normalizing file system stores as one file collide,
    even when case folding leaves a string that is no longer normalized."""
    entry = {"sha256": "0" * 64, "size": 1}
    problems = manifest_path_problems({"artifacts": {a: entry, b: entry}})
    assert any("collides with" in p for p in problems), problems
