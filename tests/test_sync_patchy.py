"""A sync over a patchy link or onto a full device, and after a rollback.

Where a newer release the trusted keys refuse is passed over for an older one they vouch
for, what stops the older one (the disk fills while its index is derived) is the device's
failure, not the release's. The sync says so in one line and stops, the served release
answering; it is never passed over as refused too (the sync then tried the next lower
release, and ended saying no release verified with the trusted keys). Real builds, signed
releases, a real `kb sync` under a file-size limit (`ulimit -f`: a small tmpfs is not always
available). A sync to a release newer than one rolled back from says the rollback ends."""

from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from device_fixtures import EDITED, Device, make_device
from test_release_helpers import git
from test_trust import Keys, Pub, kb, keys, pub

from kbtools.ship import device as dev
from kbtools.ship.signing import keygen

pytestmark = pytest.mark.slow
__all__ = ["keys", "pub"]  # fixtures this module's tests use

KB = [sys.executable, "-m", "kbtools"]
QUESTION = "小麦赤霉病 扬花期 巡查"


def _edit_and_publish(d: Device, line: str) -> str:
    doc = d.kr / EDITED
    doc.write_text(doc.read_text(encoding="utf-8").replace(
        "## 2. 监测时间窗口\n", f"## 2. 监测时间窗口\n\n{line}\n"), encoding="utf-8")
    git(d.kr, "commit", "-qam", line)
    return d.publish()


def _file_size_limit(limit: int) -> Callable[[], None]:
    def preexec() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return preexec


def _served(device: Path) -> str:
    proc = subprocess.run([*KB, "query", QUESTION, "--index", str(device), "--json"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["release"]["tag"])


def test_a_full_disk_under_a_refused_release_stops_the_sync_saying_so(tmp_path: Path) -> None:
    """kb-r2 signed by the pinned key, kb-r3 by a key nobody pinned: the sync passes kb-r3
    over for kb-r2, whose index does not fit under the file-size limit. One line names the
    failed derivation and kb-r3's refusal; kb-r1 still answers; kb-r1 is not tried; the next
    sync, given room, serves kb-r2."""
    d = make_device(tmp_path / "设备 目录")  # a device path with a space and Chinese
    assert _edit_and_publish(d, "扬花期前三天开始巡查。") == "kb-r2"
    other, _pub, other_id = keygen(tmp_path / "other.key")
    assert _edit_and_publish(replace(d, key=other), "雨后加查一次。") == "kb-r3"
    served = d.dev / "releases" / "kb-r1"
    data = max(p.stat().st_size for p in (served / "data").rglob("*") if p.is_file())
    limit = 2 * data  # room for each data file, none for the index's store
    assert (served / "index" / "store.sqlite").stat().st_size > limit
    cmd = [*KB, "sync", str(d.art), "--to", str(d.dev)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(limit))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith("kb: error: deriving the index of kb-r2 failed: "), line
    assert "; the served release is unchanged (taken in place of kb-r3, refused: release " \
           f"signed by untrusted key {other_id} (pinned: " in line, line
    assert line.endswith("pin it with `kb trust add PUB`))"), line
    assert "verifies with the trusted keys" not in line and "refused too" not in line, line
    assert dev.served_tag(d.dev) == "kb-r1" and _served(d.dev) == "kb-r1"
    status = subprocess.run([*KB, "status", "--to", str(d.dev)], capture_output=True,
                            text=True, timeout=300)
    assert line.removeprefix("kb: error: ") in status.stdout, status.stdout
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("serving kb-r2 (was kb-r1)"), again.stdout
    assert f"kb: warning: kb-r3 refused: release signed by untrusted key {other_id}" in again.stderr
    assert _served(d.dev) == "kb-r2"


def test_a_sync_past_a_release_rolled_back_from_says_the_rollback_ends(
        keys: Keys, pub: Pub, tmp_path: Path) -> None:
    """Rolled back from kb-r2 to kb-r1, the device skips kb-r2 (said); once kb-r3 is
    published the sync serves it and says the rollback from kb-r2 ends, in text and --json;
    `kb status` and `kb releases` stop naming kb-r2 as skipped."""
    dev_dir = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev_dir, "--trusted-key", keys.a_pub)[0] == 0
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev_dir)[0] == 0
    assert kb("rollback", "--to", dev_dir)[0] == 0 and dev.served_tag(dev_dir) == "kb-r1"
    code, out = kb("sync", pub.art, "--to", dev_dir, "--json")
    assert code == 0 and json.loads(out)["no_longer_skipped"] == [], out
    pub.release(keys.a)
    code, out = kb("sync", pub.art, "--to", dev_dir)
    assert code == 0 and dev.served_tag(dev_dir) == "kb-r3", out
    assert "the rollback from kb-r2 ends: kb-r3 is newer (`kb sync` no longer skips kb-r2)" \
        in out.splitlines(), out
    status = json.loads(kb("status", "--to", dev_dir, "--quick", "--json")[1])
    assert status["rolled_back"] == [], status
    assert "rolled back from" not in kb("releases", "--to", dev_dir, "--local")[1]
    pub.release(keys.a)
    assert kb("rollback", "--to", dev_dir)[0] == 0  # from kb-r3 to kb-r2
    done = json.loads(kb("sync", pub.art, "--to", dev_dir, "--json")[1])
    assert (done["tag"], done["skipped"], done["no_longer_skipped"]) == ("kb-r4", [], ["kb-r3"])


def test_a_default_rollback_onto_a_revoked_signers_release_names_one_that_is_vouched_for(
        keys: Keys, pub: Pub, tmp_path: Path) -> None:
    """kb-r1 and kb-r3 signed by key a, kb-r2 by key b, all kept; key b removed: `kb
    rollback` from kb-r3 refuses kb-r2 (a sync would) and names kb-r1, which it then serves
    when asked."""
    dev_dir = tmp_path / "dev"
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev_dir, "--trusted-key", keys.a_pub)[0] == 0
    assert kb("trust", "add", keys.b_pub, "--to", dev_dir)[0] == 0
    for key in (keys.b, keys.a):
        pub.release(key)
        assert kb("sync", pub.art, "--to", dev_dir)[0] == 0
    assert dev.served_tag(dev_dir) == "kb-r3" and len(dev.release_dirs(dev_dir)) == 3
    assert kb("trust", "remove", keys.b_id, "--to", dev_dir)[0] == 0
    code, out = kb("rollback", "--to", dev_dir)
    assert code == 1 and dev.served_tag(dev_dir) == "kb-r3", out
    [line] = out.splitlines()
    assert line.startswith(f"kb: error: {dev_dir}: kb-r2 is signed by key {keys.b_id}, which "
                           "is no longer pinned on this device"), line
    assert line.endswith("; not switching (`kb trust add PUB` pins the key again if it is to "
                         "be trusted); `kb rollback kb-r1` serves the newest older release a "
                         "pinned key signs"), line
    code, out = kb("rollback", "kb-r1", "--to", dev_dir)
    assert code == 0 and dev.served_tag(dev_dir) == "kb-r1", out


@pytest.mark.parametrize("fits", ["nothing", "the fetch"])
def test_a_full_disk_on_a_fresh_device_says_it_still_has_no_release(tmp_path: Path,
                                                                    fits: str) -> None:
    """The first sync of a new device, whose fetched pack or index does not fit: there is
    no served release to be "unchanged"; the line says the device still has none, and the
    next sync, given room, serves the release."""
    d = make_device(tmp_path / "d")
    store = (d.dev / "releases" / "kb-r1" / "index" / "store.sqlite").stat().st_size
    pack = max(p.stat().st_size for p in (d.dev / "repo.git" / "objects" / "pack").iterdir())
    # room for the fetched pack and none for the index's store, or none for the pack
    limit = (pack + store) // 2 if fits == "the fetch" else pack // 2
    assert limit < pack or pack < limit < store
    fresh = tmp_path / "fresh"
    cmd = [*KB, "sync", str(d.art), "--to", str(fresh), "--trusted-key", f"{d.key}.pub"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300,
                          preexec_fn=_file_size_limit(limit))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [line] = proc.stderr.strip().splitlines()
    fresh_words = "this device still has no release (it answers no question until a sync installs one)"
    if fits == "the fetch":
        assert line.startswith("kb: error: deriving the index of kb-r1 failed: "), line
        assert line.endswith(f"; {fresh_words}"), line
    else:
        assert "kb-r1: the device has no room for this release's files (" in line, line
        assert f"; {fresh_words} and nothing fetched was kept: free space on the device" in line
    assert "unchanged" not in line and dev.served_tag(fresh) is None
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and dev.served_tag(fresh) == "kb-r1", again.stderr
