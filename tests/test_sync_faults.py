"""Faults during sync: kills at random points, a full disk, readers racing switches."""

from __future__ import annotations

import os
import random
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_release_helpers import Pub

from kbtools.index.manifest import load_manifest, verify_files
from kbtools.ship import device, devicestate
from kbtools.ship.operate import local_releases, rollback
from kbtools.ship.sync import sync

KB = str(Path(sys.executable).with_name("kb"))


def verified_tag(dev: Path) -> str:
    rel = device.served_release(dev)
    assert rel is not None, "device serves nothing"
    assert verify_files(rel, load_manifest(rel), derived=True) == []
    assert (rel / "verified.json").is_file()
    return rel.name


def test_sync_killed_at_random_points(tmp_path: Path):
    pub = Pub(tmp_path)
    pub.release({f"blob/{i}.bin": os.urandom(20_000) for i in range(20)})
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    cmd = [KB, "sync", str(pub.art), "--to", str(dev)]
    pub.release()
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, capture_output=True)
    full = time.monotonic() - t0  # one complete sync as a subprocess
    rng = random.Random(6)
    outcomes = {"old": 0, "new": 0}
    for _ in range(20):
        new = pub.release()
        before = device.served_tag(dev)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(rng.uniform(0.0, full * 1.1))
        os.killpg(proc.pid, signal.SIGKILL)  # the whole process group: sync and its git
        proc.wait()
        tag = verified_tag(dev)
        assert tag in (before, new)
        outcomes["new" if tag == new else "old"] += 1
        assert sync(str(pub.art), dev).tag == new  # the next sync completes
        assert verified_tag(dev) == new
    print("kill outcomes", outcomes)
    assert outcomes["old"] > 0  # some kills did land mid-sync


def _limited_fsize(limit: int):
    def preexec():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write() then fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def test_full_disk_rlimit(tmp_path: Path):
    pub = Pub(tmp_path)
    pub.release()
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    pub.release({"big/noise.bin": os.urandom(3_000_000)})
    proc = subprocess.run([KB, "sync", str(pub.art), "--to", str(dev)], capture_output=True,
                          text=True, preexec_fn=_limited_fsize(1_000_000))
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    print(proc.stderr)
    assert len(lines) == 1 and lines[0].startswith("kb: error:"), proc.stderr
    assert verified_tag(dev) == "kb-r1"
    assert not list((dev / "releases").glob("*.staging"))
    assert sync(str(pub.art), dev).tag == "kb-r2"  # room again: next sync completes


def test_full_disk_tmpfs(tmp_path: Path):
    small = tmp_path / "small"
    small.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(small)],
            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (the RLIMIT test covers full disks)")
    try:
        pub = Pub(tmp_path)
        pub.release()
        dev = small / "dev"
        sync(str(pub.art), dev)
        pub.release({"big/noise.bin": os.urandom(1_500_000)})
        proc = subprocess.run([KB, "sync", str(pub.art), "--to", str(dev)],
                              capture_output=True, text=True)
        assert proc.returncode == 1 and "kb: error:" in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        print(proc.stderr)
        assert verified_tag(dev) == "kb-r1"
        assert not list((dev / "releases").glob("*.staging"))
    finally:
        subprocess.run(["umount", str(small)], check=False)


def test_queries_during_syncs_and_rollbacks(tmp_path: Path):
    pub = Pub(tmp_path)
    pub.release()
    dev = tmp_path / "dev"
    sync(str(pub.art), dev)
    stop = threading.Event()
    errors: list[BaseException] = []
    reads = [0]

    def reader():
        while not stop.is_set():
            try:
                rel = device.served_release(dev)  # resolved once per "query"
                assert rel is not None
                manifest = load_manifest(rel)
                assert verify_files(rel, manifest, derived=True) == []
                assert devicestate.read_json(rel / "release.json")["tag"] == rel.name
                reads[0] += 1
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(6):
            pub.release()
            sync(str(pub.art), dev, keep=3)
            rollback(dev)
            rollback(dev, local_releases(dev)[0]["tag"])
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    assert not errors, repr(errors[0])
    assert reads[0] > 20
    assert verified_tag(dev) == "kb-r7"


def _mounted_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir(exist_ok=True)
    return os.geteuid() == 0 and subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
        capture_output=True).returncode == 0


@pytest.mark.parametrize("limit", ["fsize", "tmpfs"])
def test_a_fetch_with_no_room_on_the_device_says_to_free_space(tmp_path: Path, limit: str):
    """A disk that fills while git fetches the new release (or a `ulimit -f` git's pack
    passes) said "git fetch failed: fatal: write error: No space left on device; … (run kb
    sync again to retry)", and a retry fails the same way. The line says the device has no
    room and to free space now; the served release stays, nothing fetched is kept, and a
    sync with room again completes."""
    pub = Pub(tmp_path)
    pub.release()
    small = tmp_path / "small"
    if limit == "tmpfs" and not _mounted_tmpfs(small, "20m"):
        pytest.skip("cannot mount a small tmpfs here (the fsize case covers a full disk)")
    dev = (small if limit == "tmpfs" else tmp_path) / "dev"
    try:
        sync(str(pub.art), dev)
        pub.release({"big/noise.bin": os.urandom(1_500_000)})
        packs = sorted(p.name for p in (dev / "repo.git" / "objects" / "pack").iterdir())
        if limit == "tmpfs":  # room for less than the fetch's pack
            st = os.statvfs(small)
            used = (st.f_blocks - st.f_bfree) * st.f_frsize
            subprocess.run(["mount", "-o", f"remount,size={used // 1024 + 200}k", str(small)],
                           check=True)
        proc = subprocess.run([KB, "sync", str(pub.art), "--to", str(dev)],
                              capture_output=True, text=True,
                              preexec_fn=_limited_fsize(1_000_000) if limit == "fsize" else None)
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 1 and len(lines) == 1, proc.stderr
        assert lines[0].startswith(f"kb: error: {pub.art}: kb-r2: the device has no room for "
                                   "this release's files ("), lines
        assert lines[0].endswith("); the served release is unchanged and nothing fetched was "
                                 "kept: free space on the device (or raise its quota or "
                                 "file-size limit) and sync again"), lines
        assert verified_tag(dev) == "kb-r1"
        assert sorted(p.name for p in (dev / "repo.git" / "objects" / "pack").iterdir()) == packs
        if limit == "tmpfs":
            subprocess.run(["mount", "-o", "remount,size=20m", str(small)], check=True)
        assert sync(str(pub.art), dev).tag == "kb-r2"
    finally:
        if limit == "tmpfs":
            subprocess.run(["umount", str(small)], check=False)
