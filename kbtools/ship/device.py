"""A device directory: verified releases on disk and the pointer to the served one.

::

    DIR/repo.git/            bare clone of the artifacts branch + the release tags fetched
    DIR/releases/<tag>/      verified releases: manifest.json, data/, index/, release.json,
                             release.sig (if signed), verified.json (what was checked, when)
    DIR/releases/<tag>.staging/   a release being exported/verified (removed by the sync
                             that made it when it fails or is interrupted, else by the next
                             one under the lock; never a release: `unfinished_release`)
    DIR/releases/.<tag>.deleting/ a release being pruned (renamed aside, then removed; any
                             dot-named entry is no release either)
    DIR/current              symlink -> releases/<tag>; replaced with one rename (os.replace);
                             on a file system without symlinks (FAT, exFAT) a file holding
                             the line ``releases/<tag>``, replaced the same way
    DIR/trusted_keys/*.pub   pinned Ed25519 public keys; when any exist, signatures are
                             required (see `kbtools.ship.trust`)
    DIR/state.json           last sync result and source, highest serial ever accepted,
                             rolled-back tags; mode 0600 (a source URL's credentials)
    DIR/rollback.log         one JSON line per `kb rollback`
    DIR/trust.log            one JSON line per key pinned or unpinned
    DIR/.lock                flock held by sync, rollback and trust changes (released on kill)
    DIR/queries.jsonl(.1-.3) the query log, DIR/.queries.lock its rotation lock, and
    DIR/settings.json        operator settings (`kbtools.query.log`)

A release directory is only ever created by renaming a fully verified staging directory, so
anything under releases/ without the .staging suffix is verified; `current` only ever
points at such a directory. A reader resolves `current` once and keeps using that path; old
releases are pruned only beyond the newest `keep`, never the served one.

This module writes that directory (switch, lock, state, prune) with the path names of
`kbtools.index.layout`; it knows nothing of git, sync or release content. The only link in
a device directory is `current`: `check_device_dir` refuses one anywhere else (before a
sync, rollback or trust change writes), and every write goes through the no-follow helpers
of `kbtools.fsutil`, so a link that appears anyway is never written through.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbtools.errors import Interrupted, SyncError, one_line
from kbtools.fsutil import (
    append_beneath,
    atomic_write_beneath,
    fsync_dir,
    open_beneath,
    read_beneath,
)
from kbtools.index.layout import (
    CURRENT,
    LOCK,
    QUERY_LOG,
    QUERY_LOG_LOCK,
    RELEASES,
    REPO,
    ROLLBACK_LOG,
    SETTINGS,
    STATE,
    TRUST_LOG,
    TRUSTED,
    UNFINISHED,
    DeviceLayout,
    ReleaseLayout,
    default_device_dir,
    device_of_release,
    is_release_name,
    unfinished_release,
)
from kbtools.ship.sourceurl import scrub
from kbtools.ship.sparse import checkout_containing

__all__ = ["append_log", "cannot_write", "check_device_dir", "clean_staging",
           "default_device_dir", "device_dir", "dir_size", "discard", "fsync_dir",
           "interrupted", "is_device_dir", "load_state", "locked", "prune", "read_json",
           "read_state", "release_dirs", "require_device", "served_release", "served_tag",
           "settle_rollback", "still_serves", "switch_outcome", "switch_to", "switching", "unlogged_rollback",
           "write_state"]

MAX_STATE_BYTES = 16 << 20
_ENTRIES = (RELEASES, REPO, TRUSTED, STATE, ROLLBACK_LOG, TRUST_LOG, LOCK, QUERY_LOG,
            QUERY_LOG_LOCK, SETTINGS)


def device_dir(explicit: Path | None = None) -> Path:
    """The device directory to act on: --to DIR, else $KB_INDEX, else <KB_HOME>/device (the
    way `kb query` finds a device). A path to one of its releases (``DIR/current``,
    ``DIR/releases/<tag>``), as `kb query --index` also takes, means that device; what is
    no release in its releases/ (a release being staged or deleted) is refused
    (`unfinished_release`): sync, rollback or trust used to act on the device there, or on a
    device made inside it."""
    path = default_device_dir(explicit)
    if unfinished_release(path) is not None:
        raise SyncError(UNFINISHED, path=str(path))
    return (device_of_release(path) or path).absolute()


def require_device(path: Path) -> Path:
    """`path` when it is a device directory (or nothing at all yet); a build's output is
    refused with a one-line error that says what to pass instead, and so is what an
    interrupted sync left in a device's releases/ (`unfinished_release`)."""
    if unfinished_release(path) is not None:
        raise SyncError(UNFINISHED, path=str(path))
    top = checkout_containing(path)
    if top is not None:
        what = ("this is a git checkout of a release (a clone of the artifacts repository), "
                "not a device directory" if top == path.absolute() else
                f"a folder inside the git checkout of a release {top}, not a device directory "
                f"nor the clone itself (`kb status --index {top}` reads that)")
        raise SyncError(f"{what}: pass --to DIR of a device "
                        "synced with `kb sync`; in the clone, `git checkout kb-rN` rolls "
                        "back, `git pull --ff-only` updates and `git diff --stat kb-rA kb-rB` "
                        "lists what changed between two releases", path=str(path))
    if not DeviceLayout(path).is_device() and ReleaseLayout(path).is_release():
        raise SyncError("this is a build output, not a device directory; pass --to DIR of "
                        "a device synced with `kb sync`", path=str(path))
    return path


def is_device_dir(path: Path) -> bool:
    return DeviceLayout(path).is_device()


def served_release(path: Path) -> Path | None:
    """The directory of the release `path` serves, or None (see `DeviceLayout.served_release`)."""
    return DeviceLayout(path).served_release()


def served_tag(path: Path) -> str | None:
    rel = served_release(path)
    return rel.name if rel else None


def release_dirs(path: Path) -> dict[str, Path]:
    """Verified local releases by tag name."""
    return DeviceLayout(path).release_dirs()


# what symlink(2) says on a file system without symbolic links (FAT and exFAT: EPERM)
NO_SYMLINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS})


def switch_to(path: Path, tag: str) -> None:
    """Point `current` at releases/<tag> with a single atomic rename of a new symlink; on a
    file system without symbolic links (a FAT or exFAT SD card) `current` is a file holding
    that one line instead, replaced the same way (`DeviceLayout.served_release` reads both)."""
    layout = DeviceLayout(path)
    release = layout.release(tag)
    if not ReleaseLayout(release).is_release():
        raise SyncError(f"release {tag} is not present on this device", path=str(path))
    target = release.relative_to(path).as_posix()
    tmp = path / f".{CURRENT}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    try:
        os.symlink(target, tmp)
    except OSError as exc:
        if exc.errno not in NO_SYMLINKS:
            raise
        atomic_write_beneath(path, CURRENT, f"{target}\n".encode())
    else:
        os.replace(tmp, layout.current)
    fsync_dir(path)


def still_serves(path: Path) -> str:
    """What a command that changed nothing says of the device: ``kb-r4 still serves
    (unchanged)``, or that no release is served yet."""
    now = served_tag(path)
    return f"{now} still serves (unchanged)" if now else "no release is served yet"


def interrupted(path: Path, before: str | None, again: str, *,
                after: str | None = None) -> Interrupted:
    """What to say of a command stopped (Ctrl-C, SIGTERM) while it held the device lock,
    having found `before` served: the release that serves now, whether the switch happened,
    and what to run next: `again` finishes the work when the switch had not happened;
    `after` (default: `again` run again) is what remains once it had."""
    now = served_tag(path)
    if now == before:
        return Interrupted(f"{still_serves(path)}; run `{again}` again to finish",
                           path=str(path))
    return Interrupted(f"the switch completed: {now} serves now (was {before or 'nothing'})"
                       f"; {after or f'run `{again}` again to finish'}", path=str(path))


def switching(source: str, before: str | None, tag: str, at: str) -> dict[str, Any]:
    """state.json's ``last_sync`` written just before a sync's switch from `before` to
    `tag` (replaced by the outcome once it is known). Only `current` can say whether a sync
    killed meanwhile switched (two files are never written at once): `switch_outcome`
    reads the record against it."""
    return {"ok": False, "source": source, "at": at, "tag": tag, "from": before,
            "switching": True, "error": f"stopped at its switch to {tag}"}


def record_start(path: Path, state: dict[str, Any], source: str, before: str | None,
                 at: str) -> None:
    """Record in `state` and state.json, as a sync starts (holding the lock), that it is
    running; replaced by the switch under way (`switching`) or the outcome. A sync killed
    (SIGKILL, a power cut) before either leaves it, and `kb status` says so
    (`switch_outcome`) rather than showing the sync before as the last one, ok. A device
    that cannot take the record (a full disk) syncs all the same: its outcome is recorded
    when it can be."""
    state["last_sync"] = {"ok": False, "source": source, "at": at, "from": before,
                          "running": True, "error": "killed before it finished"}
    with contextlib.suppress(OSError):
        write_state(path, state)


def under_way(path: Path, last: Any) -> Any:
    """``last_sync`` as `kb status` shows it while a sync holds the device lock (its record
    says it started, `record_start`, or is switching): under way, by whom, what serves
    meanwhile and whether the sync has switched to it (`switched`: it is finishing, its
    prune and record); any other record as `switch_outcome` reads it."""
    if isinstance(last, dict) and (last.get("running") or last.get("switching")):
        holder, now = lock_holder(path), served_tag(path)
        if holder is not None:
            return {k: v for k, v in last.items() if k not in ("running", "switching")} | {
                "ok": None, "under_way": True, "holder": holder, "tag": now, "error": None,
                "switched": bool(last.get("switching")) and now == last.get("tag")}
    return switch_outcome(path, last)


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


def switch_outcome(path: Path, last: Any, *, settled: bool = False) -> Any:
    """``last_sync`` as `kb status` shows it: a record of a switch under way (`switching`)
    left by a sync killed before its outcome was written names the release that serves,
    whether the switch happened, and what to run; one of a sync that started (`record_start`)
    and was killed before its switch, the same; any other record as it is. `settled`: the
    record kept by a command about to move `current` (`kb rollback`), said in the past
    ("kb-r1 served on"), since what serves then is the rollback's."""
    if isinstance(last, dict) and last.get("running"):
        now = served_tag(path)
        if now != last.get("from"):
            serves = f"{now or 'no release'} {'served' if settled else 'serves'}"
        else:
            serves = (f"{now} served on (unchanged)" if now else "no release was served"
                      ) if settled else still_serves(path)
        return {k: v for k, v in last.items() if k != "running"} | {
            "tag": now, "error": "killed before it finished (SIGKILL or a power cut): "
                                 f"{serves}; run `kb sync` again to finish"}
    if not isinstance(last, dict) or not last.get("switching"):
        return last
    tag, now = last.get("tag"), served_tag(path)
    if now == tag:
        why = (f"killed after its switch, before its outcome was recorded: {tag} "
               f"{'served' if settled else 'serves'} (verified); run `kb sync` to finish "
               "(prune old releases)")
    else:
        serves = f"{now} {'served on' if settled else 'still serves'}" if now else \
            f"no release {'was served' if settled else 'serves'}"
        why = f"killed before its switch to {tag}: {serves}; run `kb sync` again to finish"
    return {k: v for k, v in last.items() if k != "switching"} | {"tag": now, "error": why}


def cannot_write(path: Path, exc: OSError, before: str | None) -> SyncError:
    """One line for a command that held the device lock, having found `before` served, and
    that a write refused (a full disk, a read-only directory): the file, why, and which
    release serves now."""
    now = served_tag(path)
    served = ("the served release is unchanged" if now == before
              else f"{now or 'no release'} is served now")
    return SyncError(f"cannot write {exc.filename or 'device files'}: {exc.strerror or exc}; "
                     f"{served}", path=str(path))


MAX_HOLDER_BYTES = 512


@contextlib.contextmanager
def locked(path: Path, what: str = "kb") -> Iterator[None]:
    """Exclusive lock on the device dir (sync, rollback, trust). Waits for a running holder,
    saying so once on stderr (with the holder's pid and command, which each holder writes
    into the lock file while it holds it); `what` names the command taking it."""
    path.mkdir(parents=True, exist_ok=True)
    try:
        fd = open_beneath(path, LOCK, os.O_RDWR | os.O_CREAT)
    except OSError as exc:  # a read-only mount, another account's directory: nothing done
        raise SyncError(f"cannot lock the device directory: {exc.filename}: {exc.strerror}; "
                        f"nothing was changed, {still_serves(path)}: {what} writes there "
                        "(make the directory writable for this account, or run it as the "
                        "account that owns it)", path=str(path)) from None
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


def check_device_dir(path: Path) -> None:
    """Refuse a device directory holding a link anywhere but `current` (its own entries, or
    directly under releases/), or a log that is a FIFO, a device or a hard link: each would
    lead sync, rollback or a trust change outside the directory (or hang it)."""
    names = [n for n in _ENTRIES if (path / n).is_symlink()]
    releases = DeviceLayout(path).releases
    if not names and releases.is_dir():  # leftovers (.staging, dot names) are only unlinked
        names = [f"{RELEASES}/{p.name}" for p in sorted(releases.iterdir()) if p.is_symlink()
                 and is_release_name(p.name)]
    if names:
        raise SyncError(f"{names[0]} is a symbolic link; a device directory holds no links "
                        f"but `{CURRENT}` (remove it and sync again)", path=str(path))
    for log in (ROLLBACK_LOG, TRUST_LOG):  # appended to: a hard link would lead anywhere
        try:
            st = os.lstat(path / log)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            raise SyncError(f"{log} is not a plain file of its own (a FIFO, device or hard "
                            "link); remove it and try again", path=str(path))


def read_state(path: Path) -> dict[str, Any]:
    """state.json of a device ({} when missing or unreadable)."""
    return read_json(DeviceLayout(path).state)


def load_state(path: Path) -> dict[str, Any]:
    """state.json for a command that writes it back (sync, rollback): {} when there is none
    yet. One that is there but is not a JSON object (emptied or cut short by a power cut, an
    edit) is a SyncError: read as {} it forgot the releases rolled back from and the highest
    serial accepted, so the next sync served again a release the operator rolled back from."""
    try:
        raw = read_beneath(path, STATE, MAX_STATE_BYTES)
    except FileNotFoundError:
        return {}
    except PermissionError as exc:  # another account (`kb serve` run as a service user)
        raise SyncError(f"{STATE} cannot be read ({exc.strerror}): only the account that "
                        "syncs this device may read it (mode 0600: it keeps the source URL "
                        "with any credentials in it); run this as that account",
                        path=str(path / STATE)) from None
    except OSError as exc:
        why = exc.strerror or str(exc)
    else:
        try:
            state = json.loads(raw)
        except ValueError as exc:
            state, why = None, f"not JSON: {one_line(exc, 80)}"
        if isinstance(state, dict):
            return state
        why = why if state is None else "not a JSON object"
    raise SyncError(f"{STATE} cannot be read ({why}); it records the releases rolled back "
                    "from and the highest serial accepted, which a sync must not forget: "
                    f"restore it, or remove it to go on without them ({ROLLBACK_LOG} lists "
                    "the rollbacks)", path=str(path / STATE))


STATE_MODE = 0o600  # state.json keeps the source URL as given, credentials and all


def write_state(path: Path, state: dict[str, Any]) -> None:
    """Replace state.json atomically, readable and writable by the device's account only
    (`STATE_MODE`, from the temp file's creation on, whatever the umask): it keeps the last
    source as given, with any token in its URL, for `kb sync` without SOURCE. Every write
    makes a new file, so one an older kb left world-readable is tightened by the next."""
    atomic_write_beneath(path, STATE,
                         (json.dumps(state, indent=1, sort_keys=True) + "\n").encode(),
                         STATE_MODE)


def write_state_before_switch(path: Path, state: dict[str, Any], tag: str) -> None:
    """`write_state` just before a sync switches to releases/<tag>, which it installed. When
    state.json cannot be written (the disk that release filled), the release is discarded
    before the error goes on: it serves nothing, and the space it took lets the sync's
    failure be recorded; otherwise state.json kept the record of the sync as running, and
    `kb status` called a sync that failed "killed". Its objects stay in repo.git: the next
    sync, given room, installs it again without fetching it."""
    try:
        write_state(path, state)
    except OSError:
        if served_tag(path) != tag:
            with contextlib.suppress(OSError):
                discard(path, tag)
        raise


def append_log(path: Path, name: str, entry: dict[str, Any]) -> None:
    """Append one JSON line to the device log `name` (rollback.log, trust.log); a log that
    is a link, a FIFO, a device or a hard link is a SyncError, never written through."""
    try:
        append_beneath(path, name, (json.dumps(entry, ensure_ascii=False) + "\n").encode())
    except OSError as exc:
        raise SyncError(f"cannot write the device log: {exc.strerror}",
                        path=str(path / name)) from None


# state.json's record of a rollback whose switch may have happened and whose line is not
# yet in rollback.log: written with the state before the switch, removed once the line is
# written. A rollback killed between its switch and its line (a power cut, SIGKILL) was
# logged nowhere; the next command holding the lock writes the line (`settle_rollback`).
PENDING_ROLLBACK = "rollback_pending"
_LOG_TAIL_BYTES = 64 << 10


def unlogged_rollback(path: Path, state: dict[str, Any]) -> dict[str, Any] | None:
    """The rollback.log entry of a rollback that happened (its release serves) and is not in
    the log (not its last line); None when there is none."""
    entry = state.get(PENDING_ROLLBACK)
    if not isinstance(entry, dict) or entry.get("to") != served_tag(path):
        return None
    return None if _last_log_entry(path) == entry else entry


def settle_rollback(path: Path, state: dict[str, Any], by: str | None) -> tuple[str, ...]:
    """Write the line of a rollback that switched and was not logged (`unlogged_rollback`;
    `by` names the later command that writes it), then drop the record of it from `state`
    and state.json, whether it happened or not (killed before its switch: nothing to log).
    Call with the lock held. A log that refuses the line keeps the record, for the next
    command to try again, and is a warning."""
    if PENDING_ROLLBACK not in state:
        return ()
    entry = unlogged_rollback(path, state)
    if entry is not None:
        try:
            append_log(path, ROLLBACK_LOG, entry | ({"recorded_by": by} if by else {}))
        except SyncError as exc:
            return (f"the rollback from {entry.get('from')} to {entry.get('to')} is not in "
                    f"{ROLLBACK_LOG}: {exc.message}",)
    state.pop(PENDING_ROLLBACK)
    with contextlib.suppress(OSError):  # left: dropped by the next command, not logged twice
        write_state(path, state)
    return ()


def _last_log_entry(path: Path) -> dict[str, Any] | None:
    """The last line of rollback.log as JSON (None when there is none, or it is no JSON)."""
    try:
        fd = open_beneath(path, ROLLBACK_LOG, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        tail = os.pread(fd, _LOG_TAIL_BYTES, max(0, size - _LOG_TAIL_BYTES))
    except OSError:
        return None
    finally:
        os.close(fd)
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    try:
        last = json.loads(lines[-1])
    except ValueError:
        return None
    if isinstance(last, dict):
        last.pop("recorded_by", None)
        return last
    return None


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a regular file, not through a link ({} when missing or not JSON)."""
    try:
        data = json.loads(read_beneath(path.parent, path.name, MAX_STATE_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def clean_staging(path: Path) -> None:
    """Remove leftovers of interrupted syncs (call with the lock held)."""
    layout = DeviceLayout(path)
    if layout.releases.is_dir():
        for p in layout.releases.iterdir():
            if not is_release_name(p.name):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)
                else:  # a temporary git index (or its .lock) from a killed export
                    p.unlink(missing_ok=True)
    # what a killed atomic write (`fsutil.atomic_write_beneath`) wrote beside the file it was
    # to replace: `current`, state.json, a key being pinned
    keys = path / TRUSTED
    for p in [*path.glob(f".{CURRENT}.*.tmp"), *path.glob(f".{STATE}.*.tmp"),
              *(keys.glob(".*.pub.*.tmp") if keys.is_dir() and not keys.is_symlink() else ())]:
        p.unlink(missing_ok=True)
    # git lock files left by a killed fetch, and the part of a pack an interrupted fetch had
    # received (git keeps tmp_pack_* when the connection drops or it is killed: every cut of
    # a large transfer would otherwise leave up to a release's size behind); only kb (under
    # this lock) touches repo.git
    gd = layout.repo
    if gd.is_dir():
        objects = gd / "objects"
        for p in [*gd.glob("*.lock"), *(gd / "refs").rglob("*.lock"),
                  *(objects / "pack").glob("tmp_*"), *objects.glob("tmp_obj_*"),
                  *objects.glob("[0-9a-f][0-9a-f]/tmp_obj_*")]:
            p.unlink(missing_ok=True)


def prune(path: Path, keep: int, serial_of: dict[str, int]) -> list[str]:
    """Delete releases beyond the newest `keep` (by serial), never the served one."""
    current = served_tag(path)
    tags = sorted(release_dirs(path), key=lambda t: serial_of.get(t, -1), reverse=True)
    removed = []
    for tag in tags[keep:]:
        if tag == current:
            continue
        discard(path, tag)
        removed.append(tag)
    return removed


def discard(path: Path, tag: str) -> None:
    """Remove releases/<tag> (never the served one: the caller's to know), renamed aside
    first so no half-removed directory keeps a release's name; a file in its place is
    unlinked, never followed."""
    layout = DeviceLayout(path)
    doomed = layout.releases / f".{tag}.deleting"
    os.replace(layout.release(tag), doomed)
    if doomed.is_dir() and not doomed.is_symlink():
        shutil.rmtree(doomed, ignore_errors=True)
    else:
        doomed.unlink(missing_ok=True)


def dir_size(path: Path) -> int:
    """Bytes of the regular files under `path`. What vanishes while it is walked (a release
    a `kb sync` prunes meanwhile) counts as nothing: walking it with `rglob` failed with
    FileNotFoundError, and `kb serve`'s release page and /api/releases with a 500."""
    total = 0
    for top, _dirs, files in os.walk(path):  # a directory that cannot be listed is skipped
        for name in files:
            try:
                st = os.lstat(os.path.join(top, name))
            except OSError:
                continue
            total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total


def synced_from(path: Path) -> tuple[str, bool] | None:
    """The source device `path` syncs from, as kb prints it (no URL credentials), and
    whether it pins keys (trusted_keys/ lists one); None when state.json names no source or
    cannot be read (said by the commands that write it)."""
    source = read_json(DeviceLayout(path).state).get("source")
    if not isinstance(source, str) or not source:
        return None
    folder = DeviceLayout(path).trusted
    pins = folder.is_dir() and not folder.is_symlink() and any(folder.glob("*.pub"))
    return scrub(source), pins
