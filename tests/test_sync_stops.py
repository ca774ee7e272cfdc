"""A `kb sync` or `kb rollback` stopped again while it cleans up after a first stop (a
service manager's second SIGTERM, Ctrl-C pressed twice), or stopped as it records its
outcome, still says which release serves and what to run, leaves nothing staged, and
state.json names the release `current` serves.

Real artifacts repositories (tests/test_release_helpers.py), real git, and real signals
raised in the `kb` process at the named functions (the handler `kb` sets turns SIGTERM into
the stop a service manager causes).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import test_device_interrupts
from device_fixtures import kb
from test_device_field import KILLED_AT  # kb in a process SIGKILLed at a function
from test_release_helpers import Pub

from kbtools.ship import device as dev
from kbtools.ship import devicestate, install, operate, sync_outcome
from kbtools.ship import sync as sync_module

pytestmark = pytest.mark.slow


def sigterms_at(monkeypatch: pytest.MonkeyPatch, *stops: tuple[object, str],
                signum: int = signal.SIGTERM) -> list[str]:
    """A real signal raised in this process at each of `stops` in turn: at the first call
    of the first one, then at the first call of the next one made after that, and so on.
    Returns the names of those reached."""
    reached: list[str] = []
    for at, (module, name) in enumerate(stops):
        real = getattr(module, name)

        def stopped(*args: object, _real=real, _at=at, _name=name, **kwargs: object
                    ) -> object:
            if len(reached) == _at:
                reached.append(_name)
                signal.raise_signal(signum)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, stopped)
    return reached


def leftovers(device: Path) -> list[str]:
    """What no release is, in releases/ and beside state.json (staging, temp files)."""
    releases = device / "releases"
    out = sorted(p.name for p in releases.iterdir()
                 if p.name.endswith(".staging") or p.name.startswith("."))
    return out + sorted(p.name for p in device.iterdir() if p.name.endswith(".tmp"))


def state(device: Path) -> dict:
    return json.loads((device / "state.json").read_text(encoding="utf-8"))


one = test_device_interrupts.one  # kb-r1 synced, kb-r2 published at the source


UNCHANGED = "kb: interrupted: kb-r1 still serves (unchanged); run `kb sync` again to finish\n"


@pytest.mark.parametrize("second", [(dev, "clean_staging"), (devicestate, "write_state"),
                                    (dev, "served_tag")],
                         ids=lambda s: s[1])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_second_stop_during_the_clean_up_still_says_what_serves(one, monkeypatch, second,
                                                                   signum):
    """A second SIGTERM (or Ctrl-C) while the first one's clean-up ran ended kb with a bare
    `kb: interrupted`: the release staged was left, and state.json kept the sync before."""
    pub, device = one
    reached = sigterms_at(monkeypatch, (install, "derive_index"), second, signum=signum)
    code, out, err = kb("sync", pub.art, "--to", device)
    monkeypatch.undo()
    assert reached == ["derive_index", second[1]]
    assert (code, out, err) == (130, "", UNCHANGED)
    assert dev.served_tag(device) == "kb-r1" and leftovers(device) == []
    last = state(device)["last_sync"]
    assert last["ok"] is False and last["error"].startswith("interrupted: kb-r1 still serves")
    code, out, err = kb("sync", "--to", device)  # the source recorded before stays
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


def test_a_stop_while_a_failed_sync_cleans_up_says_what_serves(one, monkeypatch):
    """A stop during the clean-up of a failure (here the export refused) was a bare
    `kb: interrupted`."""
    pub, device = one

    def refused(*args: object, **kwargs: object) -> object:
        raise OSError(28, "No space left on device", str(device / "releases"))

    monkeypatch.setattr(install, "derive_index", refused)
    reached = sigterms_at(monkeypatch, (sync_outcome, "repair_served"))
    code, out, err = kb("sync", pub.art, "--to", device)
    monkeypatch.undo()
    assert reached == ["repair_served"]
    assert (code, out, err) == (130, "", UNCHANGED)
    assert dev.served_tag(device) == "kb-r1" and leftovers(device) == []
    assert kb("sync", pub.art, "--to", device)[0] == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_stop_as_the_outcome_is_recorded_leaves_state_naming_what_serves(one, monkeypatch,
                                                                           signum):
    """The last state.json write of a sync that switched ran outside the interrupt
    handler: stopped there, kb said only `kb: interrupted`, and state.json kept the sync
    before (`kb status`: the last sync served kb-r1 while kb-r2 served)."""
    pub, device = one
    reached = sigterms_at(monkeypatch, (sync_module, "recorded"), signum=signum)
    code, out, err = kb("sync", pub.art, "--to", device)
    monkeypatch.undo()
    assert reached == ["recorded"]
    assert (code, out) == (130, "")
    assert err.startswith("kb: interrupted: the switch completed: kb-r2 serves now (was "
                          "kb-r1)"), err
    assert dev.served_tag(device) == "kb-r2" and leftovers(device) == []
    st = state(device)
    assert st["last_sync"]["tag"] == "kb-r2" and st["source"] == str(pub.art)
    assert st["highest_serial"] == 2 and "pending_trust" not in st
    assert kb("sync", "--to", device)[1] == "up to date: serving kb-r2\n"


def test_a_sync_killed_between_its_switch_and_its_record_leaves_state_naming_it(one):
    """SIGKILL (a power cut) after the switch and before the outcome was written: state.json
    named the sync before (tag kb-r1, ok) as the last, while kb-r2 served."""
    pub, device = one
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.sync", "recorded",
                           "before", "sync", str(pub.art), "--to", str(device)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert dev.served_tag(device) == "kb-r2"
    assert state(device)["source"] == str(pub.art)
    code, out, _ = kb("status", "--to", device, "--json")
    last = json.loads(out)["last_sync"]
    assert code == 4 and last["tag"] == "kb-r2" and last["ok"] is False, last
    code, out, _ = kb("status", "--to", device)
    assert code == 4 and "serving kb-r2" in out
    assert out.endswith(": FAILED: killed after its switch, before its outcome was recorded: "
                        "kb-r2 serves (verified); run `kb sync` to finish (prune old "
                        "releases)\n"), out
    assert kb("sync", "--to", device)[1] == "up to date: serving kb-r2\n"
    assert state(device)["last_sync"]["ok"] is True


def test_a_first_sync_killed_before_its_switch_says_nothing_serves(tmp_path):
    pub = Pub(tmp_path)
    device = tmp_path / "dev"
    pub.release()
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.device",
                           "switch_to", "before", "sync", str(pub.art), "--to", str(device)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    code, out, _ = kb("status", "--to", device, "--json")
    assert code == 1 and json.loads(out)["last_sync"]["error"] == (
        "killed before its switch to kb-r1: no release serves; run `kb sync` again to finish")
    code, out, err = kb("sync", "--to", device)  # the source was recorded with the switch
    assert code == 0 and out.startswith("serving kb-r1 (was nothing)"), err


def test_a_rollback_after_a_sync_killed_after_its_switch_keeps_what_it_did(one):
    """The record of the switch under way is read against `current`: a rollback moving
    `current` settles it first, or `kb status` said the sync never switched."""
    pub, device = one
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.sync", "recorded",
                           "before", "sync", str(pub.art), "--to", str(device)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    code, out, err = kb("rollback", "--to", device)
    assert code == 0 and out == "serving kb-r1 (was kb-r2)\n", err
    code, out, _ = kb("status", "--to", device, "--json")
    last = json.loads(out)["last_sync"]
    assert last["tag"] == "kb-r2" and last["error"] == (
        "killed after its switch, before its outcome was recorded: kb-r2 served (verified); "
        "run `kb sync` to finish (prune old releases)"), last


@pytest.mark.parametrize(("at", "was", "now"), [
    (("kbtools.ship.device", "switch_to", "before"),
     "killed before its switch to kb-r2: kb-r1 still serves",
     "killed before its switch to kb-r2: kb-r1 served on"),
    (("kbtools.ship.sync", "_install", "after"),
     "killed before it finished (SIGKILL or a power cut): kb-r1 still serves (unchanged)",
     "killed before it finished (SIGKILL or a power cut): kb-r1 served on (unchanged)"),
], ids=["at-its-switch", "installed"])
def test_a_rollback_after_a_sync_killed_before_its_switch_does_not_say_the_old_one_serves(
        one, at, was, now):
    """A sync SIGKILLed with kb-r2 installed and verified, kb-r1 still served, then `kb
    rollback kb-r2` (the release `kb releases` lists as local): `kb status` said "serving
    kb-r2" and, on its last line, "kb-r1 still serves". The rollback keeps the killed
    sync's record as its past: "kb-r1 served on"."""
    pub, device = one
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, *at, "sync", str(pub.art),
                           "--to", str(device)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert sorted(dev.release_dirs(device)) == ["kb-r1", "kb-r2"]
    code, out, _ = kb("status", "--to", device)
    assert code == 4 and "serving kb-r1" in out, out
    assert out.splitlines()[-1].endswith(f": FAILED: {was}; run `kb sync` again to finish")
    assert kb("rollback", "kb-r2", "--to", device)[1].startswith(
        "serving kb-r2 (was kb-r1)\nkb-r2 is newer than kb-r1 (a rollback forward)")
    code, out, _ = kb("status", "--to", device)
    assert code == 4 and "serving kb-r2" in out and "still serves" not in out, out
    *_, failed, since = out.splitlines()  # and what serves since, the rollback (gc41)
    assert failed.endswith(f": FAILED: {now}; run `kb sync` again to finish"), out
    assert since.strip().startswith("since then: kb-r2 serves since `kb rollback` at "), out
    assert since.endswith(", not kb-r1"), out
    code, out, _ = kb("status", "--to", device, "--json")
    assert json.loads(out)["last_sync"]["error"].startswith(now), out


@pytest.mark.parametrize("stage", [("kbtools.ship.trust", "apply"),
                                   ("kbtools.ship.device", "switch_to")],
                         ids=lambda s: s[1])
def test_a_sync_killed_at_its_switch_says_which_release_serves(one, stage):
    """Killed just before the switch (or at it), state.json's record of the switch under
    way is read against `current`: kb-r1 still serves, and the next sync finishes."""
    pub, device = one
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, *stage, "before", "sync",
                           str(pub.art), "--to", str(device)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert dev.served_tag(device) == "kb-r1"
    code, out, _ = kb("status", "--to", device, "--json")
    last = json.loads(out)["last_sync"]
    assert code == 4 and last["tag"] == "kb-r1", last
    assert last["error"] == ("killed before its switch to kb-r2: kb-r1 still serves; run "
                             "`kb sync` again to finish")
    code, out, err = kb("sync", "--to", device)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err


# ------------------------------------------------------------------ rollback


@pytest.fixture
def two(one) -> tuple[Pub, Path]:
    """kb-r1 and kb-r2 synced, kb-r2 serving."""
    pub, device = one
    assert kb("sync", pub.art, "--to", device)[0] == 0
    return pub, device


@pytest.mark.parametrize("first", ["switch_to", "append_log"])
def test_a_second_stop_during_a_rollbacks_clean_up_still_says_what_serves(two, monkeypatch,
                                                                          first):
    """Stopped before its switch (or after it, as it logged), then again as it settled its
    record: a bare `kb: interrupted`, not which release served."""
    _, device = two
    reached = sigterms_at(monkeypatch, (operate, first), (operate, "settle_rollback"))
    code, out, err = kb("rollback", "kb-r1", "--to", device)
    monkeypatch.undo()
    assert reached == [first, "settle_rollback"] and (code, out) == (130, "")
    if first == "switch_to":
        assert err == ("kb: interrupted: kb-r2 still serves (unchanged); run `kb rollback "
                       "kb-r1` again to finish\n")
        assert dev.served_tag(device) == "kb-r2"
    else:
        assert err == ("kb: interrupted: the switch completed: kb-r1 serves now (was kb-r2); "
                       "nothing more to run\n")
        assert dev.served_tag(device) == "kb-r1"
    assert leftovers(device) == []
    code, _, err = kb("rollback", "kb-r1" if first == "switch_to" else "kb-r2", "--to", device)
    assert code == 0, err


def test_the_sync_a_killed_sync_asks_for_prunes_what_it_left(tmp_path, monkeypatch):
    """A sync SIGKILLed after its switch, before its prune: `kb status` says to run `kb sync`
    to finish (prune old releases), but that sync found nothing newer and pruned nothing,
    so a device keeping 1 kept 2 until the next release. A sync with nothing newer prunes
    to `[release] keep` now, as one that switches does (a lowered keep too)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "kb.toml").write_text("[release]\nkeep = 1\n")
    monkeypatch.chdir(site)
    pub, device = Pub(tmp_path), tmp_path / "dev"
    pub.release()
    assert kb("sync", pub.art, "--to", device)[0] == 0
    pub.release()
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.sync",
                           "prune_releases", "before", "sync", str(pub.art), "--to",
                           str(device)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert sorted(dev.release_dirs(device)) == ["kb-r1", "kb-r2"]
    assert kb("status", "--to", device)[1].splitlines()[-1].endswith(
        "run `kb sync` to finish (prune old releases)")
    assert kb("sync", "--to", device)[1] == "up to date: serving kb-r2\n"
    assert sorted(dev.release_dirs(device)) == ["kb-r2"]
    assert kb("status", "--to", device)[1].splitlines()[-1].endswith(": ok, up to date (kb-r2)")
    # keep lowered from 3 to 1 on a device holding 3: the next sync, with nothing newer
    (site / "kb.toml").write_text("[release]\nkeep = 3\n")
    for _ in range(2):
        pub.release()
        assert kb("sync", "--to", device)[0] == 0
    assert sorted(dev.release_dirs(device)) == ["kb-r2", "kb-r3", "kb-r4"]
    (site / "kb.toml").write_text("[release]\nkeep = 1\n")
    assert kb("sync", "--to", device)[1] == "up to date: serving kb-r4\n"
    assert sorted(dev.release_dirs(device)) == ["kb-r4"]
