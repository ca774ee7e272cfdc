"""A device whose disk fills during `kb sync`, at every stage a full disk can stop it (git's
fetch, the room check before a release is written, the derivation of its index): one
error line, the previous release still answering `kb query` and a running `kb serve`,
nothing partial left, and the next sync, given room, completes and the server follows.

A real device (tests/device_fixtures.py: signed releases of the example knowledge) copied
onto a real tmpfs whose size is lowered just above what the device holds (`mount -o
remount,size=`), a real `kb serve` on it, real `kb sync` and `kb query` processes. Skipped
where mounting a tmpfs is not permitted (tests/test_sync_faults.py covers a full disk with
RLIMIT_FSIZE there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from browserfixtures import serve
from device_fixtures import EDITED, make_device
from test_release_helpers import git

pytestmark = pytest.mark.slow

KB = str(Path(sys.executable).with_name("kb"))
QUESTION = "小麦赤霉病 扬花期 巡查"
ADDED_LINE = "扬花期前三天开始巡查。"
STEP = 64 * 1024  # room added between attempts: a few attempts per stage


@pytest.fixture
def small_disk(tmp_path) -> Path:
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount)],
            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (tests/test_sync_faults.py covers a full "
                    "disk with RLIMIT_FSIZE)")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def used(mount: Path) -> int:
    st = os.statvfs(mount)
    return (st.f_blocks - st.f_bfree) * st.f_frsize


def resize(mount: Path, size: int) -> None:
    subprocess.run(["mount", "-o", f"remount,size={size}", str(mount)], check=True)


def query(device: Path) -> tuple[str, bool]:
    proc = subprocess.run([KB, "query", QUESTION, "--index", str(device), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["release"]["tag"], ADDED_LINE in proc.stdout


def served(url: str) -> tuple[str, bool]:
    with urllib.request.urlopen(f"{url}/api/search?q={quote(QUESTION)}", timeout=60) as resp:
        body = resp.read().decode("utf-8")
    return json.loads(body)["release"]["tag"], ADDED_LINE in body


def leftovers(device: Path) -> list[str]:
    """What a sync that stopped may leave: staging and dot-named release directories,
    partial packs, temporary files beside state.json or `current`."""
    found = [p for p in (device / "releases").iterdir()
             if p.name.startswith(".") or p.name.endswith(".staging")]
    found += list((device / "repo.git" / "objects" / "pack").glob("tmp_*"))
    found += [p for p in device.iterdir() if p.name.endswith(".tmp")]
    return sorted(str(p.relative_to(device)) for p in found)


def test_a_disk_that_fills_during_sync_leaves_the_old_release_answering(
        small_disk, tmp_path, monkeypatch):
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))  # off the small disk
    d = make_device(tmp_path / "made")
    doc = d.kr / EDITED
    doc.write_text(doc.read_text(encoding="utf-8").replace(
        "## 2. 监测时间窗口\n", f"## 2. 监测时间窗口\n\n{ADDED_LINE}\n"), encoding="utf-8")
    git(d.kr, "commit", "-qam", "a second release")
    assert d.publish() == "kb-r2"
    device = small_disk / "device"
    subprocess.run(["cp", "-a", str(d.dev), str(device)], check=True)
    server = serve(device)
    url = next(server)
    try:
        assert served(url) == ("kb-r1", False) and query(device) == ("kb-r1", False)
        base, failures = used(small_disk), []
        for room in [8192, 24576, *(STEP * n for n in range(1, 40))]:
            resize(small_disk, base + room)
            proc = subprocess.run([KB, "sync", str(d.art), "--to", str(device)],
                                  capture_output=True, text=True, timeout=300)
            if proc.returncode == 0:
                break
            assert proc.returncode == 1, proc.stderr
            [line] = proc.stderr.strip().splitlines()
            assert line.startswith("kb: error:"), line
            assert "unchanged" in line or "nothing of it was written" in line, line
            failures.append(line)
            assert leftovers(device) == [], line
            assert query(device) == ("kb-r1", False) and served(url) == ("kb-r1", False)
            status = subprocess.run([KB, "status", "--to", str(device)], capture_output=True,
                                    text=True)
            assert status.returncode == 4 and "serving kb-r1" in status.stdout, status.stdout
            assert "FAILED" in status.stdout and line[len("kb: error: "):] in status.stdout
        else:
            pytest.fail(  # pragma: no cover
                "kb sync never completed on a disk with room for it")
        print("\n".join(failures))
        # the disk filled at each stage: while git fetched, in the room check, while deriving
        assert any("git fetch failed" in f for f in failures), failures
        assert any("bytes free; nothing of it was written" in f for f in failures), failures
        assert any("deriving the index of kb-r2 failed" in f for f in failures), failures
        assert proc.stdout.startswith("serving kb-r2 (was kb-r1)"), proc.stdout
        assert query(device) == ("kb-r2", True) and served(url) == ("kb-r2", True)
        assert leftovers(device) == []
        # a disk left full after the sync: questions are still answered (the query log
        # gives way), and the next sync says it is up to date
        resize(small_disk, used(small_disk) + STEP)
        (small_disk / "filler").write_bytes(b"")
        with open(small_disk / "filler", "wb") as filler, pytest.raises(OSError):
            filler.write(b"\0" * (4 * STEP))
            filler.flush()
        assert query(device) == ("kb-r2", True) and served(url) == ("kb-r2", True)
        again = subprocess.run([KB, "sync", str(d.art), "--to", str(device)],
                               capture_output=True, text=True, timeout=300)
        assert again.returncode == 0 and "up to date: serving kb-r2" in again.stdout, again.stderr
    finally:
        next(server, None)
