"""A device directory's records: state.json (the last sync and its source, the highest
serial accepted, the releases rolled back from) and its JSON Lines logs (rollback.log,
trust.log).

A sync writes state.json as it starts (`record_start`), just before its switch
(`switching`) and with its outcome; the record a killed sync left is read against what
`current` serves (`kbtools.ship.serves.switch_outcome`, `under_way`: they say whether a
pinned key still vouches for it). A rollback's line is written to
rollback.log after its switch, and one killed in between is logged by the next command
(`settle_rollback`). Every read and write is beneath the directory, never through a link;
state.json is mode 0600 (a source URL's credentials).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from kbtools.beneath import append_beneath, atomic_write_beneath, open_beneath, read_beneath
from kbtools.errors import Keyed, SyncError, one_line
from kbtools.index.layout import ROLLBACK_LOG, STATE, DeviceLayout
from kbtools.ship.device import discard, served_tag
from kbtools.ship.sourceurl import scrub

__all__ = ["MAX_STATE_BYTES", "PENDING_ROLLBACK", "append_log", "load_state", "read_json",
           "read_state", "record_start", "rollback_into", "settle_rollback", "switching",
           "synced_from", "unlogged_rollback", "write_state",
           "write_state_before_switch"]

MAX_STATE_BYTES = 16 << 20
def switching(source: str, before: str | None, tag: str, at: str) -> dict[str, Any]:
    """state.json's ``last_sync`` written just before a sync's switch from `before` to
    `tag` (replaced by the outcome once it is known). Only `current` can say whether a sync
    killed meanwhile switched (two files are never written at once): `serves.switch_outcome`
    reads the record against it."""
    return {"ok": False, "source": source, "at": at, "tag": tag, "from": before,
            "switching": True, "error": f"stopped at its switch to {tag}"}


def record_start(path: Path, state: dict[str, Any], source: str, before: str | None,
                 at: str) -> None:
    """Record in `state` and state.json, as a sync starts (holding the lock), that it is
    running; replaced by the switch under way (`switching`) or the outcome. A sync killed
    (SIGKILL, a power cut) before either leaves it, and `kb status` says so
    (`serves.switch_outcome`) rather than showing the sync before as the last one, ok. A device
    that cannot take the record (a full disk) syncs all the same: its outcome is recorded
    when it can be."""
    state["last_sync"] = {"ok": False, "source": source, "at": at, "from": before,
                          "running": True, "error": "killed before it finished"}
    with contextlib.suppress(OSError):
        write_state(path, state)


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
                        path=str(path / STATE), key="state_not_readable",
                        values={"reason": str(exc.strerror)}) from None
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
                    "the rollbacks)", path=str(path / STATE), key="state_damaged",
                    values={"reason": why})


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


def rollback_into(path: Path, tag: str | None) -> dict[str, Any] | None:
    """The `kb rollback` that switched the device to its release `tag` (its rollback.log
    entry: at, from, to, user and, for a revoked signer's release left, why), when it was the
    device's last rollback and nothing switched since; one killed before its line was
    written (`unlogged_rollback`) too. None when a sync switched to `tag`."""
    if tag is None:
        return None
    entry = unlogged_rollback(path, read_state(path)) or _last_log_entry(path)
    return entry if entry is not None and entry.get("to") == tag else None


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
            return (Keyed(f"the rollback from {entry.get('from')} to {entry.get('to')} is not "
                          f"in {ROLLBACK_LOG}: {exc.message}", "warn_rollback_unlogged",
                          {"from_": entry.get("from"), "to": entry.get("to"),
                           "log": ROLLBACK_LOG, "reason": exc.message}),)
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


def warnings_record(warnings: Sequence[str]) -> dict[str, Any]:
    """A sync's `warnings` as state.json's ``last_sync`` keeps them: ``warnings``, their
    English lines (as before, for any reader of the file), and, when some are `Keyed`,
    ``warning_keys`` beside them (each its key and values, or null) for `kb status` to say
    them in another language (`warnings_read`)."""
    record: dict[str, Any] = {"warnings": [str(w) for w in warnings]}
    if any(isinstance(w, Keyed) and w.key for w in warnings):
        record["warning_keys"] = [{"key": w.key, "values": w.values}
                                  if isinstance(w, Keyed) and w.key else None for w in warnings]
    return record


def warnings_read(last: Mapping[str, Any]) -> list[str]:
    """The warnings `warnings_record` wrote into `last` (a ``last_sync``), each `Keyed` again
    where its key was kept; a record written before keys were (or edited by hand) gives its
    lines as they are."""
    lines = last.get("warnings")
    if not isinstance(lines, list):
        return []
    keys = last.get("warning_keys")
    if not isinstance(keys, list) or len(keys) != len(lines):
        keys = [None] * len(lines)
    out: list[str] = []
    for line, key in zip(lines, keys, strict=True):
        text = str(line)
        if isinstance(key, dict) and isinstance(key.get("key"), str) and \
                isinstance(key.get("values"), dict):
            out.append(Keyed(text, key["key"], {str(k): str(v)
                                                for k, v in key["values"].items()}))
        else:
            out.append(text)
    return out


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from a regular file, not through a link ({} when missing or not JSON)."""
    try:
        data = json.loads(read_beneath(path.parent, path.name, MAX_STATE_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


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
