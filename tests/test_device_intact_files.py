"""What every open of a device's release (`kbtools.ship.intact.check_intact`) catches of its
files changed after `kb sync`, file kind by file kind, and how it names them: a store cut
short is damage to the derived index/, never an index of other rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import copy_of, make_device
from test_device_pinned import _pin_index

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


def test_a_removed_store_is_refused_as_damaged_and_a_copy_answers_where_read_only(
        dev, monkeypatch):
    """A store removed from index/ was taken for an index of other rules ("index/ has no
    store"): not held to the record naming it, the reader refused it as a missing index
    file and `kb status` as "unable to open database file", and a read-only device served
    a copy as of other rules. It is damage: refused in one line naming it, and on a device
    kb cannot write a copy derived from the verified data/ answers, as for any damage."""
    monkeypatch.setattr(readonly, "_DAMAGED", {})
    release = (dev / "current").resolve()
    ReleaseLayout(release).store.unlink()
    assert readonly.stale_served(release) is None  # not an index of other rules
    assert readonly.stale_index(release) == "index/store.sqlite: missing"
    res = _query(dev)
    assert res.exit_code == 1 and res.stdout == ""
    [line] = res.stderr.strip().splitlines()
    assert line == _damaged(dev, "index/store.sqlite: missing")
    status = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert status.exit_code == 1
    assert "fails verification: index/store.sqlite: missing;" in status.stderr
    real = readonly.os.access
    monkeypatch.setattr(readonly.os, "access", lambda path, mode, *a, **k: False if (
        mode & readonly.os.W_OK and Path(path).resolve() == dev.resolve()) else
        real(path, mode, *a, **k))
    res = _query(dev)
    assert res.exit_code == 0, res.stderr
    assert "differs from what `kb sync` derived (index/store.sqlite: missing)" in res.stderr
    status = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert status.exit_code == 4, status.output
    assert "index/store.sqlite: missing; the device cannot be written: queries are served " \
        "from a copy derived in" in status.stderr


def _kind(release: Path, kind: str) -> str:
    """The first file of `kind` in `release`, relative to it."""
    pattern = {"store": "index/store.sqlite", "graph": "index/vectors-*.usearch",
               "bm25": "index/bm25/*", "table": "data/tables/*.csv",
               "chunks": "data/chunks/*.jsonl", "vectors": "data/vectors/*/*.npy"}[kind]
    return sorted(p.relative_to(release).as_posix() for p in release.glob(pattern))[0]


@pytest.mark.parametrize("kind", ["store", "graph", "bm25", "table", "chunks", "vectors"])
def test_a_byte_appended_to_any_kind_of_file_is_refused_naming_it(dev, kind):
    """A byte appended to a file of index/ (the store, a vector graph, a BM25 table) or of
    data/ (a table's CSV, chunks, vectors), after a first open remembered every hash: the
    next open refuses it in one line naming the file and both sizes."""
    assert _query(dev).exit_code == 0  # every file hashed and remembered
    release = (dev / "current").resolve()
    rel = _kind(release, kind)
    size = (release / rel).stat().st_size
    with (release / rel).open("ab") as fh:
        fh.write(b"\0")
    res = _query(dev)
    assert res.exit_code == 1 and res.stdout == ""
    [line] = res.stderr.strip().splitlines()
    problem = f"{rel}: size {size + 1} != {size}"
    assert line == (_damaged(dev, problem) if rel.startswith("index/") else (
        f"kb: error: {dev}: the served release kb-r1 fails verification: {problem}; it was "
        "changed after `kb sync` verified it: `kb rollback` serves another release, `kb "
        "sync` one published after it"))


@pytest.mark.parametrize("kind", ["store", "graph", "bm25"])
def test_an_older_release_whose_manifest_pins_index_is_held_to_it_on_every_open(
        device, tmp_path, monkeypatch, kind):
    """A release of the older format pins index/'s bytes in its manifest (``derived``)
    instead of a record `kb sync` writes: `kb status` held index/ to it, but every open
    skipped index/ altogether, and answered from a store, graph or BM25 table with a byte
    appended. It is held to the pinned sizes and hashes as data/ is to the manifest."""
    d = copy_of(device, tmp_path)
    tag = _pin_index(d, (d.dev / "current").resolve())
    assert d.sync()[0] == 0
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)
    release = (d.dev / "current").resolve()
    assert release.name == tag and _query(d.dev).exit_code == 0
    rel = _kind(release, kind)
    size = (release / rel).stat().st_size
    with (release / rel).open("ab") as fh:
        fh.write(b"\0")
    res = _query(d.dev)
    assert res.exit_code == 1 and res.stdout == ""
    [line] = res.stderr.strip().splitlines()
    assert line == _damaged(d.dev, f"{rel}: size {size + 1} != {size}").replace(
        "kb-r1", tag)
    # on a device kb cannot write a copy answers, and `kb status` says so (degraded)
    real = readonly.os.access
    monkeypatch.setattr(readonly.os, "access", lambda path, mode, *a, **k: False if (
        mode & readonly.os.W_OK and Path(path).resolve() == d.dev.resolve()) else
        real(path, mode, *a, **k))
    assert _query(d.dev).exit_code == 0
    status = CliRunner().invoke(main, ["status", "--to", str(d.dev)])
    assert status.exit_code == 4, status.output
    assert f"{rel}: size {size + 1} != {size}; the device cannot be written: queries are " \
        "served from a copy derived in" in status.stderr
