"""A `kb sync` or `kb rollback` stopped half-way (Ctrl-C, or SIGTERM from a service manager)
says in one line which release serves and what to run next; a rollback never serves a
release signed by a key the device no longer trusts.

Real artifacts repositories (tests/test_release_helpers.py: releases of small sample files,
signed where a key is given), a real `git daemon` behind a loopback proxy that stalls a
fetch, and a real `kb sync` process sent SIGTERM while git is fetching.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import GitDaemon, Proxy, make_dist, make_knowledge_repo, sample_files

import kbtools
from kbtools.cli import main
from kbtools.index.layout import UNFINISHED
from kbtools.ship import device as dev
from kbtools.ship import devicelock, install, operate
from kbtools.ship import sync as sync_module
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen

REPO = Path(kbtools.__file__).resolve().parent.parent


class Pub:
    """A knowledge repo publishing releases of sample files to a bare artifacts repo."""

    def __init__(self, tmp: Path):
        self.kr = make_knowledge_repo(tmp / "kr")
        self.art = tmp / "art.git"
        subprocess.run(["git", "init", "-q", "--bare", str(self.art)], check=True)
        self.tmp, self.n = tmp, 0

    def release(self, sign_key: Path | None = None, next_keys: tuple[Path, ...] = (),
                extra: dict[str, bytes] | None = None) -> str:
        self.n += 1
        files = {**sample_files(self.n), **(extra or {})}
        dist = make_dist(self.tmp / "dist", files, commit=f"src{self.n}")
        more = {"next_keys": next_keys} if next_keys else {}
        return make_release(self.kr, dist, remote=str(self.art), sign_key=sign_key,
                            **more).tag


def kb(*args: object) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def rollback_log(device: Path) -> list[dict]:
    log = device / "rollback.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [json.loads(line) for line in lines]


def stop_at(monkeypatch, module: object, name: str, *, call: int = 1, after: bool = False
            ) -> None:
    """Ctrl-C (KeyboardInterrupt) at the `call`-th call of `module.name`: before it runs,
    or with `after` once it has; every other call runs it."""
    real, calls = getattr(module, name), []

    def stopped(*args: object, **kwargs: object) -> object:
        calls.append(args)
        if len(calls) == call and not after:
            raise KeyboardInterrupt
        result = real(*args, **kwargs)
        if len(calls) == call:
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(module, name, stopped)


def sync_stopped_at(monkeypatch, module: object, name: str, pub: Pub, device: Path) -> None:
    """`kb sync` of `pub`'s artifacts to `device` stopped by Ctrl-C at `module.name` (exit
    130); the patches undone after, for the next sync."""
    stop_at(monkeypatch, module, name)
    assert kb("sync", pub.art, "--to", device)[0] == 130
    monkeypatch.undo()


def processes_naming(text: str) -> list[str]:
    """Command lines of the running processes that name `text` (a git left fetching)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if text in cmd:
                found.append(cmd)
    return found


# ------------------------------------------------------------------ interrupted sync


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc")
def test_a_sync_sent_sigterm_mid_fetch_says_what_serves(tmp_path):
    """SIGTERM used to kill `kb sync` without a word (and Ctrl-C said only "interrupted"),
    leaving its git fetch running on in the device's repository; now git is stopped with
    it, and one line says the served release is unchanged and to run `kb sync` again."""
    pub = Pub(tmp_path)
    pub.release(extra={f"blob/{i}.bin": os.urandom(20_000) for i in range(15)})
    daemon = GitDaemon(tmp_path)
    proxy = Proxy(daemon.port)
    device = tmp_path / "dev"
    try:
        assert kb("sync", proxy.url("art.git"), "--to", device)[0] == 0
        pub.release(extra={f"blob/{i}.bin": os.urandom(20_000) for i in range(40)})
        # past three sideband packets (65,520 bytes each at most): git hands a packet's data
        # on only whole, so a stall inside the first one left no pack data on disk to wait for
        proxy.mode, proxy.after = "stall", 300_000
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        proc = subprocess.Popen([sys.executable, "-m", "kbtools", "sync", proxy.url("art.git"),
                                 "--to", str(device)], env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        pack = device / "repo.git" / "objects" / "pack"
        # the point controlled: the proxy holds the transfer once part of the pack arrived
        while not any(p.name.startswith("tmp_") and p.stat().st_size > 0
                      for p in pack.iterdir()) and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130, err
        assert err == ("kb: interrupted: kb-r1 still serves (unchanged); run `kb sync` "
                       "again to finish\n")
        assert out == "" and dev.served_tag(device) == "kb-r1"
        assert processes_naming(str(device / "repo.git")) == []  # no git fetching on
        st = json.loads((device / "state.json").read_text())["last_sync"]
        assert st["ok"] is False and st["error"].startswith("interrupted: kb-r1 still serves")
        proxy.mode = "pass"
        code, _, err = kb("sync", proxy.url("art.git"), "--to", device)
        assert code == 0 and dev.served_tag(device) == "kb-r2", err
    finally:
        proxy.close()
        daemon.stop()


@pytest.fixture
def one(tmp_path) -> tuple[Pub, Path]:
    """kb-r1 synced, kb-r2 published at the source."""
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release()
    assert kb("sync", pub.art, "--to", device)[0] == 0
    pub.release()
    return pub, device


def test_a_sync_interrupted_after_its_switch_says_it_completed(one, monkeypatch):
    pub, device = one
    stop_at(monkeypatch, dev, "prune")  # Ctrl-C after the switch, while releases are pruned
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 130 and out == ""
    assert err == ("kb: interrupted: the switch completed: kb-r2 serves now (was kb-r1); "
                   "run `kb sync` again to prune old releases\n")
    assert dev.served_tag(device) == "kb-r2"
    monkeypatch.undo()
    assert kb("sync", pub.art, "--to", device)[1] == "up to date: serving kb-r2\n"


def test_a_sync_interrupted_after_its_switch_then_rolled_back_is_said_in_the_past(
        one, monkeypatch):
    """Ctrl-C after the switch to kb-r2 ("kb-r2 serves now"), then `kb rollback` to kb-r1:
    `kb status` quoted "kb-r2 serves now" as the last sync while kb-r1 served (the rewrite
    of a failure's words knew "still serves" alone). The record keeps the words in parts
    and says them in the past, with what serves now and since which rollback."""
    pub, device = one
    sync_stopped_at(monkeypatch, dev, "prune", pub, device)
    assert kb("rollback", "kb-r1", "--to", device)[0] == 0
    code, out, _ = kb("status", "--to", device, "--json")
    last = json.loads(out)["last_sync"]
    assert last["error"] == ("interrupted: the switch completed: kb-r2 served (was kb-r1); "
                             "run `kb sync` again to prune old releases"), last
    assert last["statement"]["served_then"] == "kb-r2", last
    assert last["statement"]["serves_now"] == "kb-r1", last
    assert last["since"].startswith("kb-r1 serves since `kb rollback` at "), last
    code, out, _ = kb("status", "--to", device)
    assert "serves now" not in out and ": FAILED: interrupted: the switch completed: kb-r2 " \
        "served (was kb-r1)" in out, out


def test_a_first_sync_interrupted_says_nothing_is_served(tmp_path, monkeypatch):
    pub = Pub(tmp_path)
    pub.release()
    stop_at(monkeypatch, dev, "switch_to")
    code, _, err = kb("sync", pub.art, "--to", tmp_path / "dev")
    assert code == 130 and err == ("kb: interrupted: no release is served yet; run `kb sync` "
                                   "again to finish\n")


def leftovers(device: Path) -> list[str]:
    return sorted(p.name for p in (device / "releases").iterdir()
                  if p.name.endswith(".staging") or p.name.startswith("."))


def test_a_sync_interrupted_while_it_installs_leaves_nothing_behind(one, monkeypatch):
    """Ctrl-C (or SIGTERM) while the new release was staged used to leave its
    releases/<tag>.staging (up to a release's size) until the next sync."""
    pub, device = one
    stop_at(monkeypatch, install, "derive_index")
    code, _, err = kb("sync", pub.art, "--to", device)
    assert code == 130 and err == ("kb: interrupted: kb-r1 still serves (unchanged); run "
                                   "`kb sync` again to finish\n")
    assert leftovers(device) == [] and dev.served_tag(device) == "kb-r1"


def test_what_a_killed_sync_left_is_no_release_and_the_next_sync_removes_it(one,
                                                                          monkeypatch):
    """A sync killed outright (kill -9, a power cut) while it staged kb-r2 leaves
    releases/kb-r2.staging: `kb diff` used to compare it as release kb-r2, `kb query
    --index` to open it as a release ("index file missing … re-sync") and `kb status --to`
    to call it a build output. Each now says what it is; the next sync removes it."""
    pub, device = one
    stop_at(monkeypatch, install, "derive_index")
    monkeypatch.setattr(dev, "clean_staging", lambda path: None)  # killed: no handler ran
    assert kb("sync", pub.art, "--to", device)[0] == 130
    monkeypatch.undo()
    staging = device / "releases" / "kb-r2.staging"
    assert leftovers(device) == ["kb-r2.staging"] and (staging / "manifest.json").is_file()
    for args in (["query", "--index", staging, "hello"], ["diff", staging, "--to", device],
                 ["status", "--to", staging], ["releases", "--to", staging]):
        code, out, err = kb(*args)
        assert (code, out, err) == (1, "", f"kb: error: {staging}: {UNFINISHED}\n"), args
    code, out, _ = kb("releases", "--to", device, "--json")
    assert [(r["tag"], r["local"]) for r in json.loads(out)] == [("kb-r2", False),
                                                                  ("kb-r1", True)]
    assert json.loads(kb("status", "--to", device, "--json")[1])["releases"] == 1
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and dev.served_tag(device) == "kb-r2" and leftovers(device) == [], err


@pytest.mark.parametrize("leftover", ["kb-r2.staging", ".kb-r1.deleting", ".hidden"])
def test_nothing_in_releases_that_is_no_release_is_taken_for_one_or_for_its_device(
        one, tmp_path, leftover):
    """A release a sync prunes is renamed to releases/.<tag>.deleting before it is removed
    (and stays so when the sync is killed then). `kb status`, `kb releases`, `kb log`, `kb
    trust` and `kb rollback --to` it used to act on its device (a rollback switched the
    served release), `kb sync --to` a staging directory made a new device inside it. Any
    staged or dot-named entry of releases/ is refused by every surface, in one line."""
    pub, device = one
    assert kb("sync", pub.art, "--to", device)[0] == 0  # kb-r2 serves, kb-r1 kept
    releases = device / "releases"
    if leftover == ".kb-r1.deleting":
        os.replace(releases / "kb-r1", releases / leftover)  # as `prune` renames it aside
    else:
        shutil.copytree(releases / "kb-r2", releases / leftover, symlinks=True)
    there = releases / leftover
    before = sorted(p.name for p in there.iterdir())
    for args in (["query", "--index", there, "hello"], ["status", "--index", there],
                 ["publish", "--engine", "milvus://127.0.0.1:9", "--index", there],
                 ["diff", there, "--to", device], ["status", "--to", there],
                 ["releases", "--to", there], ["log", "--to", there],
                 ["trust", "list", "--to", there], ["rollback", "--to", there],
                 ["sync", pub.art, "--to", there]):
        code, out, err = kb(*args)
        assert (code, out, err) == (1, "", f"kb: error: {there}: {UNFINISHED}\n"), args
    assert dev.served_tag(device) == "kb-r2" and rollback_log(device) == []
    assert sorted(p.name for p in there.iterdir()) == before  # no device made inside it
    code, out, _ = kb("releases", "--to", device, "--json")
    assert {r["tag"] for r in json.loads(out) if r["local"]} == \
        ({"kb-r2"} if leftover == ".kb-r1.deleting" else {"kb-r1", "kb-r2"})
    assert kb("sync", pub.art, "--to", device)[0] == 0 and leftovers(device) == []


def test_a_current_naming_what_is_no_release_serves_nothing(one):
    """`current` is only ever switched to a verified releases/<tag>; one naming a release
    being deleted (or staged) does not make it served."""
    pub, device = one
    doomed = device / "releases" / ".kb-r1.deleting"
    os.replace(device / "releases" / "kb-r1", doomed)
    (device / "current").unlink()
    os.symlink("releases/.kb-r1.deleting", device / "current")
    assert dev.served_release(device) is None
    code, out, err = kb("query", "--index", device, "hello")
    assert (code, out) == (1, "") and err == (f"kb: error: {device}: device directory has no "
                                              "served release yet (run `kb sync`)\n")


def test_a_sync_waiting_for_the_lock_leaves_the_holders_staging_alone(one, tmp_path):
    """The next sync removes leftovers only once it holds the device lock: never what the
    sync holding it is staging."""
    pub, device = one
    staging = device / "releases" / "kb-r2.staging"
    errors = tmp_path / "stderr"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with devicelock.locked(device, "kb sync (a test)"):
        (staging / "data").mkdir(parents=True)
        (staging / "data" / "half.bin").write_bytes(b"being exported")
        with errors.open("w") as fh:
            proc = subprocess.Popen([sys.executable, "-m", "kbtools", "sync", str(pub.art),
                                     "--to", str(device)], env=env, stdout=subprocess.DEVNULL,
                                    stderr=fh)
        deadline = time.monotonic() + 60
        while "waiting for" not in errors.read_text() and time.monotonic() < deadline:
            assert proc.poll() is None, errors.read_text()
            time.sleep(0.05)
        assert "held by kb sync (a test)" in errors.read_text()
        assert (staging / "data" / "half.bin").read_bytes() == b"being exported"
    assert proc.wait(timeout=120) == 0, errors.read_text()
    assert dev.served_tag(device) == "kb-r2" and leftovers(device) == []


# ------------------------------------------------------------------ interrupted rollback


@pytest.fixture
def two(tmp_path) -> tuple[Pub, Path]:
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    for _ in range(2):
        pub.release()
        assert kb("sync", pub.art, "--to", device)[0] == 0
    return pub, device


def test_a_rollback_interrupted_before_its_switch_says_to_run_it_again(two, monkeypatch):
    _, device = two
    stop_at(monkeypatch, operate, "switch_to")
    code, _, err = kb("rollback", "kb-r1", "--to", device)
    assert code == 130 and err == ("kb: interrupted: kb-r2 still serves (unchanged); run "
                                   "`kb rollback kb-r1` again to finish\n")
    assert dev.served_tag(device) == "kb-r2" and rollback_log(device) == []
    monkeypatch.undo()
    assert kb("rollback", "kb-r1", "--to", device)[1] == "serving kb-r1 (was kb-r2)\n"


def test_a_rollback_interrupted_after_its_switch_says_it_completed_and_logs_it(two,
                                                                             monkeypatch):
    _, device = two
    stop_at(monkeypatch, operate, "append_log")  # after the switch, before its line is written
    code, _, err = kb("rollback", "kb-r1", "--to", device)
    assert code == 130 and err == ("kb: interrupted: the switch completed: kb-r1 serves now "
                                   "(was kb-r2); nothing more to run\n")
    monkeypatch.undo()
    assert dev.served_tag(device) == "kb-r1"
    assert [(e["from"], e["to"]) for e in rollback_log(device)] == [("kb-r2", "kb-r1")]


# ------------------------------------------------------------------ rollback and trust


def test_a_rollback_to_a_release_of_a_key_the_operator_unpinned_is_refused(tmp_path):
    """`kb trust remove` of a key (revoked) used to leave every release it signed one
    `kb rollback` away from being served again, without a word."""
    a, a_pub, a_id = keygen(tmp_path / "keys" / "a")
    b, b_pub, b_id = keygen(tmp_path / "keys" / "b")
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release(sign_key=a)
    assert kb("sync", pub.art, "--to", device, "--trusted-key", a_pub)[0] == 0
    assert kb("trust", "add", b_pub, "--to", device)[0] == 0
    pub.release(sign_key=b)
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert kb("trust", "remove", a_id, "--to", device)[0] == 0
    code, out, err = kb("rollback", "kb-r1", "--to", device)
    assert code == 1 and out == ""
    assert err == (f"kb: error: {device}: kb-r1 is signed by key {a_id}, which is no longer "
                   f"pinned on this device (pinned: {b_id}): a sync would refuse it, so a "
                   "rollback does too; not switching (`kb trust add PUB` pins the key again "
                   "if it is to be trusted)\n")
    assert dev.served_tag(device) == "kb-r2" and rollback_log(device) == []
    assert kb("trust", "add", a_pub, "--to", device)[0] == 0  # the operator's decision
    assert kb("rollback", "kb-r1", "--to", device)[1] == "serving kb-r1 (was kb-r2)\n"


def test_a_rollback_across_a_key_rotation_is_refused(tmp_path):
    """A release signed by a key a rotation handed trust away from is one a sync refuses."""
    a, a_pub, a_id = keygen(tmp_path / "keys" / "a")
    b, b_pub, b_id = keygen(tmp_path / "keys" / "b")
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release(sign_key=a)
    assert kb("sync", pub.art, "--to", device, "--trusted-key", a_pub)[0] == 0
    pub.release(sign_key=a, next_keys=(b,))  # hands trust over to b (cosigned by it)
    pub.release(sign_key=b)
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert sorted(p.stem for p in (device / "trusted_keys").glob("*.pub")) == [b_id]
    code, _, err = kb("rollback", "kb-r1", "--to", device)
    assert code == 1 and f"kb-r1 is signed by key {a_id}, which is no longer pinned" in err
    assert len(err.splitlines()) == 1 and dev.served_tag(device) == "kb-r3"


def test_a_rollback_to_an_unsigned_release_once_keys_are_pinned_is_refused(tmp_path):
    a, a_pub, a_id = keygen(tmp_path / "keys" / "a")
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release()  # unsigned: taken while no key is pinned
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert kb("trust", "add", a_pub, "--to", device)[0] == 0
    pub.release(sign_key=a)
    assert kb("sync", pub.art, "--to", device)[0] == 0
    code, _, err = kb("rollback", "kb-r1", "--to", device)
    assert code == 1 and err.startswith(f"kb: error: {device}: kb-r1: release is not signed")
    assert err.rstrip().endswith("; not switching") and dev.served_tag(device) == "kb-r2"


@pytest.mark.parametrize("damage", ["edited", "file", "empty"])
def test_a_release_left_before_its_switch_is_checked_before_it_serves(one, monkeypatch,
                                                                     damage):
    """A sync stopped after installing kb-r2 and before its switch leaves releases/kb-r2; the
    next sync switched to it unchecked, so a file changed meanwhile (a power cut on an SD
    card, an edit) was served: every query refused the release, and kb-r1 no longer served.
    Its files are checked now; one that fails (or what is no release there) is installed
    again from the source, with a warning."""
    pub, device = one
    sync_stopped_at(monkeypatch, dev, "switch_to", pub, device)
    left = device / "releases" / "kb-r2"
    assert (left / "verified.json").is_file() and dev.served_tag(device) == "kb-r1"
    if damage == "edited":
        manifest = json.loads((left / "manifest.json").read_text(encoding="utf-8"))
        edited = left / sorted(manifest["artifacts"])[0]
        edited.write_bytes(edited.read_bytes()[:-1] + b"!")
        why = f"{edited.relative_to(left)}: sha256 mismatch"
    else:
        shutil.rmtree(left)
        left.mkdir() if damage == "empty" else left.write_text("x")
        why = "not a release directory" if damage == "file" else "no manifest.json"
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err
    [line] = err.splitlines()
    assert line.startswith("kb: warning: releases/kb-r2, already on the device (a sync stopped "
                           f"before its switch), failed its check ({why}") \
        and line.endswith("it was installed again from the source"), err
    code, out, err = kb("status", "--to", device)
    assert code == 0 and "serving kb-r2" in out and "files verified" in out, out + err
    zh = CliRunner().invoke(main, ["status", "--to", str(device)], env={
        "LANG": "zh_CN.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}).stdout
    why_zh = {"edited": f"{edited.relative_to(left) if damage == 'edited' else ''}：sha256 "
                        "与清单记录的不符（文件被改动过）",
              "file": "不是发布版本目录", "empty": "没有 manifest.json：不是 kb 索引"}[damage]
    assert f"  警告：releases/kb-r2 已在设备上（一次同步在切换之前中断），但没有通过检查（{why_zh}）；" \
        "已从来源重新安装" in zh.splitlines(), zh  # (its why said in Chinese too)
    assert leftovers(device) == []


def test_a_release_left_before_its_switch_that_is_intact_is_served_as_it_is(one, monkeypatch):
    pub, device = one
    sync_stopped_at(monkeypatch, dev, "switch_to", pub, device)
    store = device / "releases" / "kb-r2" / "verified.json"
    inode = store.stat().st_ino
    code, out, err = kb("sync", pub.art, "--to", device)
    assert (code, err) == (0, "") and out.startswith(
        "serving kb-r2 (was kb-r1); nothing fetched: its objects were kept from the attempt "
        "at "), out + err
    assert store.stat().st_ino == inode  # not installed or derived again


def test_a_sync_after_an_attempt_that_kept_the_fetched_objects_says_so(one, monkeypatch):
    """An attempt stopped after its fetch keeps the release's objects in repo.git; the next
    sync fetches nothing more and said "fetched 0 bytes", as if the release had come from
    nowhere. It says now that they were kept, and from the attempt at what time; --json
    has the time as `kept` (None for a release this sync fetched itself)."""
    pub, device = one
    stop_at(monkeypatch, sync_module, "_install")  # Ctrl-C once the fetch is done
    began = datetime.now(UTC).replace(microsecond=0)
    assert kb("sync", pub.art, "--to", device)[0] == 130
    ended = datetime.now(UTC)
    monkeypatch.undo()
    code, out, err = kb("sync", pub.art, "--to", device, "--json")
    res = json.loads(out)
    assert code == 0 and res["tag"] == "kb-r2" and res["fetched_bytes"] == 0, out + err
    assert began <= datetime.fromisoformat(res["kept"]) <= ended, res
    pub.release()  # the same, said in text
    sync_stopped_at(monkeypatch, sync_module, "_install", pub, device)
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and "fetched 0 bytes" not in out, out + err
    assert out.startswith("serving kb-r3 (was kb-r2); nothing fetched: its objects were kept "
                          "from the attempt at 20"), out
    pub.release()  # a release this sync fetches itself: its bytes, no `kept`
    code, out, err = kb("sync", pub.art, "--to", device, "--json")
    res = json.loads(out)
    assert code == 0 and res["kept"] is None and res["fetched_bytes"] > 0, out + err


def test_releases_stopped_while_it_asks_the_source_leaves_no_git_behind(one):
    """`kb releases` asks the last sync source what it offers; a source that never answers
    (a 4G link gone quiet) holds it up to git's limit, and a service manager or `timeout`
    stopping it with SIGTERM left that git (in a session of its own) running on. It goes
    with kb now, as for `kb sync`."""
    _pub, device = one
    quiet = socket.create_server(("127.0.0.1", 0))
    state = json.loads((device / "state.json").read_text(encoding="utf-8"))
    state["source"] = f"git://127.0.0.1:{quiet.getsockname()[1]}/art.git"
    (device / "state.json").write_text(json.dumps(state), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "releases", "--to", str(device)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        quiet.settimeout(60)
        conn, _ = quiet.accept()  # git is connected, waiting for an answer that never comes
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err.decode() == "kb: interrupted\n", err
        assert processes_naming(str(device / "repo.git")) == []
    finally:
        proc.kill()
        conn.close()
        quiet.close()
