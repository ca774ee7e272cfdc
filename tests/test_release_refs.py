"""`kb release` moves its refs as one transaction: a kill, a failure or a second `kb release`
running at the same time never leaves a tag off the branch or skips a serial."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_release_helpers import git, make_dist, make_knowledge_repo, sample_files

from kbtools.errors import ReleaseError
from kbtools.ship import release as rel_mod
from kbtools.ship.git import is_ancestor
from kbtools.ship.release import make_release


@pytest.fixture
def kr(tmp_path: Path) -> Path:
    repo = make_knowledge_repo(tmp_path / "kr")
    make_release(repo, make_dist(tmp_path / "d1", sample_files(1), commit="s1"))
    return repo


def kb_refs(kr: Path) -> dict[str, str]:
    out = git(kr, "for-each-ref", "--format=%(refname) %(objectname)", "refs/kb")
    return dict(line.split(" ") for line in out.splitlines())


def assert_tags_on_branch(kr: Path) -> None:
    tip = git(kr, "rev-parse", "refs/kb/heads/kb-index").strip()
    for ref in kb_refs(kr):
        if ref.startswith("refs/kb/tags/"):
            commit = git(kr, "rev-parse", f"{ref}^{{commit}}").strip()
            assert is_ancestor(kr / ".git", commit, tip), f"{ref} is not on the branch"


def test_a_tag_left_by_a_release_killed_before_moving_the_branch_is_replaced(kr, tmp_path):
    """What a kill between the old two `update-ref` calls left: kb-r2 on a commit that is
    not on the branch. The next release used to become kb-r3 and keep the dangling kb-r2."""
    tip = git(kr, "rev-parse", "refs/kb/heads/kb-index").strip()
    tree = git(kr, "rev-parse", f"{tip}^{{tree}}").strip()
    orphan = git(kr, "commit-tree", tree, "-p", tip, "-m", "interrupted").strip()
    tag = subprocess.run(["git", "mktag"], cwd=kr, check=True, capture_output=True, text=True,
                         input=f"object {orphan}\ntype commit\ntag kb-r2\n"
                               "tagger T <t@x> 0 +0000\n\nkb release 2\n").stdout.strip()
    git(kr, "update-ref", "refs/kb/tags/kb-r2", tag)
    info = make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    assert info.tag == "kb-r2"
    assert sorted(kb_refs(kr)) == ["refs/kb/heads/kb-index", "refs/kb/tags/kb-r1",
                                   "refs/kb/tags/kb-r2"]
    assert_tags_on_branch(kr)
    assert git(kr, "rev-parse", "refs/kb/tags/kb-r2^{commit}").strip() == info.commit


def test_a_release_killed_before_its_ref_transaction_changes_nothing(kr, tmp_path, monkeypatch):
    before = kb_refs(kr)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the process dies before any ref moves

    monkeypatch.setattr(rel_mod, "update_refs", killed)
    with pytest.raises(KeyboardInterrupt):
        make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    assert kb_refs(kr) == before
    monkeypatch.undo()
    assert make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2")).tag \
        == "kb-r2"
    assert_tags_on_branch(kr)


def test_the_ref_transaction_moves_tag_and_branch_or_neither(kr, tmp_path):
    """A branch that cannot be moved (a stale lock of a crashed git) fails the release in one
    line, and the tag is not created either (it used to be, before the branch failed)."""
    lock = kr / ".git" / "refs" / "kb" / "heads" / "kb-index.lock"
    lock.write_text("")
    before = kb_refs(kr)
    with pytest.raises(ReleaseError) as err:
        make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    assert "git update-ref failed" in err.value.message and "\n" not in str(err.value)
    assert kb_refs(kr) == before
    lock.unlink()
    assert make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2")).tag \
        == "kb-r2"


def test_a_concurrent_release_makes_the_other_fail_cleanly(kr, tmp_path, monkeypatch):
    """Two CI jobs releasing from one repository: both pick kb-r2; the one that records
    second fails in one line and changes nothing, never a second kb-r2 or a moved tag."""
    real = rel_mod.update_refs
    other: list[str] = []

    def racing(gd, commands, message, **kwargs):
        if not other:  # the other job records its release between our read and our write
            monkeypatch.setattr(rel_mod, "update_refs", real)
            other.append(make_release(kr, make_dist(tmp_path / "d3", sample_files(3),
                                                    commit="s3")).commit)
        real(gd, commands, message, **kwargs)

    monkeypatch.setattr(rel_mod, "update_refs", racing)
    with pytest.raises(ReleaseError) as err:
        make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    assert "another kb release recorded a release" in err.value.message
    assert "run kb release again" in err.value.message and "\n" not in str(err.value)
    refs = kb_refs(kr)
    assert git(kr, "rev-parse", "refs/kb/tags/kb-r2^{commit}").strip() == other[0]
    assert refs["refs/kb/heads/kb-index"] == other[0]
    assert_tags_on_branch(kr)
    assert make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2")).tag \
        == "kb-r3"


def test_a_release_published_first_by_another_repository_fails_the_push_cleanly(tmp_path,
                                                                              monkeypatch):
    """Two CI jobs, two clones, one artifacts remote: B fetched before A published kb-r2,
    so B made a kb-r2 of its own. B's push used to fail with git's "failed to push some refs"
    and leave B's repository diverged from the remote, so every later `kb release` there
    failed too; now B fails in one line, keeps nothing, and its next run makes kb-r3."""
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    a, b = make_knowledge_repo(tmp_path / "a"), make_knowledge_repo(tmp_path / "b")
    make_release(a, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))
    real = rel_mod.update_refs

    def a_publishes_first(gd, commands, message, **kwargs):
        monkeypatch.setattr(rel_mod, "update_refs", real)
        make_release(a, make_dist(tmp_path / "da", sample_files(2), commit="sa"),
                     remote=str(art))
        real(gd, commands, message, **kwargs)

    monkeypatch.setattr(rel_mod, "update_refs", a_publishes_first)
    published = git(art, "for-each-ref")
    with pytest.raises(ReleaseError) as err:
        make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                     remote=str(art))
    msg = str(err.value)
    assert "received another release while this one was made" in msg and "\n" not in msg
    assert "kb-r2 was not published" in msg and "run kb release again" in msg
    assert git(art, "for-each-ref") != published  # A's kb-r2, and nothing of B's
    assert git(art, "rev-parse", "refs/tags/kb-r2^{commit}") == \
        git(art, "rev-parse", "refs/heads/kb-index")
    assert "refs/kb/tags/kb-r2" not in kb_refs(b)
    info = make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                        remote=str(art))
    assert info.tag == "kb-r3"
    assert git(art, "rev-parse", "refs/heads/kb-index").strip() == info.commit
    assert_tags_on_branch(b)


def test_a_refused_push_keeps_a_release_a_newer_local_one_builds_on(tmp_path, monkeypatch):
    """Another `kb release` in this repository recorded kb-r3 on top of our kb-r2 before our
    push was refused: kb-r2 cannot be taken back (kb-r3 holds it); the error says so."""
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    a, b = make_knowledge_repo(tmp_path / "a"), make_knowledge_repo(tmp_path / "b")
    make_release(a, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))
    real = rel_mod._push

    def meanwhile(*args, **kwargs):
        monkeypatch.setattr(rel_mod, "_push", real)
        make_release(a, make_dist(tmp_path / "da", sample_files(2), commit="sa"),
                     remote=str(art))
        make_release(b, make_dist(tmp_path / "dc", sample_files(4), commit="sc"))
        return real(*args, **kwargs)

    monkeypatch.setattr(rel_mod, "_push", meanwhile)
    with pytest.raises(ReleaseError) as err:
        make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                     remote=str(art))
    assert "kb-r2 was not published and stays recorded here under a newer release" \
        in str(err.value)
    assert {"refs/kb/tags/kb-r2", "refs/kb/tags/kb-r3"} <= set(kb_refs(b))
    assert_tags_on_branch(b)


def test_a_release_killed_before_its_push_while_another_published_recovers_by_itself(
        tmp_path, monkeypatch):
    """B recorded kb-r2 and was killed before pushing it; A published its own kb-r2
    meanwhile. B's next `kb release` failed with "have diverged" until someone reset
    refs/kb/heads/kb-index by hand; it now takes its unpublished kb-r2 back and makes kb-r3
    on top of A's."""
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    a, b = make_knowledge_repo(tmp_path / "a"), make_knowledge_repo(tmp_path / "b")
    make_release(a, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # the process dies after recording, before its push

    monkeypatch.setattr(rel_mod, "_publish", killed)
    with pytest.raises(KeyboardInterrupt):
        make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                     remote=str(art))
    monkeypatch.undo()
    lost = git(b, "rev-parse", "refs/kb/heads/kb-index").strip()
    theirs = make_release(a, make_dist(tmp_path / "da", sample_files(2), commit="sa"),
                          remote=str(art))
    assert theirs.tag == "kb-r2"
    info = make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                        remote=str(art))
    assert info.tag == "kb-r3" and info.new
    assert git(art, "rev-parse", "refs/heads/kb-index").strip() == info.commit
    assert git(art, "rev-parse", "refs/tags/kb-r2^{commit}").strip() == theirs.commit
    assert is_ancestor(b / ".git", theirs.commit, info.commit)
    assert not is_ancestor(b / ".git", lost, info.commit)
    assert_tags_on_branch(b)


def test_a_diverged_branch_with_a_commit_that_is_no_release_is_left_alone(tmp_path):
    """Only releases made here and never published are taken back: a commit of someone
    else's on the local branch keeps the one-line "have diverged" refusal."""
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    a, b = make_knowledge_repo(tmp_path / "a"), make_knowledge_repo(tmp_path / "b")
    make_release(a, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))
    make_release(b, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))
    tip = git(b, "rev-parse", "refs/kb/heads/kb-index").strip()
    tree = git(b, "rev-parse", f"{tip}^{{tree}}").strip()
    mine = git(b, "commit-tree", tree, "-p", tip, "-m", "by hand").strip()
    git(b, "update-ref", "refs/kb/heads/kb-index", mine)
    make_release(a, make_dist(tmp_path / "da", sample_files(2), commit="sa"), remote=str(art))
    with pytest.raises(ReleaseError, match="have diverged"):
        make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"),
                     remote=str(art))
    assert git(b, "rev-parse", "refs/kb/heads/kb-index").strip() == mine


def test_the_release_that_takes_back_unpublished_ones_names_them(tmp_path, monkeypatch):
    """The take-back above is not silent: the next `kb release` says in one line which
    local releases it dropped."""
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    a, b = make_knowledge_repo(tmp_path / "a"), make_knowledge_repo(tmp_path / "b")
    make_release(a, make_dist(tmp_path / "d1", sample_files(1), commit="s1"), remote=str(art))
    monkeypatch.setattr(rel_mod, "_publish", lambda *a, **k: ())  # recorded, never pushed
    make_release(b, make_dist(tmp_path / "db", sample_files(3), commit="sb"), remote=str(art))
    make_release(b, make_dist(tmp_path / "dc", sample_files(4), commit="sc"), remote=str(art))
    monkeypatch.undo()
    make_release(a, make_dist(tmp_path / "da", sample_files(2), commit="sa"), remote=str(art))
    info = make_release(b, make_dist(tmp_path / "dd", sample_files(5), commit="sd"),
                        remote=str(art))
    assert info.tag == "kb-r3"
    dropped = [w for w in info.warnings if w.startswith("dropped ")]
    assert len(dropped) == 1 and "\n" not in dropped[0], info.warnings
    assert dropped[0].startswith("dropped kb-r2, kb-r3: ") and str(art) in dropped[0]


def test_another_artifacts_branch_continues_the_serial_and_keeps_every_tag(kr, tmp_path):
    """`kb release --branch` (or `[release] branch` renamed) started again at kb-r1: every
    tag of the other branch counted as a release killed before its branch moved, so kb-r2
    was deleted and kb-r1 replaced by a release of other content."""
    make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    before = kb_refs(kr)
    info = make_release(kr, make_dist(tmp_path / "d3", sample_files(3), commit="s3"),
                        branch="kb-index-v2")
    assert info.tag == "kb-r3"
    after = kb_refs(kr)
    assert {ref: after[ref] for ref in before} == before  # kb-r1, kb-r2 and kb-index kept


def test_a_deleted_artifacts_branch_does_not_restart_the_serial(kr, tmp_path):
    make_release(kr, make_dist(tmp_path / "d2", sample_files(2), commit="s2"))
    tags = {r: v for r, v in kb_refs(kr).items() if r.startswith("refs/kb/tags/")}
    git(kr, "update-ref", "-d", "refs/kb/heads/kb-index")
    info = make_release(kr, make_dist(tmp_path / "d3", sample_files(3), commit="s3"))
    assert info.tag == "kb-r3"
    after = kb_refs(kr)
    assert {ref: after[ref] for ref in tags} == tags


def test_plain_release_tags_and_the_remotes_tags_are_never_reused(tmp_path):
    """A fresh clone with no refs/kb/ whose plain tags hold kb-r7 (fetched from the artifacts
    repository), and a remote holding release tags but no branch: both used to start at
    kb-r1, a number devices had already seen."""
    repo = make_knowledge_repo(tmp_path / "kr")
    git(repo, "tag", "kb-r7", "HEAD")
    assert make_release(repo, make_dist(tmp_path / "d1", sample_files(1), commit="s1")).tag \
        == "kb-r8"
    bare = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    git(repo, "push", "-q", str(bare), "refs/tags/kb-r7:refs/tags/kb-r9")
    other = make_knowledge_repo(tmp_path / "kr2")
    info = make_release(other, make_dist(tmp_path / "d2", sample_files(2), commit="s2"),
                        remote=str(bare))
    assert info.tag == "kb-r10"
