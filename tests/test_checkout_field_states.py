"""A device that has only git, in the states field devices end up in: a shallow clone that
`git pull`s a newer release, work trees changed through git's index (`git add`, `git rm`),
a `git pull` or `git stash pop` stopped on conflicts, and a directory used both as a git
checkout and as a `kb sync` device. Each either answers from the release checked out or
is refused in one line whose repair, run as written, makes it answer again — real bare
repositories over file://, real signed releases."""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from test_checkout import QUESTION, ask, clean, clone, kb, published, refused
from test_release_helpers import forge_release, git

from kbtools.ship.signing import keygen, load_private, load_public

__all__ = ["published"]  # the module-scoped fixture of test_checkout, shared


@pytest.fixture
def own(published, tmp_path) -> dict[str, Path]:
    """A copy of the published artifacts repository (kb-r1, kb-r2) this test may add
    releases to, and a client's clone of it that has answered once from kb-r2."""
    art = tmp_path / "art.git"
    shutil.copytree(published["art"], art)
    tree = tmp_path / "设备 device"  # a path with Chinese and a blank
    clone(f"file://{art}", tree)
    assert ask(tree)["release"]["tag"] == "kb-r2"
    return {"art": art, "tree": tree, "key": published["key"]}


def publish(own: dict[str, Path], mutate=lambda files: None) -> str:
    """A new signed release (the next serial) on the copy's artifacts branch."""
    return forge_release(own["art"], mutate, resign=load_private(own["key"]))


def reformat_manifest(files: dict[str, bytes]) -> None:
    """The same manifest written another way (every line of it changes): a release whose
    manifest.json conflicts with any local edit of it."""
    files["manifest.json"] = (json.dumps(json.loads(files["manifest.json"]), indent=3)
                              + "\n").encode()
    rel = json.loads(files["release.json"])
    rel["manifest_sha256"] = hashlib.sha256(files["manifest.json"]).hexdigest()
    files["release.json"] = (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode()


def repair(said: str) -> str:
    """The command a refusal ends with (its last `...` quote)."""
    quoted = re.findall(r"`([^`]+)`", said)
    assert quoted, said
    return quoted[-1]


def run_repair(tree: Path, said: str) -> None:
    """Run the refusal's repair as written, in the checkout, as a user would."""
    proc = subprocess.run(["bash", "-c", repair(said)], cwd=tree, capture_output=True,
                          text=True)
    assert proc.returncode == 0, (repair(said), proc.stderr)


def test_shallow_clones_pull_a_newer_release_and_roll_back_by_tag(own, tmp_path):
    """Guard (already right): `git clone --depth 1` answers, a `git pull` that fast-forwards
    to a newer release answers from it, and `git clone --depth 1 --branch kb-r1` (a detached
    HEAD at an older tag) answers from kb-r1."""
    shallow = tmp_path / "shallow 浅"
    clone(f"file://{own['art']}", shallow, "--depth", "1")
    assert ask(shallow)["release"]["tag"] == "kb-r2"
    newer = publish(own)
    git(shallow, "pull", "-q", "--ff-only")
    assert ask(shallow)["release"]["tag"] == newer and clean(shallow)
    older = tmp_path / "older"
    clone(f"file://{own['art']}", older, "--depth", "1", "--branch", "kb-r1")
    answer = ask(older)
    assert answer["release"]["tag"] == "kb-r1" and "2000" in answer["results"][0]["text"]


def staged_edit(t: Path) -> None:
    (t / "data" / "docs.jsonl").write_text("{}\n")
    git(t, "add", "data/docs.jsonl")


def staged_new_file(t: Path) -> None:
    (t / "data" / "笔记.jsonl").write_text("{}\n", encoding="utf-8")
    git(t, "add", "data")


def staged_removal(t: Path) -> None:
    git(t, "rm", "-q", "data/dictionary.txt")


@pytest.mark.parametrize("edit, says", [
    (staged_edit, "data/docs.jsonl differs from the signed release kb-r2"),
    (staged_new_file, "data/笔记.jsonl is not part of the signed release kb-r2"),
    (staged_removal, "data/dictionary.txt is missing from the signed release kb-r2"),
])
def test_changes_staged_with_git_are_undone_by_the_repair_named(own, edit, says):
    """A change `git add`ed or `git rm`ed is in git's index: the repair named used to be
    `git checkout -- . && git clean -fdx`, which restores the work tree from the index (the
    change again) and leaves a staged file, so the checkout stayed refused."""
    tree = own["tree"]
    edit(tree)
    said = refused(tree)
    assert says in said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


def test_a_stash_pop_stopped_on_conflicts_is_named_and_repaired(own):
    """An edit stashed around a `git pull`, popped onto the newer release: manifest.json
    holds conflict markers and the index unmerged entries, where `git checkout -- .` fails
    ("path 'manifest.json' is unmerged")."""
    tree = own["tree"]
    manifest = tree / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"sha256": "', '"sha256": "0', 1))
    git(tree, "stash", "-q")
    newer = publish(own, reformat_manifest)
    git(tree, "pull", "-q", "--ff-only")
    subprocess.run(["git", "stash", "pop"], cwd=tree, capture_output=True, check=False)
    assert "<<<<<<<" in manifest.read_text()
    said = refused(tree)
    assert f"manifest.json has unresolved merge conflicts, unlike the signed release {newer}" \
        in said, said
    code, _, err = kb("status", "--index", str(tree))
    assert code == 1 and "manifest.json has unresolved merge conflicts" in err
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == newer and clean(tree)


@pytest.mark.parametrize("mode, op", [("--no-rebase", "git merge"), ("--rebase", "git rebase")])
def test_a_pull_stopped_on_conflicts_is_named_and_repaired(own, mode, op):
    """A local commit (manifest.json edited by hand) and then a `git pull` of a release that
    rewrote it: the pull stops half-way. The refusal said "`git checkout` a release tag",
    which git refuses mid-merge ("you need to resolve your current index first")."""
    tree = own["tree"]
    manifest = tree / "manifest.json"
    manifest.write_text(manifest.read_text().replace('"sha256": "', '"sha256": "0', 1))
    git(tree, "commit", "-qam", "local fix")
    newer = publish(own, reformat_manifest)
    proc = subprocess.run(["git", "pull", "-q", mode], cwd=tree, capture_output=True)
    assert proc.returncode != 0 and "<<<<<<<" in manifest.read_text()
    said = refused(tree)
    assert f"a `{op}` stopped half-way in this checkout" in said, said
    assert "manifest.json" in said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == newer and clean(tree)
    git(tree, "pull", "-q", "--ff-only")  # the checkout follows its branch again
    assert ask(tree)["release"]["tag"] == newer


def test_sync_into_a_git_checkout_is_refused_and_leaves_it_answering(own, tmp_path):
    """`kb sync --to` a clone (or a folder inside one) wrote a device directory into its
    work tree: the clone was then refused (".lock is not part of the signed release"), and
    the repair it named, `git clean -fdx`, would delete the synced releases."""
    tree, art = own["tree"], own["art"]
    for target, says in ((tree, "is a git checkout of a release"),
                         (tree / "device 设备", "lies inside the git checkout of a release")):
        code, out, err = kb("sync", str(art), "--to", str(target))
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
        assert says in err and "pull --ff-only` brings the checkout" in err
        assert not (tree / "device 设备").exists()
        assert clean(tree) and ask(tree)["release"]["tag"] == "kb-r2"
    device = tmp_path / "device"  # beside the clone: a device of its own
    assert kb("sync", str(art), "--to", str(device))[0] == 0
    assert ask(device)["release"]["tag"] == "kb-r2"


def test_the_default_device_directory_cloned_with_git_answers(published, tmp_path,
                                                               monkeypatch, isolated_home):
    """`git clone` into <KB_HOME>/device, where `kb query` looks given no index: it said
    "a git checkout of a release: open it with `kb query --index`" from `kb query` itself."""
    clone(f"file://{published['art']}", isolated_home / "device")
    monkeypatch.chdir(tmp_path)
    code, out, err = kb("query", QUESTION, "-k", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["release"]["tag"] == "kb-r2"
    assert clean(isolated_home / "device")


def test_a_device_directory_becomes_a_plain_git_checkout(own, tmp_path):
    """From `kb sync` to plain git without the network: clone the device's own repo.git.
    Its HEAD named a branch that does not exist there (master), so the clone checked out
    nothing ("remote HEAD refers to nonexistent ref")."""
    device = tmp_path / "device"
    assert kb("sync", str(own["art"]), "--to", str(device))[0] == 0
    tree = tmp_path / "from device"
    warnings = clone(str(device / "repo.git"), tree)
    assert "nonexistent ref" not in warnings, warnings
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    newer = publish(own)  # and the device syncs on
    assert kb("sync", str(own["art"]), "--to", str(device))[0] == 0
    git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newer and ask(device)["release"]["tag"] == newer


def test_status_of_a_checkout_says_whether_signatures_are_checked(own, published):
    """With no key pinned in the clone (nor in kb.toml), any release is taken unsigned, as
    on a device; `kb status` of a device says so, that of a checkout said nothing."""
    tree = own["tree"]
    code, out, _ = kb("status", "--index", str(tree))
    assert code == 0 and "pinned keys: none (releases are taken unsigned" in out, out
    assert json.loads(kb("status", "--index", str(tree), "--json")[1])["pinned_keys"] == []
    assert kb("trust", "add", str(published["pub"]), "--to", str(tree))[0] == 0
    code, out, _ = kb("status", "--index", str(tree))
    assert code == 0 and "pinned keys: none" not in out, out
    assert "releases must be signed by one" in out, out


def test_rollback_in_a_clone_names_the_git_command_and_leaves_the_home_device(
        own, isolated_home, monkeypatch):
    """`kb rollback` in a clone (as `kb query` there answers from the clone) rolled back
    <KB_HOME>/device unseen; it now refuses in one line naming `git checkout kb-rN`."""
    home = isolated_home / "device"
    assert kb("sync", str(own["art"]), "--to", str(home))[0] == 0
    monkeypatch.chdir(own["tree"] / "data")
    code, out, err = kb("rollback")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"{own['tree']}: this is a git checkout of a release" in err
    assert "`git checkout kb-rN` rolls back" in err
    assert ask(home)["release"]["tag"] == "kb-r2" and clean(own["tree"])


def test_a_pull_killed_half_way_names_the_lock_it_left_and_is_repaired(own):
    """A power cut during `git pull`: part of the newer release written into the work tree,
    HEAD still the older tag, and .git/index.lock left behind, so the repair named (`git
    reset --hard`) failed with git's "Unable to create '…/index.lock': File exists"."""
    tree = own["tree"]
    newer = publish(own, reformat_manifest)
    git(tree, "fetch", "-q")
    (tree / "manifest.json").write_bytes(subprocess.run(
        ["git", "show", "origin/kb-index:manifest.json"], cwd=tree, capture_output=True,
        check=True).stdout)
    (tree / ".git" / "index.lock").touch()
    said = refused(tree)
    assert "manifest.json differs from the signed release kb-r2" in said
    assert f"a git command left {tree / '.git' / 'index.lock'} (killed half-way" in said, said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newer and clean(tree)


@pytest.mark.parametrize("mutate, says", [
    (lambda files: (reformat_manifest(files), files.pop("release.sig")),
     "release is not signed"),
    (reformat_manifest, "bad signature by key"),  # release.json changed, release.sig old
])
def test_a_pulled_release_that_fails_its_signature_names_the_way_back(own, published,
                                                                       mutate, says):
    """A clone pinning the publisher's key pulls a release unsigned or whose signature does
    not verify: refused in one line that names the release served before and the git
    command back to it (it named neither)."""
    tree = own["tree"]
    assert kb("trust", "add", str(published["pub"]), "--to", str(tree))[0] == 0
    assert ask(tree)["release"]["tag"] == "kb-r2"
    forge_release(own["art"], mutate)
    git(tree, "pull", "-q", "--ff-only")
    said = refused(tree)
    assert says in said and "`git checkout kb-r2` returns to the release served here before" \
        in said, said
    code, _, err = kb("status", "--index", str(tree))
    assert code == 1 and err.strip().endswith("returns to the release served here before")
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


def test_an_edit_git_is_told_to_ignore_is_never_served(own):
    """Guard (already right): `git update-index --assume-unchanged` hides an edit from `git
    status`, yet what is served is read from git objects, never from the work tree."""
    tree = own["tree"]
    git(tree, "checkout", "-q", "kb-r1")
    git(tree, "update-index", "--assume-unchanged", *[
        str(p.relative_to(tree)) for p in (tree / "data" / "chunks").iterdir()])
    for shard in (tree / "data" / "chunks").iterdir():
        shard.write_text(shard.read_text().replace("2000", "9999"))
    assert clean(tree)  # git shows nothing
    answer = ask(tree)
    assert answer["release"]["tag"] == "kb-r1"
    assert "2000" in answer["results"][0]["text"] and "9999" not in json.dumps(answer)


def test_a_query_never_writes_the_clones_git_index(own):
    """kb reads a clone that git commands change meanwhile (a `git pull` under `kb serve`):
    its `git status` refreshed and rewrote .git/index, taking .git/index.lock, on which a
    concurrent `git pull` fails ("Another git process seems to be running")."""
    tree = own["tree"]
    for shard in (tree / "data").rglob("*.jsonl"):
        shard.touch()  # same content, newer times: the index's stat data is stale
    index = tree / ".git" / "index"
    before = index.stat().st_mtime_ns, index.read_bytes()
    assert ask(tree)["release"]["tag"] == "kb-r2"
    assert kb("status", "--index", str(tree))[0] == 0
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before


def test_a_pull_with_tags_off_says_to_fetch_the_tag(own):
    """A clone told to fetch no tags (`remote.origin.tagOpt --no-tags`) pulls a newer
    release's commit without its tag: it said "`git checkout` a release tag", as for a
    commit made here, where `git fetch --tags` is what it lacks."""
    tree = own["tree"]
    git(tree, "config", "remote.origin.tagOpt", "--no-tags")
    newer = publish(own)
    git(tree, "pull", "-q", "--ff-only")
    said = refused(tree)
    assert "it is on origin/kb-index, but its release tag is not in this clone" in said, said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == newer and clean(tree)


def test_sync_inside_a_repository_with_a_manifest_of_its_own_is_not_refused(own, tmp_path):
    """Guard for the refusal above: a git repository whose top holds a manifest.json of its
    own (a web app's) is no release checkout; a device inside it is synced."""
    app = tmp_path / "app"
    app.mkdir()
    (app / "manifest.json").write_text('{"name": "应用"}\n', encoding="utf-8")
    git(app, "init", "-q")
    code, out, err = kb("sync", str(own["art"]), "--to", str(app / "device"))
    assert code == 0, err
    assert ask(app / "device")["release"]["tag"] == "kb-r2"


def test_trust_list_in_a_clone_says_what_the_clone_takes(own, published, isolated_home,
                                                          tmp_path, monkeypatch):
    """`kb trust list` in a clone with no pinned key said "this device accepts unsigned
    releases": it is no device (keys pinned on <KB_HOME>/device do not count there), and it
    takes a release signed by any key too, no signature checked. Said so, and true: a
    release signed by a stranger's key is answered from until the publisher's is pinned;
    with kb.toml naming a key, that key is named as the one required."""
    tree, home = own["tree"], isolated_home / "device"
    assert kb("sync", str(own["art"]), "--to", str(home), "--trusted-key",
              str(published["pub"]))[0] == 0  # a device pinning the key: not the clone's
    monkeypatch.chdir(tree)
    code, out, err = kb("trust", "list")
    assert code == 0 and "device accepts" not in out, (out, err)
    assert out.startswith("no pinned keys in this clone: queries here take any release "
                          "whose files match its manifest, unsigned or signed by any key"), out
    assert f"`kb trust add PUB --to {shlex.quote(str(tree))}`" in out, out
    stranger = tmp_path / "stranger.key"
    assert kb("keygen", str(stranger))[0] == 0
    newer = forge_release(own["art"], lambda files: None, resign=load_private(stranger))
    git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newer  # what the line says is what happens
    code, out, _ = kb("trust", "list", "--to", str(home))
    assert code == 0 and out.startswith(load_public(published["pub"]).key_id), out
    code, out, _ = kb("trust", "list", "--to", str(home.parent / "new device"))
    assert out == ("no pinned keys in this device: `kb sync` takes any release whose files "
                   "match its manifest, unsigned or signed by any key (no signature is "
                   f"checked); `kb trust add PUB --to '{home.parent / 'new device'}'` pins the "
                   "publisher's key\n"), out
    (tmp_path / "kb.toml").write_text(f'[release]\ntrusted_keys = ["{published["pub"]}"]\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = kb("trust", "list", "--to", str(tree))
    assert out.startswith("no pinned keys in this clone yet: kb.toml release.trusted_keys "
                          f"names {load_public(published['pub']).key_id}, so queries here "
                          "take only a release signed by one of them"), out
    monkeypatch.chdir(tree)
    assert kb("trust", "add", str(published["pub"]))[0] == 0
    assert "bad signature" in refused(tree) or "untrusted key" in refused(tree)


def test_a_release_tag_its_publisher_moved_is_named_and_repaired(own):
    """The publisher republished kb-r2 as another commit (tag and branch force-moved) and
    the clone fetched with `git fetch --tags --force`: HEAD, the old kb-r2, was refused as
    "1 commit made in this clone on top of release kb-r1", with a repair back to kb-r1.
    It names the moved tag and the repair that checks out what kb-r2 names now."""
    art, tree = own["art"], own["tree"]
    old = git(tree, "rev-parse", "HEAD").strip()
    body = git(art, "cat-file", "tag", "kb-r2").split("\n\n", 1)[1]
    moved = git(art, "commit-tree", "kb-r2^{tree}", "-p", "kb-r1^{commit}", "-m",
                "republished").strip()
    git(art, "tag", "-f", "-a", "kb-r2", "-m", body, moved)
    git(art, "update-ref", "refs/heads/kb-index", moved)
    git(tree, "fetch", "-q", "--tags", "--force")
    said = refused(tree)
    assert (f"HEAD {old[:12]} is not a signed release tag (kb-r<N>): it was release kb-r2 "
            f"until its publisher moved that tag (it names {moved[:12]} now); `git reset "
            "--hard kb-r2 && git clean -fdx` makes this checkout the release kb-r2 names now"
            in said), said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    assert git(tree, "rev-parse", "HEAD").strip() == moved


def test_a_clone_whose_newest_tag_no_pinned_key_signs_names_the_tag_to_check_out(own,
                                                                                  tmp_path):
    """The newest tag of the artifacts repository is signed by a key nobody pinned (a
    publisher that changed keys without a rotation, or someone else): a fresh clone, the
    publisher's key pinned, was refused naming the key only, with nothing derived to go
    back to. The refusal names the newest tag the pinned key signs, and its `git checkout`
    run as written answers from it."""
    other = tmp_path / "other.key"
    keygen(other)
    assert forge_release(own["art"], lambda files: None, resign=load_private(other)) == "kb-r3"
    tree = tmp_path / "fresh"
    clone(f"file://{own['art']}", tree)
    assert kb("trust", "add", f"{own['key']}.pub", "--to", str(tree))[0] == 0
    said = refused(tree)
    assert said.startswith("kb: error: ") and "kb-r3" in said and "untrusted key" in said
    assert said.endswith("; `git checkout kb-r2` checks out the newest release of this clone "
                         "signed by a pinned key\n"), said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2"
    assert clean(tree)


def test_status_of_a_clone_on_a_stale_release_is_degraded_and_its_json_says_so(own):
    """`kb status --index CLONE` exited 0 or 1 only: a clone whose `git pull` brought a
    release made long ago (the publisher's CI stopped) looked healthy to a monitoring
    check, while a device on the same release exits 4. Now: 4, the reason on stderr and in
    --json's health; checking out the fresher older tag (a clone's rollback) is healthy."""
    tree = own["tree"]

    def old(files: dict[str, bytes]) -> None:
        rel = json.loads(files["release.json"])
        rel["created"] = "2020-01-01T00:00:00+00:00"
        files["release.json"] = (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode()

    assert publish(own, old) == "kb-r3"
    git(tree, "pull", "-q", "--ff-only")
    code, out, err = kb("status", "--index", str(tree))
    assert code == 4 and "release kb-r3" in out and "  STALE: created 2020-01-01" in out, out
    assert err.startswith("kb: warning: the checked-out release kb-r3 is ") and err.endswith(
        "older than 30 days (kb.toml [release] max_age_days): `git pull --ff-only` brings a "
        "newer one, if the remote has one\n") and err.count("\n") == 1, err
    code, out, err = kb("status", "--index", str(tree), "--json")
    st = json.loads(out)
    assert code == 4 and st["stale"] is True and st["health"]["state"] == "degraded", out
    assert st["health"]["reasons"] == [err.removeprefix("kb: warning: ").rstrip("\n")]
    git(tree, "checkout", "-q", "kb-r2")  # the clone rolled back: a newer tag is no problem
    code, out, err = kb("status", "--index", str(tree), "--json")
    st = json.loads(out)
    assert (code, err) == (0, "") and st["health"] == {"state": "ok", "reasons": []}, out + err
    assert st["newer"] == "kb-r3" and st["stale"] is False
