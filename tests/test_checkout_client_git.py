"""A client that uses plain git on its clone of the artifacts repository while kb reads it:
a `git pull` under a running `kb serve`, a release whose signing key was rotated, and work
trees git changed in ways `git status` may not show (a mode, a link, an untracked file) —
real bare repositories over file://, real signed releases."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from test_checkout import QUESTION, ask, clean, clone, kb, published, refused
from test_release_helpers import forge_release, git
from test_trust import Keys, Pub, pinned

from kbtools.serve.app import create_app
from kbtools.ship.checkout import find_checkout, open_checkout
from kbtools.ship.signing import load_private

__all__ = ["published"]  # the module-scoped fixture of test_checkout, shared
BASE = "http://127.0.0.1"


@pytest.fixture
def own(published, tmp_path) -> dict[str, Path]:
    """A copy of the published artifacts repository this test may add releases to, and a
    client's clone of it."""
    art = tmp_path / "art.git"
    shutil.copytree(published["art"], art)
    tree = tmp_path / "客户 client"  # a path with a blank and Chinese
    clone(f"file://{art}", tree)
    return {"art": art, "tree": tree, "key": published["key"]}


def test_serve_names_the_release_after_a_pull_brings_a_newer_one(own):
    art, tree = own["art"], own["tree"]
    with TestClient(create_app(tree), base_url=BASE) as c:
        first = c.post("/api/search", json={"q": QUESTION, "k": 1}).json()
        assert first["release"]["tag"] == "kb-r2"
        newer = forge_release(art, lambda files: None, resign=load_private(own["key"]))
        git(tree, "fetch", "-q", "--tags")  # fetched, not checked out: still kb-r2
        assert c.post("/api/search", json={"q": QUESTION, "k": 1}).json()[
            "release"]["tag"] == "kb-r2"
        code, out, _ = kb("status", "--index", str(tree))  # and kb status says what waits
        assert code == 0 and f"newer release {newer} in this clone, not checked out: questions " \
            f"are answered from kb-r2 until `git checkout {newer}`" in out, out
        git(tree, "merge", "-q", "--ff-only", "origin/kb-index")
        after = c.post("/api/search", json={"q": QUESTION, "k": 1}).json()
        assert after["release"]["tag"] == newer and after["results"]
        assert c.get("/api/healthz").json()["release"]["tag"] == newer
    assert clean(tree)
    code, out, _ = kb("status", "--index", str(tree))
    assert code == 0 and f"release {newer}" in out and "newer release" not in out


@pytest.mark.parametrize("edit, says", [
    (lambda t: (t / "data" / "extra.jsonl").write_text("{}\n"),
     "data/extra.jsonl is not part of the signed release kb-r2"),
    (lambda t: (t / "data" / "额外 笔记.jsonl").write_text("{}\n"),
     "data/额外 笔记.jsonl is not part of the signed release kb-r2"),
    # an executable bit is no content: test_checkout_in_clone's card test (session 36)
    (lambda t: ((t / "data" / "docs.jsonl").rename(t / "data" / "moved"),
                (t / "data" / "docs.jsonl").symlink_to("moved")),
     "data/docs.jsonl differs from the signed release kb-r2"),
])
def test_work_tree_changed_by_hand_is_refused_naming_the_file(own, edit, says):
    tree = own["tree"]
    assert ask(tree)["release"]["tag"] == "kb-r2"
    edit(tree)
    assert says in refused(tree)
    code, _, err = kb("status", "--index", str(tree))
    assert code == 1 and says in err


def test_rotated_key_in_a_detached_checkout_is_followed_or_refused_in_one_line(tmp_path):
    """Releases kb-r1 and kb-r2 signed by key A, kb-r2 handing trust over to B, kb-r3 signed
    by B; the clone pins A (`kb trust add`). kb-r3 is taken (the rotation followed), then a
    `git checkout kb-r1` is refused saying that trust left A through kb-r2 — not "pin the
    publisher's new key", which is what it said. A shallow clone lacks kb-r2: it says to
    unshallow, and does then take kb-r3."""
    keys, pub = Keys(tmp_path), Pub(tmp_path)
    pub.release(keys.a)
    pub.release(keys.a, next_keys=(keys.b,))
    pub.release(keys.b)
    full, shallow = tmp_path / "full", tmp_path / "shallow"
    clone(f"file://{pub.art}", full)
    clone(f"file://{pub.art}", shallow, "--depth", "1")
    for tree in (full, shallow):
        assert kb("trust", "add", str(keys.a_pub), "--to", str(tree))[0] == 0

    assert opened(full) == ("kb-r3", keys.b_id)  # (these releases have no index to query)
    assert pinned(full / ".git" / "kb") == [keys.b_id]
    git(full, "checkout", "-q", "kb-r1")
    says = one_line_refusal(full)
    assert f"kb-r1: release signed by untrusted key {keys.a_id}: it was pinned here and " \
        f"unpinned (handed over by kb-r2; pinned now: {keys.b_id})" in says
    assert "kb-r0" not in says and "publisher replaced its key" not in says
    assert clean(full)

    says = one_line_refusal(shallow)
    assert f"untrusted key {keys.b_id}, and the releases before it are not here" in says
    assert "git fetch --unshallow" in says
    git(shallow, "fetch", "-q", "--unshallow")
    assert opened(shallow) == ("kb-r3", keys.b_id) and clean(shallow)


def test_a_key_replaced_without_rotation_names_no_release_kb_r0(tmp_path):
    """A clone pinning A meets a first release signed by B: the refusal said "no release
    since kb-r0 hands trust over", a tag that never exists."""
    keys, pub = Keys(tmp_path), Pub(tmp_path)
    pub.release(keys.b)
    tree = tmp_path / "c"
    clone(f"file://{pub.art}", tree)
    assert kb("trust", "add", str(keys.a_pub), "--to", str(tree))[0] == 0
    says = one_line_refusal(tree)
    assert "kb-r0" not in says
    assert f"untrusted key {keys.b_id} (pinned: {keys.a_id}; no release before it hands " \
        "trust over to it" in says


def opened(tree: Path) -> tuple[str, str | None]:
    """(tag, signer) of the release the checkout holds, verified and derived."""
    found = find_checkout(tree)
    assert found is not None
    release = open_checkout(*found)
    return release.tag, release.signed_by


def one_line_refusal(tree: Path) -> str:
    """What `kb query` and `kb status` say refusing the checkout (the same one line)."""
    said = refused(tree)
    code, out, err = kb("status", "--index", str(tree))
    assert "release kb-r" in out and out.rstrip().endswith("; refused, see below"), out
    tail = said.strip().split(": ", 3)[-1]  # "kb: error: WHERE: what" (WHERE may differ)
    assert code == 1 and len(err.strip().splitlines()) == 1 and err.strip().endswith(tail)
    return said


@pytest.mark.parametrize("how", [("--filter=blob:none",), ("--filter=blob:none", "--sparse")])
def test_partial_clone_with_an_edit_names_the_edit_not_missing_files(own, tmp_path, how):
    """A partial clone lacks the blobs of the releases it never checked out (history), and
    a sparse one most of its own: neither is why an untracked file is refused, yet every
    refusal was reported as "8 files of the release checked out are not in this partial
    clone and could not be fetched" — with the remote reachable."""
    git(own["art"], "config", "uploadpack.allowFilter", "true")
    tree = tmp_path / "partial 部分"
    clone(f"file://{own['art']}", tree, *how)
    (tree / "额外.txt").write_text("mine", encoding="utf-8")
    for _ in ("remote reachable", "remote gone"):
        said = refused(tree)
        assert "额外.txt is not part of the signed release kb-r2" in said
        assert "partial clone" not in said, said
        shutil.rmtree(own["art"], ignore_errors=True)


def test_partial_clone_following_a_rotation_offline_says_what_it_lacks(tmp_path):
    """A `--filter=blob:none` clone pinning key A, checked out at kb-r3 (signed by B after
    kb-r2's rotation), its remote gone: following the rotation reads earlier releases'
    release.json, never fetched. It said only git's "git cat-file failed: fatal: '…' does
    not appear to be a git repository"; with the remote back it is taken."""
    keys, pub = Keys(tmp_path), Pub(tmp_path)
    pub.release(keys.a)
    pub.release(keys.a, next_keys=(keys.b,))
    pub.release(keys.b)
    git(pub.art, "config", "uploadpack.allowFilter", "true")
    tree = tmp_path / "c"
    clone(f"file://{pub.art}", tree, "--filter=blob:none")
    assert kb("trust", "add", str(keys.a_pub), "--to", str(tree))[0] == 0
    away = pub.art.rename(tmp_path / "away.git")
    says = one_line_refusal(tree)
    assert "of earlier releases (read to follow key rotations) are not in this partial " \
        "clone and could not be fetched from its remote" in says, says
    away.rename(pub.art)
    assert opened(tree) == ("kb-r3", keys.b_id) and clean(tree)


def test_a_folder_of_the_checkout_given_as_the_index_names_the_checkout(own):
    """`--index kb/data` said "no index here: run `kb build` …"."""
    tree = own["tree"]
    code, out, err = kb("query", "--index", str(tree / "data"), QUESTION)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1
    assert f"a folder inside the git checkout of a release {tree}: pass --index {tree}" in err
    assert ask(tree)["release"]["tag"] == "kb-r2"
