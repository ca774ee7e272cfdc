"""A fetch has an overall size limit (kb.toml ``[sync] max_fetch_bytes``, `kb sync
--max-fetch-bytes`, 4 GiB by default): a source offering a release far larger than the
device allows (a blob of gigabytes, a pack without end) is stopped while it arrives, what it
stored is removed, the served release is untouched, and one line names the limit and how to
raise it. Real artifacts repositories (a bare repo on disk; a `git daemon` behind a slow
proxy, to be caught mid-transfer); the test's limit is 1 MiB, its release a few MiB."""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, Pub

from kbtools.cli import main
from kbtools.errors import SyncError
from kbtools.ship import device as dev
from kbtools.ship.fetching import _Undo, pack_bytes
from kbtools.ship.gitrun import MAX_FETCH_BYTES, NetLimits, default_limits
from kbtools.ship.sync import sync

LIMIT = 1 << 20
BIG = 4 << 20  # random bytes: no compression shrinks them


def limited(limit: int) -> NetLimits:
    return NetLimits(**{**default_limits().__dict__, "max_fetch_bytes": limit})


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[Pub, Path]]:
    """A device serving kb-r1; kb-r2, carrying a 4 MiB blob, published after it."""
    pub = Pub(tmp_path)
    pub.release()
    device = tmp_path / "dev"
    assert sync(str(pub.art), device).tag == "kb-r1"
    pub.release({"blob/huge.bin": os.urandom(BIG)})
    yield pub, device


def repo_state(device: Path) -> tuple[int, list[str], list[str]]:
    gd = dev.DeviceLayout(device).repo
    refs = sorted(p.name for p in (gd / "refs" / "tags").iterdir())
    return pack_bytes(gd), refs, sorted(p.name for p in (gd / "objects" / "pack").iterdir())


def test_an_oversized_release_is_refused_and_nothing_of_it_kept(world) -> None:
    pub, device = world
    before = repo_state(device)
    with pytest.raises(SyncError) as refused:
        sync(str(pub.art), device, limits=limited(LIMIT))
    msg = refused.value.message
    assert "kb-r2: the fetch stored" in msg and "past this device's limit of 1.0 MiB" in msg
    assert "--max-fetch-bytes" in msg and "max_fetch_bytes in kb.toml [sync]" in msg
    assert "\n" not in msg
    assert dev.served_tag(device) == "kb-r1"
    assert repo_state(device) == before  # no pack, no ref, no byte of it left
    # the operator raises the limit: the same release syncs
    assert sync(str(pub.art), device, limits=limited(BIG * 2)).tag == "kb-r2"


def test_a_slow_oversized_fetch_is_stopped_while_it_arrives(world, tmp_path: Path) -> None:
    """Over a slow link git is stopped once its pack passes the limit, long before the
    release has arrived (not measured only at its end)."""
    pub, device = world
    daemon = GitDaemon(tmp_path)
    proxy = Proxy(daemon.port)
    try:
        proxy.mode, proxy.after, proxy.pause = "slow", 256 << 10, 0.3
        before = repo_state(device)
        outcome: list[BaseException] = []

        def run() -> None:
            try:
                sync(proxy.url("art.git"), device, limits=limited(LIMIT))
            except BaseException as exc:  # noqa: BLE001 (handed to the test)
                outcome.append(exc)

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(120)
        assert not worker.is_alive(), "kb sync hung"
        assert outcome and isinstance(outcome[0], SyncError), outcome
        msg = outcome[0].message
        assert "past this device's limit of 1.0 MiB, and was stopped" in msg, msg
        stored = msg.split("the fetch stored ", 1)[1].split(",", 1)[0]
        assert stored.endswith("MiB") and float(stored.split()[0]) < 2.5, msg  # mid-way
        assert dev.served_tag(device) == "kb-r1" and repo_state(device) == before
    finally:
        proxy.close()
        daemon.stop()


def test_the_limit_is_the_operators_in_kb_toml_and_as_an_option(world, tmp_path: Path,
                                                                  monkeypatch) -> None:
    pub, device = world
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    (here / "kb.toml").write_text(f"[sync]\nmax_fetch_bytes = {LIMIT}\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["sync", str(pub.art), "--to", str(device)])
    assert res.exit_code == 1 and len(res.stderr.splitlines()) == 1, res.stderr
    assert "limit of 1.0 MiB" in res.stderr and dev.served_tag(device) == "kb-r1"
    res = CliRunner().invoke(main, ["sync", str(pub.art), "--to", str(device),
                                    "--max-fetch-bytes", str(BIG * 2)])
    assert res.exit_code == 0 and dev.served_tag(device) == "kb-r2", res.stderr


def test_the_default_limit_is_generous() -> None:
    assert MAX_FETCH_BYTES == 4 << 30
    assert default_limits().max_fetch_bytes == MAX_FETCH_BYTES


def test_a_bundle_larger_than_the_limit_is_refused_before_it_is_read(world,
                                                                     tmp_path: Path) -> None:
    """Checking a bundle's objects writes its pack to the device's disk: one larger than the
    limit is refused from its size, before anything of it is read."""
    pub, device = world
    bundle = tmp_path / "r2.bundle"
    subprocess.run(["git", "--git-dir", str(pub.art), "bundle", "create", str(bundle),
                    "kb-index", "--tags"], check=True, capture_output=True)
    assert bundle.stat().st_size > LIMIT
    before = repo_state(device)
    with pytest.raises(SyncError) as refused:
        sync(str(bundle), device, limits=limited(LIMIT))
    msg = refused.value.message
    assert msg.startswith("kb-r2: the bundle holds") and "past this device's limit of 1.0 MiB" in msg
    assert "nothing of it was read" in msg and "--max-fetch-bytes" in msg, msg
    assert dev.served_tag(device) == "kb-r1" and repo_state(device) == before
    assert sync(str(bundle), device, limits=limited(BIG * 2)).tag == "kb-r2"


def test_a_source_listing_refs_without_end_is_given_up(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A source's list of refs is read whole: one advertising refs without end (here 3,000
    junk tags against a 64 kB limit; 64 MiB by default) is given up once it passes the
    limit, before it fills the device's memory."""
    from kbtools.ship import gitrun

    pub = Pub(tmp_path)
    pub.release()
    oid = subprocess.run(["git", "--git-dir", str(pub.art), "rev-parse", "kb-index"],
                         capture_output=True, text=True, check=True).stdout.strip()
    with (pub.art / "packed-refs").open("a", encoding="ascii") as fh:
        fh.writelines(f"{oid} refs/tags/junk-{i:06d}-{'x' * 40}\n" for i in range(3000))
    device = tmp_path / "dev"
    monkeypatch.setattr(gitrun, "MAX_LISTING_BYTES", 64 << 10)
    with pytest.raises(SyncError) as refused:
        sync(str(pub.art), device)
    msg = refused.value.message
    assert "git ls-remote stopped: the source listed more than 64 kiB of refs" in msg, msg
    assert dev.served_tag(device) is None
    monkeypatch.setattr(gitrun, "MAX_LISTING_BYTES", 64 << 20)
    assert sync(str(pub.art), device).tag == "kb-r1"


def test_the_undo_of_a_killed_fetch_takes_no_lock_it_left_for_a_refusal(world) -> None:
    """A fetch killed past the limit while it moved the branch HEAD names leaves HEAD.lock
    (and the branch's) behind: putting repo.git back must not fail on them, or the sync
    says git's "cannot lock ref" instead of the limit (seen under load)."""
    pub, device = world
    gd = dev.DeviceLayout(device).repo
    branch = subprocess.run(["git", "--git-dir", str(gd), "symbolic-ref", "HEAD"], check=True,
                            capture_output=True, text=True).stdout.strip()
    undo = _Undo.taken(gd, [branch])
    before = undo.refs[branch]
    subprocess.run(["git", "--git-dir", str(gd), "fetch", "-q", str(pub.art),
                    f"+{branch}:{branch}"], check=True)
    assert undo.refs[branch] != subprocess.run(
        ["git", "--git-dir", str(gd), "rev-parse", branch], check=True, capture_output=True,
        text=True).stdout.strip()  # the fetch moved the branch
    for lock in ("HEAD.lock", f"{branch}.lock"):  # what a SIGKILL'd git leaves
        (gd / lock).write_text("")
    undo.apply(gd)
    assert subprocess.run(["git", "--git-dir", str(gd), "rev-parse", branch], check=True,
                          capture_output=True, text=True).stdout.strip() == before
    assert not (gd / "HEAD.lock").exists() and not (gd / f"{branch}.lock").exists()


@pytest.mark.parametrize("as_bundle", [False, True])
def test_a_fresh_device_is_told_it_still_has_nothing(tmp_path: Path, as_bundle: bool) -> None:
    """A device that serves nothing yet has no served release to keep: the refusal says it
    still has none, not that one "is unchanged", and a bundle past the limit is that, not
    "damaged or truncated"."""
    pub = Pub(tmp_path)
    pub.release({"blob/huge.bin": os.urandom(BIG)})
    source = str(pub.art)
    if as_bundle:
        source = str(tmp_path / "r1.bundle")
        subprocess.run(["git", "--git-dir", str(pub.art), "bundle", "create", source,
                        "kb-index", "--tags"], check=True, capture_output=True)
    device = tmp_path / "fresh"
    with pytest.raises(SyncError) as refused:
        sync(source, device, limits=limited(LIMIT))
    msg = refused.value.message
    assert msg.startswith("kb-r1: the "), msg
    assert "past this device's limit of 1.0 MiB" in msg and "--max-fetch-bytes" in msg
    assert "this device still has no release" in msg, msg
    assert "served release is unchanged" not in msg and "damaged" not in msg, msg
    assert dev.served_tag(device) is None
    assert sync(source, device, limits=limited(BIG * 2)).tag == "kb-r1"
