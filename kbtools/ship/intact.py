"""A device answers only from the files `kb sync` verified, and only while a pinned key
vouches for them: `check_intact` before each open.

`kb status` hashes every file of the served release against its manifest and refuses one
edited after sync; `kb query`, `kb serve` and `kb mcp` used to answer from it all the same
(an edited ``data/`` file cited as the verified release). Every open of a device's release
(`kbtools.ship.checkout.resolve_index_path`, which all three go through) now checks what
status checks of the release's own files: each file the manifest lists under ``data/`` by
size and sha256, and release.json and release.sig against what verified.json recorded.

Hashing a release on every question would cost what status costs, so a file is hashed once
per stat signature (device, inode, size, modification and change times: an edit changes
the change time, which no user can set back), remembered in this process and in
``<KB_HOME>/intact/`` for the next process (`kb query` is one process per question;
`kbtools.ship.hashed` owns the hashing and that cache, which `readonly` reuses for a
read-only device's index/); a file whose times are within `RACY_NS` of when it was hashed
(it may change again within the same timestamp tick) is hashed again next time. A question
then costs one stat per file. The cache is only ever a reason to skip a hash: a missing,
unreadable or unwritable cache means hashing again, never trusting.

`kb sync` and `kb rollback` hash every file to verify it: they leave those hashes here
(`vouch`), so the first question after them costs one stat per file too. `RACY_NS` is a
guess at the file system's clock (a change within one of its ticks keeps the change
time); what sync and rollback hashed is remembered by the clock itself instead
(`kbtools.index.stamps`): read in the release's file system before hashing, after it has
moved past every write of the install, so a file's change time below it proves the hash
saw its last change, and any later edit gives it a change time at or above it.

The derived index/ is held the same way to the record `kb sync` wrote of its bytes
(index/files.json, `kbtools.index.selfcheck.record_derived`), which `kb status` and `kb
sync` held it to: a page appended to its store, which no self-check reads, was answered
from until one of them ran. A release of the older format, whose manifest pins index/'s
bytes (``derived``), is held to those. An index/ derived by other rules than this kbtools' (after an
upgrade) is not held to it: the reader refuses it, or a read-only device serves a fresh
derivation under KB_HOME (`kbtools.ship.readonly`), as before. A damaged index/ is refused
in one line saying `kb sync` derives it again from data/ (`index_damaged`); on a device kb
cannot write, where `kb sync` cannot, a copy derived from its verified data/ under KB_HOME
serves instead (`readonly.served_damaged`). It costs ~0.4
ms an open on an 11-file index/ (one stat a file, its record parsed once a change).

A long-lived process (`kb serve`, `kb mcp`) opens the release on every request: a stat of
every file each time would cost a search several times its own time on a large release
(2,468 files at tidb-docs-cn's size), so a release found intact is checked again only once
`RECHECK_S` have passed: a server notices an edit within that time, a one-shot `kb query`
at once.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kbtools.errors import IndexLoadError, KbError, SyncError
from kbtools.index.layout import (
    DERIVED_DIR,
    MANIFEST,
    RELEASE_JSON,
    RELEASE_SIG,
    VERIFIED,
    DeviceLayout,
    device_of_release,
)
from kbtools.index.manifest import (
    file_problem,
    load_manifest,
    manifest_path_problems,
)
from kbtools.index.selfcheck import DERIVED_RECORD, read_record
from kbtools.index.stamps import (
    Signature,
    changed_before,
    clock_past,
    settled_at,
    signature,
)
from kbtools.ship.device import release_dirs
from kbtools.ship.devicestate import synced_from
from kbtools.ship.git import parse_serial
from kbtools.ship.hashed import INTACT as INTACT  # (the cache's directory under KB_HOME)
from kbtools.ship.hashed import RACY_NS, held_problems, read_cache, write_cache
from kbtools.ship.install import release_file_problems
from kbtools.ship.readonly import damaged_writable, served_damaged, stale_served
from kbtools.ship.trust import untrusted_release

RECHECK_S = 5.0  # a release found intact is not checked again for this long in a process
_GOOD: dict[str, dict[str, Signature]] = {}  # release → file → signature hashed as listed


T = TypeVar("T")
_MANIFESTS: dict[str, tuple[Signature, dict[str, Any]]] = {}  # release → its parsed manifest
# release → its index/files.json's stat signature and what it records (`_derived_listed`)
_RECORDS: dict[str, tuple[Signature, tuple[dict[str, tuple[int, str]], list[str]]]] = {}
_CLEAN: dict[str, float] = {}  # release → when (`_clock`) it was last found intact
_clock = time.monotonic
_wall_ns = time.time_ns  # the clock that stamps file times (a device's may be set back)


def _remembered(release: Path) -> dict[str, Signature]:
    key = str(release)
    if key not in _GOOD:
        _GOOD[key] = read_cache(release)
    return _GOOD[key]


def _remember(release: Path, good: dict[str, Signature]) -> None:
    _GOOD[str(release)] = good
    write_cache(release, good)  # (KB_HOME read-only or full: this process still remembers)


def problems(release: Path, settled: int | None = None) -> list[str]:
    """What is wrong with the files of `release` (a device's release directory) now, as
    `kb status` finds them: listed files by size and sha256, release.json and release.sig
    against verified.json (empty: intact). Hashes only files whose stat signature it has
    not hashed before, and remembers those changed before `settled` (the file system's
    clock read before any of them was stat'ed, `kbtools.index.stamps`; default: those whose
    times are more than `RACY_NS` from the wall clock now, before or after it: a device's
    clock set back leaves every file stamped "in the future", and they are remembered
    too)."""
    release = release.resolve()  # DIR/current: the release it names now
    manifest = _manifest(release)
    found = manifest_path_problems(manifest)
    if found:
        return found
    known = _remembered(release)
    tops = (MANIFEST, RELEASE_JSON, RELEASE_SIG, VERIFIED)
    derived, record_problems = _derived_listed(release, manifest)
    found = list(record_problems)  # (a list `_RECORDS` keeps: not to be added to)
    now = {rel: signature(release / rel) for rel in
           [*tops, *sorted(manifest.get("artifacts", {})), *sorted(derived)]}
    if not found and all(known.get(rel) == sig for rel, sig in now.items()):
        return []  # every file as it was when it was hashed and found as listed
    good: dict[str, Signature] = {}
    if all(now[t] == known.get(t) for t in tops):
        good.update({t: known[t] for t in tops})
    else:
        top_problems = release_file_problems(release)
        found += top_problems
        if not top_problems:
            good.update({t: now[t] for t in tops})
    listed = {rel: (int(meta["size"]), str(meta["sha256"]))
              for rel, meta in manifest.get("artifacts", {}).items()} | derived
    listed_problems, listed_good = held_problems(release, listed, known, now, file_problem)
    found += listed_problems
    good.update(listed_good)
    now_ns = _wall_ns()
    _remember(release, {rel: sig for rel, sig in good.items()
                        if (settled_at(sig, now_ns, RACY_NS) if settled is None
                            else changed_before(sig, settled))})
    return found


def _derived_listed(release: Path, manifest: dict[str, Any]
                    ) -> tuple[dict[str, tuple[int, str]], list[str]]:
    """The files of `release`'s derived index/ an open holds (file -> (size, sha256)) and
    what is wrong with what lists them: the bytes its manifest pins (``derived``, a release
    of the older format: they were skipped, so a byte appended to its store was answered
    from), else the record `kb sync` wrote of them (`selfcheck.read_record`). Nothing for a
    release that describes no index, or when index/ was derived by other rules than this
    kbtools' (an upgrade: `readonly.stale_served`): that index is refused or served from a
    fresh derivation as it is, not held to bytes it legitimately no longer matches."""
    pinned = manifest.get("derived")
    if (not pinned and manifest.get("derived_check") is None) or \
            stale_served(release) is not None:
        return {}, []
    if pinned:
        return {rel: (int(meta["size"]), str(meta["sha256"])) for rel, meta in pinned.items()}, []
    return _read_kept(_RECORDS, release, release / DERIVED_RECORD, read_record)


def vouch(release: Path, hashed: dict[str, Signature] | None = None) -> None:
    """Remember the release `kb sync` or `kb rollback` just verified and serves, so the next
    open of it costs a stat per file (and the release an up-to-date or failed sync checked,
    `kbtools.ship.sync`, with no `hashed`): `hashed` holds the signatures of the files they found
    as listed (`Installed.hashed`: only files changed before the clock was read ahead of
    hashing them). What is not in `hashed`, or was changed since (a hard link a prune
    removed), is checked and hashed here, as an open would. Best effort: a directory that
    cannot be written, or a file that fails, leaves that file for the next open to hash."""
    release = release.resolve()
    try:
        settled = clock_past(release.parent)  # before the stats `problems` takes
    except OSError:
        return
    known = {**_remembered(release), **(hashed or {})}
    _GOOD[str(release)] = known
    try:
        found = problems(release, settled)
    except (KbError, OSError):
        return  # (an unreadable manifest): the next open says what is wrong
    if not found and _GOOD[str(release)] is known:
        _remember(release, known)  # every file as hashed: `problems` wrote nothing


def _manifest(release: Path) -> dict[str, Any]:
    """The manifest of `release`, parsed again only when its stat signature changed (or was
    within `RACY_NS` of when it was read)."""
    return _read_kept(_MANIFESTS, release, release / MANIFEST, load_manifest)


def _read_kept(kept: dict[str, tuple[Signature, T]], release: Path, path: Path,
               read: Callable[[Path], T]) -> T:
    """`read(release)`, kept in `kept` under `release` while the stat signature of `path`
    (the file it reads) stays as it was when read, and only once that signature is older
    than `RACY_NS` (a file changed within the clock's grain could change again unseen);
    at most 64 releases kept."""
    sig = signature(path)
    cached = kept.get(str(release))
    if cached is not None and cached[0] == sig:
        return cached[1]
    value = read(release)
    if settled_at(sig, _wall_ns(), RACY_NS):
        if len(kept) > 64:
            kept.clear()
        kept[str(release)] = (sig, value)
    return value


def check_intact(release: Path) -> None:
    """IndexLoadError, as `kb status` words it, when `release` is a device's release whose
    files are not those `kb sync` verified; nothing for any other index. Not checked again
    within `RECHECK_S` of finding it intact (in this process)."""
    device = device_of_release(release)
    if device is None:
        return
    key, now = str(release.resolve()), _clock()
    if now - _CLEAN.get(key, -RECHECK_S) < RECHECK_S and not damaged_writable(release):
        return
    found = problems(release)
    if not found:
        _check_trusted(device, Path(key))
        served_damaged(release, None)
        _CLEAN[key] = now
        return
    _CLEAN.pop(key, None)
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    name, served = release.resolve().name, DeviceLayout(device).served_release()
    if served is not None and served.resolve() != release.resolve():  # `kb query --release`
        known = synced_from(device)
        source = shlex.quote(known[0]) if known else "SOURCE"
        raise IndexLoadError(
            f"release {name}, kept on this device, fails verification: {found[0]}{more}; it "
            f"was changed after `kb sync` verified it: ask without --release (the served "
            f"{served.name}); {name} is a tag of the source still, which a git clone serves "
            f"(`git clone {source} DIR && git -C DIR checkout {name}`)",
            path=str(device), key="kept_release_edited", values={"release": name})
    if all(str(p).startswith(f"{DERIVED_DIR}/") for p in found):
        if served_damaged(release, f"{found[0]}{more}"):  # a device kb cannot write: data/
            _check_trusted(device, Path(key))  # verified, a copy derived from it serves
            _CLEAN[key] = now
            return
        raise IndexLoadError(f"the index of the served release {name} differs from what `kb "
                             f"sync` derived: {found[0]}{more}; nothing is answered from it, "
                             "and its verified data/ is kept: `kb sync` derives index/ again "
                             "from it", path=str(device), key="index_damaged",
                             values={"release": name})
    raise IndexLoadError(f"the served release {name} fails verification: "
                         f"{found[0]}{more}; it was changed after `kb sync` verified it: "
                         "`kb rollback` serves another release, `kb sync` one published after it",
                         path=str(device), key="release_edited", values={"release": name})


def _check_trusted(device: Path, release: Path) -> None:
    """IndexLoadError when no key pinned on `device` now vouches for `release` (resolved)
    (`trust.untrusted_release`: its signer removed with `kb trust remove`, a key pinned
    while an unsigned release serves): a revoked key's content answers nobody. Checked with
    the files, so a server notices it within `RECHECK_S`."""
    served = DeviceLayout(device).served_release()
    try:
        why = untrusted_release(device, release, release.name, served=served is None
                                or served.name == release.name)
    except SyncError as exc:  # trusted_keys/ cannot be listed: who is trusted is unknown
        why = f"{exc.message}; no question is answered until it can"
    if why is not None:
        if served is not None and served.name == release.name:
            why += _kept_trusted(device, release.name)
        raise IndexLoadError(why, path=str(device), key="release_untrusted",
                             values={"release": release.name})


def _kept_trusted(device: Path, served: str) -> str:
    """How to serve the newest kept release a pinned key vouches for, when there is one (its
    key unpinned by hand rather than by `kb trust remove`, which switches to it), else ""."""
    for tag, rdir in sorted(release_dirs(device).items(), reverse=True,
                            key=lambda t: parse_serial(t[0]) or -1):
        with contextlib.suppress(KbError):
            if tag != served and untrusted_release(device, rdir, tag) is None:
                return f"; `kb rollback {tag}` serves the newest kept release signed by one"
    return ""
