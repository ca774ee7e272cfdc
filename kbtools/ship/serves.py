"""What a device command says of the release the device serves, truthfully.

A command that changed nothing (a sync refused, a lock that could not be taken), one
stopped (Ctrl-C, SIGTERM) or refused a write while it held the lock, and `kb status` reading
a sync that was killed, each say which release serves. A release no pinned key vouches for
any more (its signer removed with `kb trust remove`) answers no question
(`trust.untrusted_release`, checked on every open by `kbtools.ship.intact`), so "kb-r1
still serves" would be false there: these say that no question is answered from it and
what the operator can do.

`device`, `devicelock` and `devicestate` know nothing of trust (trust reads and writes
through them), so the lines that name what serves are made here, above all four. A failed
or stopped sync's record, and what each surface says of it, is `sync_record`'s
(`FailedSync`).
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbtools.errors import SyncError, UnchangedSyncError
from kbtools.ship import devicelock, trust
from kbtools.ship.device import served_release, served_tag
from kbtools.ship.devicelock import lock_holder

__all__ = [
    "NEXT_TRUSTED", "cannot_write", "locked", "nothing_changed", "serving", "still_serves",
    "switch_outcome", "unchanged", "under_way", "unvouched",
]


def unvouched(path: Path, *, then: str | None = None) -> str | None:
    """One line when the release `path` serves is vouched for by no pinned key (no question
    is answered from it: `trust.untrusted_release`), else None. Pinned keys that cannot be
    listed or read are the error of the command that needs them, not said here."""
    served = served_release(path)
    if served is None:
        return None
    try:
        return trust.untrusted_release(path, served, served.name, then=then)
    except SyncError:
        return None


def still_serves(path: Path, said: str | None = None, *, then: str | None = None) -> str:
    """What a command that changed nothing says of the device: `said` (default ``kb-r4
    still serves (unchanged)``, or that no release is served yet), or, when no pinned key
    vouches for the served release, that no question is answered from it and `then` (what
    the operator can do; default: trust its key again, or sync a release a pinned key
    signed)."""
    revoked = unvouched(path, then=then)
    if revoked is not None:
        return revoked
    if said is not None:
        return said
    return serving(served_tag(path))


def serving(served: str | None, *, unchanged: bool = True, past: bool = False,
            switched: bool = False) -> str:
    """What a command that changed nothing says of `served`, the release that served as it
    ran: "kb-r3 still serves (unchanged)", or, `past`, once another command changed what
    serves, "kb-r3 served on (unchanged)"; one that `switched` to it, "kb-r3 serves now"
    ("kb-r3 served")."""
    if served is None:
        return "no release was served" if past else "no release is served yet"
    if switched:
        return f"{served} {'served' if past else 'serves now'}"
    return (f"{served} {'served on' if past else 'still serves'}"
            f"{' (unchanged)' if unchanged else ''}")


def unchanged(path: Path | None, reason: str, *, served: str | None = None,
              unchanged: bool = True, after: str = "", sep: str = "; ",
              then: str | None = None, at: str | None = None, key: str | None = None,
              values: dict[str, str] | None = None) -> UnchangedSyncError:
    """The error of a command on the device `path` that changed nothing, for `reason`: what
    serves said by `still_serves` (`then`: what the operator can do when no pinned key
    vouches for it), in parts the failure's record keeps (`sync_record.FailedSync`).
    `served`: the release that serves when `path` is None; `key`, `values`: what failed,
    for a reader of another language (`KbError.key`)."""
    now = served_tag(path) if path is not None else served
    said = serving(now, unchanged=unchanged)
    clause = still_serves(path, said, then=then) if path is not None else said
    return UnchangedSyncError(reason, now, clause, after=after, sep=sep, unchanged=unchanged,
                              path=at, key=key, values=values)


NEXT_TRUSTED = ("the next `kb sync` takes the first release signed by a pinned key as soon as "
                "the publisher publishes one (`kb trust add PUB` trusts its key again)")


def nothing_changed(path: Path | None, reason: str, *, served: str | None = None,
                    sep: str = "; ", after: str = "", at: str | None = None,
                    key: str | None = None, values: dict[str, str] | None = None
                    ) -> UnchangedSyncError:
    """The error of a sync that changed nothing, for `reason` (`unchanged`): when no pinned
    key vouches for the served release, that no question is answered from it and that the
    next sync takes the first release a pinned key signs (`NEXT_TRUSTED`)."""
    return unchanged(path, reason, served=served, sep=sep, after=after, then=NEXT_TRUSTED,
                     at=at, key=key, values=values)


def cannot_write(path: Path, exc: OSError, before: str | None) -> SyncError:
    """One line for a command that held the device lock, having found `before` served, and
    that a write refused (a full disk, a read-only directory): the file, why, and which
    release serves now (or that none answers)."""
    now = served_tag(path)
    served = ("the served release is unchanged" if now == before
              else f"{now or 'no release'} is served now")
    revoked = unvouched(path)
    if revoked is not None:
        served = f"{'nothing was switched' if now == before else f'{now} is current now'}" \
                 f", but {revoked}"
    full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
    return UnchangedSyncError(f"cannot write {exc.filename or 'device files'}: "
                              f"{exc.strerror or exc}", now, served, switched=now != before,
                              path=str(path), key="sync_no_room" if full else "sync_cannot_write",
                              values={"file": str(exc.filename or "")})


@contextlib.contextmanager
def locked(path: Path, what: str = "kb") -> Iterator[None]:
    """`devicelock.locked` for a command that acts on a device (sync, rollback, trust):
    a lock that cannot be taken says which release still serves, truthfully."""
    with devicelock.locked(path, what, serves=still_serves):
        yield


def under_way(path: Path, last: Any) -> Any:
    """``last_sync`` as `kb status` shows it while a sync holds the device lock (its record
    says it started, `devicestate.record_start`, or is switching): under way, by whom, what
    serves meanwhile and whether the sync has switched to it (`switched`: it is finishing,
    its prune and record); any other record as `switch_outcome` reads it."""
    if isinstance(last, dict) and (last.get("running") or last.get("switching")):
        holder, now = lock_holder(path), served_tag(path)
        if holder is not None:
            return {k: v for k, v in last.items() if k not in ("running", "switching")} | {
                "ok": None, "under_way": True, "holder": holder, "tag": now, "error": None,
                "switched": bool(last.get("switching")) and now == last.get("tag")}
    return switch_outcome(path, last)


def switch_outcome(path: Path, last: Any, *, settled: bool = False) -> Any:
    """``last_sync`` as `kb status` shows it: a record of a switch under way
    (`devicestate.switching`) left by a sync killed before its outcome was written names the
    release that serves (or that none answers), whether the switch happened, and what to
    run; one of a sync that started (`devicestate.record_start`) and was killed before its
    switch, the same; any other record as it is. `settled`: the record kept by a command
    about to move `current` (`kb rollback`), said in the past ("kb-r1 served on"), since
    what serves then is the rollback's."""
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
        if now and not settled:
            serves = still_serves(path, serves)
        why = f"killed before its switch to {tag}: {serves}; run `kb sync` again to finish"
    return {k: v for k, v in last.items() if k != "switching"} | {"tag": now, "error": why}
