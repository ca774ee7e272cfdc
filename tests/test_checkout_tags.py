"""A plain-git client's release tags, read and verified from git objects with nothing checked
out: `kb diff` of two tags (what changed, said as on a device) and `kb read --release` of an
earlier one (its text, as a device keeps it) — real bare repositories over file://, real
signed releases."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from device_fixtures import can_mount_read_only
from starlette.testclient import TestClient
from test_checkout import QUESTION, ask, clean, clone, derivation, derived_dir, kb, published
from test_checkout_field_states import own, publish
from test_release_helpers import forge_release, git

from kbtools.serve.app import create_app
from kbtools.ship.signing import load_private

__all__ = ["own", "published"]


def device_with_both(own: dict[str, Path], where: Path) -> Path:
    """A device that synced kb-r1, then kb-r2: both kept in its releases/."""
    art = where / "old.git"
    git(own["art"].parent, "clone", "-q", "--bare", "--mirror", str(own["art"]), str(art))
    git(art, "tag", "-d", "kb-r2")
    git(art, "update-ref", "refs/heads/kb-index", "kb-r1^{commit}")
    dev = where / "dev"
    assert kb("sync", str(art), "--to", str(dev))[0] == 0
    assert kb("sync", str(own["art"]), "--to", str(dev))[0] == 0
    return dev


def test_diff_in_a_clone_compares_its_tags_as_a_device_does(own, tmp_path, monkeypatch):
    """`kb diff` in a clone was refused (it pointed at `git diff --stat`, which lists
    shards, not documents). It now compares two tags of the clone, or a tag and the one
    checked out, from git objects — nothing checked out, `git status` clean — in the words
    and JSON a device gives for the same two releases."""
    tree = own["tree"]
    dev = device_with_both(own, tmp_path)
    head = git(tree, "rev-parse", "HEAD").strip()
    code, on_device, err = kb("diff", "kb-r1", "kb-r2", "--to", str(dev))
    assert code == 0 and "~ knowledge/good.md" in on_device, err
    dev_json = json.loads(kb("diff", "kb-r1", "kb-r2", "--to", str(dev), "--json")[1])
    monkeypatch.chdir(tree / "data")
    for args in (["kb-r1", "kb-r2"], ["kb-r1"], []):  # both; against HEAD; HEAD and before
        code, out, err = kb("diff", *args)
        assert code == 0 and out == on_device, (args, out, err)
        res = json.loads(kb("diff", *args, "--json")[1])
        for side in ("old", "new"):
            assert res[side]["path"] == f"{tree}@{res[side]['tag']}"
            res[side]["path"] = dev_json[side]["path"]
        assert res == dev_json
    monkeypatch.chdir(tmp_path)
    assert kb("diff", "kb-r2", "kb-r1", "--to", str(tree))[1].startswith("kb-r2 → kb-r1: ")
    git(tree, "checkout", "-q", "kb-r1")  # an older release checked out: no tag before it
    code, out, _ = kb("diff", "--to", str(tree))
    assert code == 0 and out.startswith("nothing → kb-r1: documents: 1 added"), out
    git(tree, "checkout", "-q", head)
    assert git(tree, "rev-parse", "HEAD").strip() == head and clean(tree)


def test_diff_in_a_clone_refuses_what_it_cannot_vouch_for(own, published, tmp_path):
    """A tag the clone lacks, no release tag at all, a release whose shard differs from its
    signed manifest, a release not signed by the clone's pinned key: each refused in one
    line, with nothing written into the clone."""
    tree = own["tree"]
    for tag, says in (("kb-r9", "release kb-r9 is not a tag of this clone (tags: kb-r1, "
                       "kb-r2); `git fetch --tags`"),
                      ("latest", "latest is not a release tag")):
        code, out, err = kb("diff", tag, "--to", str(tree))
        assert code == 1 and out == "" and says in err, err

    def edit_shard(files: dict[str, bytes]) -> None:
        shard = next(p for p in files if p.startswith("data/chunks/"))
        files[shard] = files[shard].replace(b"3000", b"9000")  # same size, other text

    newer = publish(own, edit_shard)  # its manifest kb-r2's: the shard kb-r1 → kb-r2 changed
    git(tree, "fetch", "-q", "--tags")
    code, out, err = kb("diff", "kb-r1", newer, "--to", str(tree))
    assert code == 1 and out == "", err
    assert f"differs from the signed release {newer} (sha256 mismatch)" in err, err
    assert len(err.strip().splitlines()) == 1
    assert kb("trust", "add", str(published["pub"]), "--to", str(tree))[0] == 0
    stranger = tmp_path / "stranger.key"
    assert kb("keygen", str(stranger))[0] == 0
    other = forge_release(own["art"], lambda files: None, resign=load_private(stranger))
    git(tree, "fetch", "-q", "--tags")
    code, out, err = kb("diff", "kb-r2", other, "--to", str(tree))
    assert code == 1 and "untrusted key" in err, err
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


def test_read_release_in_a_clone_finds_the_clones_tags(own, monkeypatch):
    """`kb read --release kb-r1` (or `--commit`, or the citation's `@ commit`) in a clone
    answered "not the release read here … no earlier release is kept beside it" and gave
    the text of the release checked out: only a device's releases/ was looked in. The clone
    keeps every release its tags name: kb-r1 is read from git objects, verified and derived
    as a checkout of it is, with nothing checked out; a tag it lacks is still said gone."""
    tree = own["tree"]
    monkeypatch.chdir(tree)
    head = git(tree, "rev-parse", "HEAD").strip()
    code, out, err = kb("read", "knowledge/good.md", "--release", "kb-r1")
    assert code == 0 and err == "", err
    assert "[release kb-r1 @ " in out and "(an earlier release than the one served now, " \
        "kb-r2)" in out, out
    assert "every 2000 hours" in out or "2000 operating hours" in out, out
    first = json.loads(kb("read", "knowledge/good.md", "--release", "kb-r1", "--json")[1])
    commit = first["release"]["source_commit"]
    for args in (["--commit", commit[:8]], [f"knowledge/good.md @ {commit[:12]}"]):
        res = json.loads(kb("read", *(["knowledge/good.md"] if args[0] == "--commit" else []),
                            *args, "--json")[1])
        assert res["release"]["tag"] == "kb-r1" and res["markdown"] == first["markdown"]
    code, out, err = kb("read", "knowledge/good.md", "--release", "kb-r2")
    assert code == 0 and "[release kb-r2 @ " in out and "earlier release" not in out
    code, out, err = kb("read", "knowledge/good.md", "--release", "kb-r7")
    assert "release kb-r7 is no release tag of this git clone (it has release kb-r2 " in err
    assert "checked out, and kb-r1; `git fetch --tags` brings the tags its remote has)" in err
    assert git(tree, "rev-parse", "HEAD").strip() == head and clean(tree)
    assert ask(tree)["release"]["tag"] == "kb-r2"


def test_tags_a_partial_clone_cannot_fetch_name_the_partial_clone(own, tmp_path):
    """A partial clone (``--filter=blob:none``) whose remote is out of reach: `kb diff`
    and `kb read --release` of a tag whose files it never fetched said only git's
    "'…/art.git' does not appear to be a git repository", naming no clone and no remedy.
    Now one line: how many files of which release are missing, and what to do."""
    git(own["art"], "config", "uploadpack.allowFilter", "true")
    tree = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{own['art']}", str(tree))
    assert ask(tree)["release"]["tag"] == "kb-r2"
    away = own["art"].rename(tmp_path / "away.git")
    for args in (["diff", "kb-r1", "kb-r2", "--to", str(tree)],
                 ["read", "knowledge/good.md", "--release", "kb-r1", "--index", str(tree)]):
        code, out, err = kb(*args)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, (args, err)
        assert f"kb: error: {tree}: " in err and " of kb-r1 are not in this partial clone " \
            "and could not be fetched from its remote (" in err, err
        assert err.strip().endswith("reconnect it and try again, or clone without --filter")
    away.rename(own["art"])
    assert kb("diff", "kb-r1", "kb-r2", "--to", str(tree))[0] == 0 and clean(tree)


def test_a_clone_on_read_only_media_compares_tags_and_lists_its_keys(published, tmp_path):
    """A clone on a read-only mount, never opened before: `kb trust list` failed with
    "cannot create kb: Read-only file system" (it made .git/kb/ to list nothing); listing
    writes nothing now. `kb diff` of two tags writes nothing either, so it works there."""
    if shutil.which("unshare") is None or not can_mount_read_only(tmp_path):
        pytest.skip("no unprivileged mount namespaces here")
    tree = tmp_path / "clone"
    git(tmp_path, "clone", "-q", f"file://{published['art']}", str(tree))
    script = (f"mount --bind {tree} {tree} && mount -o remount,bind,ro {tree} && cd {tree} && "
              f"{sys.executable} -m kbtools trust list && "
              f"exec {sys.executable} -m kbtools diff kb-r1 kb-r2")
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, env={**os.environ, "KB_HOME": str(tmp_path / "home")})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("no pinned keys in this clone: "), proc.stdout
    assert "kb-r1 → kb-r2: documents: 1 changed (1 section)" in proc.stdout, proc.stdout
    assert not (tree / ".git" / "kb").exists() and clean(tree)


def test_diff_in_a_shallow_clone_says_the_earlier_tags_are_not_fetched(published, tmp_path):
    """`git clone --depth 1` holds the newest tag alone: `kb diff` said "nothing → kb-r2:
    documents: 1 added", the clone's depth taken for what the release changed. It says the
    earlier tags are not here and how to fetch them; once fetched, it compares."""
    tree = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{published['art']}", str(tree))
    code, out, err = kb("diff", "--to", str(tree))
    assert code == 1 and out == "", out
    assert err.strip() == (f"kb: error: {tree}: kb-r2 has no release tag before it in this "
                           "shallow clone: `git fetch --tags` brings the earlier ones"), err
    git(tree, "fetch", "-q", "--tags")
    code, out, err = kb("diff", "--to", str(tree))
    assert code == 0 and out.startswith("kb-r1 → kb-r2: documents: 1 changed"), (out, err)


def test_the_app_over_a_clone_lists_what_changed_between_its_tags(own):
    """`kb serve --index CLONE`: `/api/diff` answered 404 "not serving a device directory"
    and the release page listed no changes. The clone's tags are compared, as `kb diff`
    there compares them (`/api/diff` is exactly `kb diff --json`)."""
    tree = own["tree"]
    with TestClient(create_app(tree), base_url="http://127.0.0.1") as client:
        resp = client.get("/api/diff")
        assert resp.status_code == 200, resp.text
        assert resp.json() == json.loads(kb("diff", "--to", str(tree), "--json")[1])
        assert resp.json()["new"]["tag"] == "kb-r2" and resp.json()["old"]["tag"] == "kb-r1"
        older = client.get("/api/diff", params={"old": "kb-r2", "new": "kb-r1"}).json()
        assert older["summary"] == "documents: 1 changed (1 section)"
        page = client.get("/release", params={"lang": "en"})
        assert page.status_code == 200 and "1 changed (1 section)" in page.text, page.text
    assert clean(tree)


def test_reading_earlier_tags_never_prunes_the_release_served(own):
    """`kb read --release` derives each earlier tag it reads into the clone's .git/kb/derived/,
    which keeps the 3 most recently used. Guard (already right): the release served is
    opened, so marked used, before each read, and never pruned. Found with it: a release
    tag whose message names no source commit (made by hand, as here) was not found by
    its tag at all ("no release tag of this git clone"); its release.json names it."""
    tree = own["tree"]

    def respelled(indent: int):
        def mutate(files: dict[str, bytes]) -> None:  # another manifest hash, same files
            files["manifest.json"] = (json.dumps(json.loads(files["manifest.json"]),
                                                 indent=indent) + "\n").encode()
            rel = json.loads(files["release.json"])
            rel["manifest_sha256"] = hashlib.sha256(files["manifest.json"]).hexdigest()
            files["release.json"] = (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode()
        return mutate

    for indent in (3, 4, 5):
        newest = publish(own, respelled(indent))
    git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newest
    served = derived_dir(tree, newest)
    store = (served / "index" / "store.sqlite").stat()
    for tag in ("kb-r4", "kb-r3", "kb-r2", "kb-r1"):
        code, out, err = kb("read", "knowledge/good.md", "--release", tag, "--index", str(tree))
        assert code == 0 and f"[release {tag} @ " in out, err
    assert served.is_dir(), "the release served was pruned"
    assert (served / "index" / "store.sqlite").stat().st_ino == store.st_ino
    assert derivation(tree, newest) and ask(tree)["release"]["tag"] == newest
    assert len(list((tree / ".git" / "kb" / "derived").iterdir())) == 3 and clean(tree)


def test_a_clone_repacked_by_hand_answers_compares_and_reads(own):
    """Guard (already right): `git gc --aggressive`, `git repack -a -d` and `git prune` run
    on a clone that had answered (its objects all in one pack now, deltas recomputed):
    the derived release is still taken, and two tags compare and read from the pack."""
    tree = own["tree"]
    for args in (["gc", "-q", "--aggressive"], ["repack", "-q", "-a", "-d", "-f"],
                 ["prune", "--expire=now"]):
        git(tree, *args)
    assert not list((tree / ".git" / "objects").glob("??/*"))  # no loose object left
    assert ask(tree)["release"]["tag"] == "kb-r2"
    code, out, err = kb("diff", "kb-r1", "kb-r2", "--to", str(tree))
    assert code == 0 and out.startswith("kb-r1 → kb-r2: documents: 1 changed"), err
    code, out, err = kb("read", "knowledge/good.md", "--release", "kb-r1", "--index", str(tree))
    assert code == 0 and "[release kb-r1 @ " in out, err
    assert clean(tree)


def test_query_release_asks_an_earlier_release_of_a_clone_or_a_device(own, tmp_path,
                                                                      monkeypatch):
    """An earlier release could be asked only through a device's releases/<tag> given as
    --index; a clone keeps every release its tags name, and `git checkout` was the only
    way to ask one. `kb query --release TAG` asks it: a clone's tag read from git objects,
    verified, nothing checked out; a device's releases/TAG; `--commit SHA` the same by its
    source commit. A tag not kept is refused in one line, in MCP `search`'s words (it had its
    own: "not a tag of this clone"), as is --release of an index that keeps no releases."""
    tree = own["tree"]
    dev = device_with_both(own, tmp_path)
    monkeypatch.chdir(tree / "data")
    head = git(tree, "rev-parse", "HEAD").strip()
    for args in ([], ["--index", str(tree)], ["--index", str(dev)]):
        code, out, err = kb("query", *args, "--release", "kb-r1", QUESTION, "-k", "1",
                            "--json")
        assert code == 0, (args, err)
        res = json.loads(out)
        assert res["release"]["tag"] == "kb-r1", args
        assert "2000" in res["results"][0]["text"], res["results"][0]["text"]
        # the same release by its source commit (a prefix, any case), as MCP `search` takes it
        code, out, err = kb("query", *args, "--commit", res["release"]["source_commit"][:10]
                            .upper(), QUESTION, "-k", "1", "--json")
        assert code == 0 and json.loads(out)["results"] == res["results"], (args, err)
    now = ask(tree)["release"]
    assert now["tag"] == "kb-r2"
    # refused in MCP's words (one line), with the CLI's options named
    code, out, err = kb("query", "--release", "kb-r9", QUESTION)
    assert code == 1 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("kb: error: release kb-r9 is no release tag of this git clone (it "
                          "has release kb-r2 ") and "search without --commit and --release" \
        in err, err
    code, out, err = kb("query", "--index", str(dev), "--release", "kb-r9", QUESTION)
    assert code == 1 and "release kb-r9 is not on this device (it keeps release kb-r2" in err
    code, out, err = kb("query", "--index", str(dev), "--release", "kb-r1", "--commit",
                        now["source_commit"][:8], QUESTION)
    assert code == 2 and out == "" and err.startswith("kb: error: release kb-r1 is commit "), err
    assert err.rstrip().endswith(f", not {now['source_commit'][:8]}: give the release or the "
                                 "commit alone"), err
    code, out, err = kb("query", "--commit", "zz12", QUESTION)
    assert code == 2 and "'commit' must be a commit's 7 to 64 hexadecimal digits" in err, err
    code, out, err = kb("query", "--index", str(own["tree"] / "manifest.json"), "--release",
                        "kb-r1", QUESTION)
    assert code != 0 and out == "" and len(err.strip().splitlines()) == 1, err
    assert git(tree, "rev-parse", "HEAD").strip() == head and clean(tree)


def test_search_tool_and_api_search_an_earlier_tag_of_a_clone(own):
    """MCP `search` and /api/search took no release: an agent that cited kb-r1 from a clone
    could read it again but not search it. Given `release` or `commit`, they search the
    clone's tag from git objects as `kb query --release` does (nothing checked out); a tag
    the clone lacks is refused naming the tags it has."""
    from kbtools.agents.mcp_server import Context, tool_search

    tree = own["tree"]
    head = git(tree, "rev-parse", "HEAD").strip()
    got = tool_search(Context(index=tree, root=tree, query_log=False), QUESTION, 1,
                      release="kb-r1")
    assert got["release"]["tag"] == "kb-r1" and "2000" in got["results"][0]["text"], got
    commit = got["release"]["source_commit"]
    with TestClient(create_app(tree), base_url="http://127.0.0.1") as client:
        res = client.get("/api/search", params={"q": QUESTION, "k": 1, "commit": commit[:10]})
        assert res.status_code == 200, res.text
        assert res.json()["release"]["tag"] == "kb-r1"
        assert res.json()["results"][0]["citation"] == got["results"][0]["citation"]
        res = client.post("/api/search", json={"query": QUESTION, "release": "kb-r7"})
        message = res.json()["error"]["message"]
        assert res.status_code == 404 and message.startswith(
            "release kb-r7 is no release tag of this git clone (it has release kb-r2 "), message
    assert git(tree, "rev-parse", "HEAD").strip() == head and clean(tree)
    assert ask(tree)["release"]["tag"] == "kb-r2"


def test_query_release_in_a_fresh_clone_derives_only_the_release_asked(published, tmp_path,
                                                                       monkeypatch):
    """`kb query --release kb-r1` in a clone verified and derived HEAD's release (kb-r2:
    `git status` of the work tree, the release exported and its index derived) before it
    looked for kb-r1, then derived kb-r1. The release asked for is found first: a fresh
    clone derives kb-r1 alone, by tag and by commit, from the clone's folder or with
    --index; HEAD's release is derived by the first question that asks it."""
    tree = tmp_path / "client"
    clone(f"file://{published['art']}", tree)
    monkeypatch.chdir(tree / "data")
    code, out, err = kb("query", "--release", "kb-r1", QUESTION, "-k", "1", "--json")
    assert code == 0 and json.loads(out)["release"]["tag"] == "kb-r1", err
    derived = {json.loads((d / "verified.json").read_text())["tag"]
               for d in (tree / ".git" / "kb" / "derived").iterdir()}
    assert derived == {"kb-r1"}
    commit = json.loads(out)["release"]["source_commit"]
    code, again, err = kb("query", "--index", str(tree), "--commit", commit[:9], QUESTION,
                          "-k", "1", "--json")
    assert code == 0 and json.loads(again)["results"] == json.loads(out)["results"], err
    assert len(list((tree / ".git" / "kb" / "derived").iterdir())) == 1
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    # HEAD's work tree edited: HEAD is refused, the tag asked for is read from git objects
    (tree / "release.json").write_text("{}\n", encoding="utf-8")
    code, _, err = kb("query", QUESTION)
    assert code == 1 and "release.json differs from the signed release kb-r2" in err, err
    code, out, err = kb("query", "--release", "kb-r1", QUESTION, "-k", "1", "--json")
    assert code == 0 and json.loads(out)["release"]["tag"] == "kb-r1", err
