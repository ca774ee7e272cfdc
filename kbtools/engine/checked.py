"""Which release `kb publish --engine` loads: `check_release` verifies a release directory
(dist/, a release dir or a device dir) before anything is written to the engine: its
manifest and release.json well formed, every manifest-listed file by size and sha256, the
manifest hash release.json names, and the signature when keys are configured or pinned on
the device the release belongs to."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kbtools.beneath import read_beneath
from kbtools.engine.bases import release_base
from kbtools.errors import EngineError, IndexLoadError, KbError
from kbtools.index.layout import (
    MANIFEST,
    RELEASE_JSON,
    RELEASE_SIG,
    ReleaseLayout,
    device_of_release,
)
from kbtools.index.manifest import MAX_MANIFEST_BYTES, parse_manifest, verify_files
from kbtools.index.reader import resolve_index_path
from kbtools.ship.readonly import served_copy
from kbtools.ship.signing import load_public, verify
from kbtools.ship.trust import stored_keys
from kbtools.ship.verify import MAX_RELEASE_JSON_BYTES


@dataclass(frozen=True)
class CheckedRelease:
    """A release directory that passed `check_release`."""

    root: Path
    served: Path  # the index readers of `root` open: itself, or `readonly.served_copy`
    manifest_sha256: str
    manifest_text: str
    release_text: str
    tag: str | None
    serial: int  # -1: a local build (no release.json)
    signed_by: str | None
    base: str | None = None  # the knowledge base it is of (`kbtools.engine.bases`)


def check_release(path: Path | None, trusted: Sequence[Path] = ()) -> CheckedRelease:
    """Verify the release at `path` (dist/, a release dir or a device dir) before any write:
    manifest.json and release.json readable and well formed, manifest-listed files,
    release.json ↔ manifest hash, and the signature when keys are given or pinned on the
    device the release belongs to (EngineError naming the release otherwise). Its index is
    the one its readers open (`served`): on a device that cannot be written whose index/
    another kbtools derived, the copy derived under KB_HOME (`readonly.served_copy`)."""
    root = resolve_index_path(path)
    layout = ReleaseLayout(root)
    where = str(root)
    try:
        mbytes = read_beneath(root, MANIFEST, MAX_MANIFEST_BYTES)
        manifest = parse_manifest(mbytes, str(layout.manifest))
    except OSError as exc:
        raise EngineError(f"{MANIFEST} unreadable ({exc.strerror or exc}); refusing to "
                          "publish", path=where) from None
    except IndexLoadError as exc:
        raise EngineError(f"{exc.message}; refusing to publish", path=exc.path) from None
    problems = verify_files(root, manifest)
    if problems:
        raise EngineError(f"release does not match its manifest ({len(problems)} problems, "
                          f"first: {problems[0]}); refusing to publish", path=where)
    mhash = hashlib.sha256(mbytes).hexdigest()
    rel_bytes, rel = _release_json(layout)
    if rel and rel.get("manifest_sha256") != mhash:
        raise EngineError(f"{MANIFEST} does not match the hash in {RELEASE_JSON}; refusing "
                          "to publish", path=where)
    keys = [load_public(p) for p in trusted]
    device = device_of_release(root) or device_of_release(root.resolve())
    if device is not None:
        keys += stored_keys(device)  # a device's pinned keys always apply
    signer = None
    if keys:
        if not rel:
            raise EngineError(f"keys are configured but this is an unsigned build (no "
                              f"{RELEASE_JSON}); publish a signed release", path=where)
        sig = layout.release_sig.read_bytes() if layout.release_sig.is_file() else None
        try:
            signer = verify(rel_bytes, sig, keys, where=f"{where}/{RELEASE_SIG}")
        except KbError as exc:  # SyncError from signing, worded for sync
            raise EngineError(f"signature check failed: {exc.message}; refusing to publish",
                              path=where) from None
    # a device that cannot be written, whose index/ another kbtools derived: its readers
    # serve a copy derived under KB_HOME from the files just verified, and so does this
    served = served_copy(root)
    return CheckedRelease(root, served, mhash, mbytes.decode("utf-8"),
                          rel_bytes.decode("utf-8"), rel.get("tag"), rel.get("serial", -1),
                          signer, release_base(manifest))


def _release_json(layout: ReleaseLayout) -> tuple[bytes, dict[str, Any]]:
    """release.json's bytes and object (b"" and {} for a local build, which has none):
    a JSON object in UTF-8 whose ``tag`` is a string and ``serial`` a number ≥ 0."""
    path = layout.release_json
    if not (path.exists() or path.is_symlink()):
        return b"", {}
    why = None
    try:
        data = read_beneath(layout.root, RELEASE_JSON, MAX_RELEASE_JSON_BYTES)
        rel = json.loads(data.decode("utf-8"))
    except OSError as exc:
        why = exc.strerror or str(exc)
    except (UnicodeDecodeError, ValueError) as exc:
        why = f"not JSON: {exc}"
    else:
        serial = rel.get("serial") if isinstance(rel, dict) else None
        if not isinstance(rel, dict):
            why = "not a JSON object"
        elif not isinstance(rel.get("tag"), str) or not rel["tag"]:
            why = "its tag is not a name"
        elif not isinstance(serial, int) or isinstance(serial, bool) or serial < 0:
            why = "its serial is not a number"
        else:
            return data, rel
    raise EngineError(f"{RELEASE_JSON} is corrupted ({why}); refusing to publish",
                      path=str(path))
