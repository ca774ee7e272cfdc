"""A sync's outcome on the device: what it records in state.json (`sync_time` its time), and a
sync that failed or was stopped with the lock held cleaned up after — what it staged
removed, the served index derived again when it fails its check (`repair_served`), the
failure or stop recorded as the last sync — with the one error it ends with.
`kbtools.ship.sync` calls these; a failure to record a sync that succeeded is a warning.
"""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.errors import Interrupted, KbError, SyncError
from kbtools.index.layout import STATE, DeviceLayout
from kbtools.index.stamps import Signature
from kbtools.ship import device as dev
from kbtools.ship import devicestate, intact, serves
from kbtools.ship.gitrun import interrupts_held
from kbtools.ship.install import rederive
from kbtools.ship.sourceurl import scrub, scrubbed, shown_source
from kbtools.ship.sync_record import FailedSync


def stopped(device: Path, state: dict[str, Any] | None, source: str, before: str | None
             ) -> Interrupted:
    """Clean up after a sync stopped (Ctrl-C, SIGTERM) with the lock held, having found
    `before` served: what it staged removed, the stop recorded as the last sync in
    `state` (unless state.json could not be read: never written over then), naming the
    release that serves now and, after the switch, its source; and the one line saying so.
    A second stop meanwhile is held until this is done (`interrupts_held`)."""
    with interrupts_held():
        with contextlib.suppress(OSError):  # what it staged (the lock is still held)
            dev.clean_staging(device)
        told = FailedSync.stopped(device, before, "kb sync",
                                  after="run `kb sync` again to prune old releases")
        stopped = told.interrupted(device)
        if state is not None:
            now = dev.served_tag(device)
            state["last_sync"] = {"ok": False, "source": shown_source(source), "at": sync_time(),
                                  "error": f"interrupted: {scrub(stopped.message)}",
                                  "served": now, "said": told.said("interrupted: ")}
            if now != before:
                state["last_sync"]["tag"] = now
                state["source"] = source
            with contextlib.suppress(OSError):
                devicestate.write_state(device, state)
    return stopped


def failed(device: Path, state: dict[str, Any], source: str, before: str | None,
            exc: KbError | OSError) -> KbError:
    """The error a sync that failed with the lock held stops with (one that a write refused
    names the file and which release serves), after its clean-up: what it staged removed,
    the served index derived again when it fails its check (`repair_served`), the failure
    recorded as the last sync."""
    err = serves.cannot_write(device, exc, before) if isinstance(exc, OSError) else exc
    dev.clean_staging(device)
    repaired = repair_served(device, err)
    said = FailedSync.of_error(err, repaired).said()  # its words in parts, what failed
    err = scrubbed(repaired)
    # what serves after it; `said`, the parts of its words of that, said again in the past
    # once a rollback changes it (`sync_record.since_then`)
    state["last_sync"] = {"ok": False, "source": shown_source(source), "error": str(err),
                          "at": sync_time(), "served": dev.served_tag(device)} | (
        {"said": said} if said is not None else {})
    with contextlib.suppress(OSError):
        devicestate.write_state(device, state)
    return err


def recorded(device: Path, state: dict[str, Any]) -> tuple[str, ...]:
    """Write the outcome of a sync that succeeded into state.json; a failure (a disk the
    repack filled, a directory made read-only) is a warning: the release is served (the
    highest serial was recorded before the switch), and an error named a temporary file
    and said the sync failed."""
    try:
        devicestate.write_state(device, state)
    except OSError as exc:
        return (f"the result of this sync was not recorded in {device / STATE} "
                f"({exc.strerror or exc}): `kb status` shows the sync before it and `kb sync` "
                "without SOURCE uses that one's source; free space or make the directory "
                "writable, then sync again",)
    return ()


def repair_served(device: Path, exc: KbError) -> KbError:
    """`exc`, saying so when the served release's index/ was derived again from its verified
    data/ because it failed its check: a sync that failed (a field device offline, the
    source out of reach) still repairs it, as an up-to-date one does — after an upgrade of
    kbtools to another tokenizer, `kb query` and `kb serve` refuse the index and say to run
    `kb sync`, which needs no network for that. A rederived release is left verified under
    KB_HOME (`intact.vouch`), so the first question after it hashes nothing."""
    tag, served = dev.served_tag(device), dev.served_release(device)
    if tag is None or served is None or exc.exit_code != 1:
        return exc
    hashed: dict[str, Signature] = {}
    try:
        why = rederive(served, DeviceLayout(device).staging(tag), tag, hashed)
    except (KbError, OSError):
        dev.clean_staging(device)
        return exc
    if why is None:
        return exc
    intact.vouch(served, hashed)  # its data/ as verified to derive from: stat'ed, not hashed
    return SyncError(f"{exc.message}; the index of the served {tag} was derived again from "
                     f"its verified data/ (it failed its check: {why})", path=exc.path,
                     line=exc.line, key=exc.key, values=exc.values)


def sync_time() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()
