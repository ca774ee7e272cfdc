"""Fetching a release into a device's repository: checked, bounded, undone when refused.

Every fetch into a device's repo.git (the release, and any history fetched later) keeps its
objects as the received packs (``fetch.unpackLimit=1``, `pack_bytes`), each checked by git
first (``fetch.fsckObjects``: a malformed commit or tree is refused, never stored), with no
automatic gc after it (git would start one detached, running on in repo.git after the sync
let go of the device lock): the sync repacks once the release is served.

A fetch stores at most `NetLimits.max_fetch_bytes` (kb.toml ``[sync] max_fetch_bytes``, `kb
sync --max-fetch-bytes`; `gitrun.MAX_FETCH_BYTES` by default): git is stopped once its pack
grows past it (`gitrun.run_raw`), and one that finished meanwhile (a fast local source) is
measured when it ends. Either way what it stored is removed and its refs and shallow list are
put back as they were (`_Undo`): the disk holds what it held before, the served release is
unchanged, and one line says what limit stopped it and how to raise it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import resource
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from kbtools.errors import FetchLimitError, SyncError, TransientSyncError
from kbtools.ship.git import check_bundle, is_bundle, rev_parse, update_refs
from kbtools.ship.gitrun import FetchTooLarge, NetLimits, default_limits, run_git, size_text


def pack_bytes(gd: Path) -> int:
    """Bytes of packs and loose objects in a repo (fetch keeps packs: unpackLimit=1)."""
    objects = gd / "objects"
    packs = sum(p.stat().st_size for p in (objects / "pack").glob("*.pack"))
    loose = sum(p.stat().st_size for p in objects.glob("[0-9a-f][0-9a-f]/*"))
    return packs + loose


CHECKED_FETCH = ("-c", "fetch.unpackLimit=1", "-c", "fetch.fsckObjects=true",
                 "-c", "maintenance.auto=false", "-c", "gc.auto=0", "fetch", "-q")


def kept_since(gd: Path, tag: str) -> str | None:
    """When the objects of release `tag` came into the device's repo.git ahead of the sync
    about to fetch it (an attempt that failed or was killed after its fetch kept them: the
    next fetch adds nothing, and "fetched 0 bytes" said nothing true of the release): the
    time its tag ref was written, UTC to the second, or "" when git has packed the ref (the
    time is not known); None when they are not here."""
    if rev_parse(gd, f"refs/tags/{tag}") is None:
        return None
    try:
        st = os.lstat(gd / "refs" / "tags" / tag)
    except OSError:
        return ""
    if not stat.S_ISREG(st.st_mode):
        return ""
    return datetime.fromtimestamp(int(st.st_mtime), UTC).isoformat()


def fetch(gd: Path, source: str, branch_ref: str, branch: str, tag_ref: str, tag: str,
          limits: NetLimits | None = None, *, served: str | None = None) -> int:
    """Fetch branch + one tag (given up past `limits`); returns bytes added to the device's
    object store. `served`: the release the device serves (None: none yet), as a refusal
    says what the device still has."""
    before = pack_bytes(gd)
    specs = [f"+{branch_ref}:refs/heads/{branch}", f"+{tag_ref}:refs/tags/{tag}"]
    args = [*CHECKED_FETCH, "--no-tags", "--no-write-fetch-head"]
    first = rev_parse(gd, f"refs/heads/{branch}") is None and not is_bundle(source)
    with _bounded(gd, [f"refs/heads/{branch}", f"refs/tags/{tag}"], source, tag, limits,
                  served):
        try:
            if is_bundle(source):  # git does not fsck a bundle's objects: checked first
                _bundle_within(source, tag, limits, served)  # (checking it writes its pack)
                check_bundle(gd, source)
            run_git(gd, *args, *(["--depth=1"] if first else []), source, *specs,
                    error=SyncError, limits=limits)
        except (FetchTooLarge, FetchLimitError):  # a size, not a damaged bundle
            raise
        except SyncError as exc:
            if ": object " in exc.message:
                raise _malformed(exc, source, tag, "the release itself", key="sync_object_malformed",
                                 values={"release": tag}) from None
            if is_bundle(source):
                raise SyncError(f"bundle is damaged or truncated: {exc}", path=source,
                                key="sync_bundle_damaged") from None
            if not first or "shallow" not in str(exc):
                raise _cut_off(exc, source, tag, served) from None
            try:
                run_git(gd, *args, source, *specs, error=SyncError,  # dumb HTTP: no shallow
                        limits=limits)
            except FetchTooLarge:
                raise
            except SyncError as again:
                raise _cut_off(again, source, tag, served) from None
    return max(0, pack_bytes(gd) - before)


def deepen(gd: Path, source: str, branch_ref: str, branch: str,
           limits: NetLimits | None = None, *, served: str | None = None) -> int:
    """Fetch the whole history of the artifacts branch into a shallow repo.git; returns the
    bytes added. `served` as `fetch` takes it."""
    before = pack_bytes(gd)
    what = f"the history of {branch}"  # (fetched to place the release's tag on the branch)
    with _bounded(gd, [f"refs/heads/{branch}"], source, what, limits, served):
        try:
            run_git(gd, *CHECKED_FETCH, "--no-tags", "--no-write-fetch-head", "--unshallow",
                    source, f"+{branch_ref}:refs/heads/{branch}", error=SyncError,
                    limits=limits)
        except FetchTooLarge:
            raise
        except SyncError as exc:
            if ": object " in exc.message:
                raise _malformed(exc, source, what, f"the history of branch {branch}, not in "
                                 "the release itself", key="sync_history_malformed",
                                 values={"branch": branch}) from None
            raise _cut_off(exc, source, what, served) from None
    return max(0, pack_bytes(gd) - before)


def unchanged_here(served: str | None) -> str:
    """What a fetch that kept nothing leaves the device with, in words: "the served release
    is unchanged", or, on a device that serves nothing yet, that it still has no release and
    answers no question (a fresh device has no served release to keep)."""
    if served is None:
        return ("this device still has no release (it answers no question until a sync "
                "installs one)")
    return "the served release is unchanged"


def _bundle_within(source: str, tag: str, limits: NetLimits | None,
                   served: str | None) -> None:
    """A bundle file larger than the fetch limit is refused before its pack is checked
    (`check_bundle` writes it to the device's disk) or fetched: its pack is most of it."""
    limit = (limits or default_limits()).max_fetch_bytes
    size = os.stat(source).st_size
    if limit is not None and size > limit:
        raise FetchLimitError(
            f"{tag}: the bundle holds {size_text(size)}, past this device's limit of "
            f"{size_text(limit)} for one fetch; nothing of it was read and "
            f"{unchanged_here(served)}; if it is meant to be that large, raise the limit: kb sync "
            "--max-fetch-bytes BYTES, or max_fetch_bytes in kb.toml [sync]", path=source,
            key="sync_fetch_limit")


def _malformed(exc: SyncError, source: str, what: str, held_in: str, *, key: str,
               values: dict[str, str]) -> SyncError:
    """fetch.fsckObjects refused a tree or commit git calls malformed, of a release or of
    the history of the branch: `held_in` says which in words, `key` and `values` in any
    language (`KbError.key`)."""
    return SyncError(f"{what}: git refuses an object in {held_in} as malformed "
                     f"— {exc.message}; refusing it", path=source, key=key, values=values)


# what git (run with LC_ALL=C) says when the device's disk cannot take what it fetches: a
# full disk, a quota, a file-size limit (`ulimit -f`)
_NO_ROOM = tuple(os.strerror(e) for e in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG))


def _size_limited(message: str) -> bool:
    """Whether git's writing of the fetched pack failed under a file-size limit (`ulimit -f`
    on kb): index-pack then dies with no word of why but "invalid index-pack output"."""
    soft = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    return soft != resource.RLIM_INFINITY and ("index-pack" in message
                                               or "unpack-objects" in message)


def _cut_off(exc: SyncError, source: str, tag: str, served: str | None) -> TransientSyncError:
    """A fetch that failed on the way (connection cut, refused, stalled): one line naming
    the source and the release, and that nothing changed on the device. One that failed
    for want of room on the device says so, since syncing again alone fails again."""
    if any(words in exc.message for words in _NO_ROOM) or _size_limited(exc.message):
        return TransientSyncError(
            f"{tag}: the device has no room for this release's files ({exc.message}); "
            f"{unchanged_here(served)} and nothing fetched was kept: free space on the "
            "device (or raise its quota or file-size limit) and sync again", path=source,
            key="sync_no_room", values={"release": tag})
    return TransientSyncError(f"{tag}: {exc.message}; {unchanged_here(served)} (run kb sync "
                              "again to retry)", path=source, key="sync_cut_off",
                              values={"release": tag})


@dataclass(frozen=True)
class _Undo:
    """What a fetch may change in repo.git, as it was before: the refs it moves, the list of
    shallow commits, the pack files."""

    refs: dict[str, str | None]
    shallow: bytes | None
    packs: frozenset[str]

    @classmethod
    def taken(cls, gd: Path, refs: list[str]) -> _Undo:
        shallow = gd / "shallow"
        return cls({r: rev_parse(gd, r) for r in refs},
                   shallow.read_bytes() if shallow.is_file() else None, _packs(gd))

    def apply(self, gd: Path) -> None:
        """Put repo.git back: refs first (nothing then names the new objects), the shallow
        list, then every pack file the fetch wrote removed. The fetch was killed (SIGKILL,
        `gitrun`) and waited for, under the device's lock: a lock file it held (``HEAD.lock``
        while it moved the branch HEAD names) is stale, and would refuse the undo."""
        for name in ("HEAD", "packed-refs", "shallow", *self.refs):  # a killed git's locks
            (gd / f"{name}.lock").unlink(missing_ok=True)
        commands = []
        for ref, old in self.refs.items():
            now = rev_parse(gd, ref)
            if now != old:
                commands.append(f"update {ref} {old}" if old else f"delete {ref}")
        if commands:
            update_refs(gd, commands, "kb sync: fetch over its size limit undone",
                        error=SyncError)
        shallow = gd / "shallow"
        if self.shallow is None:
            shallow.unlink(missing_ok=True)
        elif not shallow.is_file() or shallow.read_bytes() != self.shallow:
            shallow.write_bytes(self.shallow)
        for name in _packs(gd) - self.packs:
            (gd / "objects" / "pack" / name).unlink(missing_ok=True)


def _packs(gd: Path) -> frozenset[str]:
    with contextlib.suppress(OSError):
        return frozenset(p.name for p in (gd / "objects" / "pack").iterdir())
    return frozenset()


@contextlib.contextmanager
def _bounded(gd: Path, refs: list[str], source: str, what: str,
             limits: NetLimits | None, served: str | None) -> Iterator[None]:
    """Run a fetch of `what` into `gd` within `limits.max_fetch_bytes`: stopped past it
    (`FetchTooLarge` from git's watcher), or measured when it ended; over it, repo.git is
    put back (`_Undo`) and the sync refused in one line."""
    limit = (limits or default_limits()).max_fetch_bytes
    undo = _Undo.taken(gd, refs)
    before = sum((gd / "objects" / "pack" / n).stat().st_size for n in undo.packs
                 if n.endswith(".pack"))
    try:
        yield
    except FetchTooLarge as exc:
        undo.apply(gd)
        raise _too_large(exc.received, exc.limit, source, what, served) from None
    stored = sum(p.stat().st_size for p in (gd / "objects" / "pack").glob("*.pack")) - before
    if limit is not None and stored > limit:  # it ended between two looks
        undo.apply(gd)
        raise _too_large(stored, limit, source, what, served)


def _too_large(received: int, limit: int, source: str, what: str,
               served: str | None) -> FetchLimitError:
    return FetchLimitError(
        f"{what}: the fetch stored {size_text(received)}, past this device's limit of "
        f"{size_text(limit)}, and was stopped; nothing of it was kept and "
        f"{unchanged_here(served)}; if the release is meant to be that large, raise the limit: "
        "kb sync --max-fetch-bytes BYTES, or max_fetch_bytes in kb.toml [sync]", path=source,
        key="sync_fetch_limit")
