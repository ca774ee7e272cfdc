"""A field device on a patchy link: `kb releases` against a source that never answers,
`kb status` of a device whose served release is gone, release tags that are not canonical,
syncs killed at each stage.

Real devices synced from real artifacts repositories (`device_fixtures`), real listeners on
loopback, real `kb` processes killed with SIGKILL.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import Device, copy_of, kb, make_device
from hypothesis import given, settings
from hypothesis import strategies as st
from test_release_helpers import Pub

from kbtools.cli import main
from kbtools.ship import git as shipgit
from kbtools.ship import gitrun, operate

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> Device:
    return make_device(tmp_path_factory.mktemp("field"))


def set_source(device_dir: Path, source: str) -> None:
    state_file = device_dir / "state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    state["source"] = source
    state_file.write_text(json.dumps(state), encoding="utf-8")


# ------------------------------------------------------- 1: `kb releases`, a silent source


@pytest.mark.parametrize("scheme", ["git", "http"])
def test_releases_gives_up_on_a_silent_source_within_its_timeout(device, tmp_path, scheme):
    """A source that accepts the connection and never answers held `kb releases` for
    `kb sync`'s listing limit (4 minutes); it waits --timeout seconds, lists the device's
    releases and says in one line which source did not answer and what to run instead."""
    d = copy_of(device, tmp_path)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)  # the kernel accepts connections; nothing ever answers
        url = f"{scheme}://127.0.0.1:{listener.getsockname()[1]}/art.git"
        set_source(d.dev, url)
        t0 = time.monotonic()
        code, out, err = kb("releases", "--to", d.dev, "--timeout", 2)
        took = time.monotonic() - t0
    assert took < 15, took
    assert code == 0 and "kb-r1" in out and "local" in out, out + err
    [line] = err.splitlines()
    assert line.startswith(f"kb: warning: remote releases not listed: {url}: git ls-remote "
                           "failed: no answer within 2 s"), line
    assert "`kb releases --local`" in line and "--timeout" in line, line


def test_releases_waits_less_for_its_source_than_sync_does():
    assert operate.RELEASES_TIMEOUT < (gitrun.NETWORK_TIMEOUT["ls-remote"] or 0)
    code, out, _ = kb("releases", "--help")
    assert code == 0 and f"[default: {operate.RELEASES_TIMEOUT};" in " ".join(out.split())


def test_releases_timeout_must_be_positive(device, tmp_path):
    code, _, err = kb("releases", "--to", device.dev, "--timeout", 0)
    assert code == 2 and "--timeout" in err


# ------------------------------------------------ 2: `kb status`, the served release gone


def test_status_of_a_device_whose_served_release_was_deleted(device, tmp_path):
    """`current` naming a release directory that was deleted read as "serving nothing yet"
    (exit 0): the device answers no question, and status says why and what to run."""
    d = copy_of(device, tmp_path)
    shutil.rmtree(d.dev / "releases" / "kb-r1")
    for args in (["status", "--to", d.dev], ["status", "--to", d.dev, "--quick", "--json"]):
        code, out, err = kb(*args)
        assert code == 1, out + err
        assert err == (f"kb: error: {d.dev}: serves nothing: `current` names releases/kb-r1, "
                       "which is missing (deleted?); `kb sync` installs the newest release "
                       "from the source again\n"), err
        assert "serving nothing yet" not in out
    assert json.loads(out)["current_problem"].startswith("serves nothing: `current` names")
    code, out, err = kb("sync", "--to", d.dev)  # what it says to run
    assert code == 0 and out.startswith("serving kb-r1 (was nothing)"), out + err
    assert kb("status", "--to", d.dev)[0] == 0


def test_status_names_the_releases_a_rollback_can_serve(device, tmp_path):
    d = copy_of(device, tmp_path)
    shutil.copytree(d.dev / "releases" / "kb-r1", d.dev / "releases" / "kb-r2", symlinks=True)
    (d.dev / "current").unlink()
    (d.dev / "current").symlink_to("releases/kb-r2")
    shutil.rmtree(d.dev / "releases" / "kb-r2")
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and f"`kb rollback --to {d.dev}` serves the newest one here (kb-r1; " \
        "local: kb-r1)" in err, err
    (d.dev / "releases" / "kb-r2").mkdir()  # there, but no release
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and "`current` names releases/kb-r2, which is not a release (no " \
        "manifest.json)" in err, err
    (d.dev / "current").unlink()
    (d.dev / "current").symlink_to("/etc")
    code, _, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and "`current` names '/etc', not a release of this device" in err, err
    (d.dev / "current").unlink()  # never switched yet: nothing answers (exit 1 since s40)
    code, out, err = kb("status", "--to", d.dev, "--quick")
    assert code == 1 and "serving nothing yet" in out and "serves nothing yet" in err, out + err


# ------------------------------------------------------------- 3: the release-tag grammar


@pytest.mark.parametrize("name", ["kb-r03", "kb-r0", "kb-r00", "kb-r", "kb-r٣", "kb-r３",
                                  "kb-r3\n", "kb-r+3", "kb-r 3", "kb-r3 ", "kb-r-3", "kb-r3a"])
def test_a_non_canonical_serial_is_no_release_tag(name):
    assert shipgit.parse_serial(name) is None
    assert shipgit.tag_form_problem(name) == (
        f"{name.rsplit('/', 1)[-1]} is not a release tag (kb-r<serial>: the serial in the "
        "digits 0-9, from 1, without leading zeros"
        + ("; kb-r3 is one)" if name in ("kb-r03",) else ")"))


def test_release_tags_read_as_written():
    assert [shipgit.parse_serial(t) for t in ("kb-r1", "kb-r12", "refs/tags/kb-r30",
                                              "refs/kb/tags/kb-r7")] == [1, 12, 30, 7]
    assert shipgit.tag_form_problem("kb-r12") is None
    assert shipgit.tag_form_problem("v1.0") is None  # not named as a release tag at all


@settings(max_examples=600, deadline=None)
@given(st.from_regex(r"(refs/tags/)?kb-r[0-9٣３+ -]{0,5}\n?", fullmatch=True)
       | st.text(max_size=12).map(lambda s: "kb-r" + s))
def test_no_two_tag_names_claim_one_serial(name):
    """The one name of a serial is `tag_name`'s: whatever reads as serial N is kb-rN."""
    serial = shipgit.parse_serial(name)
    if serial is not None:
        assert name.rsplit("/", 1)[-1] == shipgit.tag_name(serial) and serial >= 1
        assert shipgit.tag_form_problem(name) is None


def test_a_source_offering_a_non_canonical_tag_is_synced_from_with_a_warning(device, tmp_path):
    """A tag kb-r02 (a hand-made tag, a script's zero padding) at the source read as serial 2:
    sync tried to install it as kb-r2 (a release it is not) and failed, every time. It is
    no release tag: ignored, and said so."""
    d = copy_of(device, tmp_path)
    art = tmp_path / "art.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(d.art), str(art)], check=True)
    subprocess.run(["git", "--git-dir", str(art), "tag", "kb-r02", "kb-r1^{}"], check=True)
    code, out, err = kb("sync", art, "--to", d.dev)
    assert code == 0 and out.startswith("up to date: serving kb-r1"), out + err
    assert err == (f"kb: warning: {art}: refs/tags/kb-r02 ignored: kb-r02 is not a release "
                   "tag (kb-r<serial>: the serial in the digits 0-9, from 1, without leading "
                   "zeros; kb-r2 is one)\n"), err
    code, out, err = kb("releases", "--to", d.dev)
    assert code == 0 and "kb-r02" not in out and "kb-r2" not in out, out
    assert "refs/tags/kb-r02 ignored" in err
    # in the reader's language, as `kb status` says a sync's (it said English only)
    for lang, said in (("zh_CN.UTF-8", f"kb: warning: {art}：已忽略 refs/tags/kb-r02：kb-r02 "
                        "不是发布版本标签（kb-r<序号>：序号由数字 0-9 组成，从 1 开始，不带前导零；"
                        "kb-r2 才是）\n"),
                       ("C.UTF-8", "kb: warning: " + err.split("kb: warning: ", 1)[1])):
        res = CliRunner().invoke(main, ["releases", "--to", str(d.dev)], env={
            "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": lang})
        assert res.exit_code == 0 and res.stderr == said, res.stderr


def test_rollback_to_a_non_canonical_tag_names_the_tag_meant(device, tmp_path):
    d = copy_of(device, tmp_path)
    code, _, err = kb("rollback", "kb-r01", "--to", d.dev)
    assert code == 1 and err == (
        f"kb: error: {d.dev}: kb-r01 is not a release tag (kb-r<serial>: the serial in the "
        "digits 0-9, from 1, without leading zeros; kb-r1 is one) (local: kb-r1)\n"), err


# ------------------------------------------------ 4: stopped at each stage, on a patchy link


def test_a_stop_as_git_starts_takes_git_with_it(device, tmp_path, monkeypatch):
    """SIGTERM (or Ctrl-C) arriving while git was being started, after its fork and before
    `Popen` returned, was raised inside `Popen`: no object held the child's pid, and that
    git ran on after kb exited (here a `kb releases` asking a source that never answers:
    for 4 minutes). It is held until git has started, then stops kb, git with it."""
    d = copy_of(device, tmp_path)
    started: list[int] = []
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def stopped_as_it_starts(self, args, *rest):  # the signal lands right after the fork
        execute_child(self, args, *rest)
        if "ls-remote" in args:
            started.append(self.pid)
            signal.raise_signal(signal.SIGTERM)

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        set_source(d.dev, f"git://127.0.0.1:{listener.getsockname()[1]}/art.git")
        monkeypatch.setattr(subprocess.Popen, "_execute_child", stopped_as_it_starts)
        try:
            code, _, err = kb("releases", "--to", d.dev)
            monkeypatch.undo()
            assert (code, err) == (130, "kb: interrupted\n"), err
            [pid] = started
            with pytest.raises(ChildProcessError):  # killed and reaped: no child left
                os.waitpid(pid, os.WNOHANG)
        finally:
            for pid in started:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)


# A `kb sync` killed (SIGKILL: no clean-up runs) at a stage: a real process, the function
# named replaced by one that runs it and then kills the process ("after"), or kills it
# first ("before").
KILLED_AT = """
import importlib, os, signal, sys
module, name, when = sys.argv[1:4]
m = importlib.import_module(module)
real = getattr(m, name)
def killed(*args, **kwargs):
    if when == "before":
        os.kill(os.getpid(), signal.SIGKILL)
    real(*args, **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
setattr(m, name, killed)
from kbtools.cli import main
sys.argv = ["kb", *sys.argv[4:]]
main()
"""

STAGES = [  # in the order a sync reaches them
    ("kbtools.ship.sync", "list_source", "after"),
    ("kbtools.ship.sync", "fetch", "after"),
    ("kbtools.ship.install", "derive_index", "before"),
    ("kbtools.ship.sync", "_install", "after"),
    ("kbtools.ship.devicestate", "write_state", "after"),  # the floor, before the switch
    ("kbtools.ship.trust", "apply", "after"),
    ("kbtools.ship.device", "switch_to", "after"),
    ("kbtools.ship.sync", "prune_releases", "before"),
    ("kbtools.ship.sync", "compact_repo", "before"),
    ("kbtools.ship.sync", "recorded", "before"),
]


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Pub, Path]:
    """A device serving kb-r2 (holding kb-r1 too) of a source that offers kb-r3."""
    base = tmp_path_factory.mktemp("staged")
    pub = Pub(base)
    device_dir = base / "device"
    for _ in range(2):
        pub.release()
        assert kb("sync", pub.art, "--to", device_dir)[0] == 0
    assert pub.release() == "kb-r3"
    return pub, device_dir


def sync_killed_at(stage: tuple[str, str, str], art: Path, device_dir: Path) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, *stage, "sync", str(art),
                           "--to", str(device_dir)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def leftovers(device_dir: Path) -> list[str]:
    return sorted(p.name for p in (device_dir / "releases").iterdir()
                  if p.name.startswith(".") or p.name.endswith(".staging"))


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: f"{s[2]}-{s[1]}")
def test_sync_killed_at_each_stage_then_synced_again(published, tmp_path, stage):
    pub, original = published
    device_dir = tmp_path / "device"
    shutil.copytree(original, device_dir, symlinks=True)
    sync_killed_at(stage, pub.art, device_dir)
    code, out, err = kb("status", "--to", device_dir)  # old or new: whole, verified
    assert code == 4 and "files verified" in out, out + err  # degraded: that sync failed
    assert out.split("\n")[1].split()[1] in ("kb-r2", "kb-r3"), out
    code, out, err = kb("sync", pub.art, "--to", device_dir)
    assert code == 0, out + err
    assert out.startswith(("serving kb-r3 (was kb-r2)", "up to date: serving kb-r3")), out
    code, out, err = kb("status", "--to", device_dir)
    assert code == 0 and "serving kb-r3" in out and "last sync" in out and "ok" in out, out
    assert leftovers(device_dir) == []
    assert json.loads((device_dir / "state.json").read_text())["highest_serial"] == 3


@pytest.mark.parametrize("stage", STAGES, ids=lambda s: f"{s[2]}-{s[1]}")
def test_rollback_after_a_sync_killed_at_each_stage(published, tmp_path, stage):
    """The operator's way out of a sync cut off at any point: `kb rollback` serves the
    release before the one served, and the next sync respects it."""
    pub, original = published
    device_dir = tmp_path / "device"
    shutil.copytree(original, device_dir, symlinks=True)
    sync_killed_at(stage, pub.art, device_dir)
    served = operate.status(device_dir, check_files=False)["served"]["tag"]
    code, out, err = kb("rollback", "--to", device_dir)
    assert code == 0, out + err
    now = operate.status(device_dir)["served"]
    assert now["verified_now"] and now["tag"] == {"kb-r2": "kb-r1", "kb-r3": "kb-r2"}[served]
    code, out, err = kb("sync", pub.art, "--to", device_dir)
    assert code == 0, out + err
    if served == "kb-r3":  # rolled back from: skipped on purpose
        assert out.startswith(f"up to date: serving {now['tag']}") and "skipped kb-r3" in out
    else:  # rolled back from kb-r2; kb-r3 is newer: served
        assert out.startswith("serving kb-r3 (was kb-r1)"), out
    assert kb("status", "--to", device_dir)[0] == 0
    assert leftovers(device_dir) == []


def test_status_says_a_rollback_was_stopped_before_its_switch(published, tmp_path):
    """A rollback records the release it leaves before it switches; killed between the two
    (a power cut), the device served that release while `kb status` said, exit 0, both
    "serving kb-r2" and "rolled back from kb-r2 (`kb sync` skips it)", and `kb sync` kept
    it ("up to date"). Status says the rollback did not finish and what to run."""
    _pub, original = published
    device_dir = tmp_path / "device"
    shutil.copytree(original, device_dir, symlinks=True)
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.devicestate",
                           "write_state", "after", "rollback", "--to", str(device_dir)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    code, out, err = kb("status", "--to", device_dir, "--quick")
    assert code == 1 and "serving kb-r2" in out, out + err
    assert err == (f"kb: error: {device_dir}: a `kb rollback` from kb-r2 was stopped before "
                   "its switch: kb-r2 still serves, and `kb sync` keeps it; run `kb rollback "
                   f"[TAG] --to {device_dir}` again to finish it\n"), err
    code, out, err = kb("rollback", "--to", device_dir)  # as it says
    assert code == 0, out + err
    code, out, err = kb("status", "--to", device_dir)
    assert code == 0 and "serving kb-r1" in out and "rolled back from kb-r2" in out, out + err
