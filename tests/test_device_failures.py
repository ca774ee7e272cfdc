"""A device when things go wrong: a full disk while the index is derived, a damaged derived
index in the served release, checkouts `kb status` must refuse as `kb query` does, a
rollback over a skipped release, a sync killed after its switch, an unresponsive source,
a held device lock, and the messages of `kb bundle create`/`kb diff` given the wrong thing.

One real device per module (tests/device_fixtures.py: real builds, signed releases, the
key trusted on first use): kb-r1 and kb-r2 synced, kb-r3 published but not synced;
``art-r2.git`` is a mirror holding kb-r1 and kb-r2 only. Tests work on copies.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from device_fixtures import Device, copy_of, kb, make_device, second_release
from test_release_helpers import forge_release, git

from kbtools.ship import device as dev
from kbtools.ship import devicelock, gitrun, install
from kbtools.ship import git as shipgit
from kbtools.ship.signing import keygen, load_private

pytestmark = pytest.mark.slow

THIRD_DOC = "knowledge/crops/field-survey-methods.md"


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Device:
    base = tmp_path_factory.mktemp("failures")
    d = make_device(base)
    second_release(d)
    subprocess.run(["git", "clone", "-q", "--bare", str(d.art), str(base / "art-r2.git")],
                   check=True)
    doc = d.kr / THIRD_DOC
    doc.write_text(doc.read_text(encoding="utf-8") + "\nA third release.\n", encoding="utf-8")
    git(d.kr, "commit", "-qam", "third release")
    assert d.publish() == "kb-r3"
    return d


def mirror_r2(d: Device) -> Path:
    return d.art.parent / "art-r2.git"


def one_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), err
    return lines[0]


def served(device_dir: Path) -> str | None:
    return dev.served_tag(device_dir)


def state(device_dir: Path) -> dict:
    return json.loads((device_dir / "state.json").read_text())


def staging_left(device_dir: Path) -> list[str]:
    return [p.name for p in (device_dir / "releases").iterdir()
            if p.name.endswith(".staging") or p.name.startswith(".")]


# ------------------------------------------------------------------ 1: full disk deriving


def _failing_materialize(exc: BaseException):
    real = install.materialize

    def materialize(root: Path, previous: Path | None = None) -> str:
        real(root, previous)  # a derivation that wrote its files, then ran out of room
        raise exc

    return materialize


@pytest.mark.parametrize("exc, says", [
    (sqlite3.OperationalError("database or disk is full"), "database or disk is full"),
    (RuntimeError("Failed to serialize into stream"),
     "the vector graph could not be written: Failed to serialize into stream"),
    (OSError(28, "No space left on device", "index/store.sqlite"),
     "No space left on device: index/store.sqlite"),
])
def test_disk_full_while_deriving_is_one_line_recorded_and_cleaned(device, tmp_path,
                                                                   monkeypatch, exc, says):
    d = copy_of(device, tmp_path)
    monkeypatch.setattr(install, "materialize", _failing_materialize(exc))
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 1 and out == ""
    assert one_error(err) == (f"kb: error: deriving the index of kb-r3 failed: {says}; the "
                              "served release is unchanged")
    assert served(d.dev) == "kb-r2" and staging_left(d.dev) == []
    last = state(d.dev)["last_sync"]
    assert last["ok"] is False and says in last["error"]
    code, out, _ = kb("status", "--to", d.dev, "--quick")
    assert code == 4 and f"FAILED: deriving the index of kb-r3 failed: {says}" in out, out
    monkeypatch.undo()  # room again: the next sync completes
    assert kb("sync", d.art, "--to", d.dev)[0] == 0 and served(d.dev) == "kb-r3"


def test_a_bug_while_deriving_is_still_an_unexpected_error(device, tmp_path, monkeypatch):
    d = copy_of(device, tmp_path)
    monkeypatch.setattr(install, "materialize",
                        _failing_materialize(RuntimeError("dictionary changed size")))
    code, _, err = kb("sync", d.art, "--to", d.dev)
    assert code == 3 and "unexpected error: RuntimeError: dictionary changed size" in err
    assert served(d.dev) == "kb-r2"


def test_disk_full_deriving_a_checkout_is_one_line(device, tmp_path, monkeypatch):
    tree = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(device.art), str(tree)], check=True)
    monkeypatch.setattr(install, "materialize", _failing_materialize(
        sqlite3.OperationalError("database or disk is full")))
    code, out, err = kb("query", "--index", tree, "wheat scab")
    assert code == 1 and out == ""
    assert "deriving the index of kb-r3 failed: database or disk is full" in one_error(err)
    assert not list((tree / ".git" / "kb" / "derived").glob("*.staging"))


# ------------------------------------------------------------------ 2: damaged served index


def _graph(release: Path) -> str:
    return next(p for p in (release / "index").glob("vectors-*.usearch")).name


@pytest.mark.parametrize("name", ["store.sqlite", "bm25/kb_vocab.json",
                                  "bm25/data.csc.index.npy", "GRAPH"])
def test_damaged_served_index_is_refused_reported_and_rederived(device, tmp_path, name):
    d = copy_of(device, tmp_path)
    release = d.dev / "releases" / "kb-r2"
    damaged = release / "index" / (_graph(release) if name == "GRAPH" else name)
    with damaged.open("r+b") as fh:
        fh.truncate(min(4096, damaged.stat().st_size // 2))
    code, out, err = kb("query", "--index", d.dev, "wheat scab")
    assert code == 1 and out == ""
    line = one_error(err)  # held to the record of index/'s bytes on the open (`intact`)
    assert f"the index of the served release kb-r2 differs from what `kb sync` derived: " \
        f"{damaged.relative_to(release)}: size " in line and "its verified data/ is kept: " \
        "`kb sync` derives index/ again from it" in line, line
    code, out, err = kb("status", "--to", d.dev)
    assert code == 1 and "FAILS VERIFICATION" in out
    assert "the served release kb-r2 fails verification" in one_error(err)
    data_before = (release / "data" / "docs.jsonl").stat().st_ino
    code, out, err = kb("sync", mirror_r2(device), "--to", d.dev)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "up to date: serving kb-r2"
    assert lines[1].startswith("re-derived the index of kb-r2 from its verified data/: it "
                               "failed its check (")
    assert staging_left(d.dev) == [] and (release / "data" / "docs.jsonl").stat().st_ino \
        == data_before
    assert kb("status", "--to", d.dev)[0] == 0
    assert kb("query", "--index", d.dev, "wheat scab")[0] == 0
    assert kb("sync", mirror_r2(device), "--to", d.dev)[1] == "up to date: serving kb-r2\n"


def test_failed_rederivation_keeps_the_old_files(device, tmp_path, monkeypatch):
    d = copy_of(device, tmp_path)
    store = d.dev / "releases" / "kb-r2" / "index" / "store.sqlite"
    with store.open("r+b") as fh:
        fh.truncate(4096)
    monkeypatch.setattr(install, "materialize", _failing_materialize(
        sqlite3.OperationalError("database or disk is full")))
    code, _, err = kb("sync", mirror_r2(device), "--to", d.dev)
    assert "deriving the index of kb-r2 failed: database or disk is full" in one_error(err)
    assert code == 1 and store.stat().st_size == 4096 and staging_left(d.dev) == []
    assert state(d.dev)["last_sync"]["ok"] is False


@pytest.mark.parametrize("exc", [OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)),
                                 KeyboardInterrupt()], ids=["disk full", "killed"])
def test_a_rollback_whose_rederivation_fails_leaves_nothing_behind(device, tmp_path,
                                                                   monkeypatch, exc):
    """A rollback to a release whose index/ it derives again, stopped while it writes (the
    disk full, or killed), used to leave its half-written releases/<tag>.staging behind
    (on a full disk, the room it took); now the served release serves on, one line says so,
    and nothing is left behind."""
    d = copy_of(device, tmp_path)
    store = d.dev / "releases" / "kb-r1" / "index" / "store.sqlite"
    with store.open("r+b") as fh:
        fh.truncate(4096)
    real = np.save

    def save(*args, **kwargs):  # a write of a BM25 array of the new index/
        real(*args, **kwargs)
        raise exc

    monkeypatch.setattr(np, "save", save)
    code, out, err = kb("rollback", "kb-r1", "--to", d.dev)
    if isinstance(exc, OSError):
        assert code == 1 and out == "" and one_error(err) == (
            "kb: error: deriving the index of kb-r1 failed: No space left on device; the "
            "served release is unchanged")
    else:
        assert code == 130 and err == ("kb: interrupted: kb-r2 still serves (unchanged); run "
                                       "`kb rollback kb-r1` again to finish\n")
    assert served(d.dev) == "kb-r2" and staging_left(d.dev) == []
    assert store.stat().st_size == 4096
    monkeypatch.undo()
    code, out, _ = kb("rollback", "kb-r1", "--to", d.dev)
    assert code == 0 and "re-derived the index of kb-r1" in out and served(d.dev) == "kb-r1"


def test_a_rollback_that_cannot_write_says_which_release_serves(device, tmp_path,
                                                                 monkeypatch):
    """A rollback refused a write (the disk full as it made the directory to derive kb-r1's
    index in) ended `kb: error: No space left on device: …/releases/kb-r1.staging`, the
    device's name and what serves left out, as a sync says them."""
    d = copy_of(device, tmp_path)
    store = d.dev / "releases" / "kb-r1" / "index" / "store.sqlite"
    with store.open("r+b") as fh:
        fh.truncate(4096)
    real = os.mkdir

    def full(path, *args, **kwargs):
        if str(path).endswith(".staging"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "mkdir", full)
    code, out, err = kb("rollback", "kb-r1", "--to", d.dev)
    assert code == 1 and out == "" and one_error(err) == (
        f"kb: error: {d.dev}: cannot write {d.dev}/releases/kb-r1.staging: No space left on "
        "device; the served release is unchanged")
    assert served(d.dev) == "kb-r2" and staging_left(d.dev) == []


def _refuse_writes(path: Path) -> None:
    """Make the file or directory `path` refuse writes: read-only, or for root immutable
    (chattr +i; `_allow_writes` undoes it)."""
    if os.geteuid() != 0:
        path.chmod(0o555 if path.is_dir() else 0o444)
    elif subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("root, and this file system cannot make a file immutable")


def _allow_writes(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=True)
    else:
        path.chmod(0o755 if path.is_dir() else 0o644)


def test_a_sync_whose_state_cannot_be_written_names_state_json(device, tmp_path):
    """The device directory refused state.json (read-only, or full): the line named the
    temporary file, `cannot write .state.json.<pid>.<hex>.tmp`, which says neither the file
    nor where it is."""
    d = copy_of(device, tmp_path)
    _refuse_writes(d.dev)
    try:
        code, out, err = kb("sync", d.art, "--to", d.dev)
    finally:
        _allow_writes(d.dev)
    assert code == 1 and out == "" and one_error(err).startswith(
        f"kb: error: {d.dev}: cannot write {d.dev}/state.json: "), err
    assert one_error(err).endswith("; the served release is unchanged")
    assert served(d.dev) == "kb-r2"
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 0 and out.startswith("serving kb-r3 (was kb-r2)"), err


def test_a_rollback_that_cannot_be_logged_says_it_switched(device, tmp_path):
    """rollback.log refused the line after the switch: the error said only `cannot write
    the device log`, as if nothing had happened, though kb-r1 served."""
    d = copy_of(device, tmp_path)
    log = d.dev / "rollback.log"
    log.touch()
    _refuse_writes(log)
    try:
        code, out, err = kb("rollback", "kb-r1", "--to", d.dev)
    finally:
        _allow_writes(log)
    assert code == 1 and out == "" and served(d.dev) == "kb-r1"
    line = one_error(err)
    assert line.startswith(f"kb: error: {log}: kb-r1 serves now (was kb-r2), but the rollback "
                           "is not in rollback.log: cannot write the device log: "), err
    assert line.endswith("; the next `kb sync` or `kb rollback` writes it there"), err
    # the log writable again, the next command holding the lock writes the line, once
    for _ in range(2):
        assert kb("sync", d.art, "--to", d.dev)[0] == 0
    [entry] = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    assert (entry["from"], entry["to"], entry["recorded_by"]) == ("kb-r2", "kb-r1", "kb sync")


@pytest.mark.parametrize("held", [b"", b'{"rolled_back": ["kb-r2"], "hig', b"[]"],
                         ids=["emptied", "cut short", "no object"])
def test_a_state_json_that_cannot_be_read_stops_sync_and_rollback(device, tmp_path, held):
    """state.json emptied or cut short (a power cut on an SD card, an edit) was read as {}:
    the releases rolled back from and the highest serial accepted were forgotten, and the
    next sync served again the kb-r2 the operator had rolled back from, without a word."""
    d = copy_of(device, tmp_path)
    assert kb("rollback", "kb-r1", "--to", d.dev)[0] == 0
    (d.dev / "state.json").write_bytes(held)
    for args in (("sync", mirror_r2(device), "--to", d.dev), ("sync", "--to", d.dev),
                 ("rollback", "kb-r2", "--to", d.dev)):
        code, out, err = kb(*args)
        assert code == 1 and out == "", err
        assert one_error(err).startswith(f"kb: error: {d.dev}/state.json: state.json cannot be "
                                         "read ("), err
        assert "restore it, or remove it to go on without them" in err
        assert served(d.dev) == "kb-r1" and (d.dev / "state.json").read_bytes() == held
    code, out, _ = kb("status", "--to", d.dev)
    assert code == 4 and "\nstate.json cannot be read (" in out, out
    (d.dev / "state.json").unlink()  # the operator's choice: on without the marks
    code, out, err = kb("sync", mirror_r2(device), "--to", d.dev)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


# ------------------------------------------------------------------ 3: status of a checkout


def _clone(d: Device, tmp_path: Path, art: Path | None = None) -> Path:
    tree = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(art or d.art), str(tree)], check=True)
    return tree


def _both_refuse(tree: Path, says: str) -> None:
    code, _, err = kb("status", "--index", tree)
    assert code == 1 and says in one_error(err), err
    code, _, err = kb("query", "--index", tree, "wheat scab")
    assert code == 1 and says in one_error(err), err


def test_status_of_a_checkout_refuses_a_lightweight_tag(device, tmp_path):
    tree = _clone(device, tmp_path)
    commit = git(tree, "rev-parse", "kb-r1^{commit}").strip()
    git(tree, "tag", "-d", "kb-r1")
    git(tree, "tag", "kb-r1", commit)
    git(tree, "checkout", "-q", "kb-r1")
    _both_refuse(tree, "kb-r1 is not an annotated release tag")


def test_status_of_a_checkout_refuses_a_tag_renaming_an_older_release(device, tmp_path):
    tree = _clone(device, tmp_path)
    commit = git(tree, "rev-parse", "kb-r1^{commit}").strip()
    git(tree, "tag", "-d", "kb-r1")
    git(tree, "tag", "-a", "kb-r9", "-m", "kb release 9", commit)
    git(tree, "checkout", "-q", "kb-r9")
    _both_refuse(tree, "release.json names kb-r1 (serial 1), not the tag")


@pytest.mark.parametrize("mutate, says", [
    (lambda files: files.__setitem__("data/evil.sh", b"echo hi\n"),
     "data/evil.sh: not listed in manifest"),
    (lambda files: files.__setitem__(
        "data/docs.jsonl", files["data/docs.jsonl"].replace(b"a", b"b", 1)),
     "data/docs.jsonl: sha256 mismatch"),
    (lambda files: files.__setitem__("data/docs.jsonl", files["data/docs.jsonl"][:100]),
     "data/docs.jsonl: size 100"),
])
def test_status_of_a_checkout_refuses_a_forged_release(device, tmp_path, mutate, says):
    art = tmp_path / "art.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(device.art), str(art)], check=True)
    forge_release(art, mutate, resign=load_private(device.key))
    tree = _clone(device, tmp_path, art)
    code, _, err = kb("status", "--index", tree)
    assert code == 1 and says in one_error(err), err
    assert kb("query", "--index", tree, "wheat scab")[0] == 1


def test_status_of_a_checkout_refuses_a_signer_no_longer_trusted(device, tmp_path):
    tree = _clone(device, tmp_path)
    code, out, err = kb("status", "--index", tree)
    assert code == 0 and "release kb-r3" in out, err
    assert kb("query", "--index", tree, "wheat scab")[0] == 0  # derived, signer trusted
    other = tmp_path / "other.key"
    keygen(other)
    assert kb("trust", "add", f"{other}.pub", "--to", tree)[0] == 0
    _both_refuse(tree, "release signed by untrusted key")


# ------------------------------------------------------------------ 4, 5: floor and rollback


def test_sync_after_rolling_back_over_a_skipped_release_stays(device, tmp_path):
    d = copy_of(device, tmp_path)
    assert kb("sync", d.art, "--to", d.dev)[0] == 0 and served(d.dev) == "kb-r3"
    assert kb("rollback", "kb-r1", "--to", d.dev)[1] == "serving kb-r1 (was kb-r3)\n"
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 0, err
    assert out.splitlines() == [
        "up to date: serving kb-r1",
        "skipped kb-r3: newer, but rolled back from on purpose (`kb rollback kb-r3` serves it "
        "again)"]
    assert served(d.dev) == "kb-r1" and state(d.dev)["last_sync"]["ok"] is True
    # a mirror that never had kb-r3 is still older than what was accepted
    code, _, err = kb("sync", mirror_r2(device), "--to", d.dev)
    assert code == 1 and "refusing a downgrade" in one_error(err) and served(d.dev) == "kb-r1"


def test_serial_is_recorded_before_the_switch(device, tmp_path, monkeypatch):
    d = copy_of(device, tmp_path)

    def killed(*args: object) -> None:
        raise KeyboardInterrupt  # the process dies after the switch, before state.json

    monkeypatch.setattr(dev, "prune", killed)
    assert kb("sync", d.art, "--to", d.dev)[0] == 130
    assert served(d.dev) == "kb-r3" and state(d.dev)["highest_serial"] == 3
    monkeypatch.undo()
    assert kb("rollback", "kb-r1", "--to", d.dev)[0] == 0
    code, _, err = kb("sync", mirror_r2(device), "--to", d.dev)
    assert code == 1 and "older than kb-r3 already accepted" in one_error(err)
    assert served(d.dev) == "kb-r1"


def test_rollback_keeps_the_floor_at_the_release_rolled_back_from(device, tmp_path):
    d = copy_of(device, tmp_path)
    assert kb("sync", d.art, "--to", d.dev)[0] == 0
    st = state(d.dev)
    st["highest_serial"] = 2  # as a device that lost the record (killed before it)
    (d.dev / "state.json").write_text(json.dumps(st))
    assert kb("rollback", "kb-r1", "--to", d.dev)[0] == 0
    assert state(d.dev)["highest_serial"] == 3
    assert kb("sync", mirror_r2(device), "--to", d.dev)[0] == 1 and served(d.dev) == "kb-r1"


def test_a_file_system_without_links_serves_through_a_current_file(device, tmp_path,
                                                                   monkeypatch):
    """An SD card formatted FAT or exFAT refuses symbolic and hard links (EPERM): `current`
    is then a file naming the release, switched by the same rename; every sync used to fail
    on it (and again on every retry) with the release verified but never served."""
    def refused(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "symlink", refused)
    monkeypatch.setattr(os, "link", refused)
    d = Device(device.kr, device.art, tmp_path / "sd card", device.key)
    code, out, err = kb("sync", mirror_r2(device), "--to", d.dev, "--trusted-key",
                        f"{d.key}.pub")
    assert code == 0 and out.startswith("serving kb-r2 (was nothing)"), err
    current = d.dev / "current"
    assert not current.is_symlink() and current.read_text() == "releases/kb-r2\n"
    assert kb("sync", d.art, "--to", d.dev)[0] == 0 and served(d.dev) == "kb-r3"
    assert not list(d.dev.glob(".current*"))
    for index in (d.dev, current):
        code, out, err = kb("query", "--index", index, "--json", "--no-log", "赤霉病")
        assert code == 0 and json.loads(out)["release"]["tag"] == "kb-r3", err
    assert kb("rollback", "--to", d.dev)[1] == "serving kb-r2 (was kb-r3)\n"
    assert current.read_text() == "releases/kb-r2\n" and served(d.dev) == "kb-r2"
    code, out, _ = kb("status", "--to", d.dev, "--quick")
    assert code == 0 and "serving kb-r2" in out
    # DIR/current, a file here, means the device as the link does (click refused it: "is
    # a file"); any other file is still refused
    for args in (["status", "--to", current, "--quick"], ["status", "--index", current, "--quick"],
                 ["releases", "--to", current], ["log", "--to", current]):
        code, out, err = kb(*args)
        assert code == 0 and f"device {d.dev}" in out, (args, err)
    code, _, err = kb("status", "--to", d.dev / "state.json")
    assert code == 2 and "is a file" in err
    for bad in ("releases/../../etc\n", "kb-r3\n", "releases/kb-r3\nreleases/kb-r2\n"):
        current.write_text(bad)  # only `releases/<tag>`, one line, counts
        assert served(d.dev) is None


# ------------------------------------------------------------------ 6: stalls and the lock


def test_unresponsive_source_fails_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(gitrun, "STALL_SECONDS", 2)
    monkeypatch.setattr(gitrun, "NETWORK_TIMEOUT", {"ls-remote": 6, "fetch": 6, "push": 6})
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # accepts connections (the kernel does), never answers
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        code, _, err = kb("sync", f"http://127.0.0.1:{port}/art.git", "--to", tmp_path / "dev")
        took = time.monotonic() - t0
    assert code == 1 and "git ls-remote failed" in one_error(err), err
    assert took < 30
    code, _, err = kb("rollback", "--to", tmp_path / "dev")  # the lock was released
    assert code == 1 and "no earlier local release" in one_error(err)


def test_git_timeout_kills_a_silent_transport(tmp_path, monkeypatch):
    monkeypatch.setattr(gitrun, "NETWORK_TIMEOUT", {"ls-remote": 2})
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(Exception, match="no answer within 2 s"):
            shipgit.list_source(tmp_path, f"git://127.0.0.1:{port}/art.git", "kb-index")
        assert time.monotonic() - t0 < 15


def test_waiting_for_the_lock_says_who_holds_it(tmp_path, capfd):
    holding, release = threading.Event(), threading.Event()

    def holder() -> None:
        with devicelock.locked(tmp_path, "kb sync"):
            holding.set()
            release.wait(10)

    t = threading.Thread(target=holder)
    t.start()
    holding.wait(5)
    threading.Timer(0.5, release.set).start()
    with devicelock.locked(tmp_path, "kb rollback"):
        pass
    t.join(5)
    err = capfd.readouterr().err
    assert err.count("kb: waiting for") == 1, err
    assert f"{tmp_path / '.lock'}: held by kb sync (pid " in err
    with devicelock.locked(tmp_path):  # free: no message
        pass
    assert capfd.readouterr().err == ""


# ------------------------------------------------------------------ 7: messages


def test_bundle_of_a_repository_without_release_tags(device, tmp_path):
    bare = tmp_path / "notags.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(device.art), str(bare)], check=True)
    for tag in git(bare, "tag").split():
        git(bare, "tag", "-d", tag)
    code, _, err = kb("bundle", "create", "--repo", bare, tmp_path / "x.bundle")
    assert code == 1
    assert "no release tags (kb-r<N>) here, only the kb-index branch" in one_error(err)
    assert "None" not in err


def test_releases_of_a_clone_says_what_it_is(device, tmp_path):
    """(`kb diff` in a clone compares its release tags: tests/test_checkout_tags.py.)"""
    tree = _clone(device, tmp_path)
    code, _, err = kb("releases", "--to", tree)
    line = one_error(err)
    assert code == 1 and "is a git checkout of a release" in line, line
    assert "build output" not in line and "git diff --stat kb-rA kb-rB" in line
