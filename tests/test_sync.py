"""kb sync / status / releases / rollback against real git remotes on disk and loopback."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import (
    GitDaemon,
    Pub,
    forge_release,
    git,
)

from kbtools.cli import main
from kbtools.errors import Keyed, SyncError
from kbtools.index.manifest import FORMAT_VERSION, load_manifest, verify_files
from kbtools.ship import device, gitrun
from kbtools.ship import sync as sync_module
from kbtools.ship.bundle import create_bundle
from kbtools.ship.operate import status
from kbtools.ship.signing import keygen, load_private
from kbtools.ship.status_words import said_in
from kbtools.ship.sync import sync
from kbtools.ship.sync_record import FAILURES_ZH


@pytest.fixture
def pub(tmp_path: Path) -> Pub:
    p = Pub(tmp_path)
    p.release()
    p.release()
    return p


def served_ok(dev: Path) -> str:
    rel = device.served_release(dev)
    assert rel is not None
    assert verify_files(rel, load_manifest(rel), derived=True) == []
    return rel.name


def test_sync_from_path_then_update_and_noop(pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    res = sync(str(pub.art), dev)
    assert (res.tag, res.changed, res.previous) == ("kb-r2", True, None)
    assert served_ok(dev) == "kb-r2" and device.is_device_dir(dev)
    assert (dev / "repo.git" / "shallow").exists()  # first sync is shallow
    assert sync(str(pub.art), dev).changed is False
    pub.release()
    res = sync(f"file://{pub.art}", dev)
    assert (res.tag, res.previous) == ("kb-r3", "kb-r2") and served_ok(dev) == "kb-r3"
    assert json.loads((dev / "state.json").read_text())["last_sync"]["ok"] is True


def test_sync_over_git_daemon_and_dumb_http(pub: Pub, tmp_path: Path):
    daemon = GitDaemon(tmp_path)
    try:
        res = sync(daemon.url("art.git"), tmp_path / "dev1")
        assert res.tag == "kb-r2" and served_ok(tmp_path / "dev1") == "kb-r2"
    finally:
        daemon.stop()
    git(pub.art, "update-server-info")
    handler = partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/art.git"
        assert sync(url, tmp_path / "dev2").tag == "kb-r2"
        assert served_ok(tmp_path / "dev2") == "kb-r2"
    finally:
        server.shutdown()


def test_bundle_full_and_incremental(pub: Pub, tmp_path: Path):
    full = create_bundle(pub.kr, tmp_path / "all.bundle")
    assert full.tags == ("kb-r1", "kb-r2")
    dev = tmp_path / "dev"
    assert sync(str(tmp_path / "all.bundle"), dev).tag == "kb-r2"
    pub.release()
    inc = create_bundle(pub.kr, tmp_path / "inc.bundle", since="kb-r2")
    assert inc.tags == ("kb-r3",) and inc.size < full.size
    assert sync(str(tmp_path / "inc.bundle"), dev).tag == "kb-r3"
    assert served_ok(dev) == "kb-r3"
    # an incremental bundle cannot seed an empty device: clean one-line refusal
    with pytest.raises(SyncError, match="made with --since a release"):
        sync(str(tmp_path / "inc.bundle"), tmp_path / "empty")


def _reject(src: str, dev: Path, pattern: str, *extra: str) -> None:
    before = device.served_tag(dev)
    res = CliRunner().invoke(main, ["sync", src, "--to", str(dev), *extra])
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), res.output
    assert pattern in lines[0], lines[0]
    assert device.served_tag(dev) == before and served_ok(dev) == before
    state = json.loads((dev / "state.json").read_text())
    assert state["last_sync"]["ok"] is False and pattern in state["last_sync"]["error"]
    assert not list((dev / "releases").glob("*.staging"))


@pytest.fixture
def synced(pub: Pub, tmp_path: Path) -> Path:
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    return dev


def test_reject_corrupted_artifact(pub: Pub, synced: Path):
    forge_release(pub.art, lambda f: f.update({"data/chunks/01.jsonl": b"tampered\n"}))
    _reject(str(pub.art), synced, "artifacts do not match the manifest")


def _edit_manifest(change):
    """A forge mutation: edit manifest.json and keep release.json's hash consistent."""
    def edit(files):
        m = json.loads(files["manifest.json"])
        change(m)
        files["manifest.json"] = (json.dumps(m, sort_keys=True, indent=1) + "\n").encode()
        rel = json.loads(files["release.json"])
        rel["manifest_sha256"] = hashlib.sha256(files["manifest.json"]).hexdigest()
        files["release.json"] = json.dumps(rel).encode()
    return edit


def test_reject_manifest_not_matching_files(pub: Pub, synced: Path):
    # the manifest lists a file that is not shipped
    forge_release(pub.art, _edit_manifest(lambda m: m["artifacts"].update(
        {"data/chunks/ff.jsonl": {"sha256": "0" * 64, "size": 3}})))
    _reject(str(pub.art), synced, "data/chunks/ff.jsonl: missing")


def test_reject_unsupported_format_and_model(pub: Pub, synced: Path):
    forge_release(pub.art, _edit_manifest(lambda m: m.update(format_version=FORMAT_VERSION + 1)))
    _reject(str(pub.art), synced, f"index format version {FORMAT_VERSION + 1} is not supported")
    forge_release(pub.art, _edit_manifest(lambda m: m.update(format_version=FORMAT_VERSION, models={
        "use": {"id": "use", "fingerprint": "use:0000", "dim": 512}})))
    _reject(str(pub.art), synced, "release vectors come from model use:0000")


def test_reject_manifest_swapped_behind_release_json(pub: Pub, synced: Path):
    forge_release(pub.art, lambda f: f.update({"manifest.json": f["manifest.json"] + b" "}))
    _reject(str(pub.art), synced, "does not match the hash")


def test_reject_tag_outside_branch(pub: Pub, synced: Path):
    forge_release(pub.art, lambda f: None, on_branch=False)
    _reject(str(pub.art), synced, "is not on the kb-index branch")


def test_reject_older_serial(pub: Pub, synced: Path, tmp_path: Path):
    old = tmp_path / "old.git"  # a mirror that only knows kb-r1
    subprocess.run(["git", "init", "-q", "--bare", str(old)], check=True)
    git(pub.art, "push", "-q", str(old), "kb-index~1:refs/heads/kb-index", "kb-r1")
    _reject(str(old), synced, "refusing a downgrade")


def test_reject_truncated_bundle(pub: Pub, synced: Path, tmp_path: Path):
    b = create_bundle(pub.kr, tmp_path / "all.bundle")
    pub.release()
    b = create_bundle(pub.kr, tmp_path / "all.bundle")
    data = Path(b.path).read_bytes()
    (tmp_path / "cut.bundle").write_bytes(data[: len(data) // 2])
    _reject(str(tmp_path / "cut.bundle"), synced, "bundle is damaged or truncated")


def test_signatures_required_when_keys_configured(tmp_path: Path):
    priv, pub_key, kid = keygen(tmp_path / "keys" / "rel")
    p = Pub(tmp_path, sign_key=priv)
    p.release()
    dev = tmp_path / "dev"
    res = sync(str(p.art), dev, trusted=[pub_key])
    assert res.signed_by == kid and served_ok(dev) == "kb-r1"
    # the key was pinned on first use: signatures are mandatory without the flag
    assert [p.name for p in (dev / "trusted_keys").iterdir()] == [f"{kid}.pub"]
    # forged: content changed, release.json re-serialed, old signature kept -> bad
    forge_release(p.art, lambda f: None)
    _reject(str(p.art), dev, "bad signature")
    # forged: signature removed -> missing
    forge_release(p.art, lambda f: f.pop("release.sig"))
    _reject(str(p.art), dev, "not signed")
    # forged: signed by an attacker's key
    evil, _, _ = keygen(tmp_path / "keys" / "evil")
    forge_release(p.art, lambda f: None, resign=load_private(evil))
    _reject(str(p.art), dev, "untrusted key")
    # a genuine signed release is still accepted afterwards
    forge_release(p.art, lambda f: None, resign=load_private(priv))
    assert sync(str(p.art), dev).tag == "kb-r5"


def test_rollback_status_releases_cli(pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    runner = CliRunner()
    res = runner.invoke(main, ["status", "--to", str(dev)])
    assert res.exit_code == 1 and "serving nothing yet" in res.output
    res = runner.invoke(main, ["rollback", "--to", str(dev)])
    assert res.exit_code == 1 and "no earlier local release" in res.output
    sync(str(pub.art), dev)
    pub.release()
    res = runner.invoke(main, ["sync", str(pub.art), "--to", str(dev), "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["tag"] == "kb-r3"
    res = runner.invoke(main, ["releases", "--to", str(dev), "--json"])
    rows = json.loads(res.output)
    assert [(r["tag"], r["local"], r["current"]) for r in rows] == [
        ("kb-r3", True, True), ("kb-r2", True, False), ("kb-r1", False, False)]
    assert rows[0]["source_commit"] == "src3" and rows[0]["size"] > 0
    res = runner.invoke(main, ["releases", "--to", str(dev), "--local"])
    assert res.output.splitlines()[0] == f"device {dev}"
    assert [line.split()[:4] for line in res.output.splitlines()[1:]] == [
        ["TAG", "SERIAL", "WHERE", "SOURCE"], ["*", "kb-r3", "3", "local"],
        ["kb-r2", "2", "local", "src2"]]
    res = runner.invoke(main, ["rollback", "kb-r1", "--to", str(dev)])
    assert res.exit_code == 1 and "not on this device" in res.output
    res = runner.invoke(main, ["rollback", "--to", str(dev)])
    assert res.exit_code == 0 and "serving kb-r2 (was kb-r3)" in res.output
    assert served_ok(dev) == "kb-r2"
    log = [json.loads(x) for x in (dev / "rollback.log").read_text().splitlines()]
    assert (log[-1]["from"], log[-1]["to"]) == ("kb-r3", "kb-r2")
    # the remote cannot push the rolled-back release back in ...
    res = runner.invoke(main, ["sync", str(pub.art), "--to", str(dev)])
    assert res.exit_code == 0 and "up to date: serving kb-r2" in res.output
    # ... but a newer release is taken
    pub.release()
    assert sync(str(pub.art), dev).tag == "kb-r4"
    res = runner.invoke(main, ["status", "--to", str(dev), "--json"])
    st = json.loads(res.output)
    assert st["served"]["tag"] == "kb-r4" and st["served"]["verified_now"] is True
    assert st["last_sync"]["ok"] is True
    # damage on disk shows in status
    victim = dev / "releases" / "kb-r4" / "data" / "chunks" / "03.jsonl"
    victim.write_bytes(b"bitrot")
    res = runner.invoke(main, ["status", "--to", str(dev)])
    assert "FAILS VERIFICATION" in res.output and "03.jsonl" in res.output
    res = runner.invoke(main, ["rollback", "kb-r4", "--to", str(dev)])
    assert res.exit_code == 1 and "already served" in res.output


def test_keep_prunes_old_releases(pub: Pub, tmp_path: Path):
    dev = tmp_path / "dev"
    for _ in range(3):
        sync(str(pub.art), dev, keep=2)
        pub.release()
    assert sorted(device.release_dirs(dev)) == ["kb-r3", "kb-r4"]


def test_stale_release_warns(pub: Pub, tmp_path: Path):
    forge_release(pub.art, lambda f: f.update({"release.json": f["release.json"].replace(
        json.loads(f["release.json"])["created"].encode(), b"2020-01-01T00:00:00+00:00")}))
    res = CliRunner().invoke(main, ["sync", str(pub.art), "--to", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    assert "days old by this device's clock (" in res.output
    assert "more than release.max_age_days = 30); is the source still updated" in res.output


def test_sync_errors_cli(tmp_path: Path):
    runner = CliRunner()
    res = runner.invoke(main, ["sync", str(tmp_path / "nowhere"), "--to", str(tmp_path / "d")])
    assert res.exit_code == 1 and "git ls-remote failed" in res.output
    empty = tmp_path / "empty.git"
    subprocess.run(["git", "init", "-q", "--bare", str(empty)], check=True)
    res = runner.invoke(main, ["sync", str(empty), "--to", str(tmp_path / "d")])
    assert res.exit_code == 1 and "no kb-index branch at the source" in res.output
    res = runner.invoke(main, ["sync", "--to", str(tmp_path / "d")])
    assert res.exit_code == 2 and "never synced" in res.output


def test_sync_without_source_uses_last_one(pub: Pub, synced: Path):
    pub.release()
    res = CliRunner().invoke(main, ["sync", "--to", str(synced)])
    assert res.exit_code == 0 and "serving kb-r3 (was kb-r2)" in res.output


def past_a_malformed_commit(repo: Path, ref: str, parent: str) -> None:
    """Point `ref` of `repo` at a commit (with `parent`'s tree) whose parent is a malformed
    commit (an impossible time zone) on top of `parent`: what git's fsck refuses."""
    tree = git(repo, "rev-parse", f"{parent}^{{tree}}").strip()
    bad = f"tree {tree}\nparent {parent}\nauthor A <a@x> 1 +99999\ncommitter A <a@x> 1 +0000\n\nx\n"
    middle = subprocess.run(["git", "hash-object", "-t", "commit", "--literally", "-w",
                             "--stdin"], cwd=repo, input=bad, capture_output=True, text=True,
                            check=True).stdout.strip()
    git(repo, "update-ref", ref, git(repo, "commit-tree", tree, "-p", middle, "-m", "tip").strip())


def test_history_fetched_to_place_a_tag_on_the_branch_is_checked_by_git(pub: Pub, tmp_path):
    """The branch tip is a commit past the newest tag, so a first (shallow) sync fetches the
    history between them. That fetch ran without fetch.fsckObjects and took in a malformed
    commit; it now goes through the same checked fetch as every other."""
    art = pub.art
    past_a_malformed_commit(art, "refs/heads/kb-index",
                            git(art, "rev-parse", "refs/tags/kb-r2^{commit}").strip())
    dev = tmp_path / "dev"
    with pytest.raises(SyncError) as err:
        sync(str(art), dev)
    msg = str(err.value)
    assert "malformed" in msg and "badTimezone" in msg and "\n" not in msg, msg
    # the bad commit lies past the release, in the branch's history: said so, not "this
    # release" (English and, by its key, Chinese)
    assert "in the history of branch kb-index, not in the release itself" in msg, msg
    assert "this release" not in msg and err.value.key == "sync_history_malformed"
    assert said_in(Keyed(msg, err.value.key, err.value.values), "zh", FAILURES_ZH).startswith(
        "来源中 kb-index 分支的历史（不是发布版本本身）含有 Git 判定为格式错误的对象")
    assert device.served_tag(dev) is None
    fsck = subprocess.run(["git", "--git-dir", str(dev / "repo.git"), "fsck", "--strict"],
                          capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr


def test_an_unchanged_photo_is_stored_once_however_many_releases_a_device_keeps(tmp_path):
    """Each release a device keeps held its own copy of every picture (a 200 MB asset
    folder took 200 MB more per sync); an artifact the served release holds with the same
    sha256 is hard-linked from it, unless that copy no longer holds those bytes."""
    pub = Pub(tmp_path)
    photo = {"source/assets/photo.jpg": b"\xff\xd8\xff\xe0" + bytes(range(256)) * 256}
    dev = tmp_path / "dev"
    pub.release(photo)
    sync(str(pub.art), dev)
    pub.release(photo)
    assert sync(str(pub.art), dev).tag == "kb-r2" and served_ok(dev) == "kb-r2"

    def file(tag: str, rel: str) -> Path:
        return dev / "releases" / tag / "data" / rel

    assert file("kb-r1", "source/assets/photo.jpg").stat().st_ino == \
        file("kb-r2", "source/assets/photo.jpg").stat().st_ino
    assert file("kb-r1", "chunks/00.jsonl").stat().st_ino != \
        file("kb-r2", "chunks/00.jsonl").stat().st_ino  # changed: written anew
    file("kb-r2", "source/assets/photo.jpg").write_bytes(b"rotted")
    pub.release(photo)
    assert sync(str(pub.art), dev).tag == "kb-r3" and served_ok(dev) == "kb-r3"
    assert file("kb-r3", "source/assets/photo.jpg").stat().st_ino != \
        file("kb-r2", "source/assets/photo.jpg").stat().st_ino


def test_repo_git_is_repacked_by_the_sync_under_its_lock_not_by_a_detached_gc(
        pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A device syncing every day gains a pack per fetch; git's automatic gc after a fetch
    would run detached, in repo.git, after the sync let go of the device lock. The sync
    repacks itself (git's `gc --auto` rule), after the switch, holding the lock. Seen
    through repo.git's pre-auto-gc hook: shipping's git runs no hook (`gitrun.PINNED`),
    so here the hooks pin is lifted."""
    monkeypatch.setattr(gitrun, "PINNED_ARGS", tuple(
        arg for setting in gitrun.PINNED if not setting.startswith("core.hooksPath=")
        for arg in ("-c", setting)))
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    gd = dev / "repo.git"
    git(gd, "config", "gc.autoPackLimit", "2")
    seen = tmp_path / "gc-hook.log"
    hook = gd / "hooks" / "pre-auto-gc"
    hook.write_text(f"""#!{sys.executable}
import fcntl, os
fd = os.open({str(dev / ".lock")!r}, os.O_RDWR)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    held = "free"
except BlockingIOError:
    held = "held"
with open({str(seen)!r}, "a") as f:
    f.write(os.readlink({str(dev / "current")!r}) + " " + held + "\\n")
""")
    hook.chmod(0o755)
    packs = []
    for _ in range(3):  # kb-r3, kb-r4, kb-r5: 2, 3 (more than 2: repacked to 1), 2 packs
        tag = pub.release()
        assert sync(str(pub.art), dev).tag == tag
        assert not (gd / "gc.pid").exists()
        packs.append(len(list((gd / "objects" / "pack").glob("*.pack"))))
    # git's rule fired once, when there were 3 packs: after kb-r4 was served, by the sync
    assert seen.read_text().splitlines() == ["releases/kb-r4 held"]
    assert packs == [2, 1, 2]
    assert served_ok(dev) == "kb-r5" and git(gd, "rev-parse", "refs/tags/kb-r3").strip()


def test_rollback_to_a_release_not_here_says_why(pub: Pub, tmp_path: Path):
    """A device syncing for months keeps only its newest releases: `kb rollback` (and `kb
    diff`) to one pruned, one never installed (published between two syncs) or one not yet
    synced says which, in one line."""
    dev = tmp_path / "dev"
    runner = CliRunner()

    def refused(tag: str, why: str, local: str) -> None:
        for cmd in ("rollback", "diff"):
            res = runner.invoke(main, [cmd, tag, "--to", str(dev)])
            assert res.exit_code == 1 and len(res.output.splitlines()) == 1, res.output
            assert f"release {tag} is not on this device: {why}" in res.output
            assert f"(local: {local})" in res.output

    assert sync(str(pub.art), dev, keep=3).tag == "kb-r2"
    for _ in range(3):
        pub.release()
    assert sync(str(pub.art), dev, keep=3).tag == "kb-r5"  # kb-r3, kb-r4 never fetched
    refused("kb-r3", "`kb sync` installs only the newest release it is offered, so one "
            "published between two syncs never arrives", "kb-r2, kb-r5")
    refused("kb-r9", "it is newer than every release here", "kb-r2, kb-r5")
    pub.release()
    pub.release()
    assert sync(str(pub.art), dev, keep=3).tag == "kb-r7"
    assert sync(str(pub.art), dev, keep=3).changed is False
    pub.release()
    assert sync(str(pub.art), dev, keep=3).tag == "kb-r8"  # kb-r2 pruned
    assert sorted(device.release_dirs(dev)) == ["kb-r5", "kb-r7", "kb-r8"]
    refused("kb-r2", "it is older than every release kept here (each `kb sync` deletes all "
            "but the newest 3, this device's `[release] keep`, and never installs an older one)",
            "kb-r5, kb-r7, kb-r8")
    assert served_ok(dev) == "kb-r8"


def test_rollback_to_a_mistyped_device_makes_no_directory(tmp_path: Path):
    """`kb rollback --to` a path with no device made that directory, its parents and a
    .lock file, then said there was no earlier release."""
    typo = tmp_path / "typo" / "dev"
    res = CliRunner().invoke(main, ["rollback", "--to", str(typo)])
    assert res.exit_code == 1 and res.stderr == (
        f"kb: error: {typo}: no earlier local release to roll back to (no device here: "
        "`kb sync SOURCE --to DIR` makes one)\n")
    assert not (tmp_path / "typo").exists()


def test_a_newer_release_ends_the_rolled_back_marks_it_passes(pub: Pub, tmp_path: Path):
    """A release rolled back from is skipped by syncs until a newer one arrives; after that
    it needs no skipping, and `kb status`/`kb releases` no longer say a sync skips it (the
    mark stayed in state.json for good, one more for every rollback of the year)."""
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    pub.release()
    assert sync(str(pub.art), dev).tag == "kb-r3"
    runner = CliRunner()
    assert runner.invoke(main, ["rollback", "--to", str(dev)]).exit_code == 0
    assert sync(str(pub.art), dev).skipped == ("kb-r3",)
    pub.release()
    assert sync(str(pub.art), dev).tag == "kb-r4"
    assert "rolled_back" not in json.loads((dev / "state.json").read_text())
    res = runner.invoke(main, ["status", "--to", str(dev), "--json"])
    assert json.loads(res.output)["rolled_back"] == []
    res = runner.invoke(main, ["releases", "--to", str(dev), "--local", "--json"])
    assert [(r["tag"], r["rolled_back"]) for r in json.loads(res.output)] == [
        ("kb-r4", False), ("kb-r3", False), ("kb-r2", False)]
    # a mark no newer release has passed stays
    assert runner.invoke(main, ["rollback", "kb-r2", "--to", str(dev)]).exit_code == 0
    assert sync(str(pub.art), dev).changed is False
    assert json.loads((dev / "state.json").read_text())["rolled_back"] == ["kb-r4"]
    pub.release()
    assert sync(str(pub.art), dev).tag == "kb-r5"
    assert "rolled_back" not in json.loads((dev / "state.json").read_text())


def test_a_bundle_carrying_a_malformed_object_is_refused_before_anything_is_written(
        pub: Pub, tmp_path):
    """git 2.39 ignores fetch.fsckObjects for a bundle (its unbundle runs index-pack without
    --strict): a bundle with a malformed commit was taken into repo.git. Its objects are now
    checked as a fetch's are, before the fetch stores anything."""
    kr = pub.kr
    past_a_malformed_commit(kr, "refs/kb/heads/kb-index",
                            git(kr, "rev-parse", "refs/kb/heads/kb-index").strip())
    bundle = create_bundle(pub.kr, tmp_path / "all.bundle").path
    dev = tmp_path / "dev"
    res = CliRunner().invoke(main, ["sync", str(bundle), "--to", str(dev)])
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "malformed" in lines[0] and "badTimezone" in lines[0], lines
    assert str(bundle) in lines[0]
    assert device.served_tag(dev) is None
    objects = subprocess.run(["git", "--git-dir", str(dev / "repo.git"), "count-objects", "-v"],
                             capture_output=True, text=True, check=True).stdout
    counts = dict(line.split(": ") for line in objects.splitlines())
    assert counts["count"] == counts["in-pack"] == "0", objects


@pytest.mark.parametrize("recorded", [True, False])
def test_status_sees_release_json_edited_on_the_device(pub: Pub, synced: Path, recorded: bool):
    """release.json sits beside the manifest, which does not list it: `kb status` said
    "files verified" after `created` was edited by hand (and computed the age from it). It
    is checked against what verified.json recorded at sync: its sha256 (and `kb sync` puts
    the verified bytes back), or, in a verified.json written before that was recorded, its
    fields."""
    rdir = device.served_release(synced)
    assert rdir is not None
    ver_path = rdir / "verified.json"
    if not recorded:
        ver = json.loads(ver_path.read_text())
        ver.pop("release_files")
        ver_path.write_text(json.dumps(ver))
    assert status(synced)["served"]["verified_now"] is True
    rel_path = rdir / "release.json"
    rel = json.loads(rel_path.read_text())
    rel["created"] = "2099-01-01T00:00:00+00:00"
    rel_path.write_text(json.dumps(rel))
    served = status(synced)["served"]
    assert served["verified_now"] is False
    assert served["problems"][0].startswith("release.json: ")
    assert ("changed since it was verified" if recorded else "created is") \
        in served["problems"][0]
    if recorded:  # kb sync puts back the bytes it verified
        assert sync(str(pub.art), synced).tag == rdir.name
        assert json.loads(rel_path.read_text())["created"] != rel["created"]
        assert status(synced)["served"]["verified_now"] is True


def test_a_prune_that_fails_after_the_switch_is_a_warning_not_a_failed_sync(
        pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    dev = tmp_path / "dev"
    sync(str(pub.art), dev, keep=1)
    pub.release()
    real = device.os.replace

    def refuse_prune(src, dst, *a, **kw):  # a release that cannot be moved aside
        if str(dst).endswith(".deleting"):
            raise PermissionError(13, "Permission denied", str(src))
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(device.os, "replace", refuse_prune)
    result = sync(str(pub.art), dev, keep=1)
    assert (result.tag, result.changed) == ("kb-r3", True) and served_ok(dev) == "kb-r3"
    assert any("kb-r2" in w and "Permission denied" in w and "kb-r3 is served" in w
               for w in result.warnings), result.warnings
    state = json.loads((dev / "state.json").read_text())
    assert state["last_sync"]["ok"] is True and state["highest_serial"] == 3
    assert sorted(device.release_dirs(dev)) == ["kb-r2", "kb-r3"]
    monkeypatch.setattr(device.os, "replace", real)
    pub.release()
    assert sync(str(pub.art), dev, keep=1).warnings == ()  # the next sync prunes both
    assert sorted(device.release_dirs(dev)) == ["kb-r4"]


def test_a_write_that_fails_after_the_switch_does_not_claim_the_release_unchanged(
        pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    pub.release()

    def full(_gd: Path) -> tuple[str, ...]:
        raise OSError(28, "No space left on device", str(dev / "repo.git"))

    monkeypatch.setattr(sync_module, "compact_repo", full)
    with pytest.raises(SyncError) as err:
        sync(str(pub.art), dev)
    assert "kb-r3 is served now" in err.value.message and "unchanged" not in err.value.message
    assert served_ok(dev) == "kb-r3"
    # rolled back to kb-r2, the failure's "kb-r3 is served now" is said in the past
    monkeypatch.undo()
    assert CliRunner().invoke(main, ["rollback", "--to", str(dev)]).exit_code == 0
    last = status(dev)["last_sync"]
    assert last["error"].endswith("No space left on device; kb-r3 served"), last
    assert last["since"].startswith("kb-r2 serves since `kb rollback` at "), last


def test_a_result_that_cannot_be_recorded_after_the_switch_is_a_warning(
        pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The disk filled after the switch (a repack): the last write, the sync's result in
    state.json, failed as `kb: error: No space left on device: .state.json.<pid>.tmp`, exit
    1, though the new release served. A warning naming state.json now; the floor stays."""
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    pub.release()
    real = device.os.replace

    def full_after_switch(src, dst, *a, **kw):
        if dst == "state.json" and device.served_tag(dev) == "kb-r3":
            raise OSError(28, "No space left on device", src)
        return real(src, dst, *a, **kw)

    monkeypatch.setattr(device.os, "replace", full_after_switch)
    res = CliRunner().invoke(main, ["sync", str(pub.art), "--to", str(dev)])
    assert res.exit_code == 0 and res.stdout.startswith("serving kb-r3 (was kb-r2)"), res.output
    assert res.stderr == (f"kb: warning: the result of this sync was not recorded in {dev}/"
                          "state.json (No space left on device): `kb status` shows the sync "
                          "before it and `kb sync` without SOURCE uses that one's source; "
                          "free space or make the directory writable, then sync again\n")
    monkeypatch.setattr(device.os, "replace", real)
    assert served_ok(dev) == "kb-r3"
    assert json.loads((dev / "state.json").read_text())["highest_serial"] == 3
    assert sync(str(pub.art), dev).changed is False


def run_cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output
