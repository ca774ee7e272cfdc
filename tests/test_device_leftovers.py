"""A device's served index re-derived by `kb sync` changes in one switch, and what an
interrupted sync leaves is cleaned by the next one and never taken for a release.

One real device per module (tests/device_fixtures.py: real builds, signed releases, the key
trusted on first use) with kb-r1 and kb-r2 synced; tests work on copies.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from device_fixtures import Device, copy_of, kb, make_device, second_release

from kbtools import fsutil
from kbtools.index.manifest import load_manifest
from kbtools.index.selfcheck import derived_problems
from kbtools.ship import device as dev
from kbtools.ship import install

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Device:
    d = make_device(tmp_path_factory.mktemp("leftovers"))
    second_release(d)
    return d


def leftovers(device_dir: Path) -> list[str]:
    return sorted(p.name for p in (device_dir / "releases").iterdir()
                  if p.name.endswith(".staging") or p.name.startswith("."))


def files_of(index: Path) -> dict[str, int]:
    """Every file of an index/ tree by relative path: its inode."""
    return {p.relative_to(index).as_posix(): p.stat().st_ino
            for p in index.rglob("*") if p.is_file()}


def damaged_r2(d: Device) -> Path:
    """kb-r2's served index/, its store truncated (a sync derives it again)."""
    index = d.dev / "releases" / "kb-r2" / "index"
    with (index / "store.sqlite").open("r+b") as fh:
        fh.truncate(4096)
    return index


# ------------------------------------------------------------------ 1: one switch


def test_a_sync_stopped_while_it_switches_the_index_leaves_no_mix(device, tmp_path,
                                                                   monkeypatch):
    """The re-derived index/ of the served release used to be moved over the old one file
    by file: a sync stopped between two files (Ctrl-C, SIGTERM) left an index/ of both
    trees, which a query could read. Now one exchange switches the whole tree."""
    d = copy_of(device, tmp_path)
    index = damaged_r2(d)
    old, opened = files_of(index), os.stat(index.parent).st_ctime_ns
    real_replace, real_rename, moved = os.replace, os.rename, []

    def stopped_at_the_second_file(fn):
        def move(src, dst, *args, **kwargs):
            fn(src, dst, *args, **kwargs)
            if Path(dst).parent.is_relative_to(index):  # a file moved into index/
                moved.append(dst)
                if len(moved) == 2:
                    raise KeyboardInterrupt
        return move

    monkeypatch.setattr(os, "replace", stopped_at_the_second_file(real_replace))
    monkeypatch.setattr(os, "rename", stopped_at_the_second_file(real_rename))
    code, _, err = kb("sync", d.art, "--to", d.dev)
    monkeypatch.undo()
    now = files_of(index)
    kept = set(now.items()) & set(old.items())
    assert kept == set(old.items()) or not kept, f"a mix of two trees: {sorted(kept)}"
    assert not kept and derived_problems(index.parent, load_manifest(index.parent)) == []
    assert code == 0 and leftovers(d.dev) == [], err
    # the release directory's change time moved with the switch: a reader that opened it
    # across the switch opens it again (`index.reader.open_index`)
    assert os.stat(index.parent).st_ctime_ns != opened


@pytest.mark.parametrize("when", ["before", "after"])
def test_a_sync_killed_at_the_switch_serves_one_whole_index(device, tmp_path, monkeypatch,
                                                             when):
    """Killed just before the exchange the old index/ serves on, untouched; just after,
    the new one, whole; either way no staging directory is left and the next sync says
    it is up to date (repairing the old one first)."""
    d = copy_of(device, tmp_path)
    index = damaged_r2(d)
    old = files_of(index)
    real = install.exchange_dirs

    def killed(new: Path, target: Path) -> None:
        if when == "after":
            real(new, target)
        raise KeyboardInterrupt

    monkeypatch.setattr(install, "exchange_dirs", killed)
    code, _, err = kb("sync", d.art, "--to", d.dev)
    monkeypatch.undo()
    assert code == 130 and err.startswith("kb: interrupted: kb-r2 still serves"), err
    problems = derived_problems(index.parent, load_manifest(index.parent))
    if when == "before":
        assert files_of(index) == old and problems
    else:
        assert not set(files_of(index).items()) & set(old.items()) and problems == []
    assert leftovers(d.dev) == []
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 0 and out.startswith("up to date: serving kb-r2\n"), err
    assert ("re-derived the index of kb-r2" in out) == (when == "before")
    assert kb("query", "--index", d.dev, "wheat scab")[0] == 0


def test_without_an_atomic_exchange_the_index_is_switched_by_renames(device, tmp_path,
                                                                      monkeypatch):
    """A file system without RENAME_EXCHANGE (or an older C library): the old tree is
    renamed aside and the new one into its place; the result is the same."""
    d = copy_of(device, tmp_path)
    index = damaged_r2(d)
    old = files_of(index)
    monkeypatch.setattr(fsutil, "_exchange", lambda a, b: False)
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 0 and "re-derived the index of kb-r2" in out, err
    assert not set(files_of(index).items()) & set(old.items())
    assert derived_problems(index.parent, load_manifest(index.parent)) == []
    assert leftovers(d.dev) == [] and dev.served_tag(d.dev) == "kb-r2"
    assert not list(index.parent.glob(".*"))


def test_without_an_exchange_a_sync_stopped_between_the_renames_keeps_the_old_index(
        device, tmp_path, monkeypatch):
    """Stopped once the old tree is renamed aside, before the new one is in place: the old
    index/ is put back (a served release is never left without one)."""
    d = copy_of(device, tmp_path)
    index = damaged_r2(d)
    old = files_of(index)
    real = os.rename

    def rename(src, dst, *args, **kwargs):
        if Path(dst) == index and Path(src).name == "index":  # the new tree moved in
            raise KeyboardInterrupt
        return real(src, dst, *args, **kwargs)

    monkeypatch.setattr(fsutil, "_exchange", lambda a, b: False)
    monkeypatch.setattr(os, "rename", rename)
    code, _, err = kb("sync", d.art, "--to", d.dev)
    monkeypatch.undo()
    assert code == 130 and err.startswith("kb: interrupted: kb-r2 still serves"), err
    assert files_of(index) == old and leftovers(d.dev) == []
    code, out, err = kb("sync", d.art, "--to", d.dev)
    assert code == 0 and "re-derived the index of kb-r2" in out, err
