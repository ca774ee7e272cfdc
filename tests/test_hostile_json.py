"""The signed JSON of a release (release.json, manifest.json, release.sig) comes from the
source and is read before its signature is checked: nested a hundred thousand deep it made
Python's JSON reader raise RecursionError, which `kb sync` reported as a crash with a
traceback. Now refused in one line like any unreadable file, the served release unchanged;
the other odd JSON (a key given twice, a string of 100 MB) and odd tags (one at a tree, a
blob, another tag) were already refused: guarded here. A real signed artifacts repository
and device (`test_sync_hostile.World`); the forged releases are validly signed."""

from __future__ import annotations

import hashlib
import json
import subprocess
import types
from pathlib import Path

import forge_helpers
import pytest
from forge_helpers import REGULAR, git, next_serial
from test_sync_hostile import World

from kbtools.index.manifest import MAX_JSON_DEPTH, loads_unique

DEEP = 100_000


def _deep(doc: bytes) -> bytes:
    return doc.rstrip().rstrip(b"}") + b', "deep": ' + b"[" * DEEP + b"]" * DEEP + b"}"


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    """A device serving kb-r2; the forger reads what it forges with our reader of depth
    (Python's own raises RecursionError on it)."""
    def loads(data: bytes | str) -> object:
        try:
            return json.loads(data)
        except RecursionError:
            raise ValueError("deep") from None

    monkeypatch.setattr(forge_helpers, "json", types.SimpleNamespace(loads=loads,
                                                                     dumps=json.dumps))
    return World(tmp_path)


def test_deeply_nested_release_files_are_refused_in_one_line(world: World) -> None:
    def deep_release(entries):
        entries["release.json"] = (REGULAR, _deep(entries["release.json"][1]))

    def deep_manifest(entries):
        data = _deep(entries["manifest.json"][1])
        entries["manifest.json"] = (REGULAR, data)
        rel = json.loads(entries["release.json"][1])
        rel["manifest_sha256"] = hashlib.sha256(data).hexdigest()
        entries["release.json"] = (REGULAR, json.dumps(rel).encode())

    world.forge(deep_release)
    assert "release.json missing or unreadable: nested more than 64 deep" \
        in world.assert_refused("nested")
    world.forge(deep_manifest)
    assert "manifest is not valid JSON: nested more than 64 deep" \
        in world.assert_refused("nested")


def test_a_deeply_nested_signature_is_no_signature(world: World) -> None:
    def deep_sig(entries):
        entries["release.sig"] = (REGULAR, b"[" * 30_000 + b"]" * 30_000)  # 60 kB: allowed

    forge_helpers.forge_tree(world.art, deep_sig, key=None, base=world.good)
    assert "release.sig is malformed: nested more than 64 deep" in world.assert_refused("")


def test_odd_json_and_odd_tags_stay_refused(world: World) -> None:
    def dup(entries):
        text = entries["release.json"][1].decode()
        entries["release.json"] = (REGULAR, text.replace("{", '{\n "serial": 1,', 1).encode())

    def huge(entries):
        rel = json.loads(entries["release.json"][1])
        rel["note"] = "x" * (100 << 20)
        entries["release.json"] = (REGULAR, json.dumps(rel).encode())

    world.forge(dup)
    assert "key 'serial' appears twice" in world.assert_refused("twice")
    world.forge(huge)
    assert "release.json is larger than" in world.assert_refused("larger")
    serial = next_serial(world.art)
    for target in ("kb-index^{tree}", "kb-index:release.json"):
        git(world.art, "tag", "-a", f"kb-r{serial}", git(world.art, "rev-parse", target).strip(),
            "-m", "odd")
        assert f"refs/tags/kb-r{serial} names no commit" in world.assert_refused("no commit")
        git(world.art, "tag", "-d", f"kb-r{serial}")


def test_the_reader_bounds_depth_without_recursing() -> None:
    assert loads_unique(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH) is not None
    for data in (b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1),
                 b'{"a":' * 5000 + b"1" + b"}" * 5000, b"[" * DEEP + b"]" * DEEP):
        with pytest.raises(ValueError, match="nested more than"):
            loads_unique(data)


def test_a_release_tag_with_a_huge_message_is_refused_before_it_is_read(world: World
                                                                         ) -> None:
    """A release tag's message is not signed: one of hundreds of megabytes was read whole
    (a 200 MB one took the sync to 750 MB of memory); past 64 KiB it is refused unread."""
    tag = world.forge(lambda e: None)
    head, _, message = git(world.art, "cat-file", "tag", tag).partition("\n\n")
    huge = head + "\n\n" + message + ("x" * 99 + "\n") * 2_000  # 200 kB
    obj = subprocess.run(["git", "--git-dir", str(world.art), "mktag"], input=huge.encode(),
                         capture_output=True, check=True).stdout.decode().strip()
    git(world.art, "update-ref", f"refs/tags/{tag}", obj)
    assert f"{tag}: its tag object is" in world.assert_refused("a release tag is a few hundred")


@pytest.mark.parametrize("opener, closer", [('{"k": ', "}"), ("[", "]"), ('[{"k": ', "}]")])
def test_nesting_up_to_the_limit_is_read_and_one_more_is_refused(opener: str,
                                                                 closer: str) -> None:
    """The limit counts arrays and objects alike, however they alternate, and wherever the
    deep part sits (after a wide first level, as a manifest's artifacts are): the top object
    and 63 inside it are read, one more is refused."""
    def nested(levels: int) -> str:  # `levels` arrays and objects inside one another
        times, rest = divmod(levels, opener.count("{") + opener.count("["))
        return "[" * rest + opener * times + "1" + closer * times + "]" * rest
    wide = ", ".join(f'"f{i}": {{"size": {i}}}' for i in range(50))
    for levels, refused in ((MAX_JSON_DEPTH - 1, False), (MAX_JSON_DEPTH, True)):
        doc = '{"artifacts": {' + wide + '}, "deep": ' + nested(levels) + "}"
        if refused:
            with pytest.raises(ValueError, match=f"nested more than {MAX_JSON_DEPTH} deep"):
                loads_unique(doc)
        else:
            assert loads_unique(doc)["artifacts"]["f49"] == {"size": 49}
