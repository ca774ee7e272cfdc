"""A device whose verified data/ was edited after `kb sync`: `kb status` refused it, but
`kb query`, `kb serve` and `kb mcp` answered from the edited file as the verified release.
All of them now refuse it in the words of `kb status`; a file is hashed once per stat
signature, so an edit that keeps size and modification time is still seen (the change
time moves), also through the hashes remembered under KB_HOME by an earlier process."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from device_fixtures import EDITED, make_device, second_release
from starlette.testclient import TestClient
from test_release_helpers import git

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.cli import main
from kbtools.errors import IndexLoadError
from kbtools.index import manifest as manifest_module
from kbtools.index import stamps
from kbtools.serve import i18n
from kbtools.serve.app import create_app
from kbtools.ship import install, intact
from kbtools.ship.sync import sync

pytestmark = pytest.mark.slow
QUESTION = "小麦赤霉病 监测时间"


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return make_device(tmp_path_factory.mktemp("intact"))


@pytest.fixture
def dev(device, tmp_path, monkeypatch) -> Path:
    """A copy of the device, every file hashed counted as settled (no racy window)."""
    monkeypatch.setattr(intact, "RACY_NS", 0)
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)  # every open checks (a new process's way)
    monkeypatch.setattr(intact, "_GOOD", {})
    monkeypatch.setattr(intact, "_CLEAN", {})
    copy = tmp_path / "device"
    shutil.copytree(device.dev, copy, symlinks=True)
    return copy


def _query(*args: str):
    return CliRunner().invoke(main, ["query", "--json", *args, QUESTION])


def _tamper(dev: Path, release: Path | None = None) -> str:
    """Change one byte of the served release's (or `release`'s) copy of EDITED, keeping its
    size and modification time; the listed path changed."""
    release = (dev / "current").resolve() if release is None else release
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    [rel] = [r for r in manifest["artifacts"] if r.endswith(EDITED)]
    path = release / rel
    st = path.stat()
    data = bytearray(path.read_bytes())
    data[-2] = ord("X") if data[-2] != ord("X") else ord("Y")
    path.chmod(0o644)
    path.write_bytes(bytes(data))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return rel


def test_a_device_edited_after_sync_is_refused_as_status_refuses_it(dev):
    before = _query("--index", str(dev))
    assert before.exit_code == 0, before.output
    assert json.loads(before.stdout)["results"]
    assert list((Path(os.environ["KB_HOME"]) / intact.INTACT).iterdir())  # hashes kept
    rel = _tamper(dev)
    status = CliRunner().invoke(main, ["status", "--to", str(dev)])
    assert status.exit_code == 1 and rel in status.stderr
    for fresh in (False, True):  # this process, and a new one reading KB_HOME's hashes
        if fresh:
            intact._GOOD.clear()
        res = _query("--index", str(dev))
        assert res.exit_code == 1 and res.stdout == ""
        [line] = res.stderr.strip().splitlines()
        assert line == (f"kb: error: {dev}: the served release kb-r1 fails verification: "
                        f"{rel}: sha256 mismatch; it was changed after `kb sync` verified it:"
                        " `kb rollback` serves another release, `kb sync` one published "
                        "after it")
    with pytest.raises(IndexLoadError) as err:
        tool_search(Context(index=dev, query_log=False), QUESTION, 3)
    assert f"{rel}: sha256 mismatch" in err.value.message
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        resp = client.get("/api/search", params={"q": QUESTION})
        assert resp.status_code == 503
        assert f"{rel}: sha256 mismatch" in resp.json()["error"]["message"]


def test_a_chinese_page_says_the_release_was_edited_after_sync_in_chinese(dev):
    """The refusal of an edited release stood in English under the Chinese page's headline."""
    rel = _tamper(dev)
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": QUESTION, "lang": "zh"})
        assert zh.status_code == 503
        said = i18n.ERRORS["release_edited"].format(release="kb-r1")
        assert f'<span lang="zh-CN">{said}</span>' in zh.text
        assert f"{rel}: sha256 mismatch" in zh.text  # the English below, for the device's keeper
        en = client.get("/", params={"q": QUESTION, "lang": "en"})
        assert "fails verification" in en.text and said not in en.text
        api = client.get("/api/search", params={"q": QUESTION}).json()["error"]["message"]
        assert "fails verification" in api and said not in api


def test_an_intact_device_is_served_release_json_is_checked_too(dev):
    assert _query("--index", str(dev)).exit_code == 0
    assert _query("--index", str(dev)).exit_code == 0  # from the remembered hashes
    release = (dev / "current").resolve()
    (release / "release.json").write_text("{}", encoding="utf-8")  # not what sync verified
    res = _query("--index", str(dev))
    assert res.exit_code == 1 and "release.json: changed since it was verified" in res.stderr


def test_an_index_changed_after_sync_is_refused_by_every_open_and_its_data_kept(dev):
    """index/ is derived on the device, its bytes recorded in index/files.json; `kb status`
    and `kb sync` held it to that record, but `kb query`, `kb serve` and `kb mcp` answered
    from an index changed after (a page appended to its store, which its self-check never
    reads) until one of those ran. Every open now holds index/ to its record (a stat per
    file, its hash remembered as data/'s are): refused in one line saying `kb sync` derives
    it again from data/, which is not touched; the index as derived serves again."""
    assert _query("--index", str(dev)).exit_code == 0  # every file hashed and remembered
    store = (dev / "current").resolve() / "index" / "store.sqlite"
    kept = store.read_bytes()
    with store.open("ab") as fh:
        fh.write(bytes(4096))
    for fresh in (False, True):  # this process, and a new one reading KB_HOME's hashes
        if fresh:
            intact._GOOD.clear()
        res = _query("--index", str(dev))
        assert res.exit_code == 1 and res.stdout == "", res.output
        [line] = res.stderr.strip().splitlines()
        assert line == (f"kb: error: {dev}: the index of the served release kb-r1 differs "
                        f"from what `kb sync` derived: index/store.sqlite: size "
                        f"{len(kept) + 4096} != {len(kept)}; nothing is answered from it, and "
                        "its verified data/ is kept: `kb sync` derives index/ again from it")
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        zh = client.get("/", params={"q": QUESTION, "lang": "zh"})
        said = i18n.ERRORS["index_damaged"].format(release="kb-r1")
        assert zh.status_code == 503 and f'<span lang="zh-CN">{said}</span>' in zh.text
        assert client.get("/api/search", params={"q": QUESTION}).status_code == 503
    store.write_bytes(kept)
    assert _query("--index", str(dev)).exit_code == 0


def test_a_listed_file_removed_after_a_cached_check_is_refused(dev):
    assert _query("--index", str(dev)).exit_code == 0  # every file hashed and remembered
    release = (dev / "current").resolve()
    manifest = json.loads((release / "manifest.json").read_text(encoding="utf-8"))
    rel = sorted(manifest["artifacts"])[0]
    (release / rel).unlink()
    for _ in range(2):  # and again, once the other files' hashes are remembered without it
        res = _query("--index", str(dev))
        assert res.exit_code == 1 and f"fails verification: {rel}: missing" in res.stderr


def test_a_long_lived_server_checks_an_intact_release_again_only_after_a_while(dev, monkeypatch):
    """`kb serve` opens the release on every request: one found intact is not stat'ed file by
    file again until RECHECK_S have passed, then an edit is refused."""
    clock = [1000.0]
    monkeypatch.setattr(intact, "_clock", lambda: clock[0])
    monkeypatch.setattr(intact, "RECHECK_S", 5.0)
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        assert client.get("/api/search", params={"q": QUESTION}).status_code == 200
        rel = _tamper(dev)
        clock[0] += 4.0  # within the interval: the request is not delayed by a check
        assert client.get("/api/search", params={"q": QUESTION}).status_code == 200
        clock[0] += 2.0
        resp = client.get("/api/search", params={"q": QUESTION})
        assert resp.status_code == 503
        assert f"{rel}: sha256 mismatch" in resp.json()["error"]["message"]


def counting(monkeypatch, module: object) -> list[str]:
    """The files `module.file_problem` hashes from now on (intact's, or the manifest's that
    installs and rollbacks verify with)."""
    seen: list[str] = []
    real = module.file_problem  # type: ignore[attr-defined]

    def counted(root: Path, rel: str, size: int, sha256: str, *rest: object) -> str | None:
        seen.append(rel)
        return real(root, rel, size, sha256, *rest)  # type: ignore[no-any-return]

    monkeypatch.setattr(module, "file_problem", counted)
    return seen


@pytest.fixture
def hashes(monkeypatch) -> list[str]:
    """The data/ files the intact check hashes from now on, in a process that has opened
    nothing yet (what it knows comes from KB_HOME, as a new `kb query` process's does)."""
    seen = counting(monkeypatch, intact)
    monkeypatch.setattr(intact, "RECHECK_S", 0.0)
    return seen


def _new_process(monkeypatch) -> None:
    for name in ("_GOOD", "_CLEAN", "_MANIFESTS"):
        monkeypatch.setattr(intact, name, {})


def test_the_first_query_after_sync_or_rollback_hashes_no_data_file(tmp_path, monkeypatch,
                                                                     hashes):
    """`kb sync` (and `kb rollback`) hash every file to verify it: they leave what they
    verified under KB_HOME, so the next process's first question costs a stat per file.
    An edit right after the sync (within the same second, size and modification time kept)
    is still refused."""
    d = make_device(tmp_path)
    second_release(d)  # kb-r2, files hard-linked from kb-r1 where unchanged
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []
    assert CliRunner().invoke(main, ["rollback", "--to", str(d.dev)]).exit_code == 0
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []
    assert CliRunner().invoke(main, ["rollback", "kb-r2", "--to", str(d.dev)]).exit_code == 0
    rel = _tamper(d.dev)  # at once: within RACY_NS of the verification
    for _ in range(2):  # a new process, then one that remembers what it found
        _new_process(monkeypatch)
        res = _query("--index", str(d.dev))
        assert res.exit_code == 1 and f"kb-r2 fails verification: {rel}: sha256" in res.stderr
    assert hashes.count(rel) == 2


def test_a_sync_that_prunes_the_release_its_files_are_linked_from_leaves_them_hashed(
        tmp_path, monkeypatch, hashes):
    """Unchanged files of a new release are hard links to the previous one's: pruning that
    one changes their change time after the sync verified them; the sync hashes them again,
    not the next question."""
    d = make_device(tmp_path)
    doc = d.kr / EDITED
    doc.write_text(doc.read_text(encoding="utf-8") + "\n扬花期前三天开始巡查。\n",
                   encoding="utf-8")
    git(d.kr, "commit", "-qam", "one document edited")
    assert d.publish() == "kb-r2"
    sync(str(d.art), d.dev, trusted=[Path(f"{d.key}.pub")], keep=1)
    assert sorted(p.name for p in (d.dev / "releases").iterdir()) == ["kb-r2"]
    assert hashes  # the sync hashed again the files the prune changed
    hashes.clear()
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []


def _damage_index(dev: Path, release: Path | None = None) -> None:
    """Truncate the served release's (or `release`'s) store: its index/ fails its check, so
    a sync derives it again from data/ (hard-linking the data files, which changes their
    change time)."""
    store = ((dev / "current").resolve() if release is None else release) / "index" / "store.sqlite"
    with store.open("r+b") as fh:
        fh.truncate(4096)


def test_the_first_query_after_an_up_to_date_or_failed_sync_hashes_no_data_file(
        tmp_path, monkeypatch, hashes):
    """A sync with nothing newer to serve, and one that failed at its source, still check
    the served release and derive its index again when it fails its check: they leave what
    they verified under KB_HOME as a sync that switches does, so the next process's first
    question hashes nothing. An edit right after them is still refused."""
    d = make_device(tmp_path)
    shutil.rmtree(Path(os.environ["KB_HOME"]) / intact.INTACT)  # another user's KB_HOME
    code, out = d.sync()
    assert code == 0 and out.startswith("up to date: serving kb-r1"), out
    hashes.clear()
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []
    _damage_index(d.dev)
    code, out = d.sync()
    assert code == 0 and "re-derived the index of kb-r1" in out, out
    hashes.clear()
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []
    _damage_index(d.dev)
    code, out = d.kb("sync", str(tmp_path / "unreachable.git"), "--to", str(d.dev))
    assert code == 1 and "the index of the served kb-r1 was derived again" in out, out
    hashes.clear()
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []
    rel = _tamper(d.dev)  # at once: within RACY_NS of the verification
    _new_process(monkeypatch)
    res = _query("--index", str(d.dev))
    assert res.exit_code == 1 and f"kb-r1 fails verification: {rel}: sha256" in res.stderr
    assert hashes == [rel]


def test_a_sync_that_derives_the_index_again_hashes_each_data_file_once(
        tmp_path, monkeypatch, hashes):
    """A sync that finds the served index failing its check verifies data/ and derives the
    index again from it. It hashed every data file twice: `intact.vouch` hashed them again,
    as linking them to derive from had changed their change time. Once now, the next
    question hashes nothing, and a file changed after that hash (while the index is derived)
    is hashed again and refused."""
    d = make_device(tmp_path)
    release = (d.dev / "current").resolve()
    data = sorted(json.loads((release / "manifest.json").read_text(encoding="utf-8"))
                  ["artifacts"])
    verified = counting(monkeypatch, manifest_module)
    shutil.rmtree(Path(os.environ["KB_HOME"]) / intact.INTACT)  # nothing remembered
    _new_process(monkeypatch)
    _damage_index(d.dev)
    hashes.clear()
    code, out = d.sync()
    assert code == 0 and "re-derived the index of kb-r1" in out, out
    assert sorted(verified) == data  # verified before deriving from them
    assert hashes == []  # and not hashed again to vouch for them
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []

    tampered: list[str] = []
    derive = install.derive_index

    def edited_meanwhile(*args: Any, **kwargs: Any) -> str:
        tampered.append(_tamper(d.dev))  # after the hash, before the vouch
        return derive(*args, **kwargs)

    monkeypatch.setattr(install, "derive_index", edited_meanwhile)
    _damage_index(d.dev)
    verified.clear()
    code, out = d.sync()
    assert code == 0 and "re-derived the index of kb-r1" in out, out
    assert sorted(verified) == data and hashes == tampered  # hashed again, found edited
    _new_process(monkeypatch)
    res = _query("--index", str(d.dev))
    assert res.exit_code == 1
    assert f"kb-r1 fails verification: {tampered[0]}: sha256" in res.stderr


def test_a_rollback_that_derives_the_index_again_hashes_each_data_file_once(
        tmp_path, monkeypatch, hashes):
    """`kb rollback` verifies every file of the release it rolls back to; when that one's
    index/ fails its check it derives it again from data/, which hashed every data file a
    second time. Once now; a file changed between the verification and the derivation is
    hashed again and refused, and the served release stays."""
    d = make_device(tmp_path)
    second_release(d)
    old = d.dev / "releases" / "kb-r1"
    data = sorted(json.loads((old / "manifest.json").read_text(encoding="utf-8"))["artifacts"])
    verified = counting(monkeypatch, manifest_module)
    _damage_index(d.dev, old)
    code, out = d.kb("rollback", "kb-r1", "--to", str(d.dev))
    assert code == 0 and "re-derived the index of kb-r1" in out, out
    assert sorted(verified) == data  # by the rollback's check, not again to derive from them
    assert hashes == []  # nor to vouch for them
    _new_process(monkeypatch)
    assert _query("--index", str(d.dev)).exit_code == 0
    assert hashes == []

    assert d.kb("rollback", "kb-r2", "--to", str(d.dev))[0] == 0
    tampered: list[str] = []
    check = install.derived_problems

    def edited_meanwhile(*args: Any, **kwargs: Any) -> list[str]:
        tampered.append(_tamper(d.dev, old))  # after the rollback's check, before deriving
        return check(*args, **kwargs)

    monkeypatch.setattr(install, "derived_problems", edited_meanwhile)
    _damage_index(d.dev, old)
    verified.clear()
    code, out = d.kb("rollback", "kb-r1", "--to", str(d.dev))
    assert code == 1 and f"kb-r1 fails verification: {tampered[0]}: sha256 mismatch" in out, out
    assert sorted(verified) == sorted([*data, *tampered])  # the changed file hashed again
    assert (d.dev / "current").resolve().name == "kb-r2"


def _rewrite(release: Path) -> str:
    """Edit the release's copy of EDITED and list its new sha256 and size in manifest.json:
    every artifact then matches the manifest, and the manifest not the signed release.json."""
    mpath = release / "manifest.json"
    manifest = json.loads(mpath.read_text(encoding="utf-8"))
    [rel] = [r for r in manifest["artifacts"] if r.endswith(EDITED)]
    data = (release / rel).read_bytes() + "\n喷药剂量加倍。\n".encode()
    (release / rel).write_bytes(data)
    manifest["artifacts"][rel] |= {"sha256": hashlib.sha256(data).hexdigest(),
                                   "size": len(data)}
    mpath.write_text(json.dumps(manifest), encoding="utf-8")
    return rel


def test_a_manifest_rewritten_with_the_data_it_lists_is_no_verified_release(tmp_path):
    """manifest.json rewritten on the device to list an edited document: `kb status` said
    "files verified" and `kb rollback` served it (checked file by file against that
    manifest), though every query then refused it. Both check the manifest against the
    hash the signed release.json names, as a query does."""
    d = make_device(tmp_path)
    second_release(d)
    _rewrite(d.dev / "releases" / "kb-r2")
    res = CliRunner().invoke(main, ["status", "--to", str(d.dev)])
    assert res.exit_code == 1 and "files FAILS VERIFICATION" in res.stdout, res.output
    assert "problem: manifest.json: does not match the hash in release.json" in res.stdout
    _rewrite(d.dev / "releases" / "kb-r1")
    res = CliRunner().invoke(main, ["rollback", "kb-r1", "--to", str(d.dev)])
    assert res.exit_code == 1 and res.stdout == "", res.output
    assert res.stderr == (f"kb: error: {d.dev}: kb-r1 no longer verifies: manifest.json: "
                          "does not match the hash in release.json; not switching\n")
    assert (d.dev / "current").resolve().name == "kb-r2"
    assert not (d.dev / "rollback.log").exists()


def test_a_rollback_writes_back_an_edited_release_json_from_its_commit(tmp_path):
    """release.json of kb-r1 edited on the device (a reformat): the rollback refused it as
    a bad signature, and no `kb sync` restored it (an up-to-date sync restores only the
    served release's). It is written back from the release commit, as that sync does."""
    d = make_device(tmp_path)
    second_release(d)
    rel_json = d.dev / "releases" / "kb-r1" / "release.json"
    signed = rel_json.read_bytes()
    rel_json.write_text(json.dumps(json.loads(signed), indent=4), encoding="utf-8")
    res = CliRunner().invoke(main, ["rollback", "kb-r1", "--to", str(d.dev)])
    assert res.exit_code == 0 and res.stdout == "serving kb-r1 (was kb-r2)\n", res.output
    assert rel_json.read_bytes() == signed
    res = CliRunner().invoke(main, ["status", "--to", str(d.dev)])
    assert res.exit_code == 0 and "files verified" in res.stdout, res.output


DAY_NS = 86_400 * 10**9


@pytest.mark.parametrize("set_back", [DAY_NS, 400 * DAY_NS])
def test_a_device_whose_clock_was_set_back_hashes_its_release_once(dev, monkeypatch, hashes,
                                                                   set_back):
    """A device whose clock was set back after its sync (a dead RTC battery, no network to
    set it) has every file stamped "in the future": each was taken as changed within the
    racy window and never remembered, so every open of the results page (each RECHECK_S
    of a server) hashed the whole release again. It is hashed once (what sync left is
    gone: a server with its own KB_HOME), then stat'ed; an edit is still refused."""
    monkeypatch.setattr(intact, "RACY_NS", 1_000_000_000)  # the shipped window
    monkeypatch.setattr(intact, "_wall_ns", lambda: time.time_ns() - set_back)
    shutil.rmtree(Path(os.environ["KB_HOME"]) / intact.INTACT, ignore_errors=True)
    _new_process(monkeypatch)
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        assert client.get("/", params={"q": QUESTION}).status_code == 200
        first = len(hashes)
        assert first > 10  # every data/ file, once
        for _ in range(3):
            assert client.get("/", params={"q": QUESTION}).status_code == 200
        assert len(hashes) == first  # stat'ed, not hashed again
        rel = _tamper(dev)
        resp = client.get("/api/search", params={"q": QUESTION})
        assert resp.status_code == 503 and f"{rel}: sha256 mismatch" in resp.text
    _new_process(monkeypatch)  # the next process reads them from KB_HOME: not hashed again
    del hashes[:]
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        assert client.get("/api/search", params={"q": QUESTION}).status_code == 503
    assert hashes == [rel]


def test_a_file_stamped_ahead_of_the_clock_is_remembered_one_within_a_tick_is_not():
    sig = (1, 2, 3, 10 * DAY_NS, 10 * DAY_NS)
    now = 5 * DAY_NS
    assert stamps.settled_at(sig, now, 10**9)  # stamped by a clock ahead of this one
    assert stamps.settled_at(sig, 20 * DAY_NS, 10**9)  # before now
    assert not stamps.settled_at(sig, 10 * DAY_NS + 10**8, 10**9)  # within a tick of now
    ahead_mtime = (1, 2, 3, 30 * DAY_NS, 10 * DAY_NS - 10**8)  # its change time: now
    assert not stamps.settled_at(ahead_mtime, 10 * DAY_NS, 10**9)
    assert not stamps.settled_at(stamps.MISSING, now, 10**9)


def test_an_earlier_release_edited_after_sync_is_not_called_the_served_one(tmp_path):
    """`kb query --release kb-r1` on a device serving kb-r2, whose kept kb-r1 was edited
    after sync, was refused as "the served release kb-r1 fails verification … `kb rollback`
    serves another release": kb-r1 is not served, and a rollback to it is refused too. The
    line says which release it is and what answers instead: the served one, or the git
    clone of the source that serves kb-r1 (which answers, as the test runs it)."""
    d = make_device(tmp_path)
    second_release(d)
    rel = _tamper(d.dev, d.dev / "releases" / "kb-r1")
    res = _query("--release", "kb-r1", "--index", str(d.dev))
    assert res.exit_code == 1 and len(res.output.splitlines()) == 1, res.output
    assert res.output.startswith(
        f"kb: error: {d.dev}: release kb-r1, kept on this device, fails verification: {rel}: "
        "sha256 mismatch; it was changed after `kb sync` verified it: ask without --release "
        "(the served kb-r2); kb-r1 is a tag of the source still, which a git clone serves "
        f"(`git clone {d.art} DIR && git -C DIR checkout kb-r1`)"), res.output
    assert json.loads(_query("--index", str(d.dev)).stdout)["release"]["tag"] == "kb-r2"
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(d.art), str(clone))
    git(clone, "checkout", "-q", "kb-r1")
    answered = _query("--index", str(clone))
    assert answered.exit_code == 0, answered.output
    assert json.loads(answered.stdout)["release"]["tag"] == "kb-r1"
