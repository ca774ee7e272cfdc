"""What every open of a device's release (`kbtools.ship.intact.check_intact`) catches of its
files changed after `kb sync`, file kind by file kind, and how it names them: a store cut
short is damage to the derived index/, never an index of other rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import make_device

from kbtools.cli import main
from kbtools.index.layout import ReleaseLayout
from kbtools.ship import intact, readonly

pytestmark = pytest.mark.slow
QUESTION = "小麦赤霉病 监测时间"


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return make_device(tmp_path_factory.mktemp("intact-files"))


@pytest.fixture
def dev(device, tmp_path, monkeypatch) -> Path:
    """A copy of the device, opened as a new process opens it (nothing remembered)."""
    monkeypatch.setattr(intact, "RACY_NS", 0)
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)
    monkeypatch.setattr(intact, "_GOOD", {})
    monkeypatch.setattr(intact, "_CLEAN", {})
    monkeypatch.setattr(readonly, "_STALE", {})
    copy = tmp_path / "device"
    shutil.copytree(device.dev, copy, symlinks=True)
    return copy


def _query(dev: Path):
    return CliRunner().invoke(main, ["query", "--json", "--index", str(dev), QUESTION])


def _damaged(dev: Path, problem: str) -> str:
    return (f"kb: error: {dev}: the index of the served release kb-r1 differs from what `kb "
            f"sync` derived: {problem}; nothing is answered from it, and its verified data/ "
            "is kept: `kb sync` derives index/ again from it")


@pytest.mark.parametrize("cut", ["empty", "header", "page", "mid-page"])
def test_a_store_cut_short_is_refused_as_damaged_not_as_of_other_rules(dev, cut):
    """SQLite reads a store cut short as one with no info table (or a malformed one), which
    the per-open check took for an index of other rules ("v2 or older"): not held to its
    record, it was left to the reader, which refused it saying only that index/ is
    unreadable. Its own header says how long it is: it is damage, refused in one line."""
    release = (dev / "current").resolve()
    store = ReleaseLayout(release).store
    size = store.stat().st_size
    keep = {"empty": 0, "header": 60, "page": 4096, "mid-page": size - 700}[cut]
    with store.open("r+b") as fh:
        fh.truncate(keep)
    assert readonly.stale_served(release) is None  # not an index of other rules
    assert readonly.stale_index(release) is not None  # (nor one this kbtools opens)
    res = _query(dev)
    assert res.exit_code == 1 and res.stdout == ""
    [line] = res.stderr.strip().splitlines()
    assert line == _damaged(dev, f"index/store.sqlite: size {keep} != {size}")
    status = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert status.exit_code == 1
    assert f"fails verification: index/store.sqlite: size {keep} != {size};" in status.stderr
