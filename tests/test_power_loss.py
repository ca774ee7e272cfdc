"""Power loss on a device: what a sync makes durable before it is relied on.

A rename or a switched symlink may reach the disk before the data of the files it names
(ext4's delayed allocation, XFS, F2FS): after a power cut such files come back empty. These
tests record what was flushed (every `os.fsync`, every ``syncfs`` of a tree) and check, at
the moment `current` is switched, that every file and directory of the release it will
name is on disk; and that a pinned or unpinned key survives a power cut (a key lost from
trusted_keys/ would let unsigned releases in, a revoked one coming back would let its
releases in again).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_release_helpers import Pub

from kbtools import fsutil
from kbtools.ship import device, operate
from kbtools.ship.signing import keygen
from kbtools.ship.sync import sync


class Flushed:
    """(inode, size) of every file and directory flushed so far: by an fsync of it, or by a
    syncfs of a directory holding it (modelled as flushing that tree only)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, with_syncfs: bool):
        self.seen: set[tuple[int, int]] = set()
        real_fsync = os.fsync

        def fsync(fd: int) -> None:
            real_fsync(fd)
            st = os.fstat(fd)
            self.seen.add((st.st_ino, st.st_size))

        def syncfs(fd: int) -> int:
            root = os.readlink(f"/proc/self/fd/{fd}")
            for top, _dirs, files in os.walk(root):
                for name in [".", *files]:
                    st = os.lstat(os.path.join(top, name))
                    self.seen.add((st.st_ino, st.st_size))
            return 0

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(fsutil, "SYNCFS", syncfs if with_syncfs else None, raising=False)

    def lost(self, root: Path) -> list[str]:
        """What a power cut now could take from the tree `root`."""
        out = []
        for top, _dirs, files in os.walk(root):
            for name in [".", *files]:
                path = Path(top) / name
                st = path.lstat()
                if (st.st_ino, st.st_size) not in self.seen:
                    out.append(path.relative_to(root).as_posix())
        return sorted(out)


class SignedPub(Pub):
    """Releases signed with a key made here (`pub`, `key_id`: its public half and id)."""

    def __init__(self, tmp: Path):
        key, self.pub, self.key_id = keygen(tmp / "keys" / "a")
        super().__init__(tmp, sign_key=key)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc")
@pytest.mark.parametrize("with_syncfs", [True, False], ids=["syncfs", "fsync-each"])
def test_release_is_on_disk_before_current_names_it(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    with_syncfs: bool):
    pub = SignedPub(tmp_path)
    dev = tmp_path / "dev"
    flushed = Flushed(monkeypatch, with_syncfs=with_syncfs)
    real_switch = device.switch_to
    lost: dict[str, list[str]] = {}

    def switch_to(path: Path, tag: str) -> None:
        lost[tag] = flushed.lost(path / "releases" / tag)
        real_switch(path, tag)

    monkeypatch.setattr(device, "switch_to", switch_to)
    for _ in range(2):  # a first sync and one onto a served release
        tag = pub.release()
        assert sync(str(pub.art), dev, trusted=[pub.pub]).tag == tag
        assert lost[tag] == [], f"a power cut after the switch to {tag} loses {lost[tag][:5]}"
    assert device.served_tag(dev) == "kb-r2"


def test_pinned_and_removed_keys_survive_a_power_cut(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch):
    pub = SignedPub(tmp_path)
    dev = tmp_path / "dev"
    pub.release()
    dirs: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        real_fsync(fd)
        dirs.append(os.fstat(fd).st_ino)

    monkeypatch.setattr(os, "fsync", fsync)
    sync(str(pub.art), dev, trusted=[pub.pub])  # pins the key on first use
    keys = dev / "trusted_keys"
    assert [p.name for p in keys.iterdir()] == [f"{pub.key_id}.pub"]
    assert keys.stat().st_ino in dirs, "the pinned key's name was never flushed"
    _, other_pub, _ = keygen(tmp_path / "keys" / "b")
    operate.add_key(dev, other_pub)
    dirs.clear()
    operate.remove_key(dev, pub.key_id)
    assert keys.stat().st_ino in dirs, "the removed key's unlink was never flushed"


class Killed(BaseException):
    """The process dies here (a SIGKILL or a power cut: nothing after it runs)."""


def test_rollback_killed_after_its_switch_is_not_undone_by_the_next_sync(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pub = SignedPub(tmp_path)
    dev = tmp_path / "dev"
    pub.release()
    sync(str(pub.art), dev, trusted=[pub.pub])
    pub.release()
    assert sync(str(pub.art), dev).tag == "kb-r2"
    real_switch = operate.switch_to

    def switch_then_die(path: Path, tag: str) -> None:
        real_switch(path, tag)
        raise Killed

    monkeypatch.setattr(operate, "switch_to", switch_then_die)
    with pytest.raises(Killed):
        operate.rollback(dev, "kb-r1")
    monkeypatch.undo()
    assert device.served_tag(dev) == "kb-r1"
    # the operator's rollback holds: the cron sync does not bring kb-r2 straight back
    result = sync(str(pub.art), dev)
    assert (result.tag, result.changed, result.skipped) == ("kb-r1", False, ("kb-r2",))
    assert device.served_tag(dev) == "kb-r1"


def test_rollback_killed_before_its_switch_completes_when_run_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    pub = SignedPub(tmp_path)
    dev = tmp_path / "dev"
    for _ in range(2):
        pub.release()
        sync(str(pub.art), dev, trusted=[pub.pub])

    def die(path: Path, tag: str) -> None:
        raise Killed

    monkeypatch.setattr(operate, "switch_to", die)
    with pytest.raises(Killed):
        operate.rollback(dev, "kb-r1")
    monkeypatch.undo()
    assert device.served_tag(dev) == "kb-r2"
    assert sync(str(pub.art), dev).tag == "kb-r2"  # still served, nothing half-done
    assert operate.rollback(dev, "kb-r1")["to"] == "kb-r1"
    assert device.served_tag(dev) == "kb-r1"
