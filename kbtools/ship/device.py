"""A device directory: verified releases on disk and the pointer to the served one.

::

    DIR/repo.git/            bare clone of the artifacts branch + the release tags fetched
    DIR/releases/<tag>/      verified releases: manifest.json, data/, index/, release.json,
                             release.sig (if signed), verified.json (what was checked, when)
    DIR/releases/<tag>.staging/   a release being exported/verified (removed on next sync)
    DIR/current              symlink -> releases/<tag>; replaced with one rename (os.replace)
    DIR/trusted_keys/*.pub   Ed25519 public keys; when any exist, signatures are required
    DIR/state.json           last sync result, highest serial ever accepted, rolled-back tags
    DIR/rollback.log         one JSON line per `kb rollback`
    DIR/.lock                flock held by sync and rollback (released by the OS on kill)

A release directory is only ever created by renaming a fully verified staging directory, so
anything under releases/ without the .staging suffix is verified; `current` only ever
points at such a directory. A reader resolves `current` once and keeps using that path; old
releases are pruned only beyond the newest `keep`, never the served one.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kbtools.errors import SyncError
from kbtools.fsutil import atomic_write_text
from kbtools.index.layout import (
    CURRENT,
    LOCK,
    RELEASES,
    REPO,
    ROLLBACK_LOG,
    STAGING_SUFFIX,
    STATE,
    TRUSTED,
    VERIFIED,
    DeviceLayout,
    default_device_dir,
)

__all__ = ["CURRENT", "LOCK", "RELEASES", "REPO", "ROLLBACK_LOG", "STAGING_SUFFIX", "STATE",
           "TRUSTED", "VERIFIED", "default_device_dir"]


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


def switch_to(path: Path, tag: str) -> None:
    """Point `current` at releases/<tag> with a single atomic rename of a new symlink."""
    target = Path(RELEASES) / tag
    if not (path / target / "manifest.json").is_file():
        raise SyncError(f"release {tag} is not present on this device", path=str(path))
    tmp = path / f".{CURRENT}.{os.getpid()}.tmp"
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    os.symlink(target.as_posix(), tmp)
    os.replace(tmp, path / CURRENT)
    fsync_dir(path)


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Exclusive lock on the device dir (sync, rollback). Waits for a running holder."""
    path.mkdir(parents=True, exist_ok=True)
    with open(path / LOCK, "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def read_state(path: Path) -> dict[str, Any]:
    try:
        return json.loads((path / STATE).read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def write_state(path: Path, state: dict[str, Any]) -> None:
    atomic_write_text(path / STATE, json.dumps(state, indent=1, sort_keys=True) + "\n")


def read_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return {}


def clean_staging(path: Path) -> None:
    """Remove leftovers of interrupted syncs (call with the lock held)."""
    base = path / RELEASES
    if base.is_dir():
        for p in base.iterdir():
            if p.name.endswith(STAGING_SUFFIX) or p.name.startswith("."):
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p, ignore_errors=True)
                else:  # a temporary git index (or its .lock) from a killed export
                    p.unlink(missing_ok=True)
    for p in path.glob(f".{CURRENT}.*.tmp"):
        p.unlink(missing_ok=True)
    # git lock files left by a killed fetch; only kb (under this lock) touches repo.git
    gd = path / REPO
    if gd.is_dir():
        for p in [*gd.glob("*.lock"), *(gd / "refs").rglob("*.lock")]:
            p.unlink(missing_ok=True)


def prune(path: Path, keep: int, serial_of: dict[str, int]) -> list[str]:
    """Delete releases beyond the newest `keep` (by serial), never the served one."""
    current = served_tag(path)
    tags = sorted(release_dirs(path), key=lambda t: serial_of.get(t, -1), reverse=True)
    removed = []
    for tag in tags[keep:]:
        if tag == current:
            continue
        doomed = path / RELEASES / f".{tag}.deleting"
        os.replace(path / RELEASES / tag, doomed)
        shutil.rmtree(doomed, ignore_errors=True)
        removed.append(tag)
    return removed


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


# --- operator views and actions: status, releases, rollback --------------------------------

def _serial(tag: str) -> int:
    from kbtools.ship.release import parse_serial
    return parse_serial(tag) or -1


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def local_releases(path: Path) -> list[dict[str, Any]]:
    """Verified releases on the device, newest serial first."""
    current = served_tag(path)
    out = []
    for tag, rdir in release_dirs(path).items():
        rel = read_json(rdir / "release.json")
        ver = read_json(rdir / VERIFIED)
        out.append({"tag": tag, "serial": _serial(tag), "local": True,
                    "current": tag == current,
                    "source_commit": (rel.get("source") or {}).get("commit"),
                    "created": rel.get("created"), "signed_by": ver.get("signed_by"),
                    "size": dir_size(rdir)})
    return sorted(out, key=lambda r: r["serial"], reverse=True)


def list_releases(path: Path, *, remote: bool = True,
                  branch: str = "kb-index") -> tuple[list[dict[str, Any]], list[str]]:
    """Local releases plus those offered by the last sync source; also warnings."""
    rows = local_releases(path)
    warnings: list[str] = []
    source = read_state(path).get("source")
    if remote and source:
        from kbtools.ship.sync import list_source
        try:
            refs = list_source(path / REPO, source, branch)
        except SyncError as exc:
            warnings.append(f"remote releases not listed: {exc}")
        else:
            have = {r["tag"] for r in rows}
            for serial, (ref, _sha) in sorted(refs.tags.items(), reverse=True):
                tag = ref.rsplit("/", 1)[-1]
                if tag not in have:
                    rows.append({"tag": tag, "serial": serial, "local": False,
                                 "current": False, "source_commit": None, "created": None,
                                 "signed_by": None, "size": None})
            rows.sort(key=lambda r: r["serial"], reverse=True)
    return rows, warnings


def status(path: Path, *, max_age_days: int = 30, check_files: bool = True) -> dict[str, Any]:
    """Served release, age, verification state now, last sync result."""
    from kbtools.errors import IndexLoadError
    from kbtools.index.manifest import load_manifest, verify_files

    state = read_state(path)
    rdir = served_release(path)
    out: dict[str, Any] = {"device": str(path), "served": None, "last_sync":
                           state.get("last_sync"), "releases": len(release_dirs(path)),
                           "rolled_back": state.get("rolled_back", [])}
    if rdir is None:
        return out
    rel = read_json(rdir / "release.json")
    ver = read_json(rdir / VERIFIED)
    created = rel.get("created")
    age = (_now() - datetime.fromisoformat(created)).total_seconds() / 86400 if created else None
    problems: list[str] = []
    if check_files:
        try:
            problems = verify_files(rdir, load_manifest(rdir), derived=True)
        except IndexLoadError as exc:
            problems = [exc.message]
    out["served"] = {
        "tag": rdir.name, "serial": _serial(rdir.name),
        "source_commit": (rel.get("source") or {}).get("commit"), "created": created,
        "age_days": round(age, 2) if age is not None else None,
        "stale": bool(age is not None and age > max_age_days),
        "verified_at": ver.get("verified_at"), "signed_by": ver.get("signed_by"),
        "verified_now": (not problems) if check_files else None, "problems": problems[:5],
    }
    return out


def rollback(path: Path, tag: str | None = None) -> dict[str, Any]:
    """Serve an earlier local release (default: the newest one older than the served one).

    Logged to rollback.log; the release rolled back from is remembered so `kb sync` does not
    bring it straight back (a newer serial is still accepted).
    """
    from kbtools.index.manifest import load_manifest, verify_files

    with locked(path):
        current = served_tag(path)
        have = release_dirs(path)
        if tag is None:
            older = sorted((t for t in have if current is None or _serial(t) < _serial(current)),
                           key=_serial, reverse=True)
            if not older:
                raise SyncError("no earlier local release to roll back to "
                                "(see `kb releases`)", path=str(path))
            tag = older[0]
        if tag not in have:
            raise SyncError(f"release {tag} is not on this device (local: "
                            f"{', '.join(sorted(have, key=_serial)) or 'none'})", path=str(path))
        if tag == current:
            raise SyncError(f"{tag} is already served", path=str(path))
        problems = verify_files(have[tag], load_manifest(have[tag]), derived=True)
        if problems:
            raise SyncError(f"{tag} no longer verifies ({problems[0]}); not switching",
                            path=str(path))
        switch_to(path, tag)
        state = read_state(path)
        rolled = set(state.get("rolled_back", []))
        if current and _serial(current) > _serial(tag):
            rolled.add(current)
        rolled.discard(tag)
        state["rolled_back"] = sorted(rolled, key=_serial)
        write_state(path, state)
        entry = {"at": _now().isoformat(), "from": current, "to": tag,
                 "user": os.environ.get("USER") or os.environ.get("LOGNAME") or "?"}
        with open(path / ROLLBACK_LOG, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        return entry
