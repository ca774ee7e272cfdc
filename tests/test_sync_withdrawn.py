"""What `kb sync` and `kb releases` say when the source withdrew what a device serves (its
release tag deleted, every tag deleted, a tag moved), when the source cannot be reached, and
what `kb sync` and `kb rollback` say on a device directory that cannot be written: which
release still serves, and why nothing changed.

Real artifacts repositories (tests/test_release_helpers.py), real git (tags deleted and
re-made at the source with git itself), and a real read-only bind mount where the machine
allows a mount namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import test_device_interrupts
from device_fixtures import can_mount_read_only, kb
from test_release_helpers import git

from kbtools.ship import device as dev
from tests.ports import refusing_port

pytestmark = pytest.mark.slow


two = test_device_interrupts.two  # kb-r1 and kb-r2 synced from the source, kb-r2 serving


def releases_json(device: Path) -> dict[str, dict]:
    code, out, err = kb("releases", "--to", device, "--json")
    assert code == 0, err
    return {r["tag"]: r for r in json.loads(out)}


def test_a_served_release_whose_tag_the_source_deleted_is_said_so(two):
    """The served kb-r2 withdrawn at the source: the sync said "refusing a downgrade (use
    `kb rollback` …)", as if the operator had asked for one, and not what served."""
    pub, device = two
    git(pub.art, "tag", "-d", "kb-r2")
    code, out, err = kb("sync", pub.art, "--to", device)
    assert (code, out) == (1, "")
    assert err == (f"kb: error: {pub.art}: newest release at the source is kb-r1, older than "
                   "kb-r2 already accepted here (kb-r2 is no longer offered there: its tag was "
                   "deleted, or this is another source); refusing a downgrade, kb-r2 still "
                   "serves (unchanged) (`kb rollback` serves an older local release)\n")
    assert dev.served_tag(device) == "kb-r2"
    rows = releases_json(device)
    assert rows["kb-r2"]["at_source"] is False and rows["kb-r1"]["at_source"] is True
    code, out, _ = kb("releases", "--to", device)
    line = next(x for x in out.splitlines() if "kb-r2" in x)
    assert line.endswith("served; no longer at the source (its tag was deleted there)"), out
    assert pub.release() == "kb-r3"  # a new release at the source is taken again
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out.startswith("serving kb-r3 (was kb-r2)"), err


def test_a_release_rolled_back_to_and_the_one_rolled_back_from_both_withdrawn(two):
    pub, device = two
    pub.release()
    assert kb("sync", pub.art, "--to", device)[0] == 0
    assert kb("rollback", "--to", device)[0] == 0  # kb-r2 serves, kb-r3 rolled back from
    for tag in ("kb-r2", "kb-r3"):
        git(pub.art, "tag", "-d", tag)
    code, _, err = kb("sync", pub.art, "--to", device)
    assert code == 1 and ("(neither kb-r2, served here, nor kb-r3 is offered there any more: "
                          "their tags were deleted, or this is another source); refusing a "
                          "downgrade, kb-r2 still serves (unchanged)") in err, err
    assert dev.served_tag(device) == "kb-r2"


def test_a_source_with_no_release_tags_left_says_what_serves(two):
    pub, device = two
    for tag in ("kb-r1", "kb-r2"):
        git(pub.art, "tag", "-d", tag)
    code, _, err = kb("sync", pub.art, "--to", device)
    assert (code, err) == (1, f"kb: error: {pub.art}: the source has no release tags to serve; "
                              "kb-r2 still serves (unchanged)\n")


def test_a_held_release_whose_tag_moved_at_the_source_is_named_by_kb_releases(two):
    """A re-signed tag with the same name (kb-r1 re-made onto kb-r2's commit): sync keeps the
    kb-r1 it verified, with a warning; `kb releases` named nothing."""
    pub, device = two
    commit = git(pub.art, "rev-parse", "kb-r2^{commit}").strip()
    message = git(pub.art, "tag", "-l", "--format=%(contents)", "kb-r2")
    git(pub.art, "tag", "-f", "-a", "kb-r1", commit, "-m", message)
    rows = releases_json(device)
    assert rows["kb-r1"]["moved_at_source"] is True
    assert rows["kb-r2"]["moved_at_source"] is False
    code, out, _ = kb("releases", "--to", device)
    line = next(x for x in out.splitlines() if "kb-r1" in x)
    assert line.endswith("moved at the source (this device keeps the one it verified)"), out
    code, out, err = kb("sync", pub.art, "--to", device)
    assert code == 0 and out == "up to date: serving kb-r2\n", err


def test_a_bundle_that_carries_only_newer_releases_marks_nothing_withdrawn(two, tmp_path):
    from kbtools.ship.bundle import create_bundle

    pub, device = two
    pub.release()
    bundle = create_bundle(pub.kr, tmp_path / "since.bundle", since="kb-r2").path
    assert kb("sync", bundle, "--to", device)[0] == 0
    assert all(r["at_source"] is not False for r in releases_json(device).values())


def test_a_source_that_cannot_be_reached_says_what_still_serves(two):
    _, device = two
    with refusing_port() as port:  # nothing listens there
        url = f"git://127.0.0.1:{port}/art.git"
        code, _, err = kb("sync", url, "--to", device)
    assert code == 1 and err.startswith(f"kb: error: {url}: git ls-remote failed: ") and \
        err.endswith("; kb-r2 still serves (unchanged)\n"), err
    code, out, err = kb("releases", "--to", device)  # the last source is the good one
    assert code == 0 and "kb-r2" in out and err == ""


@pytest.mark.parametrize("command", ["sync", "rollback"])
def test_sync_and_rollback_on_a_read_only_device_say_what_serves(two, tmp_path, command):
    """A read-only mount (ProtectSystem=strict): "cannot lock the device directory: …:
    Read-only file system", and nothing of which release served or what to do."""
    if shutil.which("unshare") is None or not can_mount_read_only(tmp_path):
        pytest.skip("no unprivileged mount namespaces here")
    _, device = two
    args = "sync" if command == "sync" else "rollback kb-r1"
    script = (f"mount --bind {device} {device} && mount -o remount,bind,ro {device} && "
              f"exec {sys.executable} -m kbtools {args} --to {device}")
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True,
                          text=True, env={**os.environ, "KB_HOME": str(tmp_path / "home")})
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr == (f"kb: error: {device}: cannot lock the device directory: "
                           f"{device}/.lock: Read-only file system; nothing was changed: kb "
                           f"{command} writes there (make the directory writable for this "
                           "account, or run it as the account that owns it); kb-r2 still "
                           "serves (unchanged)\n")
    assert dev.served_tag(device) == "kb-r2"
    for what in ("status", "releases"):  # read only: they still answer
        proc = subprocess.run(["unshare", "-rm", "sh", "-c", script.replace(
            f"{args} --to", f"{what} --to")], capture_output=True, text=True,
            env={**os.environ, "KB_HOME": str(tmp_path / "home")})
        assert proc.returncode == 0 and "kb-r2" in proc.stdout, proc.stderr
