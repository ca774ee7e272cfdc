"""A device kb cannot write (a systemd unit with ProtectSystem=strict, a read-only mount)
after a kbtools upgrade: its index/ holds BM25 terms of the older tokenizer. It used to
answer nothing ("run `kb sync`", which could not write there either); it now serves a copy
of the release derived under KB_HOME, saying so once, and never writes into the device."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import EDITED, can_mount_read_only, make_device, second_release

from kbtools.cli import main
from kbtools.errors import IndexLoadError
from kbtools.index import selfcheck
from kbtools.index.layout import ReleaseLayout
from kbtools.index.selfcheck import DERIVATION
from kbtools.index.tokenize import TOKENS_VERSION, tokenizer_libs
from kbtools.serve.i18n import error_zh
from kbtools.ship import hashed, intact, readonly
from kbtools.ship.device import dir_size as device_dir_size
from tests.milvus_server import milvus  # noqa: F401 - fixture

pytestmark = pytest.mark.slow
QUESTION = "小麦赤霉病 监测时间"
OLDER = f"index/ holds BM25 terms of tokenizer v2 or older, this kb makes {TOKENS_VERSION}"


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return make_device(tmp_path_factory.mktemp("readonly"))


def older_device(device, tmp_path: Path) -> Path:
    """A copy of the device whose served index/ an older kbtools derived (its store names
    no tokenizer version, as before the record existed)."""
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    con = sqlite3.connect(ReleaseLayout(dev / "releases" / "kb-r1").store)
    with con:
        con.execute("DELETE FROM info WHERE key = 'tokens'")
    con.close()
    return dev


def snapshot(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file() and not p.is_symlink()}


def cited(*args: str) -> tuple[int, list[str], str]:
    res = CliRunner().invoke(main, ["query", "--json", *args, QUESTION])
    if res.exit_code:
        return res.exit_code, [], res.stderr
    return 0, [r["chunk_id"] for r in json.loads(res.stdout)["results"]], res.stderr


def status_warning(dev: Path) -> str:
    """`kb status` of a read-only device a copy answers for: degraded (exit 4), its one
    reason a warning on stderr."""
    res = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert res.exit_code == 4, res.output
    return res.stderr.strip()


@pytest.fixture
def read_only(monkeypatch):
    """The devices named in the returned set cannot be written (as a read-only mount says
    through access(2)); the tests are root, for whom file modes refuse nothing."""
    devices: set[Path] = set()
    real = os.access

    def access(path, mode, *args, **kwargs):
        if mode & os.W_OK and Path(path).resolve() in devices:
            return False
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(readonly.os, "access", access)
    monkeypatch.setattr(readonly, "_SAID", set())
    monkeypatch.setattr(readonly, "_STALE", {})
    monkeypatch.setattr(readonly, "_HELD", {})
    return devices


def test_a_read_only_device_serves_a_copy_derived_under_kb_home(device, tmp_path, read_only):
    expected = cited("--index", str(device.dev))
    assert expected[0] == 0 and expected[1]
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    before = snapshot(dev)
    home = Path(os.environ["KB_HOME"]) / "derived"
    assert status_warning(dev) == (
        f"kb: warning: the served release kb-r1 fails verification: {OLDER}; the device "
        f"cannot be written: the next query derives a copy to serve in {home}; `kb sync` "
        "where the device can be written derives its index in place")
    code, ids, err = cited("--index", str(dev))
    assert code == 0, err
    assert ids == expected[1]  # the same answers as the index this kbtools derives
    [copy] = [p for p in home.iterdir() if not p.name.startswith(".")]
    assert err.strip() == (
        f"kb: warning: {dev}: the device cannot be written and the index of kb-r1 there is "
        f"not this kbtools' ({OLDER}): serving a copy derived in {copy}; `kb sync` where "
        "the device can be written derives it in place")
    assert snapshot(dev) == before  # nothing written into the device
    assert status_warning(dev).endswith(
        f"; the device cannot be written: queries are served from a copy derived in {copy}; "
        "`kb sync` where the device can be written derives its index in place")
    # the next open reuses the copy, and says it once per process
    mtime = (copy / "index" / "store.sqlite").stat().st_mtime_ns
    code, again, err = cited("--index", str(dev))
    assert code == 0 and again == ids and err == ""
    assert (copy / "index" / "store.sqlite").stat().st_mtime_ns == mtime
    # a writable device is derived in place by `kb sync` as before: no copy is used
    read_only.clear()
    code, _, err = cited("--index", str(dev))
    assert code == 1 and "run `kb sync` to re-derive it" in err


def test_a_read_only_devices_damaged_index_is_served_from_a_copy(device, tmp_path, read_only,
                                                                 monkeypatch):
    """A damaged index/ (bytes not those `kb sync` recorded) was refused saying `kb sync`
    derives it again, which a device kb cannot write cannot do: it answered nothing. A copy
    derived from its verified data/ under KB_HOME serves, as one of other rules does."""
    monkeypatch.setattr(readonly, "_DAMAGED", {})
    expected = cited("--index", str(device.dev))
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    store = ReleaseLayout(dev / "releases" / "kb-r1").store
    size = store.stat().st_size
    with store.open("ab") as fh:
        fh.write(bytes(4096))
    read_only.add(dev.resolve())
    before = snapshot(dev)
    home = Path(os.environ["KB_HOME"]) / "derived"
    refused = ("kb: warning: the served release kb-r1 fails verification: "
               f"index/store.sqlite: size {size + 4096} != {size}; the device cannot be "
               "written: {serves}; `kb sync` where the device can be written derives its "
               "index in place")  # (not `kb sync`, which cannot write there, alone)
    assert status_warning(dev) == refused.format(
        serves=f"the next query derives a copy to serve in {home}")
    code, ids, err = cited("--index", str(dev))
    assert code == 0 and ids == expected[1], err
    copy = next(p for p in home.iterdir()
                if (p / readonly.ORIGINS).is_file() and str(dev) in p.joinpath(
                    readonly.ORIGINS).read_text(encoding="utf-8"))
    assert err.strip() == (
        f"kb: warning: {dev}: the device cannot be written and the index of kb-r1 there "
        f"differs from what `kb sync` derived (index/store.sqlite: size {size + 4096} != "
        f"{size}): serving a copy derived in {copy}; `kb sync` where the device can be "
        "written derives it in place")
    assert snapshot(dev) == before and readonly.stale_index(copy) is None
    serves = refused.format(serves=f"queries are served from a copy derived in {copy}")
    assert status_warning(dev) == serves
    res = CliRunner().invoke(main, ["status", "--json", "--to", str(dev)])
    assert res.exit_code == 4 and json.loads(res.stdout)["health"] == {
        "state": "degraded", "reasons": [serves.removeprefix("kb: warning: ")]}
    # a Chinese status says where queries are answered from, not `kb sync` alone
    zh = CliRunner().invoke(main, ["status", "--to", str(dev)], env={
        "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "zh_CN.UTF-8"})
    assert zh.exit_code == 4
    assert f"  问题：index/store.sqlite：索引没有通过自检；设备不可写入，查询改由在 {copy} 生成的副本" \
        "回答（在设备可写入的地方运行 `kb sync` 会就地重新生成索引）\n" in zh.stdout, zh.stdout
    read_only.clear()  # a device kb can write is refused, saying `kb sync` derives it
    code, _, err = cited("--index", str(dev))
    assert code == 1 and "`kb sync` derives index/ again from it" in err, err
    zh = CliRunner().invoke(main, ["status", "--to", str(dev)], env={
        "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": "zh_CN.UTF-8"})
    assert zh.exit_code == 1 and "（`kb sync` 会从 data/ 重新生成它）" in zh.stdout
    # an idle copy (no process serves it) is kept while the read-only device's index/
    # stays damaged: it was pruned, and derived again by the next open; once whole, it goes
    read_only.add(dev.resolve())
    let_go()
    assert copy.name not in readonly.prune_copies() and copy.is_dir()
    with store.open("r+b") as fh:
        fh.truncate(size)
    assert copy.name in readonly.prune_copies() and not copy.exists()


def test_a_prune_hashes_only_the_index_files_changed_since_they_were_hashed(
        device, tmp_path, read_only, monkeypatch):
    """Whether a copy is still needed (every prune, every `kb status`) hashed the whole
    index/ of each read-only device a copy serves. It now hashes only the files whose stat
    signature changed since they were found as recorded, with the hashes an open leaves
    (`kbtools.ship.hashed`): the damaged file alone, until it is whole again."""
    for module in (intact, readonly):
        monkeypatch.setattr(module, "RACY_NS", 0)
    monkeypatch.setattr(readonly, "_DAMAGED", {})
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    damaged = (dev / "current").resolve() / "index" / "bm25" / "kb_vocab.json"
    kept = damaged.read_bytes()
    damaged.write_bytes(kept + b" ")
    read_only.add(dev.resolve())
    assert cited("--index", str(dev))[0] == 0  # an open hashed index/: a copy serves
    let_go()
    seen: list[str] = []
    real = hashed.file_problem

    def counted(root: Path, rel: str, *rest: object) -> object:
        seen.append(rel)
        return real(root, rel, *rest)  # type: ignore[arg-type]

    for module in (hashed, selfcheck):  # (where index/ is hashed now, and was)
        monkeypatch.setattr(module, "file_problem", counted)
    for _ in range(2):
        seen.clear()
        assert readonly.copies_report()["unneeded"] == 0  # type: ignore[index]
        assert seen == ["index/bm25/kb_vocab.json"]
    damaged.write_bytes(kept)
    seen.clear()
    assert readonly.copies_report()["unneeded"] == 1  # type: ignore[index]
    assert seen == ["index/bm25/kb_vocab.json"]
    seen.clear()
    assert readonly.copies_report()["unneeded"] == 1 and seen == []  # type: ignore[index]


def test_a_read_only_device_and_kb_home_refuse_in_one_line(device, tmp_path, read_only,
                                                           monkeypatch):
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    (tmp_path / "home").write_text("a file, not a directory")
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    code, _, err = cited("--index", str(dev))
    assert code == 1 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert err.strip() == (
        f"kb: error: {dev}: the device cannot be written and the index of kb-r1 there is not "
        f"this kbtools' ({OLDER}); no copy could be derived under {tmp_path / 'home'}/derived "
        f"either ({tmp_path / 'home'}/derived: Not a directory): make the device writable "
        "and run `kb sync`, or set KB_HOME to a writable directory")
    res = CliRunner().invoke(main, ["status", "--to", str(dev)])  # no copy answers: refused
    assert res.exit_code == 1 and res.stderr.strip() == (
        f"kb: error: {dev}: the served release kb-r1 fails verification: {OLDER}; `kb sync` "
        "derives a damaged index again, `kb rollback` serves another release")
    # a Chinese page says the refusal in Chinese, and a Chinese locale the warning
    with pytest.raises(IndexLoadError) as refused:
        readonly.served_copy(dev / "current")
    assert error_zh(refused.value) == (
        f"设备不可写入，其中 kb-r1 的索引不是本 kbtools 生成的（{OLDER}）；在 {tmp_path / 'home'}"
        f"/derived 下也无法生成副本（{tmp_path / 'home'}/derived: Not a directory）：请让设备可"
        "写入并运行 `kb sync`，或把 KB_HOME 设为可写入的目录")
    monkeypatch.setenv("KB_HOME", str(tmp_path / "writable"))
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    code, _, err = cited("--index", str(dev))
    [copy] = readonly._copies(tmp_path / "writable" / "derived")
    assert code == 0 and err.strip() == (
        f"kb: warning: {dev}：设备不可写入，其中 kb-r1 的索引不是本 kbtools 生成的（{OLDER}）：改用在 "
        f"{copy} 生成的副本提供服务；在设备可写入的地方运行 `kb sync` 会就地重新生成索引")


def test_a_real_read_only_mount(device, tmp_path):
    """The same through a real read-only bind mount (a mount namespace of its own)."""
    if shutil.which("unshare") is None or not can_mount_read_only(tmp_path):
        pytest.skip("no unprivileged mount namespaces here")
    dev = older_device(device, tmp_path)
    before = snapshot(dev)
    script = (f"mount --bind {dev} {dev} && mount -o remount,bind,ro {dev} && "
              f"exec {sys.executable} -m kbtools query --index {dev} '{QUESTION}'")
    env = {**os.environ, "KB_HOME": str(tmp_path / "home")}
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "release kb-r1" in proc.stdout
    assert proc.stderr.startswith(f"kb: warning: {dev}: the device cannot be written")
    assert snapshot(dev) == before


@pytest.mark.parametrize("key", ["derivation", "tokenizer"])
def test_an_index_derived_by_other_rules_than_the_tokens_version(device, tmp_path, read_only,
                                                                 key):
    """The trigger followed the tokenizer version only: an index/ derived by another
    derivation (store or BM25 files made otherwise) or cut by another jieba, PyStemmer or
    OpenCC was served as this kbtools' own. A read-only device now serves a copy, a
    writable one is derived again by `kb sync`."""
    libs = tokenizer_libs(readonly.stored_infos(device.dev / "current" / "index" /
                                                 "store.sqlite")["tokenizer"].split("==")[0])
    older = libs.replace("pystemmer==", "pystemmer==0.")
    value, why = {"derivation": ("0", "index/ was derived by the rules of kbtools derivation "
                                      f"0, this kb derives {DERIVATION}"),
                  "tokenizer": (older, f"index/ holds BM25 terms cut by {older}, this kb cuts "
                                       f"with {libs}")}[key]
    expected = cited("--index", str(device.dev))
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    con = sqlite3.connect(ReleaseLayout(dev / "releases" / "kb-r1").store)
    with con:
        con.execute("INSERT OR REPLACE INTO info VALUES (?, ?)", (key, value))
    con.close()
    read_only.add(dev.resolve())
    code, ids, err = cited("--index", str(dev))
    assert code == 0 and ids == expected[1], err
    assert f"there is not this kbtools' ({why}): serving a copy derived in" in err
    read_only.clear()
    code, _, err = cited("--index", str(dev))
    assert code == 1 and err.strip() == (f"kb: error: {dev}/releases/kb-r1: {why}; run `kb "
                                         "sync` to re-derive it or `kb rollback`")
    res = CliRunner().invoke(main, ["sync", "--to", str(dev)])
    assert res.exit_code == 0, res.output
    assert f"it failed its check ({why})" in res.output
    assert cited("--index", str(dev))[:2] == (0, expected[1])
    info = dict(sqlite3.connect(ReleaseLayout(dev / "releases" / "kb-r1").store).execute(
        "SELECT key, value FROM info"))
    assert (info["derivation"], info["tokenizer"]) == (DERIVATION, libs)


def let_go() -> None:
    """This process serves no copy any more (as if it had exited)."""
    for fd in readonly._HELD.values():
        os.close(fd)
    readonly._HELD.clear()


def test_copies_are_pruned_once_no_device_needs_them_never_while_served(device, tmp_path,
                                                                       read_only):
    """A copy stayed under KB_HOME until another copy was made, whatever became of its
    device (made writable and synced, or gone): a small device's disk filled. It is now
    removed by the next sync or query once no device needs it and no process serves it,
    and `kb status` says what the copies hold."""
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    assert cited("--index", str(dev))[0] == 0
    home = Path(os.environ["KB_HOME"]) / "derived"
    [copy] = readonly._copies(home)
    report = readonly.copies_report()
    assert report is not None and report["copies"] == 1 and report["unneeded"] == 0
    assert report["bytes"] == device_dir_size(copy) > 0
    res = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert (f"index copies for read-only devices: 1 in {home}, {report['bytes']} bytes\n"
            in res.stdout)
    # the device is made writable: its copy is needed no more, but this process serves it
    read_only.clear()
    assert readonly.prune_copies() == [] and copy.is_dir()
    let_go()
    # ... and another process serves it (a kb serve, a kb mcp): held until it exits
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY);"
         " fcntl.flock(fd, fcntl.LOCK_SH); print('held', flush=True); sys.stdin.read()",
         str(copy / readonly.USE_LOCK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert readonly.prune_copies() == [] and copy.is_dir()
        assert readonly.copies_report() == {**report, "unneeded": 0}
    finally:
        holder.kill()
        holder.wait()
    assert readonly.copies_report() == {**report, "unneeded": 1}
    res = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert "(1 no longer needed: the next sync or query removes them)" in res.stdout
    res = CliRunner().invoke(main, ["sync", "--to", str(dev)])
    assert res.exit_code == 0, res.output
    assert not copy.exists() and readonly.copies_report() is None
    assert [p.name for p in home.iterdir()] == [".lock"]


def test_a_copy_of_a_device_gone_is_pruned_and_nothing_outside_derived(device, tmp_path,
                                                                       read_only):
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    assert cited("--index", str(dev))[0] == 0
    home = Path(os.environ["KB_HOME"]) / "derived"
    [copy] = readonly._copies(home)
    let_go()
    # a link named as a copy, leading outside: neither followed nor removed with its target
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    (home / ("f" * 64)).symlink_to(outside, target_is_directory=True)
    assert readonly.prune_copies() == []  # the read-only device still needs its copy
    shutil.rmtree(dev)  # the device is gone
    assert readonly.prune_copies() == [copy.name] and not copy.exists()
    assert (outside / "keep.txt").read_text() == "mine" and (home / ("f" * 64)).is_symlink()
    # derived/ itself a link: nothing pruned through it
    victim = tmp_path / "victim"
    (victim / ("e" * 64)).mkdir(parents=True)
    shutil.rmtree(home)
    home.symlink_to(victim, target_is_directory=True)
    assert readonly.prune_copies() == [] and (victim / ("e" * 64)).is_dir()


def test_a_copy_whose_in_use_lock_cannot_be_made_is_served_without_it(device, tmp_path,
                                                                      read_only, monkeypatch):
    """KB_HOME out of inodes or space: the `.in-use` lock file of a good copy could not be
    created, and the query failed "no copy could be derived" though the copy was fine. It
    is served without being held (a warning on stderr), once a process."""
    expected = cited("--index", str(device.dev))
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    assert cited("--index", str(dev))[0] == 0  # the copy is derived (and held)
    home = Path(os.environ["KB_HOME"]) / "derived"
    [copy] = [p for p in home.iterdir() if not p.name.startswith(".")]
    for fd in readonly._HELD.values():  # a new process
        os.close(fd)
    monkeypatch.setattr(readonly, "_HELD", {})
    monkeypatch.setattr(readonly, "_SAID", set())
    (copy / readonly.USE_LOCK).unlink()
    real_open = os.open

    def full(path, flags, *args, **kwargs):  # no inode left for a new lock file
        if Path(path).name == readonly.USE_LOCK and flags & os.O_CREAT:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(readonly.os, "open", full)
    code, ids, err = cited("--index", str(dev))
    assert code == 0, err
    assert ids == expected[1]
    lines = err.strip().splitlines()
    assert len(lines) == 2 and f"serving a copy derived in {copy}" in lines[1]
    assert lines[0] == (f"kb: warning: {copy / readonly.USE_LOCK}: cannot mark the copy in "
                        "use (No space left on device); serving it without (another process "
                        "may prune it once no device needs it)")
    code, again, err = cited("--index", str(dev))  # said once a process
    assert (code, again, err) == (0, ids, "")
    assert not (copy / readonly.USE_LOCK).exists()


def test_publish_of_a_read_only_device_publishes_the_copy_its_readers_serve(
        device, tmp_path, read_only, milvus):  # noqa: F811
    """`kb publish --index DEVICE` refused such a device (its index/ is not this kbtools'),
    though `kb query` served it: it publishes the copy the readers serve, the release's
    files and signature checked on the device, and writes nothing there."""
    dev = older_device(device, tmp_path)
    read_only.add(dev.resolve())
    before = snapshot(dev)
    expected = cited("--index", str(dev))
    assert expected[0] == 0 and expected[1]
    url = milvus.url("readonly_device")
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(dev), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["tag"] == "kb-r1"
    code, ids, err = cited("--engine", url)
    assert code == 0, err
    assert ids == expected[1]  # what the device's readers answer
    assert snapshot(dev) == before


def test_read_release_of_a_read_only_device_finds_the_releases_it_keeps(tmp_path, read_only,
                                                                         monkeypatch):
    """A read-only device served from a copy under KB_HOME: `kb read --release kb-r1`
    (the device named by $KB_INDEX, as a service sets it, or by MCP) looked for earlier
    releases beside the copy, found none, and gave the served release's text as "gone";
    the device keeps kb-r1 in its releases/. Found there now (itself served from a copy
    when its index is stale too), and nothing is written into the device."""
    d = make_device(tmp_path / "made")
    second_release(d)
    dev = tmp_path / "device"
    shutil.copytree(d.dev, dev, symlinks=True)
    for tag in ("kb-r1", "kb-r2"):  # both derived by an older kbtools
        con = sqlite3.connect(ReleaseLayout(dev / "releases" / tag).store)
        with con:
            con.execute("DELETE FROM info WHERE key = 'tokens'")
        con.close()
    read_only.add(dev.resolve())
    before = snapshot(dev)
    monkeypatch.setenv("KB_INDEX", str(dev))
    res = CliRunner().invoke(main, ["read", EDITED, "--release", "kb-r1", "--json"])
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert "release_gone" not in out, out.get("release_gone")
    assert out["release"]["tag"] == "kb-r1" and out["served_release"]["tag"] == "kb-r2"
    assert "扬花期前三天开始巡查" not in out["markdown"]  # kb-r1's text, before the edit
    res = CliRunner().invoke(main, ["read", EDITED, "--release", "kb-r2", "--json"])
    assert res.exit_code == 0 and "扬花期前三天开始巡查" in json.loads(res.stdout)["markdown"]
    assert snapshot(dev) == before
