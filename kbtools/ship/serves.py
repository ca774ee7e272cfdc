"""What a device command says of the release the device serves, truthfully.

A command that changed nothing (a sync refused, a lock that could not be taken), one
stopped (Ctrl-C, SIGTERM) or refused a write while it held the lock, and `kb status` reading
a sync that was killed, each say which release serves. A release no pinned key vouches for
any more (its signer removed with `kb trust remove`) answers no question
(`trust.untrusted_release`, checked on every open by `kbtools.ship.intact`), so "kb-r1
still serves" would be false there: these say that no question is answered from it and
what the operator can do.

`device`, `devicelock` and `devicestate` know nothing of trust (trust reads and writes
through them), so the lines that name what serves are made here, above all four.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from kbtools.errors import Interrupted, SyncError
from kbtools.ship import devicelock, trust
from kbtools.ship.device import served_release, served_tag
from kbtools.ship.devicelock import lock_holder
from kbtools.ship.devicestate import rollback_into

__all__ = ["cannot_write", "interrupted", "locked", "since_then", "still_serves",
           "switch_outcome", "under_way", "unvouched"]


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
    now = served_tag(path)
    return f"{now} still serves (unchanged)" if now else "no release is served yet"


def interrupted(path: Path, before: str | None, again: str, *,
                after: str | None = None) -> Interrupted:
    """What to say of a command stopped (Ctrl-C, SIGTERM) while it held the device lock,
    having found `before` served: the release that serves now (or that none answers),
    whether the switch happened, and what to run next: `again` finishes the work when the
    switch had not happened; `after` (default: `again` run again) is what remains once it
    had."""
    now = served_tag(path)
    if now == before:
        return Interrupted(f"{still_serves(path)}; run `{again}` again to finish",
                           path=str(path))
    revoked = unvouched(path)
    serves = (f"{now} serves now" if revoked is None else f"{now} is current now, but "
              f"{revoked}")
    return Interrupted(f"the switch completed: {serves} (was {before or 'nothing'})"
                       f"; {after or f'run `{again}` again to finish'}", path=str(path))


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
    return SyncError(f"cannot write {exc.filename or 'device files'}: {exc.strerror or exc}; "
                     f"{served}", path=str(path))


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


def since_then(path: Path, last: Any) -> Any:
    """A finished sync's record as `kb status` shows it once the device changed after it:
    another command (`kb rollback`, or the one `kb trust remove` runs) changed what serves,
    or keys were pinned or unpinned after a failure ("pin it with `kb trust add`", done).
    Its words of what serves are put in the past ("kb-r3 still serves" becomes "kb-r3
    served on"), and ``since`` says what serves now, since which rollback (rollback.log),
    and the keys pinned since (trust.log). Why: after a failed sync and a rollback, `kb
    status` quoted "kb-r3 still serves" as the device's health while kb-r2 served. The
    release a sync left serving is its ``served`` (a failure) or its ``tag``; a record
    naming neither (written before kb kept it), or one under way, is as it is."""
    if not isinstance(last, dict) or last.get("under_way"):
        return last
    failed = last.get("ok") is False
    then = last.get("served", last.get("tag")) if failed else last.get("tag")
    now = served_tag(path)
    moved = isinstance(then, str) and then != now
    said = []
    if moved:
        entry = rollback_into(path, now)  # the rollback that left `now` serving, if one did
        by = ""
        if entry is not None:
            # one `kb trust remove` ran names why (`operate.settle_trust`)
            by = (f" since the rollback at {entry.get('at')} ({entry['why']})"
                  if entry.get("why") else f" since `kb rollback` at {entry.get('at')}") + (
                "" if entry.get("from") == then else f" (from {entry.get('from')})")
        said.append(f"{now or 'no release'} serves{by}, not {then}")
    if failed:
        said += trust.pinned_since(path, str(last.get("at")))
    if not said:
        return last
    shown = dict(last) | {"since": "; ".join(said)}
    if moved and isinstance(last.get("error"), str):
        shown["error"] = last["error"].replace(f"{then} still serves", f"{then} served on")
    return shown
