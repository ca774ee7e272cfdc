"""A device kb cannot write, serving a release whose index/ another kbtools derived.

A device run read-only (a systemd unit with ``ProtectSystem=strict`` or ``ReadOnlyPaths=``
over its directory, a read-only mount) keeps the index/ an older kbtools derived. After an
upgrade that derives index/ by other rules (`kbtools.index.selfcheck.derivation_problem`:
another `TOKENS_VERSION`, `DERIVATION` or tokenizer library), `kbtools.index.reader`
refuses that index (its terms would match questions silently worse) and says to run `kb
sync`, which cannot write there either: the device answered nothing.

`served_copy(release)` gives such a release a copy it can serve: the release's files
(manifest, release.json, its signature, verified.json, data/ checked against the manifest's
sha256 and sizes) copied into ``<KB_HOME>/derived/<manifest sha256>/`` and its index/
derived and self-checked there (`kbtools.ship.install.derive_index`, as `kb sync` does),
through a staging directory renamed into place under a lock. Later opens reuse it while it
holds this kbtools' terms. It says so once per process on stderr, with what repairs the
device itself (`kb sync` where it can be written). When the copy cannot be made either
(KB_HOME read-only or full) it is one IndexLoadError saying both. An index/ an open finds
damaged (its bytes not those `kb sync` recorded, data/ verified: `kbtools.ship.intact`) is
served the same way on such a device, where it was refused saying `kb sync` derives it.

Copies are pruned (`prune_copies`, by every process that starts serving one and by every
`kb sync`): a copy is kept while a process serves it (each holds a shared flock on the
copy's `USE_LOCK` until it exits, so a running `kb serve` or `kb mcp` keeps its copy; a
killed one lets go) and while it is needed (a release it was made for, `ORIGINS`, still
exists on a device that cannot be written and still fails this kbtools' check, or its
index/ is still damaged: `index_damaged`), the `KEEP` newest of those; any other is
removed, and never anything but the directories directly under ``<KB_HOME>/derived`` (not a
link, nor through one). `kb status` says how many there are, the bytes they hold, and how
many the next prune removes (`copies_report`).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from kbtools.beneath import atomic_write_beneath
from kbtools.config import kb_home
from kbtools.errors import IndexLoadError, KbError, SyncError, plural
from kbtools.index.layout import (
    MANIFEST,
    RELEASE_JSON,
    RELEASE_SIG,
    STAGING_SUFFIX,
    VERIFIED,
    ReleaseLayout,
    device_of_release,
)
from kbtools.index.manifest import load_manifest, verify_files
from kbtools.index.selfcheck import index_rules, read_record, unrecorded_files
from kbtools.index.stamps import settled_at, signature
from kbtools.index.store import stored_infos as stored_infos  # (read here by callers)
from kbtools.ship.device import dir_size
from kbtools.ship.devicelock import locked
from kbtools.ship.devicestate import read_json
from kbtools.ship.hashed import RACY_NS, held_problems, read_cache, write_cache
from kbtools.ship.install import derive_index
from kbtools.ship.status_words import COPY_ZH, Keyed, said_in, status_language

DERIVED = "derived"  # under KB_HOME
KEEP = 2  # needed copies kept besides those in use (never pruned)
USE_LOCK = ".in-use"  # in a copy: flock'd shared by every process serving it
ORIGINS = ".origins.json"  # in a copy: the release directories it was made for
_HELD: dict[str, int] = {}  # copies this process serves: the fd holding each one's USE_LOCK
_UNHELD: set[str] = set()  # copies this process serves without holding them (`_hold`)
_SAID: set[str] = set()  # releases this process has said it serves from a copy
_STALE: dict[tuple[str, int, int, int, int], str | None] = {}  # `stale_served`, by store stat
_DAMAGED: dict[str, str] = {}  # read-only releases whose index/ an open found damaged: why


def stale_index(release: Path) -> str | None:
    """Why the index/ of `release` is not one this kbtools opens (derived by other rules:
    `derivation_problem`; a store missing, cut short, appended to or unreadable:
    `selfcheck.index_rules`), or None. One small read of its store's info table."""
    return index_rules(release)[0]


def stale_served(release: Path) -> str | None:
    """Why the index/ of a device's `release` was derived by other rules (`stale_index`
    less damage to its store: `selfcheck.index_rules`), or None; remembered per store file (`kb serve`
    resolves the release on every request: one stat, not a SQLite open, once it is
    known)."""
    store = ReleaseLayout(release).store
    try:
        st = os.stat(store)
    except OSError:
        return None  # no store: damage, held to the record that names it (`index_rules`)
    key = (str(store), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    if key not in _STALE:
        if len(_STALE) > 64:
            _STALE.clear()
        problem, other_rules = index_rules(release)
        _STALE[key] = problem if other_rules else None
    return _STALE[key]


def served_damaged(release: Path, problem: str | None) -> bool:
    """Note what an open found wrong with the served `release`'s index/ alone (its data/
    verified: `intact.check_intact`), None once nothing is. True when its device cannot be
    written, where `kb sync` cannot derive it again: `served_copy` then serves a copy
    derived from the verified data/ under KB_HOME, as it does an index of other rules."""
    key = str(release.resolve())
    device = device_of_release(release)
    if problem is None or device is None or os.access(device, os.W_OK):
        _DAMAGED.pop(key, None)
        return False
    _DAMAGED[key] = problem
    return True


def damaged_writable(release: Path) -> bool:
    """Whether an open noted `release`'s index/ damaged (`served_damaged`) and its device
    can be written now: it is checked again, and refused there, not served as found."""
    if not _DAMAGED or str(release.resolve()) not in _DAMAGED:
        return False
    device = device_of_release(release)
    return device is not None and os.access(device, os.W_OK)


def served_copy(release: Path) -> Path:
    """`release` itself, unless it is a device's release whose index/ this kbtools does not
    open (`stale_index`) or an open found damaged (`served_damaged`) on a device it cannot
    write: then the path of a copy with an index/ derived by this kbtools under KB_HOME
    from the release's verified data/ (made once)."""
    device = device_of_release(release)
    if device is None or os.access(device, os.W_OK):
        return release  # a writable device: `kb sync` derives it in place (the reader says so)
    kind, problem = "stale", stale_served(release)
    said = f"is not this kbtools' ({problem})"
    if problem is None and (problem := _DAMAGED.get(str(release.resolve()))) is not None:
        kind, said = "damaged", f"differs from what `kb sync` derived ({problem})"
    if problem is None:
        return release
    release = release.resolve()  # DIR/current: the release it names now
    manifest_bytes = (release / MANIFEST).read_bytes()
    mhash = hashlib.sha256(manifest_bytes).hexdigest()
    tag = str(read_json(ReleaseLayout(release).release_json).get("tag") or release.name)
    base = kb_home() / DERIVED
    final = base / mhash
    try:
        if str(final) not in _HELD.keys() | _UNHELD or stale_index(final) is not None:
            _take_copy(release, final, tag)
    except (OSError, KbError) as exc:
        why = exc.message if isinstance(exc, KbError) else \
            f"{exc.filename or base}: {exc.strerror or exc}"
        raise IndexLoadError(f"the device cannot be written and the index of {tag} there "
                             f"{said}; no copy could be derived under "
                             f"{base} either ({why}): make the device writable and run `kb "
                             "sync`, or set KB_HOME to a writable directory",
                             path=str(device), key=f"copy_refused_{kind}", values={
                                 "release": tag, "why": problem, "base": str(base),
                                 "reason": why}) from None
    if str(final) not in _SAID:
        _SAID.add(str(final))
        warning = Keyed(f"{device}: the device cannot be written and the index of {tag} there "
                        f"{said}: serving a copy derived in {final}; `kb sync` where the "
                        "device can be written derives it in place", f"copy_{kind}",
                        {"device": device, "release": tag, "why": problem, "copy": final})
        print(f"kb: warning: {said_in(warning, status_language(), COPY_ZH)}", file=sys.stderr,
              flush=True)
    return final


def copy_serving(release: Path) -> tuple[Path, bool] | None:
    """For a device's `release` whose index/ alone fails its check (of other rules, or
    damaged beside a data/ that verified: what the caller found), the copy under KB_HOME
    queries are answered from instead (`served_copy`) and whether it is made already; None
    when none is: the device can be written (`kb sync` derives index/ in place, and queries
    are refused until it does), or no copy is made and none can be (KB_HOME's derived/
    cannot be written). Derives and hashes nothing."""
    device = device_of_release(release)
    if device is None or os.access(device, os.W_OK):
        return None
    base = kb_home() / DERIVED
    final = base / hashlib.sha256((release / MANIFEST).read_bytes()).hexdigest()
    if stale_index(final) is None:
        return final, True
    nearest = next((p for p in (base, *base.parents) if os.path.lexists(p)), None)
    derivable = nearest is not None and nearest.is_dir() and os.access(nearest, os.W_OK)
    return (final, False) if derivable else None


def repair_advice(release: Path) -> str | None:
    """What `kb status` advises for a device's `release` whose index/ alone fails its
    check when a copy answers for it (`copy_serving`), None when none does: where queries
    are served from (a copy made already, or the one the next query derives) and what
    repairs the device."""
    found = copy_serving(release)
    if found is None:
        return None
    copy, made = found
    served = (f"queries are served from a copy derived in {copy}" if made
              else f"the next query derives a copy to serve in {copy.parent}")
    return (f"the device cannot be written: {served}; `kb sync` where the device can be "
            "written derives its index in place")


def _take_copy(release: Path, final: Path, tag: str) -> None:
    """Make `final` a copy of `release` this kbtools serves (derived when it is not one),
    note `release` among its origins, hold it in use for this process and prune the
    others, under the lock of KB_HOME's derived/. A good copy is served as it is when that
    directory cannot be written (nothing to derive, note or prune)."""
    with contextlib.ExitStack() as stack:
        try:
            stack.enter_context(locked(final.parent, "kb (deriving a read-only device's index)"))
        except (OSError, KbError):
            if stale_index(final) is None:
                return
            raise
        if stale_index(final) is not None:
            _derive_copy(release, final, tag)
        with contextlib.suppress(OSError):  # a note for pruning: the copy serves without it
            _note_origin(final, release)
        _hold(final)
        _prune(final.parent)


def _note_origin(copy: Path, release: Path) -> None:
    """Add `release` to the origins a copy records (`ORIGINS`)."""
    origins = _origins(copy)
    if str(release) not in origins:
        data = json.dumps(sorted({*origins, str(release)}), indent=1) + "\n"
        atomic_write_beneath(copy, ORIGINS, data.encode())


def copy_device(copy: Path) -> Path | None:
    """The device a copy under <KB_HOME>/derived serves a release of (the first of its
    origins still a device's release), None for any other directory: what `kb read
    --release` of a read-only device looks beside for the releases it keeps."""
    if copy.parent != kb_home() / DERIVED:
        return None
    for origin in _origins(copy):
        device = device_of_release(Path(origin))
        if device is not None:
            return device
    return None


def _origins(copy: Path) -> list[str]:
    try:
        data = json.loads((copy / ORIGINS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(p) for p in data] if isinstance(data, list) else []


def _hold(copy: Path) -> None:
    """Hold a shared flock on the copy's `USE_LOCK` until this process exits (a prune
    leaves the copy alone meanwhile). A copy whose lock file cannot be made or locked
    (KB_HOME out of inodes or space) is served all the same, unheld, saying so once: it is
    fine, and a prune drops it only once no device needs it (`_needed`)."""
    if str(copy) in _HELD or str(copy) in _UNHELD:
        return
    lock = copy / USE_LOCK
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        _UNHELD.add(str(copy))
        print(f"kb: warning: {lock}: cannot mark the copy in use ({exc.strerror or exc}); "
              "serving it without (another process may prune it once no device needs it)",
              file=sys.stderr, flush=True)
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except BaseException:
        os.close(fd)
        raise
    _HELD[str(copy)] = fd


def _in_use(copy: Path) -> bool:
    """Whether a process (this one included) serves the copy: its `USE_LOCK` is held."""
    try:
        fd = os.open(copy / USE_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # not ours to judge (a link, unreadable): kept
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN)
    finally:
        os.close(fd)  # (the lock, when taken, goes with it)
    return False


def index_damaged(release: Path) -> str | None:
    """What differs in `release`'s index/ from the record `kb sync` wrote of its bytes
    (`selfcheck.read_record`: the first, and how many more), None when nothing does or it
    keeps no record. Every prune and every `kb status` asks it of each read-only device a
    copy serves: it hashes only the files whose stat signature changed since they were
    found as recorded, remembered with the hashes every open of the release leaves
    (`kbtools.ship.hashed`), so an index/ unchanged since costs one stat a file. An open
    goes through `intact`, and notes what it found (`served_damaged`) in that process
    alone."""
    listed, found = read_record(release)
    if not found:
        known = read_cache(release)
        now = {rel: signature(release / rel) for rel in listed}
        found, good = held_problems(release, listed, known, now)
        found += unrecorded_files(release, listed)
        now_ns = time.time_ns()
        settled = {rel: sig for rel, sig in good.items() if settled_at(sig, now_ns, RACY_NS)}
        if any(known.get(rel) != sig for rel, sig in settled.items()):
            write_cache(release, {rel: sig for rel, sig in known.items() if rel not in listed}
                        | settled)
    if not found:
        return None
    return f"{found[0]} (and {len(found) - 1} more)" if len(found) > 1 else found[0]


def _needed(copy: Path) -> bool:
    """Whether a release the copy was made for still exists with its manifest on a device
    that cannot be written and still fails this kbtools' check, or its index/ is still
    damaged (`index_damaged`: the copy serves it instead, `served_damaged`). A copy that
    records no origins (made before they were recorded) counts as needed."""
    origins = _origins(copy)
    if not (copy / ORIGINS).is_file():
        return True
    for origin in map(Path, origins):
        device = device_of_release(origin)
        try:
            same = hashlib.sha256((origin / MANIFEST).read_bytes()).hexdigest() == copy.name
        except OSError:
            continue
        if same and device is not None and not os.access(device, os.W_OK) \
                and (stale_index(origin) is not None or index_damaged(origin) is not None):
            return True
    return False


def _copies(base: Path) -> list[Path]:
    """The copies directly under `base` (directories named by a manifest hash, no link)."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return []
    return [e for e in entries if len(e.name) == 64 and not e.is_symlink() and e.is_dir()]


def prune_copies() -> list[str]:
    """Remove the copies under ``<KB_HOME>/derived`` that no process serves and no device
    needs (`_prune`), under its lock; returns the names removed. Nothing when there is no
    such directory, or it is a link."""
    base = kb_home() / DERIVED
    if base.is_symlink() or not base.is_dir():
        return []
    with locked(base, "kb (pruning read-only devices' index copies)"):
        return _prune(base)


def copies_report() -> dict[str, object] | None:
    """What `kb status` says of the copies under ``<KB_HOME>/derived`` (None when there is
    none): where, how many, the bytes they hold, and how many the next prune removes."""
    base = kb_home() / DERIVED
    copies = [] if base.is_symlink() else _copies(base)
    if not copies:
        return None
    spare = [c for c in copies if not _in_use(c) and not _needed(c)]
    return {"dir": str(base), "copies": len(copies), "bytes": sum(map(dir_size, copies)),
            "unneeded": len(spare)}


def _derive_copy(release: Path, final: Path, tag: str) -> None:
    """Copy `release`'s files into a staging directory beside `final`, check data/ against
    the manifest, derive index/ and rename the staging directory to `final`."""
    manifest = load_manifest(release)
    staging = Path(tempfile.mkdtemp(prefix=final.name + ".", suffix=STAGING_SUFFIX,
                                    dir=final.parent))
    try:
        names = [MANIFEST, RELEASE_JSON, RELEASE_SIG, VERIFIED, *manifest.get("artifacts", {})]
        for rel in sorted(set(names)):
            source = release / rel
            if rel in (RELEASE_SIG, VERIFIED) and not source.is_file():
                continue
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target, follow_symlinks=False)
        problems = verify_files(staging, manifest, derived=False)
        if problems:
            raise SyncError(f"the served release {tag} fails verification: "
                            f"{plural(len(problems), 'problem')}, first: {problems[0]}")
        derive_index(staging, manifest, tag)
        if final.exists():
            shutil.rmtree(final)
        os.rename(staging, final)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _prune(base: Path) -> list[str]:
    """Under `base`'s lock: remove staging directories left by a killed derivation or
    prune, the copies no process serves and no device needs, and the needed ones beyond the
    `KEEP` newest; never a copy in use. Returns the names of the copies removed."""
    for entry in base.iterdir():
        if entry.name.endswith(STAGING_SUFFIX) and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
    idle = [c for c in _copies(base) if not _in_use(c)]
    needed = sorted((c for c in idle if _needed(c)), key=lambda c: c.stat().st_mtime,
                    reverse=True)
    doomed = [c for c in idle if c not in needed[:KEEP]]
    for copy in doomed:
        aside = base / f".{copy.name}.{os.getpid()}{STAGING_SUFFIX}"
        with contextlib.suppress(OSError):
            os.rename(copy, aside)
            shutil.rmtree(aside, ignore_errors=True)
    return sorted(c.name for c in doomed)
