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
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_release_helpers import Pub

from kbtools.cli import main
from kbtools.ship import device as dev
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
    real = getattr(module, name)

    def stopped(*args: object, **kwargs: object) -> object:
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
