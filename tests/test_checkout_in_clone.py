"""`kb` run inside a plain-git client the way a technician leaves it: a sparse checkout
without the top-level release files, nothing checked out, a subfolder, a linked work tree
(`git worktree add`), commits made on top of a release, a card that marks files
executable; and a device made before repo.git's HEAD named the release branch. Each command either acts on
the clone it stands in or refuses in one line naming the clone and the device directory —
never acts on <KB_HOME>/device, another device, unseen. Real bare repositories over
file://, real signed releases."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest
from test_checkout import QUESTION, ask, clean, clone, kb, published, refused
from test_checkout_field_states import own, publish, run_repair
from test_release_helpers import git

__all__ = ["own", "published"]  # fixtures shared with test_checkout(_field_states)


def asked_here(where: Path, monkeypatch) -> dict:
    """`kb query` given no index, run from `where`."""
    monkeypatch.chdir(where)
    code, out, err = kb("query", QUESTION, "-k", "1", "--json")
    assert code == 0, err
    return json.loads(out)


def home_device_behind(own, isolated_home) -> tuple[Path, str]:
    """<KB_HOME>/device synced at kb-r2, then the clone pulled a newer release: whatever
    answers from the device says kb-r2. Returns the device and the clone's release."""
    home = isolated_home / "device"
    assert kb("sync", str(own["art"]), "--to", str(home))[0] == 0
    newer = publish(own)
    git(own["tree"], "pull", "-q", "--ff-only")
    return home, newer


def worktree(tree: Path, where: Path) -> Path:
    """A linked work tree of the clone (`git worktree add`), on the release branch's tip."""
    git(tree, "worktree", "add", "-q", "--detach", str(where), "HEAD")
    return where


@pytest.mark.parametrize("linked", [False, True])
def test_a_sparse_checkout_without_the_release_files_answers(own, isolated_home, monkeypatch,
                                                            tmp_path, linked):
    """`git sparse-checkout set --no-cone '/data/'` leaves release.json, manifest.json and
    release.sig out of the work tree: `kb query --index` said "no index here", and `kb
    query` in it answered from <KB_HOME>/device. A release is verified from git objects,
    which the sparse clone holds: it answers from its own release."""
    home, newer = home_device_behind(own, isolated_home)
    tree = worktree(own["tree"], tmp_path / "linked 链接") if linked else own["tree"]
    git(tree, "sparse-checkout", "set", "--no-cone", "/data/")
    assert not (tree / "release.json").exists() and not (tree / "manifest.json").exists()
    assert ask(tree)["release"]["tag"] == newer
    for where in (tree, tree / "data"):
        assert asked_here(where, monkeypatch)["release"]["tag"] == newer
        code, out, err = kb("status")
        assert code == 0 and out.startswith(f"checkout {tree}: release {newer}"), (out, err)
    assert clean(tree)
    shard = next((tree / "data" / "chunks").iterdir())
    shard.write_text("{}\n")  # what is checked out is checked as in a full clone
    said = refused(tree)
    assert f"data/chunks/{shard.name} differs from the signed release {newer}" in said, said
    git(tree, "checkout", "--", "data")
    assert ask(tree)["release"]["tag"] == newer
    assert json.loads(kb("status", "--to", str(home), "--json")[1])["served"]["tag"] == "kb-r2"


def test_a_release_file_deleted_by_hand_is_no_sparse_checkout(own):
    """Guard for the above: a top-level release file removed by hand (not left out by
    sparse patterns, not skip-worktree) is refused by name, sparse-checkout file or not."""
    tree = own["tree"]
    git(tree, "sparse-checkout", "set", "--no-cone", "/*")  # sparse, everything checked out
    (tree / "release.json").unlink()
    said = refused(tree)
    assert "release.json is missing from the signed release kb-r2" in said, said


def test_sync_in_a_clone_names_it_and_the_device(own, isolated_home, monkeypatch, tmp_path):
    """`kb sync` given no --to in a clone (its top, a subfolder, a linked work tree)
    synced <KB_HOME>/device while `kb query`, `kb status` and `kb rollback` act on the
    clone. Refused in one line naming the clone, the git command that does it there and
    --to for the device. (`kb diff` there compares the clone's tags: test_checkout_tags.)"""
    tree = own["tree"]
    home = isolated_home / "device"
    linked = worktree(tree, tmp_path / "linked")
    for where, top in ((tree, tree), (tree / "data", tree), (linked, linked)):
        monkeypatch.chdir(where)
        code, out, err = kb("sync", str(own["art"]))
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, err
        assert err.startswith(f"kb: error: {top}: this is a git checkout of a release"), err
        assert f"`kb sync --to {home}` acts on the device directory" in err, err
        assert "newest release" in err, err
        assert not home.exists()  # nothing synced there
        assert asked_here(where, monkeypatch)["release"]["tag"] == "kb-r2"
    monkeypatch.chdir(tree)
    assert kb("sync", str(own["art"]), "--to", str(home))[0] == 0  # --to still means it
    code, out, err = kb("diff", "--to", str(home))
    assert code == 0 and "knowledge/good.md" in out, err
    assert clean(tree)


def test_diff_of_two_release_directories_needs_no_device_in_a_clone(own, published,
                                                                    monkeypatch):
    """Guard: `kb diff DIR_A DIR_B` compares two release directories wherever it runs."""
    monkeypatch.chdir(own["tree"])
    dist = published["kr"] / "dist"
    code, out, err = kb("diff", str(dist), str(dist))
    assert code == 0 and out.endswith(f"{dist} → {dist}: no changes\n"), (out, err)


def old_layout(device: Path) -> None:
    """What devices synced before session 35 hold: repo.git made by `git init --bare`, its
    HEAD naming master, a branch that never exists there."""
    git(device / "repo.git", "symbolic-ref", "HEAD", "refs/heads/master")


def test_an_old_devices_repo_head_is_repaired_by_the_next_sync(own, tmp_path):
    """`git clone DEVICE/repo.git` of a device made before session 35 checked out nothing
    ("remote HEAD refers to nonexistent ref"), its HEAD naming master: the next `kb sync`,
    up to date or not, points it at the release branch."""
    device = tmp_path / "device"
    assert kb("sync", str(own["art"]), "--to", str(device))[0] == 0
    old_layout(device)
    assert "nonexistent ref" in clone(str(device / "repo.git"), tmp_path / "before")
    code, out, err = kb("sync", "--to", str(device))  # nothing newer: up to date
    assert code == 0 and out.startswith("up to date"), err
    assert git(device / "repo.git", "symbolic-ref", "HEAD").strip() == "refs/heads/kb-index"
    tree = tmp_path / "after"
    assert "nonexistent ref" not in clone(str(device / "repo.git"), tree)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
    old_layout(device)
    newer = publish(own)  # a sync that takes a newer release repairs it too
    assert kb("sync", "--to", str(device))[0] == 0
    git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newer


def test_a_repo_head_naming_a_branch_that_exists_is_left(own, tmp_path):
    """Guard: HEAD repaired only when the branch it names does not exist."""
    device = tmp_path / "device"
    assert kb("sync", str(own["art"]), "--to", str(device))[0] == 0
    repo = device / "repo.git"
    git(repo, "branch", "mine", "kb-index")
    git(repo, "symbolic-ref", "HEAD", "refs/heads/mine")
    assert kb("sync", "--to", str(device))[0] == 0
    assert git(repo, "symbolic-ref", "HEAD").strip() == "refs/heads/mine"
    assert subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"],
                          capture_output=True).returncode == 0


def note_committed(tree: Path, own) -> str:
    (tree / "NOTE 备注.txt").write_text("pump 3 checked\n", encoding="utf-8")
    git(tree, "add", "-A")
    git(tree, "commit", "-qm", "field note")
    return "kb-r2"


def note_committed_detached(tree: Path, own) -> str:
    git(tree, "checkout", "-q", "--detach")
    return note_committed(tree, own)


def note_rebased(tree: Path, own) -> str:
    """A note committed, then `git pull --rebase` of a newer release: the note replayed
    on top of it (no conflict: the release never has that file)."""
    note_committed(tree, own)
    newer = publish(own)
    git(tree, "pull", "-q", "--rebase")
    return newer


def note_merged(tree: Path, own) -> str:
    note_committed(tree, own)
    newer = publish(own)
    git(tree, "pull", "-q", "--no-rebase", "--no-edit")
    return newer


@pytest.mark.parametrize("make, commits", [(note_committed, 1), (note_committed_detached, 1),
                                           (note_rebased, 1), (note_merged, 2)])
def test_commits_made_in_a_clone_are_named_and_the_repair_keeps_its_branch(own, make,
                                                                            commits):
    """Commits on top of a release (a note committed, then `git pull --rebase` or a merge
    pull of a newer one): refused with "`git checkout` a release tag (`git tag -l
    'kb-r*'` lists them)", naming neither the commits nor a command that repairs it; a
    `git checkout` of the tag detaches HEAD, after which `git pull --ff-only` fails. Now
    named, and `git reset --hard` to the release below keeps the branch pulling."""
    tree = own["tree"]
    below = make(tree, own)
    said = refused(tree)
    assert f"{'1 commit' if commits == 1 else f'{commits} commits'} made in this clone on " \
           f"top of release {below} (`git log {below}..HEAD`" in said, said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == below and clean(tree)
    newest = publish(own)
    if make is note_committed_detached:  # no branch to pull: fetch, check the tag out
        git(tree, "fetch", "-q")
        git(tree, "checkout", "-q", newest)
    else:
        git(tree, "pull", "-q", "--ff-only")
    assert ask(tree)["release"]["tag"] == newest and clean(tree)


def test_a_commit_pushed_without_its_tag_names_the_release_below(own):
    """A commit on the artifacts branch that no release tag names (pushed by hand, or a
    publish whose tag never arrived), pulled with tags on: the refusal said "`git fetch
    --tags` brings it", which brings nothing, so it repeated after the repair."""
    art, tree = own["art"], own["tree"]
    tip = git(art, "rev-parse", "refs/heads/kb-index").strip()
    untagged = git(art, "commit-tree", f"{tip}^{{tree}}", "-p", tip, "-m", "no tag").strip()
    git(art, "update-ref", "refs/heads/kb-index", untagged)
    git(tree, "pull", "-q", "--ff-only")
    said = refused(tree)
    assert "it is on origin/kb-index, but no release tag names it there" in said, said
    run_repair(tree, said)
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


def test_a_clone_on_a_card_that_marks_files_executable_answers(own):
    """A clone copied to a card whose file system shows every file executable (FAT,
    exFAT: `core.fileMode` left true by the copy): every release file was "differs from
    the signed release", and the repair named cannot clear the bits there. A release is
    regular files read from git objects: the bits change nothing served; content edits
    are still refused."""
    tree = own["tree"]
    for path in tree.rglob("*"):
        if ".git" not in path.relative_to(tree).parts and path.is_file():
            path.chmod(0o755)
    assert git(tree, "config", "core.fileMode").strip() == "true"
    assert ask(tree)["release"]["tag"] == "kb-r2"
    docs = tree / "data" / "docs.jsonl"
    docs.chmod(0o4777)  # setuid, writable by all: bits git never keeps, nothing served
    assert ask(tree)["release"]["tag"] == "kb-r2"
    docs.write_text(docs.read_text() + "\n")
    assert "data/docs.jsonl differs from the signed release kb-r2" in refused(tree)


def test_a_clone_whose_remote_moved_answers_offline(own, monkeypatch, tmp_path):
    """Guard (already right): `git remote set-url` to where the artifacts moved (out of
    reach now) changes nothing served: a query and `kb status` read the clone only."""
    tree = own["tree"]
    git(tree, "remote", "set-url", "origin", str(tmp_path / "moved" / "art.git"))
    assert ask(tree)["release"]["tag"] == "kb-r2"
    monkeypatch.chdir(tree)
    code, out, err = kb("status")
    assert code == 0 and out.startswith(f"checkout {tree}: release kb-r2"), err


@pytest.mark.parametrize("sparse", [False, True])
def test_a_folder_of_a_clone_given_to_device_commands_names_the_clone(own, sparse):
    """`--to CLONE/data` (`--index` for status): `kb status` said "serving nothing yet"
    (exit 0), `kb releases` and `kb log` showed an empty device, and `kb trust add` wrote
    trusted_keys/ into the clone's work tree, which the next query then refused. Each now
    names the clone in one line, as `kb query --index CLONE/data` does."""
    tree = own["tree"]
    if sparse:
        git(tree, "sparse-checkout", "set", "--no-cone", "/data/")
    folder = str(tree / "data")
    code, _, err = kb("query", QUESTION, "--index", folder)
    assert code == 1 and f"inside the git checkout of a release {tree}: pass --index" in err
    for args in (["status", "--index", folder], ["releases", "--to", folder],
                 ["log", "--to", folder], ["diff", "--to", folder],
                 ["rollback", "--to", folder], ["trust", "list", "--to", folder]):
        code, out, err = kb(*args)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1, (args, out, err)
        assert f"a folder inside the git checkout of a release {tree}" in err, (args, err)
    code, _, err = kb("trust", "add", str(own["key"]) + ".pub", "--to", folder)
    assert code == 1 and f"pass --to {tree}" in err, err
    inner = tree / ".git" / "device"  # in its git directory: no release changed, allowed
    assert kb("sync", str(own["art"]), "--to", str(inner))[0] == 0
    code, out, err = kb("status", "--to", str(inner))
    assert code == 0 and out.startswith(f"device {inner}"), err
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)


def test_a_linked_work_tree_whose_clone_moved_names_git_worktree_repair(own, tmp_path,
                                                                         monkeypatch):
    """`git worktree add` of a clone later moved: git cannot read the work tree, and kb
    said "a git checkout of a release: open it with `kb query --index`", also to `kb query
    --index` itself. It names the missing git directory and `git worktree repair`."""
    linked = worktree(own["tree"], tmp_path / "linked")
    moved = tmp_path / "moved 搬走"
    own["tree"].rename(moved)
    said = refused(linked)
    assert "git cannot read this checkout: its .git file names" in said, said
    monkeypatch.chdir(linked)
    code, _, err = kb("status")
    assert code == 1 and "git cannot read this checkout" in err, err
    run_repair(linked, said.replace("CLONE", shlex.quote(str(moved))))
    assert ask(linked)["release"]["tag"] == "kb-r2"


@pytest.mark.parametrize("sparse", [False, True])
def test_a_clone_with_nothing_checked_out_names_the_repair(own, isolated_home, monkeypatch,
                                                            tmp_path, sparse):
    """`git clone --no-checkout` (then, say, sparse patterns set before the first checkout,
    which checks out nothing either): no git index, no file. `kb query` in it answered
    from <KB_HOME>/device, and with --index said "no index here". It is refused naming the
    files missing and the repair, which checks out the release (the sparse part only)."""
    home, newer = home_device_behind(own, isolated_home)
    tree = tmp_path / "nothing 空"
    clone(f"file://{own['art']}", tree, "--no-checkout")
    if sparse:
        git(tree, "sparse-checkout", "set", "--no-cone", "/data/")
    assert not (tree / "data").exists()
    said = refused(tree)
    assert f"is missing from the signed release {newer}" in said, said
    monkeypatch.chdir(tree)
    code, out, err = kb("query", QUESTION)
    assert code == 1 and out == "" and err == said, err
    run_repair(tree, said)
    assert (tree / "release.json").exists() is not sparse and (tree / "data").is_dir()
    assert asked_here(tree, monkeypatch)["release"]["tag"] == newer and clean(tree)


def test_a_clone_made_for_a_file_system_without_links_or_modes_answers(own, tmp_path):
    """Guard (already right): a clone configured as git configures one on FAT
    (core.symlinks=false, core.fileMode=false) answers and stays clean: a release has
    regular files only, read from git objects."""
    tree = tmp_path / "fat"
    clone(f"file://{own['art']}", tree, "--config", "core.symlinks=false",
          "--config", "core.fileMode=false")
    assert ask(tree)["release"]["tag"] == "kb-r2" and clean(tree)
