"""A `kb sync` stopped by SIGTERM at the moment a git process is being started, for every
git it starts (the blob reader that exports a release, the bundle check), leaves the
previous release serving, no git running on in the device, nothing staged, and a next
`kb sync` that succeeds.

Real artifacts repositories and bundles (tests/test_release_helpers.py), real git, and a
real SIGTERM raised in the `kb` process right after git's fork, before `subprocess.Popen`
returned: the moment at which no object held the child's pid yet.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import test_device_interrupts
from click.testing import CliRunner
from test_device_field import KILLED_AT  # kb in a process SIGKILLed at a function
from test_release_helpers import Pub

from kbtools.cli import main
from kbtools.ship import device as dev
from kbtools.ship import operate
from kbtools.ship import sync as sync_module
from kbtools.ship.bundle import create_bundle

pytestmark = pytest.mark.slow


def kb(*args: object) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


@contextlib.contextmanager
def sigterm_as_git_starts(monkeypatch: pytest.MonkeyPatch, command: str
                          ) -> Iterator[list[int]]:
    """SIGTERM raised in this process right after the fork of the first ``git … command``
    (its pid recorded in the list yielded); killed outright at the end, whatever happened."""
    started: list[int] = []
    execute_child = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def stopped_as_it_starts(self, args, *rest):  # type: ignore[no-untyped-def]
        execute_child(self, args, *rest)
        if command in args and not started:
            started.append(self.pid)
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", stopped_as_it_starts)
    try:
        yield started
    finally:
        monkeypatch.undo()
        for pid in started:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


def leftovers(device: Path) -> list[str]:
    """What no release is, in releases/ and repo.git (staging, scratch, locks)."""
    releases = sorted(p.name for p in (device / "releases").iterdir()
                      if p.name.endswith(".staging") or p.name.startswith("."))
    repo = device / "repo.git"
    return releases + sorted(p.name for p in repo.iterdir()
                             if p.name.startswith((".", "kb-")) or p.name.endswith(".lock"))


def gone(pid: int) -> bool:
    """Whether child `pid` was killed and reaped (not running on, not left a zombie)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


@pytest.fixture
def one(tmp_path: Path) -> tuple[Pub, Path]:
    """kb-r1 synced, kb-r2 (with larger files) published at the source."""
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release()
    assert kb("sync", pub.art, "--to", device)[0] == 0
    pub.release(extra={f"blob/{i}.bin": os.urandom(50_000) for i in range(20)})
    return pub, device


def test_a_sigterm_as_the_release_export_starts_git_leaves_the_old_release_serving(
        one, monkeypatch):
    """The export's `git cat-file --batch` was started outside the protection the other
    git commands have: SIGTERM there lost the child (a git kb no longer knew of)."""
    pub, device = one
    with sigterm_as_git_starts(monkeypatch, "--batch") as started:
        code, out, err = kb("sync", pub.art, "--to", device)
        assert started, "no git cat-file --batch was started"
        assert gone(started[0]), "git cat-file was left running after kb stopped"
    assert (code, out) == (130, "")
    assert err == ("kb: interrupted: kb-r1 still serves (unchanged); run `kb sync` again "
                   "to finish\n")
    assert dev.served_tag(device) == "kb-r1" and leftovers(device) == []
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


def test_a_sigterm_as_the_bundle_check_starts_git_leaves_nothing_running(one, monkeypatch,
                                                                        tmp_path):
    """The bundle check's `git index-pack` (reading the bundle file itself, not a pipe) ran
    on after kb exited, writing into repo.git/kb-bundle-check with the device unlocked."""
    pub, device = one
    bundle = create_bundle(pub.kr, tmp_path / "releases.bundle").path
    with sigterm_as_git_starts(monkeypatch, "index-pack") as started:
        code, out, err = kb("sync", bundle, "--to", device)
        assert started, "no git index-pack was started"
        assert gone(started[0]), "git index-pack was left running after kb stopped"
    assert (code, out) == (130, "")
    assert err == ("kb: interrupted: kb-r1 still serves (unchanged); run `kb sync` again "
                   "to finish\n")
    assert dev.served_tag(device) == "kb-r1" and leftovers(device) == []
    code, out, err = kb("sync", bundle, "--to", device)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


def sigterm_at(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
    """A real SIGTERM raised in this process as `module.name` is called (the handler `kb`
    sets turns it into the stop a service manager causes)."""
    real, calls = getattr(module, name), []

    def stopped(*args: object, **kwargs: object) -> object:
        calls.append(args)
        if len(calls) == 1:
            signal.raise_signal(signal.SIGTERM)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, stopped)


def test_a_sigterm_after_the_switch_says_the_switch_completed(one, monkeypatch):
    """Stopped once the new release served, as the index copies under KB_HOME were pruned,
    `kb sync` said only "kb: interrupted", and state.json kept the sync before it (`kb
    status` showed the older sync, `kb sync` without SOURCE its source)."""
    pub, device = one
    sigterm_at(monkeypatch, sync_module, "_prune_copies")
    code, out, err = kb("sync", pub.art, "--to", device)
    monkeypatch.undo()
    assert (code, out) == (130, "")
    assert err == ("kb: interrupted: the switch completed: kb-r2 serves now (was kb-r1); run "
                   "`kb sync` again to prune old releases\n")
    assert dev.served_tag(device) == "kb-r2"
    state = json.loads((device / "state.json").read_text(encoding="utf-8"))
    assert state["highest_serial"] == 2 and state["source"] == str(pub.art)
    assert state["last_sync"]["tag"] == "kb-r2" and state["last_sync"]["ok"] is False
    assert kb("sync", "--to", device)[1] == "up to date: serving kb-r2\n"


# ------------------------------------------------------------------ rollback.log

# the fixture of kb-r1 and kb-r2 synced, kb-r2 serving
two = test_device_interrupts.two


def killed_at(module: str, name: str, when: str, *args: object) -> None:
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, module, name, when,
                           *map(str, args)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr


def rollback_log(device: Path) -> list[tuple[str | None, str]]:
    log = device / "rollback.log"
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [(e["from"], e["to"]) for e in map(json.loads, lines)]


@pytest.mark.parametrize("then", ["sync", "status-then-sync", "rollback"])
def test_a_rollback_killed_after_its_switch_is_logged_by_the_next_command(two, then):
    """Killed between its switch and its line in rollback.log (a power cut, a SIGKILL),
    a rollback had happened and was logged nowhere: kb-r1 served, the operator's log
    said kb-r2 did. The next command that holds the device lock writes the line."""
    pub, device = two
    killed_at("kbtools.ship.operate", "append_log", "before", "rollback", "--to", device)
    assert dev.served_tag(device) == "kb-r1" and rollback_log(device) == []
    if then == "status-then-sync":  # reads only: writes nothing, but says so
        code, out, _ = kb("status", "--to", device, "--json")
        assert json.loads(out)["rollback_unlogged"] == {"from": "kb-r2", "to": "kb-r1"}
        code, out, _ = kb("status", "--to", device)
        assert code == 0 and ("rollback from kb-r2 to kb-r1 not yet in rollback.log (stopped "
                              "after its switch): the next `kb sync` or `kb rollback` logs "
                              "it\n") in out, out
        assert rollback_log(device) == []  # status writes nothing
    if then == "rollback":
        code, out, err = kb("rollback", "kb-r2", "--to", device)
        assert code == 0 and out == (
            "serving kb-r2 (was kb-r1)\nkb-r2 is newer than kb-r1 (a rollback forward): the "
            "rollback from kb-r2 is undone, `kb sync` no longer skips it\n"), err
        assert rollback_log(device) == [("kb-r2", "kb-r1"), ("kb-r1", "kb-r2")]
        return
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("up to date: serving kb-r1"), out + err
    assert rollback_log(device) == [("kb-r2", "kb-r1")]
    entry = json.loads((device / "rollback.log").read_text(encoding="utf-8"))
    assert entry["recorded_by"] == "kb sync"  # written late, and by whom
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert rollback_log(device) == [("kb-r2", "kb-r1")]  # once


def test_a_rollback_killed_once_logged_is_logged_once(two):
    pub, device = two
    killed_at("kbtools.ship.operate", "append_log", "after", "rollback", "--to", device)
    assert rollback_log(device) == [("kb-r2", "kb-r1")]
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert kb("rollback", "kb-r2", "--to", device)[0] == 0
    assert rollback_log(device) == [("kb-r2", "kb-r1"), ("kb-r1", "kb-r2")]


def test_a_rollback_killed_before_its_switch_is_not_logged(two):
    """What did not happen is never logged: killed before the switch, the next sync keeps
    kb-r2 and logs nothing; the rollback run again switches and logs once."""
    pub, device = two
    killed_at("kbtools.ship.operate", "switch_to", "before", "rollback", "--to", device)
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert dev.served_tag(device) == "kb-r2" and rollback_log(device) == []
    code, out, err = kb("rollback", "--to", device)
    assert code == 0 and out == "serving kb-r1 (was kb-r2)\n", err
    assert rollback_log(device) == [("kb-r2", "kb-r1")]


def test_a_rollback_stopped_by_sigterm_after_its_switch_is_logged_once(two, monkeypatch):
    _, device = two
    sigterm_at(monkeypatch, operate, "append_log")
    code, _, err = kb("rollback", "kb-r1", "--to", device)
    monkeypatch.undo()
    assert code == 130 and err == ("kb: interrupted: the switch completed: kb-r1 serves now "
                                   "(was kb-r2); nothing more to run\n")
    assert rollback_log(device) == [("kb-r2", "kb-r1")]
    assert kb("rollback", "kb-r2", "--to", device)[0] == 0
    assert rollback_log(device) == [("kb-r2", "kb-r1"), ("kb-r1", "kb-r2")]


@pytest.mark.parametrize("tag", ["kb-r2", "kb-r9", None])
def test_a_rollback_that_switches_nothing_logs_nothing(two, tag):
    """To the release served, to one not here, or with nothing older: refused, unlogged."""
    pub, device = two
    if tag is None:
        assert kb("rollback", "--to", device)[0] == 0  # kb-r1 now, nothing older
        before = rollback_log(device)
    else:
        before = []
    code, out, _ = kb("rollback", *([tag] if tag else []), "--to", device)
    assert code == 1 and out == "" and rollback_log(device) == before
