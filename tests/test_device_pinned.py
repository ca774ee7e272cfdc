"""Releases in the older format, whose manifest pins the derived index's bytes
(``derived``: size and sha256 of every index/ file) instead of naming a self-check.

A sync that installed one verified data/, then hashed every data file again with the pinned
index files; one that repaired such a release (its index/ damaged on the device) verified
data/ twice and then refused the very files it had verified, reading them through the
symbolic links it derives from. Each data file is now hashed once, as for the newer format,
and the pinned index files are still checked by hash."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from device_fixtures import make_device
from test_device_intact import _damage_index, counting
from test_release_helpers import forge_release

from kbtools.index import manifest as manifest_module
from kbtools.index.manifest import list_files, load_manifest, verify_files
from kbtools.index.selfcheck import DERIVED_RECORD
from kbtools.ship import intact
from kbtools.ship.signing import load_private

pytestmark = pytest.mark.slow


def _pin_index(d, release: Path) -> str:
    """A signed release of `release`'s data whose manifest pins the index/ bytes that
    release derived (the older format); returns its tag."""
    pinned = {rel: meta for rel, meta in list_files(release, "index").items()
              if rel != DERIVED_RECORD}  # (what a device records of its own derivation)

    def older_format(files: dict[str, bytes]) -> None:
        manifest = json.loads(files["manifest.json"])
        manifest["derived"] = pinned
        manifest.pop("derived_check", None)
        files["manifest.json"] = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
        rel = json.loads(files["release.json"])
        rel["manifest_sha256"] = hashlib.sha256(files["manifest.json"]).hexdigest()
        files["release.json"] = (json.dumps(rel, sort_keys=True, indent=1) + "\n").encode()

    return forge_release(d.art, older_format, resign=load_private(d.key))


def test_an_older_release_is_installed_and_repaired_hashing_each_data_file_once(
        tmp_path, monkeypatch):
    d = make_device(tmp_path)
    tag = _pin_index(d, (d.dev / "current").resolve())
    hashed = counting(monkeypatch, manifest_module)
    code, out = d.sync()
    assert code == 0 and f"serving {tag}" in out, out
    release = (d.dev / "current").resolve()
    manifest = load_manifest(release)
    assert manifest["derived"] and "derived_check" not in manifest
    data, index = sorted(manifest["artifacts"]), sorted(manifest["derived"])
    assert sorted(r for r in hashed if r in manifest["artifacts"]) == data  # once each
    assert sorted(r for r in hashed if r in manifest["derived"]) == index

    shutil.rmtree(Path(os.environ["KB_HOME"]) / intact.INTACT, ignore_errors=True)
    for name in ("_GOOD", "_CLEAN", "_MANIFESTS"):
        monkeypatch.setattr(intact, name, {})
    _damage_index(d.dev)
    hashed.clear()
    code, out = d.sync()
    assert code == 0 and f"re-derived the index of {tag}" in out, out
    assert sorted(r for r in hashed if r in manifest["artifacts"]) == data  # once each
    assert verify_files(release, manifest, derived=True) == []  # repaired, as pinned


def test_a_rollback_to_an_older_release_whose_pinned_index_is_damaged_repairs_it(tmp_path):
    """`kb rollback` to a release of the older format whose index/ was damaged on the
    device used to refuse ("no longer verifies"); it now derives index/ again from the
    verified data/ (as `kb sync` does), says so, and switches only then."""
    d = make_device(tmp_path)
    old = _pin_index(d, (d.dev / "current").resolve())
    code, out = d.sync()
    assert code == 0 and f"serving {old}" in out, out
    new = d.publish()
    code, out = d.sync()
    assert code == 0 and f"serving {new}" in out, out
    served = (d.dev / "current").resolve()
    older = d.dev / "releases" / old
    _damage_index(d.dev, older)
    code, out = d.kb("rollback", old, "--to", str(d.dev))
    assert code == 0, out
    assert f"serving {old} (was {new})" in out
    assert f"re-derived the index of {old}" in out
    release = (d.dev / "current").resolve()
    assert release != served and verify_files(release, load_manifest(release), derived=True) == []
