"""Replay, freeze and rollback as a network attacker or a careless publisher can offer
them to a device (issue 16). A release a device installs over the one it serves continues
that release's artifacts history. A signature says who made a release, not of which knowledge repository: a second
artifacts repository signed with the same key (one CI key for two knowledge bases), offered
at the device's source, used to replace the served knowledge by another's as soon as its
serial was higher, with only a warning that the served tag "was moved". A rewritten
artifacts branch (a newer release made on top of an older one than the device serves) was
taken the same way. Both are refused now in one line, the served release unchanged; the
next genuine release is taken as before. An older signed release offered as the newest is
a refused downgrade and a moved tag a refusal (tests/test_sync_withdrawn.py,
tests/test_sync_moved.py); a source frozen at an old release is said so on every sync (a
guard here). Real signed releases made by `kb release`, real git repositories."""

from __future__ import annotations

import subprocess
from pathlib import Path

from forge_helpers import forge_tree, run_forked, snapshot
from test_release_helpers import make_dist, make_knowledge_repo
from test_sync_hostile import World

from kbtools.index.manifest import load_manifest, verify_files
from kbtools.ship import device
from kbtools.ship.operate import rollback
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync


def other_repository(w: World, releases: int) -> Path:
    """Another knowledge repository's artifacts repository, its releases signed with the
    key the device trusts."""
    kr = make_knowledge_repo(w.tmp / "kr-other")
    art = w.tmp / "art-other.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    for n in range(releases):
        files = {"chunks/00.jsonl": f'{{"其他知识库": {n}}}\n'.encode()}
        dist = make_dist(w.tmp / "dist-other", files, commit=f"other{n}")
        make_release(kr, dist, remote=str(art), sign_key=w.priv)
    return art


def refused(w: World, source: Path) -> str:
    served = device.served_tag(w.dev)
    kind, msg = run_forked(lambda: sync(str(source), w.dev, trusted=[w.pub]).tag)
    assert kind == "kberror", (kind, msg)
    assert "\n" not in str(msg), msg
    assert device.served_tag(w.dev) == served
    rel = device.served_release(w.dev)
    assert rel is not None and verify_files(rel, load_manifest(rel)) == []
    assert not list((w.dev / "releases").glob("*.staging"))
    assert snapshot(w.outside) == w.before
    return str(msg)


def test_another_repositorys_release_signed_by_the_same_key_is_refused(tmp_path: Path) -> None:
    w = World(tmp_path)
    assert device.served_tag(w.dev) == "kb-r2"
    other = other_repository(w, 3)
    msg = refused(w, other)
    assert "kb-r3 does not follow kb-r2" in msg and "served here" in msg, msg
    assert "another artifacts repository" in msg and "kb-r2 still serves" in msg, msg
    assert not (w.dev / "releases" / "kb-r3").exists()
    # the genuine next release is taken as ever
    assert w.release() == "kb-r3"
    assert w.sync() == ("ok", "kb-r3")


def test_a_rewritten_artifacts_branch_is_refused(tmp_path: Path) -> None:
    w = World(tmp_path)
    w.good = "kb-r1"  # the publisher's branch reset to kb-r1, and a kb-r3 made on top of it
    tag = w.forge(lambda entries: None)
    assert tag == "kb-r3"
    msg = refused(w, w.art)
    assert "kb-r3 does not follow kb-r2" in msg, msg


def test_a_device_rolled_back_still_takes_the_next_release(tmp_path: Path) -> None:
    w = World(tmp_path)
    assert w.release() == "kb-r3" and w.sync() == ("ok", "kb-r3")
    rollback(w.dev, "kb-r2")  # served kb-r2 follows no longer the branch tip
    assert device.served_tag(w.dev) == "kb-r2"
    assert w.release() == "kb-r4"
    assert w.sync() == ("ok", "kb-r4")


def test_a_source_frozen_at_an_old_release_is_said_so_on_every_sync(tmp_path: Path) -> None:
    """A freeze attack (the source, or whoever stands between it and the device, offers no
    release past an old one): the device cannot know of newer releases, so it says how old
    the one it serves is, each time (`[release] max_age_days`), as docs/releases.md says."""
    w = World(tmp_path)
    tag = forge_tree(w.art, lambda entries: None, key=w.key, base=w.good,
                     rel_change=lambda rel: rel.update(created="2020-01-01T00:00:00+00:00"))
    first = sync(str(w.art), w.dev, trusted=[w.pub])
    again = sync(str(w.art), w.dev, trusted=[w.pub])
    assert (first.tag, first.changed, again.tag, again.changed) == (tag, True, tag, False)
    for res in (first, again):
        assert any(f"release {tag} is" in x and "days old by this device's clock" in x and
                   "more than release.max_age_days = 30" in x for x in res.warnings), res.warnings
