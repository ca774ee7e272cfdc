"""What `kb status` says of a sync that is under way, or that was killed (SIGKILL, a power
cut: no clean-up runs) before it recorded its outcome, and that the next sync completes
without fetching again what the killed one already fetched.

Real `kb sync` processes (`KILLED_AT`, stopped with SIGSTOP at a stage for "under way"),
real releases in a bare artifacts repository (`Pub`).
"""

from __future__ import annotations

import json
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from device_fixtures import kb
from test_device_field import KILLED_AT
from test_release_helpers import Pub

from kbtools.ship.signing import keygen

pytestmark = pytest.mark.slow

# (module, function, when) as in test_device_field.STAGES, before the switch under way is
# recorded; and whether the release's objects were fetched by then
BEFORE_SWITCH = [
    (("kbtools.ship.sync", "list_source", "after"), False),
    (("kbtools.ship.sync", "fetch", "after"), True),
    (("kbtools.ship.install", "derive_index", "before"), True),
    (("kbtools.ship.sync", "_install", "after"), True),
]

# `kb sync` stopped (SIGSTOP) as it is about to run a function, going on once continued
STOPPED_AT = """
import importlib, os, signal, sys
module, name = sys.argv[1:3]
m = importlib.import_module(module)
real = getattr(m, name)
def stopped(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGSTOP)
    return real(*args, **kwargs)
setattr(m, name, stopped)
from kbtools.cli import main
sys.argv = ["kb", *sys.argv[3:]]
main()
"""


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> tuple[Pub, Path]:
    """A device serving kb-r2 of a source that offers kb-r3."""
    base = tmp_path_factory.mktemp("killed")
    pub = Pub(base)
    device = base / "device"
    for _ in range(2):
        pub.release()
        assert kb("sync", pub.art, "--to", device)[0] == 0
    assert pub.release() == "kb-r3"
    return pub, device


def last_sync_line(out: str) -> str:
    [line] = [x for x in out.splitlines() if x.startswith("last sync ")]
    return line


@pytest.mark.parametrize(("stage", "fetched"), BEFORE_SWITCH, ids=lambda s: str(s))
def test_status_says_a_sync_was_killed_and_the_next_one_fetches_nothing_again(
        published, tmp_path, stage, fetched):
    pub, original = published
    device = tmp_path / "device"
    shutil.copytree(original, device, symlinks=True)
    proc = subprocess.run([sys.executable, "-c", KILLED_AT, *stage, "sync", str(pub.art),
                           "--to", str(device)], capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    code, out, err = kb("status", "--to", device, "--quick")
    assert code == 4, err  # degraded: the last sync failed (test_status_exit)
    line = last_sync_line(out)
    assert ": FAILED: killed before it finished (SIGKILL or a power cut): kb-r2 still " \
           "serves (unchanged); run `kb sync` again to finish" in line, out
    last = json.loads(kb("status", "--to", device, "--json", "--quick")[1])["last_sync"]
    assert last["ok"] is False and last["tag"] == "kb-r2" and "killed" in last["error"]
    code, out, err = kb("sync", "--to", device)  # the source the killed sync was given
    assert code == 0, err
    assert out.startswith("serving kb-r3 (was kb-r2); "), out
    assert "fetched 0 bytes" not in out, out  # never: kept from the killed sync, said so
    assert ("nothing fetched: its objects were kept from the attempt at " in out) == fetched, out
    assert last_sync_line(kb("status", "--to", device, "--quick")[1]).endswith(
        ": ok, switched to kb-r3")


@pytest.mark.parametrize(("stage", "said", "switched"), [
    (("kbtools.ship.sync", "fetch"), "kb-r2 serves until it switches", False),
    (("kbtools.ship.trust", "apply"), "kb-r2 serves until it switches", False),
    # after the switch, pruning: it said "kb-r3 serves until it switches", as if another
    # switch were to come
    (("kbtools.ship.sync", "prune_releases"),
     "switched to kb-r3, which serves (the sync is finishing)", True),
], ids=lambda s: s[1] if isinstance(s, tuple) else None)
def test_status_says_a_sync_is_under_way_while_one_holds_the_lock(published, tmp_path,
                                                                   stage, said, switched):
    pub, original = published
    device = tmp_path / "device"
    shutil.copytree(original, device, symlinks=True)
    proc = subprocess.Popen([sys.executable, "-c", STOPPED_AT, *stage,
                             "sync", str(pub.art), "--to", str(device)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_stopped(proc)
        code, out, err = kb("status", "--to", device, "--quick")
        assert code == 0, err
        line = last_sync_line(out)
        assert line.endswith(f": under way (kb sync (pid {proc.pid}) holds the device lock); "
                             f"{said}"), out
        last = json.loads(kb("status", "--to", device, "--json", "--quick")[1])["last_sync"]
        assert last["under_way"] is True and last["ok"] is None
        assert last["switched"] is switched and last["tag"] == ("kb-r3" if switched
                                                                 else "kb-r2"), last
    finally:
        proc.send_signal(signal.SIGCONT)
        _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert last_sync_line(kb("status", "--to", device, "--quick")[1]).endswith(
        ": ok, switched to kb-r3")


# `kb sync` killed (SIGKILL) just before it renames the temporary file it wrote over the
# file named (`beneath.atomic_write_beneath`): the file written whole beside it, never renamed
KILLED_AT_RENAME = """
import os, signal, sys
name = sys.argv[1]
real = os.replace
def replace(src, dst, *args, **kwargs):
    if os.fspath(dst).endswith(name):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(src, dst, *args, **kwargs)
os.replace = replace
from kbtools.cli import main
sys.argv = ["kb", *sys.argv[2:]]
main()
"""


@pytest.mark.parametrize("name", ["state.json", ".pub"])
def test_the_files_a_sync_killed_before_a_rename_wrote_are_removed_by_the_next(tmp_path,
                                                                               name):
    """state.json and a key pinned on first use are each written beside and renamed over;
    a sync killed between the two left the written file in the device directory (or in
    trusted_keys/) for good, one more for every such kill."""
    key = tmp_path / "release.key"
    keygen(key)
    pub = Pub(tmp_path, sign_key=key)
    pub.release()
    device = tmp_path / "device"
    device.mkdir()
    proc = subprocess.run([sys.executable, "-c", KILLED_AT_RENAME, name, "sync", str(pub.art),
                           "--to", str(device), "--trusted-key", f"{key}.pub"],
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert leftovers(device), "the kill left no written file behind"
    code, out, err = kb("sync", pub.art, "--to", device, "--trusted-key", f"{key}.pub")
    assert code == 0 and "kb-r1" in out, err
    assert leftovers(device) == []
    assert kb("status", "--to", device, "--quick")[0] == 0


def leftovers(device: Path) -> list[str]:
    """Temporary files of an atomic write in the device directory and trusted_keys/."""
    return sorted(p.name for d in (device, device / "trusted_keys") if d.is_dir()
                  for p in d.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp"))


def wait_stopped(proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not Path(f"/proc/{proc.pid}/stat").read_text().split(") ")[1].startswith("T"):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr
        time.sleep(0.05)


def test_two_syncs_at_once_take_turns_and_the_second_fetches_nothing(published, tmp_path):
    """cron's `kb sync` and a user's at once: the second waits for the first, saying who
    holds the lock, then finds the device up to date (a guard: already so)."""
    pub, original = published
    device = tmp_path / "device"
    shutil.copytree(original, device, symlinks=True)
    first = subprocess.Popen([sys.executable, "-c", STOPPED_AT, "kbtools.ship.sync", "fetch",
                              "sync", str(pub.art), "--to", str(device)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = None
    try:
        wait_stopped(first)  # holding the lock, about to fetch
        second = subprocess.Popen([sys.executable, "-m", "kbtools", "sync", "--to",
                                   str(device)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        # waiting: its first line says so (read as it comes: a fixed sleep let the first
        # sync finish before a loaded machine's second reached the lock)
        assert second.stderr is not None
        ready, _, _ = select.select([second.stderr], [], [], 120)
        waiting = second.stderr.readline() if ready else ""
        assert second.poll() is None, waiting
    finally:
        first.send_signal(signal.SIGCONT)
        out1, err1 = first.communicate(timeout=120)
        out2, err2 = second.communicate(timeout=120) if second else ("", "")
    assert first.returncode == 0 and out1.startswith("serving kb-r3 (was kb-r2)"), err1
    assert second is not None and second.returncode == 0, err2
    assert out2 == "up to date: serving kb-r3\n", out2
    assert waiting + err2 == (f"kb: waiting for {device / '.lock'}: held by kb sync (pid "
                              f"{first.pid})\n"), waiting + err2
