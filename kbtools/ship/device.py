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

This module is the directory itself (which one a command acts on, the served release, the
switch, leftovers, pruning) with the path names of `kbtools.index.layout`; its lock is
`kbtools.ship.devicelock`, its records (state.json, rollback.log, trust.log) are
`kbtools.ship.devicestate`. None of the three knows anything of git, sync or release
content. The only link in
a device directory is `current`: `check_device_dir` refuses one anywhere else (before a
sync, rollback or trust change writes), and every write goes through the no-follow helpers
of `kbtools.fsutil`, so a link that appears anyway is never written through.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from pathlib import Path

from kbtools.beneath import atomic_write_beneath
from kbtools.errors import SyncError
from kbtools.fsutil import fsync_dir
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
from kbtools.ship.sparse import checkout_containing

__all__ = ["check_device_dir", "clean_staging", "default_device_dir",
           "device_dir", "dir_size", "discard", "fsync_dir", "is_device_dir",
           "prune", "release_dirs", "require_device", "served_release", "served_tag",
           "switch_to"]

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
    # what a killed atomic write (`beneath.atomic_write_beneath`) wrote beside the file it was
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
