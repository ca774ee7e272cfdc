"""The device directory's lock: one holder at a time among sync, rollback, trust changes
and the derivation of a checkout's index.

``DIR/.lock`` is flock'ed (so a killed holder lets go of it); the holder writes ``pid
command`` into it while it holds it, for a command waiting on it (`locked`) and for `kb
status` (`lock_holder`) to name. The lock file is opened beneath the directory, never
through a link.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from kbtools.beneath import open_beneath
from kbtools.errors import SyncError, one_line
from kbtools.index.layout import LOCK

__all__ = ["lock_holder", "locked"]


def lock_holder(path: Path) -> str | None:
    """Who holds the device lock (``kb sync (pid 123)``, "another kb command" without its
    note), or None when no one does. Only reads: the lock is tried shared, never waited
    for, and let go at once."""
    try:
        fd = open_beneath(path, LOCK, os.O_RDONLY)
    except OSError:  # no lock file yet (never locked), or not readable: no holder known
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _lock_holder(fd) or "another kb command"
    finally:
        os.close(fd)  # lets go of a lock taken
    return None


MAX_HOLDER_BYTES = 512


@contextlib.contextmanager
def locked(path: Path, what: str = "kb", *,
           serves: Callable[[Path], str] | None = None) -> Iterator[None]:
    """Exclusive lock on the device dir (sync, rollback, trust). Waits for a running holder,
    saying so once on stderr (with the holder's pid and command, which each holder writes
    into the lock file while it holds it); `what` names the command taking it. A lock that
    cannot be taken is a SyncError saying nothing was changed and, with `serves`, what it
    says of the directory (`kbtools.ship.serves.locked`: which release still serves, or
    that none answers: this module knows nothing of trust)."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        fd = open_beneath(path, LOCK, os.O_RDWR | os.O_CREAT)
    except OSError as exc:  # a read-only mount, another account's directory: nothing done
        said = f"; {serves(path)}" if serves else ""
        raise SyncError(f"cannot lock the device directory: {exc.filename}: {exc.strerror}; "
                        f"nothing was changed: {what} writes there (make the directory "
                        "writable for this account, or run it as the account that owns "
                        f"it){said}", path=str(path), key="sync_cannot_lock",
                        values={"folder": str(path)}) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _lock_holder(fd)
            print(f"kb: waiting for {path / LOCK}: held by "
                  f"{holder or 'another kb command (a sync, rollback, trust change or the '}"
                  f"{'' if holder else 'derivation of a checkout index)'}", file=sys.stderr,
                  flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        _note_holder(fd, what)
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _note_holder(fd: int, what: str) -> None:
    """Write `pid command` into the held lock file, for a command waiting on it to name."""
    with contextlib.suppress(OSError):  # a note only: a full disk must not stop the holder
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {what}\n".encode(), 0)


def _lock_holder(fd: int) -> str:
    """``kb sync (pid 123)`` from the lock file's note, or "" when there is none."""
    try:
        note = os.pread(fd, MAX_HOLDER_BYTES, 0).decode("utf-8", "replace").split()
    except OSError:
        return ""
    if len(note) < 2 or not note[0].isdigit():
        return ""
    return f"{one_line(' '.join(note[1:]), 80)} (pid {note[0]})"
