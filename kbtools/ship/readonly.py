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
holds this kbtools' terms; copies beyond `KEEP` are pruned. It says so once per process on
stderr, with what repairs the device itself (`kb sync` where it can be written). When the
copy cannot be made either (KB_HOME read-only or full) it is one IndexLoadError saying
both.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
from pathlib import Path

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
from kbtools.index.selfcheck import derivation_problem
from kbtools.index.store import stored_infos
from kbtools.ship.device import locked, read_json
from kbtools.ship.install import derive_index

DERIVED = "derived"  # under KB_HOME
KEEP = 2  # derived copies kept (the one in use is never pruned)
_SAID: set[str] = set()  # releases this process has said it serves from a copy
_STALE: dict[tuple[str, int, int, int, int], str | None] = {}  # `_stale_served`, by store stat


def stale_index(release: Path) -> str | None:
    """Why the index/ of `release` is not one this kbtools opens (derived by other rules:
    `derivation_problem`; no store at all), or None. One small read of its store's info
    table."""
    store = ReleaseLayout(release).store
    if not store.is_file():
        return "index/ has no store"
    return derivation_problem(stored_infos(store))


def _stale_served(release: Path) -> str | None:
    """`stale_index` of a device's release, remembered per store file (`kb serve` resolves
    the release on every request: one stat, not a SQLite open, once it is known)."""
    store = ReleaseLayout(release).store
    try:
        st = os.stat(store)
    except OSError:
        return stale_index(release)
    key = (str(store), st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size)
    if key not in _STALE:
        if len(_STALE) > 64:
            _STALE.clear()
        _STALE[key] = stale_index(release)
    return _STALE[key]


def served_copy(release: Path) -> Path:
    """`release` itself, unless it is a device's release whose index/ this kbtools does not
    open (`stale_index`) on a device it cannot write: then the path of a copy with an
    index/ derived by this kbtools under KB_HOME (made once)."""
    device = device_of_release(release)
    if device is None or os.access(device, os.W_OK):
        return release  # a writable device: `kb sync` derives it in place (the reader says so)
    problem = _stale_served(release)
    if problem is None:
        return release
    release = release.resolve()  # DIR/current: the release it names now
    manifest_bytes = (release / MANIFEST).read_bytes()
    mhash = hashlib.sha256(manifest_bytes).hexdigest()
    tag = str(read_json(ReleaseLayout(release).release_json).get("tag") or release.name)
    base = kb_home() / DERIVED
    final = base / mhash
    try:
        if stale_index(final) is not None:
            with locked(base, "kb (deriving a read-only device's index)"):
                if stale_index(final) is not None:
                    _derive_copy(release, final, tag)
                _prune(base, keep=mhash)
    except (OSError, KbError) as exc:
        why = exc.message if isinstance(exc, KbError) else \
            f"{exc.filename or base}: {exc.strerror or exc}"
        raise IndexLoadError(f"the device cannot be written and the index of {tag} there is "
                             f"not this kbtools' ({problem}); no copy could be derived under "
                             f"{base} either ({why}): make the device writable and run `kb "
                             "sync`, or set KB_HOME to a writable directory",
                             path=str(device)) from None
    if str(final) not in _SAID:
        _SAID.add(str(final))
        print(f"kb: warning: {device}: the device cannot be written and the index of {tag} "
              f"there is not this kbtools' ({problem}): serving a copy derived in {final}; "
              "`kb sync` where the device can be written derives it in place",
              file=sys.stderr, flush=True)
    return final


def repair_advice(release: Path) -> str | None:
    """What `kb status` advises for a device's release whose index/ fails its check, when
    the device cannot be written (None when it can, or when its index/ is this kbtools'):
    where queries are served from (a copy made already) and what repairs the device.
    Derives nothing."""
    device = device_of_release(release)
    if device is None or os.access(device, os.W_OK) or stale_index(release) is None:
        return None
    final = kb_home() / DERIVED / hashlib.sha256(
        (release / MANIFEST).read_bytes()).hexdigest()
    served = (f"queries are served from a copy derived in {final}" if stale_index(final) is None
              else f"the next query derives a copy to serve in {kb_home() / DERIVED}")
    return (f"the device cannot be written: {served}; `kb sync` where the device can be "
            "written derives its index in place")


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


def _prune(base: Path, keep: str) -> None:
    """Remove staging directories left by a killed derivation and all but the `KEEP` most
    recently made copies (never `keep`, the one in use)."""
    copies = []
    for entry in base.iterdir():
        if entry.name.endswith(STAGING_SUFFIX):
            shutil.rmtree(entry, ignore_errors=True)
        elif entry.is_dir() and entry.name != keep and len(entry.name) == 64:
            copies.append((entry.stat().st_mtime, entry))
    for _, entry in sorted(copies, reverse=True)[KEEP - 1:]:
        shutil.rmtree(entry, ignore_errors=True)
