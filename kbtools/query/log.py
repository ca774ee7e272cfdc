"""The query log of a device: who asked what, through which interface, of which release.

`record_question` appends one JSON line per question asked of a device's release (through
`kb query`, MCP, the web app or its API) to ``DIR/queries.jsonl``: time (UTC), interface,
release tag, question, the chunk ids cited, and whether there was no answer. It is for audits
("which answer did the technician get, from which release?"), so it records nothing else
(no user, no address).

- Bounded: when the file would pass `max_bytes` (default `MAX_LOG_BYTES`) it is renamed to
  ``queries.jsonl.1`` (older ones shift up to ``.3``; the oldest is dropped), so the log
  never holds more than 4 × `max_bytes`.
- Concurrent writers: each line is one ``write`` on a file opened with O_APPEND, so lines
  from several processes never interleave; rotation is done under an flock of
  ``.queries.lock`` and re-checks the size it saw, so two writers never rotate twice. A
  writer that opened the file just before a rotation appends its line to ``.1``.
- Never in the way: a log that cannot be written (disk full, read-only directory, a link
  planted in its place) is skipped with one warning on stderr per process; the answer is
  never affected. A build's ``dist/`` (not a device) is never logged to.
- Off switch: ``--no-log`` per call (``enabled=False``), or for the whole device
  ``settings.json`` ``{"query_log": false}`` (`set_log_enabled`, `kb log --off`).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import stat
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from kbtools.beneath import atomic_write_beneath, open_beneath, read_beneath
from kbtools.errors import KbError, UsageError, one_line, valid_unicode
from kbtools.fsutil import json_line
from kbtools.index.layout import (
    QUERY_LOG,
    QUERY_LOG_KEEP,
    QUERY_LOG_LOCK,
    SETTINGS,
    DeviceLayout,
    device_of_release,
)
from kbtools.index.reader import KbIndex
from kbtools.query.results import SearchResponse

__all__ = ["MAX_LOG_BYTES", "log_settings", "parse_since", "read_log", "record_question",
           "set_log_enabled"]

MAX_LOG_BYTES = 4 << 20  # per file; with QUERY_LOG_KEEP rotated files at most 16 MiB
MIN_LOG_BYTES = 4096
MAX_QUESTION_CHARS = 2000  # longer questions are logged cut, with "…"
MAX_SETTINGS_BYTES = 64 << 10
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
_warned: set[str] = set()


def record_question(index: KbIndex, interface: str, question: str,
                    response: SearchResponse | None, *, enabled: bool = True,
                    error: str | None = None) -> None:
    """Append one line for a question asked of `index` (a no-op off a device or when
    disabled). `response` None means the question got no response (`error` says why).
    Never raises: a failure to write is said once on stderr."""
    if not enabled:
        return
    device = device_of_release(Path(index.root).absolute())
    if device is None:
        return
    try:
        settings = log_settings(device)
        if not settings["enabled"]:
            return
        if len(question) > MAX_QUESTION_CHARS:
            question = question[:MAX_QUESTION_CHARS] + "…"
        entry: dict[str, Any] = {
            "at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "interface": interface, "release": index.release.tag,
            "question": valid_unicode(question),
            "cited": [r.chunk_id for r in response.results] if response else [],
            "no_answer": response.no_answer if response else None}
        if error is not None:
            entry["error"] = one_line(error)
        line = (json_line(entry, sort_keys=False) + "\n").encode("utf-8")
        _append(device, line, settings["max_bytes"])
    except OSError as exc:
        _warn_once(device, f"{exc.filename or device / QUERY_LOG}: "
                           f"{exc.strerror or exc}")
    except Exception as exc:  # noqa: BLE001 - the log must never fail an answer
        _warn_once(device, f"{type(exc).__name__}: {exc}")


def _warn_once(device: Path, why: str) -> None:
    key = str(device)
    if key in _warned:
        return
    _warned.add(key)
    with contextlib.suppress(Exception):
        sys.stderr.write(f"kb: warning: query log not written ({one_line(why)}); answers are "
                         "not affected\n")
        sys.stderr.flush()


def _open_log(device: Path) -> int:
    fd = open_beneath(device, QUERY_LOG, _FLAGS, 0o600)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(22, "not a regular file", str(device / QUERY_LOG))
    return fd


def _append(device: Path, line: bytes, max_bytes: int) -> None:
    fd = _open_log(device)
    try:
        size = os.fstat(fd).st_size
        if size and size + len(line) > max_bytes:
            os.close(fd)
            fd = -1
            _rotate(device, len(line), max_bytes)
            fd = _open_log(device)
        written = os.write(fd, line)  # one write per line: O_APPEND keeps lines whole
        if written != len(line):
            raise OSError(28, "short write (disk full?)", str(device / QUERY_LOG))
    finally:
        if fd >= 0:
            os.close(fd)


def _rotate(device: Path, adding: int, max_bytes: int) -> None:
    """Shift queries.jsonl → .1 → … → .KEEP under the rotation lock, unless another writer
    has rotated since the size was seen."""
    layout = DeviceLayout(device)
    lock = open_beneath(device, QUERY_LOG_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            st = os.lstat(layout.query_log)
        except FileNotFoundError:
            return
        if st.st_size == 0 or st.st_size + adding <= max_bytes or not stat.S_ISREG(st.st_mode):
            return
        for n in range(QUERY_LOG_KEEP - 1, 0, -1):
            with contextlib.suppress(FileNotFoundError):
                os.replace(layout.query_log_rotated(n), layout.query_log_rotated(n + 1))
        os.replace(layout.query_log, layout.query_log_rotated(1))
    finally:
        os.close(lock)  # closing releases the flock


# ------------------------------------------------------------------- settings

def log_settings(device: Path) -> dict[str, Any]:
    """``{"enabled", "max_bytes"}`` from the device's settings.json (defaults: on,
    `MAX_LOG_BYTES`)."""
    try:
        data = json.loads(read_beneath(device, SETTINGS, MAX_SETTINGS_BYTES))
    except FileNotFoundError:
        data = {}
    except (OSError, ValueError) as exc:
        raise OSError(getattr(exc, "errno", None) or 22,
                      f"unreadable settings ({exc})", str(device / SETTINGS)) from None
    data = data if isinstance(data, dict) else {}
    size = data.get("query_log_max_bytes")
    valid = isinstance(size, int) and not isinstance(size, bool) and size >= MIN_LOG_BYTES
    return {"enabled": data.get("query_log", True) is not False,
            "max_bytes": size if valid else MAX_LOG_BYTES}


def set_log_enabled(device: Path, enabled: bool) -> None:
    """Turn the device's query log on or off (settings.json, written atomically)."""
    if not DeviceLayout(device).is_device():
        raise UsageError("not a device directory (nothing synced here yet)", path=str(device))
    # the device refusing (read-only, full, forbidden) is no usage error: exit 1, the file named
    shown = str(device / SETTINGS)
    try:
        data = json.loads(read_beneath(device, SETTINGS, MAX_SETTINGS_BYTES))
    except FileNotFoundError:
        data = {}
    except OSError as exc:
        raise KbError(f"cannot read: {exc.strerror or exc}", path=shown) from None
    except ValueError as exc:
        raise KbError(f"not JSON ({exc}); fix or remove it", path=shown) from None
    data = data if isinstance(data, dict) else {}
    data["query_log"] = enabled
    try:
        atomic_write_beneath(device, SETTINGS,
                             (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
    except OSError as exc:
        raise KbError(f"cannot write: {exc.strerror or exc}", path=shown) from None


# ------------------------------------------------------------------- reading

_AGO = re.compile(r"^\s*(\d{1,6})\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> datetime:
    """``1h``, ``30m``, ``2d``, ``1w`` ago, or an ISO date/time (no zone = UTC). An age
    reaching back before the year 1 is all of time, not an overflow."""
    now = now or datetime.now(UTC)
    m = _AGO.match(text)
    if m:
        try:
            return now - timedelta(**{_UNITS[m.group(2)]: int(m.group(1))})
        except OverflowError:
            return datetime.min.replace(tzinfo=UTC)
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"bad --since {text!r}: use an ISO date or time (2026-11-30, "
                         "2026-11-30T08:00) or an age such as 30m, 1h, 2d, 1w") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _entries(device: Path) -> Iterator[dict[str, Any]]:
    for path in DeviceLayout(device).query_logs():
        try:
            data = read_beneath(device, path.name, 16 * MAX_LOG_BYTES)
        except OSError:
            continue
        for raw in data.split(b"\n"):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue  # a torn last line (power loss) or an empty one
            if isinstance(rec, dict) and isinstance(rec.get("at"), str):
                yield rec


def read_log(device: Path, since: datetime | None = None) -> list[dict[str, Any]]:
    """The logged questions, oldest first, from `since` on."""
    out = []
    for rec in _entries(device):
        if since is not None:
            try:
                at = datetime.fromisoformat(rec["at"].replace("Z", "+00:00"))
            except ValueError:
                continue
            if (at if at.tzinfo else at.replace(tzinfo=UTC)) < since:
                continue
        out.append(rec)
    return out
