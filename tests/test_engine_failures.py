"""Failure paths of releases in a real Milvus (milvus-lite server): prune never drops what an
alias serves, every state an interrupted publish leaves is loaded again, a device's pinned
keys apply however its release is named, malformed release files are one line before any
connection, "older" means published before when a local build is in the mix, and the
``--engine`` URL refuses port 0 and keeps IPv6 brackets."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from concurrent import futures
from pathlib import Path

import grpc
import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import (
    ALIAS,
    META_SUFFIX,
    P_COMPLETE,
    P_MANIFEST,
    EngineUrl,
    connect_url,
    publish_order,
)
from kbtools.engine.publish import check_release, prune, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.engine.rows import meta_schema
from kbtools.errors import EngineError, UsageError
from kbtools.query.search import search
from kbtools.ship import device
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen
from kbtools.ship.sync import sync
from tests.hostile import git, make_repo
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.ports import refusing_port

QUESTION = "how often to replace the pump seal"
EXTRA_DOC = """---
title: Note {n}
category: engineering
project: knowledge-base
source: test
author: t@example.org
timestamp: "2026-02-0{n}T09:00:00+00:00"
verified: false
lang: en
---
# Note {n}

Flush the drip irrigation lines with clean water every {n} weeks.
"""


@pytest.fixture(scope="module")
def signed(tmp_path_factory):
    """Three signed releases (kb-r1..kb-r3) synced onto one device that pinned the key;
    returns (device dir, repo with its last build in dist/)."""
    base = tmp_path_factory.mktemp("signed")
    kr = make_repo(base / "kr")
    extra = [{f"knowledge/note{n}.md": EXTRA_DOC.format(n=n)} for n in (2, 3)]
    return signed_device(base, kr, extra), kr


def signed_device(base: Path, kr: Path, changes: list[dict[str, str]]) -> Path:
    """Releases kb-r1… of repo `kr` (its own artifacts remote and key under `base`), signed
    and synced onto a device that pinned the key (returned): kb-r1 of what `kr` holds, each
    next one after writing the files of one of `changes` (path → text) and committing."""
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    key = base / "release.key"
    keygen(key)
    dev = base / "dev"
    for n, files in enumerate([{}, *changes], start=1):
        for rel, text in files.items():
            (kr / rel).parent.mkdir(parents=True, exist_ok=True)
            (kr / rel).write_text(text, encoding="utf-8")
        if files:
            git(kr, "add", "-A")
            git(kr, "commit", "-q", "-m", f"release {n}")
        cfg = load_config(kr)
        build(cfg, BuildOptions(progress=False))
        make_release(kr, cfg.path("dist"), remote=str(art), sign_key=key)
        assert sync(str(art), dev, trusted=[Path(str(key) + ".pub")]).tag == f"kb-r{n}"
    return dev


def _rel(dev: Path, n: int) -> Path:
    return dev / "releases" / f"kb-r{n}"


def _engine(milvus, db):  # noqa: F811
    return connect_url(milvus.url(db), create_db=True)


# 1 ---------------------------------------------------------------------------------------

def test_prune_keeps_what_every_alias_serves(signed, milvus):  # noqa: F811
    dev, _ = signed
    eng = _engine(milvus, "aliases")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    r3 = publish(eng, check_release(_rel(dev, 3)), alias="staging", keep=1)
    assert r3.pruned == (r1.collection,)  # kb_current's r2 stays
    assert eng.alias_target(ALIAS) == r2.collection
    assert eng.alias_target("staging") == r3.collection
    assert EngineReader(eng).current().collection == r2.collection
    res = CliRunner().invoke(main, ["query", "--engine", milvus.url("aliases"), QUESTION])
    assert res.exit_code == 0, res.output
    assert prune(eng, 1) == []  # both served: nothing to drop


def test_a_search_on_a_release_pruned_meanwhile_says_so(signed, milvus):  # noqa: F811
    """A reader that had resolved the alias searched a release a publish (`--keep 1`) then
    pruned: "collection … does not exist; publish a release there first", though releases
    were published. It says the release was dropped meanwhile; asking again serves the
    new one."""
    dev, _ = signed
    eng = _engine(milvus, "pruned")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    reader = EngineReader(eng)
    old = reader.current()
    r2 = publish(eng, check_release(_rel(dev, 2)), keep=1)
    assert r2.pruned == (r1.collection,)
    with pytest.raises(EngineError) as err:
        search(old, QUESTION)
    assert r1.collection in err.value.message and "publish a release there first" not in \
        err.value.message
    assert err.value.message.endswith("it was dropped from the engine meanwhile (pruned by a "
                                      "publish, or by hand): ask again, or publish the "
                                      "release again")
    assert search(reader.current(), QUESTION).results


def test_a_served_collection_dropped_by_hand_names_the_rollback(signed, milvus):  # noqa: F811
    """An operator dropped the served release's collection by hand, which drops its alias
    too: every reader said "no release is published here … run `kb publish`", though kb-r1
    stood complete in the database. It names the rollback that serves it again."""
    dev, _ = signed
    url = milvus.url("handdrop")
    eng = _engine(milvus, "handdrop")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.drop_collection(r2.collection)
    assert eng.alias_target() is None  # the alias went with it
    res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert "no release is published" not in res.output, res.output
    assert "1 complete release(s), the newest kb-r1" in res.output, res.output
    assert f"`kb rollback --engine {url}` serves the newest again" in res.output, res.output
    res = CliRunner().invoke(main, ["rollback", "--engine", url])
    assert res.exit_code == 0, res.output
    assert res.output == f"serving {r1.collection} (was no release: the alias was missing)\n"
    assert search(EngineReader(eng).current(), QUESTION).results
    eng.client.drop_alias(ALIAS)  # as a Milvus server that refuses to drop a served one
    with pytest.raises(EngineError, match=r"alias kb_current is missing here \(dropped by "
                                          r"hand.*the newest kb-r1: `kb rollback"):
        EngineReader(eng).current()


# 2 ---------------------------------------------------------------------------------------

class Killed(Exception):
    """A publish stopped mid-way (the process killed)."""


def _kill_at(eng, monkeypatch, doing: str) -> None:
    """Make the first engine call whose description matches `doing` stop the publish."""
    real = eng.call

    def call(what, method, *args, **kwargs):
        if re.fullmatch(doing, what):
            raise Killed(what)
        return real(what, method, *args, **kwargs)

    monkeypatch.setattr(eng, "call", call)


KILLS = {"main": r"creating kb_kb_r2_\w{12}", "meta": r"creating .*__meta",
         "blobs": r"writing .*__meta", "rows": r"writing kb_kb_r2_\w{12}",
         "flush": r"flushing kb_kb_r2_\w{12}", "index": r"indexing .*__meta",
         "load": r"loading kb_kb_r2_\w{12}", "count": r"counting .*",
         "mark": r"marking .*", "alias": r"(moving|creating) alias .*"}


@pytest.mark.parametrize("at", sorted(KILLS))
def test_every_interrupted_publish_is_loaded_again(signed, milvus, monkeypatch, at):  # noqa: F811
    dev, _ = signed
    db = f"kill_{at}"
    doing = KILLS[at]
    eng = _engine(milvus, db)
    r1 = publish(eng, check_release(_rel(dev, 1)))
    with monkeypatch.context() as m:
        _kill_at(eng, m, doing)
        with pytest.raises(Killed):
            publish(eng, check_release(_rel(dev, 2)))
    assert eng.alias_target() == r1.collection  # never an incomplete release
    r2 = publish(eng, check_release(_rel(dev, 2)))
    assert r2.changed and eng.alias_target() == r2.collection
    assert EngineReader(eng).current().collection == r2.collection


def test_orphaned_meta_and_missing_meta_are_loaded_again(signed, milvus):  # noqa: F811
    """What earlier kbtools left (``__meta`` created before the release's collection, a drop
    stopped between the two): the release is published again, not refused."""
    dev, _ = signed
    eng = _engine(milvus, "orphan")
    checked = check_release(_rel(dev, 1))
    name = f"kb_kb_r1_{checked.manifest_sha256[:12]}"
    eng.client.create_collection(name + META_SUFFIX, schema=meta_schema(eng))
    r1 = publish(eng, checked)
    assert r1.collection == name and eng.alias_target() == name
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.drop_collection(r2.collection + META_SUFFIX)  # complete, but its meta is gone
    rollback(eng, "kb-r1")
    again = publish(eng, check_release(_rel(dev, 2)))
    assert again.changed and eng.alias_target() == r2.collection
    assert EngineReader(eng).current().collection == r2.collection
    other = "kb_kb_r9_000000000000" + META_SUFFIX  # an interrupted drop of another release
    eng.client.create_collection(other, schema=meta_schema(eng))
    assert other in prune(eng, 5)
    assert not eng.client.has_collection(other)


def test_a_served_release_found_incomplete_is_loaded_again_beside_it(signed, milvus):  # noqa: F811
    """Publishing again a release whose collection is not marked complete drops what is
    there and loads it anew; when an alias serves that collection (its mark removed by
    hand), milvus-lite dropped it under its readers (a Milvus server refuses the drop).
    The release is loaded into another collection, the alias moved there, and only then
    the one it served dropped."""
    dev, _ = signed
    url = milvus.url("servedincomplete")
    eng = _engine(milvus, "servedincomplete")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    eng.client.alter_collection_properties(r1.collection, {P_COMPLETE: "0"})
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(dev, 1))])
    assert res.exit_code == 0, res.output
    served = eng.alias_target()
    assert served is not None and served != r1.collection
    assert res.stdout.startswith(f"published kb-r1 as {served} ")
    assert res.stdout.rstrip().endswith(f"dropped {r1.collection}")
    assert not eng.client.has_collection(r1.collection)
    assert search(EngineReader(eng).current(), QUESTION).results
    again = publish(eng, check_release(_rel(dev, 1)))
    assert not again.changed and again.collection == served


def test_a_served_release_whose_meta_was_dropped_is_published_again(signed, milvus):  # noqa: F811
    """A served release whose ``__meta`` was dropped (by hand): its readers fail, so
    publishing it again is not "already published and served; nothing to do". It is loaded
    into another collection and the alias moved there; the served one is never dropped
    while the alias names it, and a second publish changes nothing."""
    dev, _ = signed
    url = milvus.url("metadropped")
    eng = _engine(milvus, "metadropped")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    eng.client.drop_collection(r1.collection + META_SUFFIX)
    with pytest.raises(EngineError):
        EngineReader(eng).current()
    drops: list[str] = []
    real_drop = eng.drop

    def watched(name: str, *, meta: bool = True) -> None:
        assert eng.alias_target() != name  # never what the alias serves
        drops.append(name)
        real_drop(name, meta=meta)

    eng.drop = watched  # type: ignore[method-assign]
    res = publish(eng, check_release(_rel(dev, 1)))
    assert res.changed and res.collection != r1.collection
    assert eng.alias_target() == res.collection and res.previous == r1.collection
    assert r1.collection in res.pruned and r1.collection in drops
    assert not eng.client.has_collection(r1.collection)
    assert eng.client.has_collection(res.collection + META_SUFFIX)
    assert search(EngineReader(eng).current(), QUESTION).results
    out = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(dev, 1))])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith(f"{res.collection} is already published and served by "
                                 "alias kb_current; nothing written, loaded and warmed (")


# 3 ---------------------------------------------------------------------------------------

@pytest.fixture
def altered(signed, tmp_path):
    """A copy of the device whose served release's release.json was altered consistently
    (the manifest hash still matches; the signature no longer does)."""
    dev = tmp_path / "dev"
    shutil.copytree(signed[0], dev, symlinks=True)
    served = device.served_release(dev)
    rel = json.loads((served / "release.json").read_text(encoding="utf-8"))
    rel["notes"] = "altered"
    (served / "release.json").write_text(json.dumps(rel), encoding="utf-8")
    return dev, served


def test_pinned_keys_apply_however_the_release_is_named(altered, monkeypatch):
    dev, served = altered
    for path in (dev, dev / "current", served, dev / "releases" / ".." / "current"):
        with pytest.raises(EngineError, match="signature check failed.*altered"):
            check_release(path)
    monkeypatch.chdir(served)
    with pytest.raises(EngineError, match="signature check failed"):
        check_release(Path("."))
    monkeypatch.setenv("KB_INDEX", str(dev))
    with pytest.raises(EngineError, match="signature check failed"):
        check_release(None)
    with refusing_port() as port:  # nothing listens: refused before connecting
        url = f"milvus://127.0.0.1:{port}/kb"
        res = CliRunner().invoke(main, ["publish", "--engine", url])
    assert res.exit_code == 1 and "signature check failed" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_unaltered_device_releases_pass(signed):
    dev, _ = signed
    for path in (dev, dev / "current", _rel(dev, 1)):
        assert check_release(path).signed_by


# 4 ---------------------------------------------------------------------------------------

def _release_json(rel: dict, **change) -> bytes:
    return json.dumps({**rel, **change}).encode("utf-8")


@pytest.mark.parametrize("case", ["not json", "list", "bytes", "serial text", "serial bool",
                                  "serial negative", "tag list", "no tag", "empty",
                                  "manifest list", "manifest null", "manifest bytes"])
def test_malformed_release_files_are_one_line(signed, tmp_path, case):
    src = _rel(signed[0], 1)
    bad = tmp_path / "bad"
    shutil.copytree(src, bad)  # outside the device: no pinned keys to fail first
    rel = json.loads((bad / "release.json").read_bytes())
    content = {"not json": b"{not json", "list": b"[1,2]", "bytes": b"\xff\xfe",
               "serial text": _release_json(rel, serial="abc"),
               "serial bool": _release_json(rel, serial=True),
               "serial negative": _release_json(rel, serial=-3),
               "tag list": _release_json(rel, tag=["x"]),
               "no tag": _release_json({k: v for k, v in rel.items() if k != "tag"}),
               "empty": b""}
    if case.startswith("manifest"):
        (bad / "manifest.json").write_bytes({"manifest list": b"[]", "manifest null": b"null",
                                             "manifest bytes": b"\xff\xfe"}[case])
        want = "manifest"
    else:
        (bad / "release.json").write_bytes(content[case])
        want = "release.json is corrupted"
    with refusing_port() as port:  # nothing listens: refused before connecting
        url = f"milvus://127.0.0.1:{port}/kb"
        res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(bad)])
    assert res.exit_code == 1, res.output
    line = res.output.strip()
    assert len(line.splitlines()) == 1 and want in line and "refusing to publish" in line
    assert "Traceback" not in line and "connecting" not in line


# 5 ---------------------------------------------------------------------------------------

def test_rollback_and_prune_order_a_local_build_by_publish_time(signed, milvus):  # noqa: F811
    dev, kr = signed
    eng = _engine(milvus, "local")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    local = publish(eng, check_release(kr / "dist"))
    assert local.serial == -1 and eng.alias_target() == local.collection
    assert [r["collection"] for r in eng.releases()] == [r1.collection, r2.collection,
                                                          local.collection]
    res = CliRunner().invoke(main, ["rollback", "--engine", milvus.url("local"), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["to"] == r2.collection
    assert prune(eng, 1) == [r1.collection]  # the newest is the local build, r2 is served
    assert rollback(eng, local.collection)["to"] == local.collection
    assert rollback(eng)["to"] == r2.collection
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)


def test_publish_order_places_local_builds_by_publish_time():
    def r(name, serial, published):
        return {"collection": name, "serial": serial, "published": published, "complete": True}

    rows = [r("b1", -1, 5.0), r("r2", 2, 4.0), r("r1", 1, 1.0), r("b0", -1, 0.5),
            r("r3", 3, 9.0), {**r("r9", 9, 0.0), "complete": False}]
    # b1 after r2 (published before it), not after the incomplete r9 or the later r3
    assert [x["collection"] for x in publish_order(rows)] == ["b0", "r1", "r2", "b1", "r3",
                                                              "r9"]


# 6, 7 ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["milvus://127.0.0.1:0/kb", "milvus://127.0.0.1:65536/kb",
                                  "milvus://127.0.0.1:-1/kb", "milvus://127.0.0.1:x/kb",
                                  "milvus://[::1]:0/kb"])
def test_bad_ports_are_usage_errors(text):
    with pytest.raises(UsageError, match="the port must be a number from 1 to 65535"):
        EngineUrl.parse(text)


def test_port_zero_on_the_command_line_is_exit_2():
    res = CliRunner().invoke(main, ["query", "--engine", "milvus://127.0.0.1:0/kb", "E17"])
    assert res.exit_code == 2
    assert res.output.strip().splitlines() == [
        "kb: error: bad --engine 'milvus://127.0.0.1:0/kb': the port must be a number from 1 "
        "to 65535 (default 19530)"]


@pytest.mark.parametrize(("text", "uri"), [
    ("milvus://[::1]:44421/kb", "http://[::1]:44421"),
    ("milvus://[fe80::1%25eth0]:19531/default", "http://[fe80::1%25eth0]:19531"),
    ("milvus://127.0.0.1:19531/kb", "http://127.0.0.1:19531"),
    ("milvus://milvus.internal:1/kb", "http://milvus.internal:1"),
])
def test_url_round_trips(text, uri):
    url = EngineUrl.parse(text)
    assert url.uri == uri and str(url) == text
    assert EngineUrl.parse(str(url)) == url
    assert EngineUrl.parse(url.uri.replace("http", "milvus", 1) + "/" + url.db) == url


def test_ipv6_default_port():
    url = EngineUrl.parse("milvus://[::1]/kb")
    assert (url.host, url.port, url.uri) == ("::1", 19530, "http://[::1]:19530")


def test_complete_marker_alone_is_not_enough(signed, milvus):  # noqa: F811
    """A release marked complete whose ``__meta`` is gone is neither rolled back to nor
    counted as published, nor kept by prune (no reader can use it)."""
    dev, _ = signed
    eng = _engine(milvus, "marker")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.drop_collection(r1.collection + META_SUFFIX)
    assert eng.properties(r1.collection).get(P_COMPLETE) == "1"
    with pytest.raises(EngineError, match="'kb-r1' is not published"):
        rollback(eng, "kb-r1")
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)
    assert eng.alias_target() == r2.collection
    assert prune(eng, 1) == [r1.collection]


def test_prune_drops_a_release_that_lost_its_meta_unless_an_alias_serves_it(
        signed, milvus):  # noqa: F811
    """A release marked complete whose ``__meta`` was dropped stayed forever: prune kept it
    as incomplete (left to a publish loading it, which none was). Prune drops it now, at
    any `keep`, while an alias serves it never; an unmarked one (a load in progress) stays."""
    dev, _ = signed
    eng = _engine(milvus, "lostmeta")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.create_alias(r1.collection, "kb_other")
    for r in (r1, r2):
        eng.client.drop_collection(r.collection + META_SUFFIX)
    assert [r["complete"] for r in eng.releases()] == [False, False]
    assert prune(eng, 5) == []  # both served: kb_other names r1, kb_current r2
    eng.client.drop_alias("kb_other")
    unmarked = "kb_kb_r9_000000000000"  # what a publish loading kb-r9 has created so far
    eng.client.create_collection(unmarked, schema=meta_schema(eng))
    eng.client.alter_collection_properties(unmarked, {P_MANIFEST: "0" * 64})
    assert prune(eng, 5) == [r1.collection]
    assert not eng.client.has_collection(r1.collection)
    assert eng.client.has_collection(r2.collection) and eng.alias_target() == r2.collection
    assert eng.client.has_collection(unmarked)


class _Refuse:
    """A gRPC server refusing every call's credentials, as a Milvus with authentication on
    answers a wrong token (milvus-lite has no authentication)."""

    def __init__(self, status: str):
        code = getattr(grpc.StatusCode, status)

        def deny(request, context):
            context.abort(code, "auth check failure, please check username, password or token")

        class Handler(grpc.GenericRpcHandler):
            def service(self, details):
                return grpc.unary_unary_rpc_method_handler(deny)

        self.server = grpc.server(futures.ThreadPoolExecutor(2))
        self.server.add_generic_rpc_handlers((Handler(),))
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        self.server.start()


@pytest.mark.parametrize("status", ["UNAUTHENTICATED", "PERMISSION_DENIED"])
def test_refused_credentials_are_named_as_such(tmp_path, status):
    refuse = _Refuse(status)
    try:
        url = f"milvus://127.0.0.1:{refuse.port}/kb"
        token = tmp_path / "token"
        token.write_text("root:wrong\n", encoding="utf-8")
        res = CliRunner().invoke(main, ["query", "--engine", url, "--token-file", str(token),
                                        QUESTION])
        assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
        assert url in res.output and f"the engine refused the credentials ({status}" in res.output
        assert "check the engine's credentials (--token-file" in res.output
        assert "is the server running" not in res.output  # it is: it refused the token
        res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])  # no token
        assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
        assert f"{url}: connecting without a token failed: the engine refused the " \
               f"credentials ({status}" in res.output, res.output
    finally:
        refuse.server.stop(None)


@pytest.mark.parametrize(("text", "words"), [("", "holds nothing"), ("\n  \n", "holds nothing"),
                                             ("root\nMilvus\n", "holds several lines")])
def test_a_token_file_is_one_line(tmp_path, text, words):
    """An empty token file would connect without credentials, two lines would be sent as
    one token: both are refused before connecting."""
    token = tmp_path / "token"
    token.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["query", "--engine", "milvus://127.0.0.1:1/kb",
                                    "--token-file", str(token), QUESTION])
    assert res.exit_code == 2 and str(token) in res.output and words in res.output
    assert "user:password or an API key" in res.output
    assert len(res.output.strip().splitlines()) == 1


def test_two_first_publishes_into_a_new_database(signed, milvus):  # noqa: F811
    """Two publishers (say two CI jobs) connecting to a database neither has created yet:
    both get it (the second's create found it made meanwhile) and the release is served.
    (The two publishes of one release still race: one may fail creating the collection the
    other just created; publishing again is then a no-op.)"""
    dev, _ = signed
    url = milvus.url("twofirst")
    checked = check_release(_rel(dev, 1))
    start = threading.Barrier(2)
    results: list[object] = []

    def one() -> None:
        start.wait()
        try:
            results.append(publish(connect_url(url, create_db=True), checked))
        except EngineError as exc:
            results.append(exc)

    workers = [threading.Thread(target=one) for _ in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not [r for r in results if isinstance(r, EngineError)
                and r.message.startswith("connecting failed")], results
    assert any(not isinstance(r, EngineError) for r in results), results
    eng = connect_url(url)
    assert EngineReader(eng).current().collection == eng.alias_target()
