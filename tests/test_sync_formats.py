"""A release made by a newer (or older) kbtools than the device's: its manifest's format
version, or release.json's release format, is not one this kb reads. The sync refuses it in
one line naming the release and what to do (upgrade kbtools here; rebuild), the served
release stays, `kb status` says so, and a later release this kb reads is synced as usual.

Real signed releases (`Pub`), forged with git plumbing into the artifacts repository and
signed with the publisher's real key (`forge_release`), as a newer `kb release` would make
them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from device_fixtures import kb
from test_release_helpers import Pub, forge_release

from kbtools.index.manifest import FORMAT_VERSION
from kbtools.ship import device as dev
from kbtools.ship.signing import keygen, load_private
from kbtools.ship.verify import RELEASE_FORMAT

pytestmark = pytest.mark.slow


@pytest.fixture
def synced(tmp_path) -> tuple[Pub, Path]:
    key = tmp_path / "release.key"
    keygen(key)
    pub = Pub(tmp_path, sign_key=key)
    pub.release()
    device = tmp_path / "device"
    assert kb("sync", pub.art, "--to", device, "--trusted-key", str(key) + ".pub")[0] == 0
    return pub, device


def manifest_format(version: object):
    def edit(files: dict[str, bytes]) -> None:
        m = json.loads(files["manifest.json"])
        m["format_version"] = version
        files["manifest.json"] = (json.dumps(m, sort_keys=True, indent=1) + "\n").encode()
        rel = json.loads(files["release.json"])
        rel["manifest_sha256"] = hashlib.sha256(files["manifest.json"]).hexdigest()
        files["release.json"] = json.dumps(rel).encode()
    return edit


def release_format(version: object):
    def edit(files: dict[str, bytes]) -> None:
        rel = json.loads(files["release.json"])
        rel["release_format"] = version
        rel["a_field_a_newer_kb_reads"] = {"must": "understand"}
        files["release.json"] = json.dumps(rel).encode()
    return edit


def refused(pub: Pub, device: Path, mutate) -> str:
    tag = forge_release(pub.art, mutate, resign=load_private(pub.sign_key))
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 1 and out == "" and err.startswith(f"kb: error: {tag}: ") and \
        err.count("\n") == 1, err
    assert dev.served_tag(device) == "kb-r1"
    code, out, _ = kb("status", "--to", device, "--quick")
    assert code == 4 and "serving kb-r1" in out and f"FAILED: {err[11:].strip()}" in out, out
    return err


@pytest.mark.parametrize("mutate", [manifest_format(FORMAT_VERSION + 1),
                                    manifest_format(FORMAT_VERSION + 7),
                                    release_format(RELEASE_FORMAT + 1)],
                         ids=["manifest+1", "manifest+7", "release.json+1"])
def test_a_release_of_a_newer_kbtools_says_to_upgrade_kbtools(synced, mutate):
    pub, device = synced
    err = refused(pub, device, mutate)
    assert "newer" in err and "upgrade kbtools on this device" in err, err
    assert pub.release() == "kb-r3"  # the publisher goes back to a format this kb reads
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("serving kb-r3 (was kb-r1)"), err


def test_a_release_of_an_older_format_says_to_rebuild(synced):
    pub, device = synced
    err = refused(pub, device, manifest_format(FORMAT_VERSION - 1))
    assert "older" in err and "kb build" in err and "upgrade" not in err, err


@pytest.mark.parametrize("version", ["2", None, 0, True, 1.5])
def test_a_release_format_that_is_no_version_is_refused(synced, version):
    pub, device = synced
    err = refused(pub, device, release_format(version))
    assert "release format" in err, err


def test_a_release_json_without_a_release_format_is_format_one(synced):
    """Releases made before release.json named its format are read as format 1."""
    pub, device = synced

    def without(files: dict[str, bytes]) -> None:
        rel = json.loads(files["release.json"])
        del rel["release_format"]
        files["release.json"] = json.dumps(rel).encode()
    forge_release(pub.art, without, resign=load_private(pub.sign_key))
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("serving kb-r2 (was kb-r1)"), err
