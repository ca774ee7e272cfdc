"""Property: whatever a release tree holds (mutations of a real signed release, re-signed with
the real key so only the tree is hostile), `kb sync` ends in a one-line refusal or a served
release that is exactly the signed manifest's regular files; never a traceback, a hang, or a
write outside the device directory."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from forge_helpers import (
    EXEC,
    GITLINK,
    LINK,
    REGULAR,
    Entries,
    forge_tree,
    list_artifact,
    run_forked,
    snapshot,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_release_helpers import git
from test_sync_hostile import World

from kbtools.index.manifest import load_manifest, verify_files
from kbtools.ship import device
from kbtools.ship.signing import load_public, verify
from kbtools.ship.sync import sync

SEGMENTS = ["data", "chunks", "index", "..", ".", "", ".git", ".gitattributes", "evil.sh",
            "verified.json", "release.json", "manifest.json", "current", "DATA", "Chunks",
            "caf\u00e9", "cafe\u0301", "a\\b", "a/b", "x" * 300, "\udcff", "new\nline",
            "00.jsonl", "00.JSONL"]
TARGETS = ["/dev/zero", "/etc/passwd", "/", "../../..", "data", "../../../outside/dir",
           "OUTSIDE/fifo", "OUTSIDE/victim.txt", "OUTSIDE/dir"]

paths = st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map(tuple)
ops = st.one_of(
    st.tuples(st.just("add"), paths, st.sampled_from([REGULAR, EXEC, LINK, GITLINK]),
              st.sampled_from(TARGETS)),
    st.tuples(st.just("relink"), st.integers(0, 99), st.sampled_from(TARGETS)),
    st.tuples(st.just("mode"), st.integers(0, 99), st.sampled_from([EXEC, GITLINK])),
    st.tuples(st.just("grow"), st.integers(0, 99)),
    st.tuples(st.just("drop"), st.integers(0, 99)),
    st.tuples(st.just("list"), paths),
    st.just(("noop",)),
)


def _apply(e: Entries, op: tuple[Any, ...], world: World, tip: str) -> None:
    def target(t: str) -> bytes:
        return t.replace("OUTSIDE", str(world.outside)).encode()

    existing = sorted(e, key=str)
    pick = existing[op[1] % len(existing)] if op[0] in ("relink", "mode", "grow", "drop") \
        else None
    if op[0] == "add":
        _, path, mode, t = op
        e[path] = (mode, tip if mode == GITLINK else target(t))
    elif op[0] == "relink":
        e[pick] = (LINK, target(op[2]))
    elif op[0] == "mode":
        data = e[pick][1] if isinstance(e[pick][1], bytes) else b"was a submodule"
        e[pick] = (op[2], tip if op[2] == GITLINK else data)
    elif op[0] == "grow" and isinstance(e[pick][1], bytes):
        e[pick] = (e[pick][0], e[pick][1] + b"+")
    elif op[0] == "drop":
        del e[pick]
    elif op[0] == "list" and "/".join(op[1]) not in ("manifest.json", "release.json"):
        with contextlib.suppress(ValueError, KeyError, TypeError):  # manifest already broken
            list_artifact(e, "/".join(op[1]), b"listed\n")


def _served_is_signed_and_listed(world: World) -> None:
    rel = device.served_release(world.dev)
    assert rel is not None
    rel_bytes = (rel / "release.json").read_bytes()
    assert verify(rel_bytes, (rel / "release.sig").read_bytes(), [load_public(world.pub)],
                  where="served") == world.kid
    manifest = load_manifest(rel)
    mhash = hashlib.sha256((rel / "manifest.json").read_bytes()).hexdigest()
    assert json.loads(rel_bytes)["manifest_sha256"] == mhash
    assert verify_files(rel, manifest) == []
    found = set()
    for dirpath, dirnames, filenames in os.walk(rel):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            assert not p.is_symlink(), p
            if not p.is_dir():
                assert p.is_file(), p
                found.add(p.relative_to(rel).as_posix())
    assert found == set(manifest["artifacts"]) | set(manifest["derived"]) | {
        "manifest.json", "release.json", "release.sig", "verified.json"}


@pytest.fixture
def fuzz_world(tmp_path: Path) -> World:
    return World(tmp_path)


@settings(max_examples=25, deadline=120_000, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(mutation=st.lists(ops, min_size=1, max_size=3))
@example(mutation=[("noop",)])  # a genuine release still goes through
@example(mutation=[("add", ("evil.sh",), REGULAR, "/etc/passwd")])
@example(mutation=[("add", ("data", "etc"), LINK, "/etc")])
@example(mutation=[("add", ("verified.json",), LINK, "OUTSIDE/victim.txt")])
@example(mutation=[("add", ("release.json",), LINK, "OUTSIDE/fifo")])
@example(mutation=[("list", ("..", "kb-r2", "manifest.json"))])
def test_sync_of_mutated_release_trees(fuzz_world: World, mutation):
    world = fuzz_world
    tip = world.good
    tip_commit = git(world.art, "rev-parse", f"{tip}^{{commit}}").strip()

    def mutate(e: Entries) -> None:
        for op in mutation:
            _apply(e, op, world, tip_commit)

    served = device.served_tag(world.dev)
    tag = forge_tree(world.art, mutate, key=world.key, base=tip)
    before = snapshot(world.tmp, skip=("dev", "art.git"))
    kind, msg = run_forked(lambda: sync(str(world.art), world.dev, trusted=[world.pub]).tag,
                           timeout=60)
    assert kind in ("ok", "kberror"), (kind, msg)
    assert snapshot(world.tmp, skip=("dev", "art.git")) == before
    if kind == "ok":
        assert msg == tag
    else:
        assert "\n" not in msg, msg
        assert device.served_tag(world.dev) == served
    assert not list((world.dev / "releases").glob("*.staging"))
    _served_is_signed_and_listed(world)
