"""What a device command says serves, once the served release's signer was removed (`kb
trust remove`): no question is answered from that release, so a lock that cannot be taken,
a sync stopped by SIGTERM and a sync SIGKILLed before its switch must not say "kb-r1 still
serves": each says that no question is answered from it and what the operator can do.

Real signed releases in a bare artifacts repo (`test_trust.Pub`), real device dirs, real
git, a real SIGTERM (`test_device_signals.sigterm_as_git_starts`) and a real SIGKILL
(`test_device_field.KILLED_AT`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from device_fixtures import kb
from test_device_field import KILLED_AT
from test_device_signals import kb as kb_in_process
from test_device_signals import sigterm_as_git_starts
from test_trust import Keys, Pub, keys, pub

from kbtools.ship import device

__all__ = ["keys", "pub"]  # fixtures this module's tests use

pytestmark = pytest.mark.slow


def revoked(keys: Keys, pub: Pub, dev: Path) -> str:
    """kb-r1 signed by key a synced, key b pinned, key a removed: what the device says of
    kb-r1 from then on (up to the advice that follows it)."""
    pub.release(keys.a)
    assert kb("sync", pub.art, "--to", dev, "--trusted-key", keys.a_pub)[0] == 0
    assert kb("trust", "add", keys.b_pub, "--to", dev)[0] == 0
    assert kb("trust", "remove", keys.a_id, "--to", dev)[0] == 0
    return (f"the served release kb-r1 is signed by key {keys.a_id}, which is not pinned on "
            f"this device (removed by operator; pinned now: {keys.b_id}): no question is "
            "answered from it; ")


ADVICE = "`kb trust add PUB` trusts its key again, `kb sync` brings a release signed by a " \
         "pinned key"


@pytest.mark.parametrize("command", ["sync", "rollback"])
def test_a_device_lock_that_cannot_be_taken_does_not_say_a_revoked_release_serves(
        keys: Keys, pub: Pub, tmp_path: Path, command: str):
    """The lock file cannot be opened (here: a directory in its place): "nothing was
    changed, kb-r1 still serves (unchanged)", while every question was refused."""
    dev = tmp_path / "dev"
    said = revoked(keys, pub, dev)
    (dev / ".lock").unlink()
    (dev / ".lock").mkdir()
    args = ["sync", pub.art] if command == "sync" else ["rollback"]
    code, out, err = kb(*args, "--to", dev)
    assert (code, out) == (1, ""), out + err
    assert err == (f"kb: error: {dev}: cannot lock the device directory: {dev}/.lock: Is a "
                   f"directory; nothing was changed: kb {command} writes there (make the "
                   "directory writable for this account, or run it as the account that owns "
                   f"it); {said}{ADVICE}\n"), err
    assert device.served_tag(dev) == "kb-r1"


def test_a_sync_stopped_after_a_revocation_says_no_question_is_answered(
        keys: Keys, pub: Pub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """SIGTERM as the sync's fetch starts, with the served release's signer removed: the
    line (and state.json's record, and `kb status`) said "kb-r1 still serves (unchanged)"."""
    dev = tmp_path / "dev"
    said = revoked(keys, pub, dev)
    pub.release(keys.b)
    with sigterm_as_git_starts(monkeypatch, "fetch") as started:
        code, out, err = kb_in_process("sync", pub.art, "--to", dev)
        assert started, "no git fetch was started"
    assert (code, out) == (130, ""), out + err
    assert err == f"kb: interrupted: {said}{ADVICE}; run `kb sync` again to finish\n", err
    assert "still serves" not in err
    code, out, _ = kb("status", "--to", dev, "--json")
    assert code == 1 and json.loads(out)["last_sync"]["error"] == err[len("kb: "):-1]
    code, out, err = kb("sync", pub.art, "--to", dev)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), out + err


def test_a_sync_killed_before_its_switch_after_a_revocation_is_read_truthfully(
        keys: Keys, pub: Pub, tmp_path: Path):
    """SIGKILL just before the switch to kb-r2 (signed by the pinned key b): `kb status`
    read state.json's record as "killed before its switch to kb-r2: kb-r1 still serves",
    in the text and in --json alike."""
    dev = tmp_path / "dev"
    said = revoked(keys, pub, dev)
    pub.release(keys.b)
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, "kbtools.ship.device",
                           "switch_to", "before", "sync", str(pub.art), "--to", str(dev)],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert device.served_tag(dev) == "kb-r1"
    why = (f"killed before its switch to kb-r2: {said}{ADVICE}; run `kb sync` again to "
           "finish")
    code, out, _ = kb("status", "--to", dev, "--json")
    assert code == 1 and json.loads(out)["last_sync"]["error"] == why, out
    code, out, _ = kb("status", "--to", dev)
    assert code == 1 and f"FAILED: {why}" in out and "still serves" not in out, out
    code, out, err = kb("sync", "--to", dev)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), out + err


def test_releases_and_rollback_do_not_call_a_revoked_release_served(
        keys: Keys, pub: Pub, tmp_path: Path):
    """`kb releases` noted the revoked kb-r1 "served" (and --json said nothing of its
    trust), and `kb rollback kb-r1` answered "kb-r1 is already served", while every question
    was refused."""
    dev = tmp_path / "dev"
    said = revoked(keys, pub, dev)
    code, out, err = kb("releases", "--to", dev, "--local")
    line = next(x for x in out.splitlines() if "kb-r1" in x)
    assert code == 0 and line.startswith("*") and line.endswith(
        "served, but no question is answered from it: no pinned key vouches for it (`kb "
        "status`)"), out + err
    code, out, _ = kb("releases", "--to", dev, "--local", "--json")
    [row] = json.loads(out)
    assert row["current"] is True and row["untrusted"] == (
        said.replace("the served release", "the release") + ADVICE), row
    code, out, err = kb("rollback", "kb-r1", "--to", dev)
    assert (code, out) == (1, "") and err == f"kb: error: {dev}: {said}{ADVICE}\n", err
    pub.release(keys.b)  # a trusted release served: kb-r1, kept, is no longer served
    assert kb("sync", pub.art, "--to", dev)[0] == 0
    code, out, _ = kb("releases", "--to", dev, "--local")
    assert next(x for x in out.splitlines() if "kb-r1" in x).endswith(
        "no pinned key vouches for it (`kb rollback` refuses it)"), out
    assert next(x for x in out.splitlines() if "kb-r2" in x).endswith("served"), out
