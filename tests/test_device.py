"""Device directory layout: served pointer, atomic switch, pruning, lock."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from test_release_helpers import make_dist, sample_files

from kbtools.errors import SyncError
from kbtools.ship import device, devicelock


def _release(dev: Path, tag: str, version: int) -> Path:
    return make_dist(dev / "releases" / tag, sample_files(version, n=2))


def test_empty_and_non_device_dirs(tmp_path: Path):
    assert device.served_release(tmp_path) is None
    assert not device.is_device_dir(tmp_path)
    (tmp_path / "releases").mkdir()
    assert device.is_device_dir(tmp_path) and device.served_release(tmp_path) is None


def test_switch_is_a_symlink_rename(tmp_path: Path):
    _release(tmp_path, "kb-r1", 1)
    _release(tmp_path, "kb-r2", 2)
    device.switch_to(tmp_path, "kb-r1")
    assert os.readlink(tmp_path / "current") == "releases/kb-r1"
    held = device.served_release(tmp_path)
    device.switch_to(tmp_path, "kb-r2")
    assert device.served_release(tmp_path) == tmp_path / "releases" / "kb-r2"
    assert held is not None and (held / "manifest.json").is_file()  # old path still valid
    assert not list(tmp_path.glob(".current*"))
    with pytest.raises(SyncError, match="kb-r9 is not present"):
        device.switch_to(tmp_path, "kb-r9")
    assert device.served_tag(tmp_path) == "kb-r2"


def test_default_device_dir(tmp_path: Path, monkeypatch, isolated_home: Path):
    assert device.default_device_dir() == isolated_home / "device"
    monkeypatch.setenv("KB_INDEX", str(tmp_path / "x"))
    assert device.default_device_dir() == tmp_path / "x"
    assert device.default_device_dir(tmp_path / "y") == tmp_path / "y"


def test_prune_keeps_newest_and_served(tmp_path: Path):
    for i in range(1, 6):
        _release(tmp_path, f"kb-r{i}", i)
    device.switch_to(tmp_path, "kb-r1")
    removed = device.prune(tmp_path, 2, {f"kb-r{i}": i for i in range(1, 6)})
    assert sorted(removed) == ["kb-r2", "kb-r3"]
    assert sorted(device.release_dirs(tmp_path)) == ["kb-r1", "kb-r4", "kb-r5"]


def test_clean_staging_removes_leftovers_only(tmp_path: Path):
    _release(tmp_path, "kb-r1", 1)
    (tmp_path / "releases" / "kb-r2.staging" / "data").mkdir(parents=True)
    (tmp_path / "releases" / ".kb-r0.deleting").mkdir()
    os.symlink("releases/kb-r1", tmp_path / ".current.123.tmp")
    device.clean_staging(tmp_path)
    assert sorted(p.name for p in (tmp_path / "releases").iterdir()) == ["kb-r1"]
    assert not (tmp_path / ".current.123.tmp").exists()


def test_lock_serialises(tmp_path: Path):
    order: list[str] = []

    def second():
        with devicelock.locked(tmp_path):
            order.append("second")

    with devicelock.locked(tmp_path):
        t = threading.Thread(target=second)
        t.start()
        time.sleep(0.2)
        order.append("first")
    t.join(5)
    assert order == ["first", "second"]
