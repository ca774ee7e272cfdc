"""Releases in a real Milvus (milvus-lite server): publish (verified first, idempotent, no
older release), alias switch under concurrent readers, rollback, keep, and the failure
cases — server down, collection dropped underneath, tampered or unsigned release, another
model's vectors, pymilvus missing — each one line naming the engine."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import milvus as engine_milvus
from kbtools.engine.milvus import META_SUFFIX, connect_url
from kbtools.engine.parts import read_parts
from kbtools.engine.publish import check_release, prune, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError, UsageError
from kbtools.index.reader import open_index
from kbtools.query.search import search
from kbtools.ship import device
from kbtools.ship.bundle import create_bundle
from kbtools.ship.release import make_release
from kbtools.ship.signing import keygen
from kbtools.ship.sync import sync
from tests.hostile import env as hostile_env
from tests.hostile import git, make_repo
from tests.hostile import kb as hostile_kb
from tests.kbfixtures import REPO
from tests.milvus_server import milvus, replace_manifest  # noqa: F401 - fixture
from tests.ports import refusing_port

SECOND = """---
title: Drip line flushing
category: engineering
project: knowledge-base
source: test
author: t@example.org
timestamp: "2026-02-01T09:00:00+00:00"
verified: false
lang: en
---
# Drip line flushing

Flush the drip irrigation lines with clean water every two weeks to prevent clogging.
"""
QUESTION = "how often to replace the pump seal"


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    """Two real releases (kb-r1, kb-r2) of a small repo, each synced onto a device dir."""
    base = tmp_path_factory.mktemp("engine")
    kr = make_repo(base / "kr")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    devices = []
    for n in (1, 2):
        if n == 2:
            (kr / "knowledge" / "drip.md").write_text(SECOND, encoding="utf-8")
            git(kr, "add", "-A")
            git(kr, "commit", "-q", "-m", "second")
        cfg = load_config(kr)
        build(cfg, BuildOptions(progress=False))
        make_release(kr, cfg.path("dist"), remote=str(art))
        dev = base / f"dev{n}"
        assert sync(str(art), dev).tag == f"kb-r{n}"
        devices.append(dev)
    return devices


def _engine(milvus, db):  # noqa: F811
    return connect_url(milvus.url(db), create_db=True)


def test_publish_is_verified_idempotent_and_ordered(releases, milvus):  # noqa: F811
    dev1, dev2 = releases
    eng = _engine(milvus, "life")
    r1 = publish(eng, check_release(dev1))
    assert r1.changed and r1.tag == "kb-r1" and r1.chunks > 0
    assert eng.alias_target() == r1.collection
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r1"
    again = publish(eng, check_release(dev1))
    assert not again.changed and again.collection == r1.collection
    r2 = publish(eng, check_release(dev2))
    assert r2.changed and r2.previous == r1.collection and eng.alias_target() == r2.collection
    with pytest.raises(EngineError, match=r"kb-r1 \(serial 1\) is not newer than the published "
                                          r"kb-r2 \(serial 2\)"):
        publish(eng, check_release(dev1))
    assert rollback(eng)["to"] == r1.collection
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r1"
    assert rollback(eng, "kb-r2")["to"] == r2.collection
    with pytest.raises(EngineError, match="'kb-r9' is not published"):
        rollback(eng, "kb-r9")
    assert prune(eng, 1) == [r1.collection]
    assert [r["tag"] for r in eng.releases()] == ["kb-r2"]
    assert not eng.client.has_collection(r1.collection + META_SUFFIX)
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)


def test_alias_switch_under_concurrent_readers(releases, milvus):  # noqa: F811
    """Readers querying through the alias while releases are published and rolled back
    see only complete releases: no error, every answer's tag one of the two, and each
    answer consistent with its release (kb-r1 has no drip.md)."""
    dev1, dev2 = releases
    eng = _engine(milvus, "load")
    publish(eng, check_release(dev1))
    reader = EngineReader(connect_url(milvus.url("load")))
    seen: list[tuple[str | None, list[str]]] = []
    errors: list[str] = []
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            try:
                res = search(reader.current(), "flush the drip lines or replace the pump seal",
                             k=5, keep_results=True)
                seen.append((res.release.tag, [r.citation.doc for r in res.results]))
            except Exception as exc:  # noqa: BLE001 - every failure counts
                errors.append(f"{type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=loop) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        publish(eng, check_release(dev2))
        rollback(eng)
        rollback(eng, "kb-r2")
        rollback(eng, "kb-r1")
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert errors == []
    tags = {tag for tag, _ in seen}
    assert tags == {"kb-r1", "kb-r2"}, tags
    assert all("knowledge/drip.md" not in docs for tag, docs in seen if tag == "kb-r1")
    assert any("knowledge/drip.md" in docs for tag, docs in seen if tag == "kb-r2")


def test_tampered_release_is_refused_before_anything_is_written(releases, milvus, tmp_path):  # noqa: F811
    src = device.served_release(releases[1])
    bad = tmp_path / "tampered"
    shutil.copytree(src, bad)
    chunk = next(p for p in sorted((bad / "data").rglob("*.jsonl"))
                 if b"pump" in p.read_bytes())
    chunk.write_bytes(chunk.read_bytes().replace(b"pump", b"pomp", 1))  # same size
    res = CliRunner().invoke(main, ["publish", "--engine", milvus.url("tamper"), "--index",
                                    str(bad)])
    assert res.exit_code == 1
    assert "release does not match its manifest" in res.output and "sha256 mismatch" in \
        res.output and "refusing to publish" in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert "tamper" not in connect_url(milvus.url()).client.list_databases()


def test_unsigned_release_is_refused_when_keys_are_configured(releases, tmp_path):
    _, pub, _ = keygen(tmp_path / "k")
    with pytest.raises(EngineError, match="signature check failed.*refusing to publish"):
        check_release(releases[0], [pub])


def test_server_down_is_one_line(tmp_path):
    with refusing_port() as port:
        url = f"milvus://127.0.0.1:{port}/kb"
        res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])
    assert res.exit_code == 1
    line = res.output.strip()
    assert len(line.splitlines()) == 1 and url in line and "connecting failed" in line
    assert "is the server running" in line and "Traceback" not in line


def test_missing_alias_and_dropped_collection(releases, milvus, tmp_path):  # noqa: F811
    eng = _engine(milvus, "drop")
    with pytest.raises(EngineError, match="no release is published here"):
        EngineReader(eng).current()
    proc = hostile_kb(tmp_path, "query", "--engine", milvus.url("drop"), QUESTION,
                      home=tmp_path / "home")
    assert proc.returncode == 1 and proc.stdout == b""
    assert proc.stderr.decode().splitlines() == [
        f"kb: error: {milvus.url('drop')}: no release is published here (alias kb_current "
        "is missing); run `kb publish --engine …`"]  # no pymilvus log or traceback
    r1 = publish(eng, check_release(releases[0]))
    idx = EngineReader(eng).current()
    for n in (r1.collection, r1.collection + META_SUFFIX):  # by hand, under an open reader
        eng.client.drop_collection(n)  # (milvus-lite drops what an alias serves)
    with pytest.raises(EngineError, match=f"searching {r1.collection} failed: .*not exist"):
        search(idx, QUESTION)
    res = CliRunner().invoke(main, ["query", "--engine", milvus.url("drop"), QUESTION])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1
    assert "no release is published here" in res.output or "gone" in res.output
    res = CliRunner().invoke(main, ["query", "--engine", milvus.url("nodb"), QUESTION])
    assert res.exit_code == 1 and "database 'nodb' does not exist" in res.output


def test_another_model_fingerprint_is_refused(releases, milvus):  # noqa: F811
    eng = _engine(milvus, "model")
    r1 = publish(eng, check_release(releases[0]))
    manifest = json.loads(read_parts(eng, r1.collection)["manifest"])
    replace_manifest(eng, r1.collection, manifest, same_hash=False)
    with pytest.raises(EngineError, match="manifest stored with .* does not hash"):
        EngineReader(eng).current()  # the manifest no longer matches the collection's
    manifest["models"]["test-hash"]["fingerprint"] = "test-hash:other"
    replace_manifest(eng, r1.collection, manifest)  # a release built with another model
    with pytest.raises(EngineError, match="holds 'test-hash' vectors of model test-hash:other"):
        search(EngineReader(eng).current(), QUESTION)


def test_without_pymilvus_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymilvus", None)
    with pytest.raises(UsageError, match=r"pip install 'kbtools\[milvus\]'"):
        connect_url("milvus://127.0.0.1:1/kb")
    with pytest.raises(UsageError, match="use milvus://HOST:PORT"):
        engine_milvus.EngineUrl.parse("http://x:1")


def test_cli_publish_query_rollback(releases, milvus):  # noqa: F811
    dev1, dev2 = releases
    url = milvus.url("cli")
    runner = CliRunner()
    for dev in (dev1, dev2):
        res = runner.invoke(main, ["publish", "--engine", url, "--index", str(dev), "--json"])
        assert res.exit_code == 0, res.output
        assert json.loads(res.output)["changed"] is True
    res = runner.invoke(main, ["publish", "--engine", url, "--index", str(dev2)])
    assert res.exit_code == 0 and "already published" in res.output
    local = runner.invoke(main, ["query", "--index", str(dev2), QUESTION, "--json"])
    remote = runner.invoke(main, ["query", "--engine", url, QUESTION, "--json"])
    assert local.exit_code == remote.exit_code == 0, remote.output
    a, b = json.loads(local.output), json.loads(remote.output)
    a.pop("took_ms"), b.pop("took_ms")
    scores = [[v for r in x["results"]  # linked / anchor: bonuses, differences of scores
               for v in (r.pop("score"), r["why"].pop("vector_score"), r["why"].pop("bm25_score"),
                         r["why"].pop("linked", None), r["why"].pop("anchor", None))]
              for x in (a, b)]
    assert any(r["why"].get("page") for r in a["results"])  # page vectors on both sides
    assert a == b and a["results"]  # all but the scores: cosine of f16 (usearch) vs f32
    assert scores[0] == pytest.approx(scores[1], abs=2e-3)
    res = runner.invoke(main, ["rollback", "--engine", url, "--json"])
    assert res.exit_code == 0 and json.loads(res.output)["tag"] == "kb-r1"
    res = runner.invoke(main, ["query", "--engine", url, "--index", str(dev2), QUESTION])
    assert res.exit_code == 2 and "not both" in res.output


def test_mcp_search_through_the_engine(releases, milvus):  # noqa: F811
    from kbtools.agents.mcp_server import Context, tool_read, tool_search

    eng = _engine(milvus, "mcp")
    publish(eng, check_release(releases[1]))
    ctx = Context(opener=EngineReader(eng).current)
    got = tool_search(ctx, QUESTION, 3)
    want = search(open_index(device.served_release(releases[1])), QUESTION, k=3).to_dict()
    assert [r["chunk_id"] for r in got["results"]] == [r["chunk_id"] for r in want["results"]]
    assert got["release"]["tag"] == "kb-r2"
    section = tool_read(ctx, "knowledge/drip.md")  # sources come from the engine too
    assert "Flush the drip irrigation lines" in section["markdown"]


def test_ci_step_publishes_the_release_bundle(releases, milvus, tmp_path):  # noqa: F811
    """scripts/ci_publish_engine.sh (the optional workflow step): bundle → verified sync
    onto a scratch device → kb publish, with the token from the environment."""
    bundle = tmp_path / "r.bundle"
    create_bundle(releases[0].parent / "kr", bundle)
    kb = tmp_path / "kb"
    kb.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kbtools "$@"\n')
    kb.chmod(0o755)
    env = {**hostile_env(tmp_path / "home"), "KB": str(kb), "KB_MILVUS_URL": milvus.url("ci"),
           "KB_MILVUS_TOKEN": "root:Milvus"}
    proc = subprocess.run(["bash", str(REPO / "scripts" / "ci_publish_engine.sh"), str(bundle)],
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["changed"] is True and out["tag"] == "kb-r2"
    wf = (REPO / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    assert "scripts/ci_publish_engine.sh" in wf and "if: env.KB_MILVUS_URL != ''" in wf


def test_a_document_s_chunks_are_read_from_the_engine_in_pages(milvus, tmp_path):  # noqa: F811
    """`MilvusStore.overlapping(doc, 1, last line)` (a document's page, its review status)
    asked for all of the document's chunk rows, texts included, in one query, which a
    server bounds (`maxOutputSize`); it lists their numbers, then reads rows in pages."""
    kr = make_repo(tmp_path / "kr")
    rows = "".join(f"| P-{n} | {n * 7} 天 | 检查第 {n} 号泵的密封与轴承 |\n" for n in range(12))
    (kr / "knowledge" / "pumps.md").write_text(
        SECOND.replace("Drip line flushing", "泵的保养周期").replace("lang: en", "lang: zh")
        + "\n| 编号 | 周期 | 内容 |\n|---|---|---|\n" + rows, encoding="utf-8")
    git(kr, "add", "-A")
    git(kr, "commit", "-q", "-m", "pumps")
    cfg = load_config(kr)
    build(cfg, BuildOptions(progress=False))
    art = tmp_path / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    make_release(kr, cfg.path("dist"), remote=str(art))
    dev = tmp_path / "dev"
    sync(str(art), dev)
    eng = _engine(milvus, "overlap")
    publish(eng, check_release(dev))
    local = open_index(dev).store
    doc = "knowledge/pumps.md"
    want = local.overlapping(doc, 1, 10**6)
    assert len(want) > 10
    store = EngineReader(eng).current().store
    store.page_rows = 2
    store.list_rows = 3  # the numbers listed over ranges of 3 (a server caps a query's rows)
    returned: list[int] = []
    listed: list[int] = []
    query = eng.client.query

    def counting(*args, **kwargs):
        rows = query(*args, **kwargs)
        if "row" in kwargs.get("output_fields", ()):
            returned.append(len(rows))
        if kwargs.get("output_fields") == ["num"] and "num >=" in kwargs["filter"]:
            listed.append(len(rows))
        return rows

    eng.client.query = counting
    got = store.overlapping(doc, 1, 10**6)
    assert [(r["num"], r["id"], r["text"]) for r in got] == \
        [(r["num"], r["id"], r["text"]) for r in want]
    assert sum(returned) == len(want) and max(returned) <= 2
    assert sum(listed) == len(want) and max(listed) <= 3
    middle = want[len(want) // 2]
    assert [r["num"] for r in store.overlapping(doc, middle["line_start"], middle["line_start"])] \
        == [r["num"] for r in local.overlapping(doc, middle["line_start"], middle["line_start"])]
    assert set(store.chunks_by_id([r["id"] for r in want])) == {r["id"] for r in want}
    assert max(returned) <= 2
