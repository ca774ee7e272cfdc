"""`kb sync` killed with SIGKILL (the OOM killer, a service manager's last resort, `kill -9`)
while its git fetch is mid-pack: git goes with it. It runs in a session of its own (so a
stop can kill it with its transport), and used to run on as an orphan, over a stalled 4G
link for hours, writing into repo.git after the device lock was gone and while the next
sync cleaned up and fetched there.

A real `kb sync` process, `git daemon` on loopback behind a proxy that stalls the transfer
mid-pack (`test_sync_network.net`).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import test_sync_network
from test_sync_network import kb_sync, partial_packs

from kbtools.ship import device as dev

pytestmark = pytest.mark.slow

net = test_sync_network.net  # kb-r1 synced through the proxy, kb-r2 published


def descendants(pid: int) -> set[int]:
    """The live (not zombie) processes below `pid`, from /proc."""
    children: dict[int, set[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            state, ppid = stat.rsplit(") ", 1)[1].split()[:2]
            if state != "Z":
                children.setdefault(int(ppid), set()).add(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), ()):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_sync_killed_mid_pack_takes_its_git_fetch_with_it(net):
    _, proxy, device = net
    proxy.mode, proxy.after = "stall", 60_000  # mid-pack, then silence (a 4G link gone)
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "sync", proxy.url("art.git"),
                             "--to", str(device)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        gits: set[int] = set()
        while not any(alive(p) and "fetch" in Path(f"/proc/{p}/cmdline").read_bytes().decode(
                errors="replace") for p in gits):
            assert time.monotonic() < deadline and proc.poll() is None, "no git fetch started"
            time.sleep(0.05)
            gits = descendants(proc.pid)
        time.sleep(0.5)  # receiving, then stalled
        proc.kill()
        proc.wait(10)
        deadline = time.monotonic() + 10
        while any(alive(p) for p in gits) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = sorted(p for p in gits if alive(p))
        assert left == [], f"git left running after kb sync was killed: {left}"
    finally:
        for p in descendants(proc.pid) | gits:
            if alive(p):
                os.kill(p, signal.SIGKILL)
        proxy.mode = "pass"
        proxy.released.set()
    code, err = kb_sync(proxy.url("art.git"), device)  # completes, nothing left behind
    assert code == 0, err
    assert dev.served_tag(device) == "kb-r2" and partial_packs(device) == []
