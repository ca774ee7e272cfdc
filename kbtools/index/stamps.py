"""Stat signatures of files, and the clock of the file system that stamps them.

A file hashed once is not hashed again while its signature (device, inode, size,
modification and change times) stays the same (`kbtools.ship.intact`). That is sound only
for a file whose last change is older than the hash by more than one tick of the file
system's clock: a change within the tick in which the file was last changed keeps its
change time, so its signature too. `fs_clock` reads that clock where the files are (the
change time a file created there now gets) and `clock_past` waits, a tick at most, until
it has moved past a stamp: every file changed at or before the stamp then has a change
time below the clock's new value, and any change to one of them afterwards gives it a
change time at or above it, which no user can set back. A hash begun after reading the
clock therefore covers the bytes of every file whose change time is below the value read.
"""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

Signature = tuple[int, int, int, int, int]
MISSING: Signature = (-1, -1, -1, -1, -1)  # no such file
CLOCK_WAIT_S = 2.0  # a file system whose clock ticks slower than this is not waited for


def of_stat(st: os.stat_result) -> Signature:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def signature(path: Path) -> Signature:
    """The signature of `path` (no link followed); MISSING when it cannot be stat'ed."""
    try:
        return of_stat(os.stat(path, follow_symlinks=False))
    except OSError:
        return MISSING


def changed_before(sig: Signature, stamp: int) -> bool:
    """Whether the file of `sig` was last changed (and modified) before `stamp` (ns)."""
    return sig != MISSING and max(sig[3], sig[4]) < stamp


def settled_at(sig: Signature, now: int, racy: int) -> bool:
    """Whether a hash of the file of `sig` read at `now` (ns, by the clock that stamps file
    times) holds for as long as its signature stays the same: neither its modification nor
    its change time is within `racy` (a tick of that clock) of `now`. A time well below
    `now` was stamped before it; one well above it by a clock that was ahead of this one (a
    device whose clock was set back since, a file copied with its modification time from a
    device whose clock ran fast). Either way a change now stamps times near `now`: a new
    signature. (Taken as "before `now`" alone, every file of a device whose clock was set
    back was hashed again on every open, and never remembered.)"""
    return sig != MISSING and all(abs(t - now) > racy for t in (sig[3], sig[4]))


def fs_clock(directory: Path) -> int:
    """The change time (ns) a file created in `directory` gets now: a probe file, removed
    at once. OSError when `directory` cannot be written."""
    probe = directory / f".kb-clock-{secrets.token_hex(6)}"
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        return os.fstat(fd).st_ctime_ns
    finally:
        os.close(fd)
        os.unlink(probe)


def clock_past(directory: Path, stamp: int | None = None) -> int:
    """`fs_clock(directory)` once it is above `stamp` (default: its value now), waiting a
    tick of that clock; after `CLOCK_WAIT_S` its value then, which may equal `stamp`.
    OSError when `directory` cannot be written."""
    stamp = fs_clock(directory) if stamp is None else stamp
    deadline, pause = time.monotonic() + CLOCK_WAIT_S, 0.001
    while (now := fs_clock(directory)) <= stamp and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(pause * 2, 0.1)
    return now
