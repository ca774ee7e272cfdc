"""Signed release content that would reach outside its device directory, land on another
file there, or fill the device's disk (session 33, issue 12): each through the path rules
(`kbtools.index.manifest.path_problem`, `manifest_path_problems`) and end to end, a real
signed release synced by the real code, refused in one line, nothing written outside, the
previous release still served.

What was already refused stays under guard here too (`..`, absolute, drive and backslash
paths, control characters, overlong names, a huge manifest); what was not: lookalikes of
``..`` (``．．``, ``‥``, ``. .``) and bidirectional controls in names,
twins that are one file on a FAT SD card (``a.txt`` and ``a.txt.``), a release whose
files (a few kilobytes of git pack) would fill the device's disk, and a manifest naming a
folder of release files as its embedding model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from forge_helpers import edit_manifest, list_artifact
from hostile import env
from test_sync_hostile import World

from kbtools.index.manifest import manifest_path_problems, path_problem

REFUSED = [
    "data/../x", "/etc/passwd", "data/../../../../etc/cron.d/x", "C:\\x", "C:/x",
    "data\\..\\x", "data/a\nb", "data/a\x00b", "data/a\rb",
    "data/" + "a" * 256, "data/" + "a/" * 600 + "x",
    "data/\uff0e\uff0e/x",          # fullwidth full stops: NFKC makes them '..'
    "data/\u2025/x",                # two dot leader
    "data/\u2024\u2024/x",          # one dot leader, twice
    "data/\ufe52\ufe52/x",          # small full stops
    "data/. ./x", "data/.. /x", "data/ /x", "data/.../x",
    "data/\u202egnp.exe", "data/\u2066x\u2069.md",  # bidirectional controls
    "data/.GIT/config",
]

ACCEPTED = [
    "data/source/a\u2028b.md",  # a line separator: odd names build, release and sync
    # (tests/test_shards.py); the refusal message shows such a name escaped
    "data/source/knowledge/进口／出口.md",   # a fullwidth solidus is a character in a name
    "data/source/knowledge/说明…第二版.md",
    "data/source/knowledge/v1.2.notes.md", "data/chunks/00.jsonl",
    "data/source/knowledge/.hidden.md", "data/assets/a..b.png",
    "data/source/knowledge/وثيقة.md",
]


@pytest.mark.parametrize("rel", REFUSED)
def test_paths_that_escape_or_pass_for_others_are_refused(rel: str):
    entry = {"sha256": "0" * 64, "size": 1}
    assert manifest_path_problems({"artifacts": {rel: entry}}), rel
    assert path_problem(rel) is not None or not rel.startswith("data/"), rel


@pytest.mark.parametrize("rel", ACCEPTED)
def test_real_names_stay_accepted(rel: str):
    assert path_problem(rel) is None
    assert manifest_path_problems({"artifacts": {rel: {"sha256": "0" * 64, "size": 1}}}) == []


@pytest.mark.parametrize("a,b", [
    ("data/a.txt", "data/a.txt."),        # FAT and Windows drop trailing dots
    ("data/a.txt", "data/A.TXT "),        # … and spaces, and compare without case
    ("data/说明/a.md", "data/说明./a.md"),  # a folder too
])
def test_twins_on_a_fat_sd_card_collide(a: str, b: str):
    entry = {"sha256": "0" * 64, "size": 1}
    problems = manifest_path_problems({"artifacts": {a: entry, b: entry}})
    assert any("collides with" in p for p in problems), problems


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


@pytest.mark.parametrize("rel,fragment", [
    ("data/\uff0e\uff0e/x.md", "lookalike of '..'"),
    ("data/\u2025/x.md", "lookalike of '..'"),
    ("data/\u202etxt.exe", "bidirectional control character U+202E"),
])
def test_signed_releases_with_hostile_names_are_refused(world: World, rel: str,
                                                        fragment: str):
    world.forge(lambda e: list_artifact(e, rel, b"payload\n"))
    msg = world.assert_refused(fragment)
    assert "\u2028" not in msg and "\u202e" not in msg  # the line shows the name escaped


def test_signed_release_with_fat_twins_is_refused(world: World):
    def twins(e):
        name = next(p for p in e if str(p).startswith("data/chunks/"))
        list_artifact(e, name + ".", e[name][1])
    world.forge(twins)
    world.assert_refused("collides with")


def test_a_manifest_of_300000_entries_is_refused_quickly(world: World):
    """A zip-bomb-like manifest: 300,000 listed files (under the 64 MB limit) that the tree
    does not hold; refused in one line within the time limit, nothing written."""
    def many(e):
        edit_manifest(e, lambda m: m["artifacts"].update(
            {f"data/x/{i:07d}": {"sha256": "0" * 64, "size": 0} for i in range(300_000)}))
    world.forge(many)
    start = time.monotonic()
    world.assert_refused("missing")
    assert time.monotonic() - start < 90


def _can_mount_tmpfs(tmp_path: Path) -> bool:
    probe = tmp_path / "probe"
    probe.mkdir()
    if shutil.which("unshare") is None:
        return False
    proc = subprocess.run(["unshare", "-rm", "sh", "-c",
                           f"mount -t tmpfs -o size=1m tmpfs {probe}"], capture_output=True)
    return proc.returncode == 0


def test_a_release_that_would_fill_the_disk_is_refused_before_writing(world: World,
                                                                      tmp_path: Path):
    """A signed release listing 96 MB of zeros (a git pack of some 100 KB) synced to a
    device on a 48 MB file system (a real tmpfs in a mount namespace): refused in one line
    naming the space, before a byte is written; the previous release still serves and
    the disk keeps its room. It used to be written until the disk was full."""
    if not _can_mount_tmpfs(tmp_path):
        pytest.skip("no mount namespace here")
    good = tmp_path / "good.git"
    subprocess.run(["git", "clone", "-q", "--mirror", str(world.art), str(good)], check=True)
    world.forge(lambda e: list_artifact(e, "data/assets/bomb.bin", bytes(96 << 20)))
    dev = tmp_path / "small"
    dev.mkdir()
    kb = f"{shutil.which('python') or 'python3'} -m kbtools"
    script = (f"set -u; mount -t tmpfs -o size=48m tmpfs {dev} || exit 99; "
              f"{kb} sync {good} --to {dev} --trusted-key {world.pub} >/dev/null 2>&1 "
              f"|| exit 98; {kb} sync {world.art} --to {dev} --trusted-key {world.pub} "
              f">/dev/null 2>{tmp_path / 'err'}; echo $? >{tmp_path / 'rc'}; "
              f"{kb} status --to {dev} --json >{tmp_path / 'status'} 2>/dev/null; "
              f"df -B1 --output=avail {dev} | tail -1 >{tmp_path / 'avail'}; "
              f"ls -a {dev}/releases >{tmp_path / 'releases'}")

    kb_env = env(tmp_path / "home") | {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"}
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], env=kb_env,
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr.decode()
    err = (tmp_path / "err").read_text()
    assert (tmp_path / "rc").read_text().strip() == "1", err
    lines = [ln for ln in err.splitlines() if ln.startswith("kb: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "bytes free" in lines[0] and "nothing of it was written" in lines[0], err
    status = json.loads((tmp_path / "status").read_text())
    assert status["served"]["tag"] == "kb-r2", status
    assert int((tmp_path / "avail").read_text()) > 30 << 20
    assert not [n for n in (tmp_path / "releases").read_text().split() if "staging" in n]


@pytest.mark.parametrize("where", ["served", "relative", "dotdot"])
def test_a_release_may_not_name_its_own_files_as_the_model(world: World, where: str):
    """A model key that is no registered name is loaded by sentence-transformers from a
    local folder: a signed release naming a folder of the served release (files the
    publisher chose: pickled weights, a modules.json naming classes to import) made the
    device try to load them as its model. Refused before any load, in one line."""
    served = world.dev / "releases" / "kb-r2" / "data"
    key = {"served": str(served), "relative": f"{world.dev}/releases/./kb-r2/data/chunks",
           "dotdot": "../../releases/kb-r2/data"}[where]
    world.forge(lambda e: edit_manifest(e, lambda m: m["models"].update(
        {key: {"id": key, "fingerprint": "st:evil", "dim": 8}})))
    world.assert_refused("'..'" if where == "dotdot" else "where release files are written")
