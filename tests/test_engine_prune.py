"""Releases in a real Milvus as operators use them (issue 14): `keep` counts releases, not
the collections a release may have (one per tokenizer or rules it was published with);
knowledge bases in databases of their own never prune each other; a publish cut by the
server going away is never served, and publishing again completes it without duplicates;
a release that deleted a document answers as the local index of that release does."""

from __future__ import annotations

import json

import pymilvus as pm
import pytest
from click.testing import CliRunner

import kbtools.commands.publish as publish_cmd
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import expr
from kbtools.engine.milvus import (
    META_SUFFIX,
    P_COMPLETE,
    P_DERIVATION,
    P_FILTERS,
    P_MANIFEST,
    P_PUBLISHED,
    P_SERIAL,
    P_TAG,
    P_TOKENS,
    connect_url,
)
from kbtools.engine.publish import check_release, prune, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index.reader import open_index
from kbtools.index.selfcheck import DERIVATION
from kbtools.index.tokenize import TOKENS_VERSION
from kbtools.query.search import search
from tests.hostile import git, make_repo
from tests.kbfixtures import titled_page
from tests.milvus_server import MilvusLite, answering, milvus  # noqa: F401 - fixture
from tests.test_engine_failures import QUESTION, _engine, _rel, signed  # noqa: F401 - fixture
from tests.test_engine_races import Interposed, _once


def _complete_tags(eng) -> list[str]:
    return sorted(r["tag"] or r["collection"] for r in eng.releases() if r["complete"])


# keep ------------------------------------------------------------------------------------

def test_keep_counts_releases_not_their_collections(signed, milvus):  # noqa: F811
    """kb-r3 published again by a kbtools of other filter rules is a second collection of
    the same release. `keep 2` counted the two as two releases and dropped kb-r2, the
    release a rollback goes back to; it keeps kb-r2 and kb-r3 (both its collections)."""
    dev, _ = signed
    eng = _engine(milvus, "keepreleases")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    r3 = publish(eng, check_release(_rel(dev, 3)))
    eng.client.drop_collection_properties(r3.collection, [P_FILTERS])  # an older kbtools's
    again = publish(eng, check_release(_rel(dev, 3)), keep=2)
    assert again.changed and again.collection != r3.collection
    assert again.pruned == (r1.collection,)
    assert _complete_tags(eng) == ["kb-r2", "kb-r3", "kb-r3"]
    assert eng.client.has_collection(r2.collection)
    assert prune(eng, 2) == []  # stable: nothing more to drop at the same keep
    assert rollback(eng)["to"] == r2.collection
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r2"
    # keep 1 after that rollback: the newest release (both collections) and the served one
    assert prune(eng, 1) == []
    eng.close()


def test_keep_one_keeps_the_served_release_and_the_newest_whole(signed, milvus):  # noqa: F811
    """With the served release rolled back, `keep 1` keeps it and every collection of the
    newest release; a release that lost a collection (its ``__meta``) counts by the one it
    has left, and the broken collection goes."""
    dev, _ = signed
    eng = _engine(milvus, "keepone")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.drop_collection_properties(r2.collection, [P_FILTERS])
    r2b = publish(eng, check_release(_rel(dev, 2)))
    r3 = publish(eng, check_release(_rel(dev, 3)))
    eng.client.drop_collection_properties(r3.collection, [P_FILTERS])
    r3b = publish(eng, check_release(_rel(dev, 3)))
    assert rollback(eng, "kb-r1")["to"] == r1.collection
    assert sorted(prune(eng, 1)) == sorted([r2.collection, r2b.collection])
    assert _complete_tags(eng) == ["kb-r1", "kb-r3", "kb-r3"]
    eng.client.drop_collection(r3b.collection + "__meta")  # one collection of kb-r3 broken
    assert prune(eng, 1) == [r3b.collection]
    assert eng.client.has_collection(r3.collection) and eng.alias_target() == r1.collection
    assert _complete_tags(eng) == ["kb-r1", "kb-r3"]
    eng.close()


def test_knowledge_bases_in_databases_of_their_own_never_prune_each_other(
        signed, milvus, tmp_path):  # noqa: F811
    """Two knowledge bases sharing one Milvus, each in its own database (``/DB`` of
    --engine): a publish with `--keep 1` into one drops nothing of the other's."""
    dev, _ = signed
    other = make_repo(tmp_path / "other", docs={"knowledge/灌溉.md": ZH_DOC})
    build(load_config(other), BuildOptions(progress=False))
    a, b = milvus.url("kb_alpha"), milvus.url("kb_beta")
    for n in (1, 2):
        res = CliRunner().invoke(main, ["publish", "--engine", a, "--index",
                                        str(_rel(dev, n)), "--keep", "5"])
        assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["publish", "--engine", b, "--index",
                                    str(other / "dist"), "--keep", "1"])
    assert res.exit_code == 0 and "dropped" not in res.output, res.output
    res = CliRunner().invoke(main, ["publish", "--engine", a, "--index", str(_rel(dev, 3)),
                                    "--keep", "1"])
    assert res.exit_code == 0, res.output
    ea, eb = connect_url(a), connect_url(b)
    try:
        assert _complete_tags(ea) == ["kb-r3"]
        assert len(_complete_tags(eb)) == 1
        assert search(EngineReader(eb).current(), "滴灌管多久冲洗一次").results[0].citation.doc == "knowledge/灌溉.md"
        assert search(EngineReader(ea).current(), QUESTION).release.tag == "kb-r3"
    finally:
        ea.close()
        eb.close()


def zh_page(title: str, body: str) -> str:
    """A valid Chinese document (`lang: zh`) titled `title` holding `body`."""
    return titled_page(title, body).replace("verified: false\n", "verified: false\nlang: zh\n")


ZH_DOC = zh_page("滴灌维护", "滴灌管每三周用清水冲洗一次，过滤器每月清洗。")


# a publish cut short ------------------------------------------------------------------------

def test_a_publish_cut_by_the_server_going_away_is_never_served(signed, tmp_path):  # noqa: F811
    """The server killed while the rows go in: the publish fails in one line naming the
    engine; after a restart the alias still serves the previous release whole, and
    publishing again loads the release completely, each chunk once."""
    dev, _ = signed
    server = MilvusLite(tmp_path / "data")
    url = server.url("cut")
    try:
        eng = connect_url(url, create_db=True)
        r1 = publish(eng, check_release(_rel(dev, 1)))

        def stop_the_server(message: str) -> None:
            if message.startswith("inserted"):
                server.proc.kill()
                server.proc.wait()

        with pytest.raises(EngineError) as err:
            publish(eng, check_release(_rel(dev, 2)), progress=stop_the_server)
        line = err.value.message
        assert len(line.splitlines()) == 1 and err.value.path == url
        assert "is the server running and reachable?" in line, line
        eng.close()
        server.stop()
        server = MilvusLite(tmp_path / "data", port=server.port)
        answering(url)
        res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION, "--json"])
        assert res.exit_code == 0, res.output
        assert '"kb-r1"' in res.output
        eng = connect_url(url)
        assert eng.alias_target() == r1.collection
        r2 = publish(eng, check_release(_rel(dev, 2)))
        assert r2.changed and eng.alias_target() == r2.collection
        want = open_index(_rel(dev, 2)).store.count()
        nums = [int(r["num"]) for r in eng.client.query(
            r2.collection, filter="num >= 0", output_fields=["num"],
            consistency_level="Strong")]
        assert sorted(nums) == list(range(want))  # every chunk, once
        assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r2"
        eng.close()
    finally:
        server.stop()


# the same answers -------------------------------------------------------------------------

DELETED = zh_page("水泵密封", "水泵机械密封每运行 1500 小时检查一次，漏水时立即更换。\n\n"
                  "The pump's mechanical seal is inspected every 1500 operating hours.")


@pytest.mark.parametrize("where", [[], ["category=engineering"], ["lang=zh"]])
def test_a_release_that_deleted_a_document_answers_as_locally(milvus, tmp_path, where):  # noqa: F811
    """Publish a release, then the next one without a document: the engine's answers are
    the local index's of the new release, in Chinese and English, with filters and for a
    question only the deleted document answered."""
    repo = make_repo(tmp_path / "kr", docs={"knowledge/密封.md": DELETED,
                                           "knowledge/灌溉.md": ZH_DOC})
    build(load_config(repo), BuildOptions(progress=False))
    # a database per repository: each is another knowledge base (`test_engine_bases`)
    db = "deleted_" + "_".join(w.split("=")[0] for w in where)
    eng = connect_url(milvus.url(db), create_db=True)
    try:
        publish(eng, check_release(repo / "dist"))
        (repo / "knowledge" / "密封.md").unlink()
        git(repo, "commit", "-q", "-am", "delete")
        build(load_config(repo), BuildOptions(progress=False))
        publish(eng, check_release(repo / "dist"))
        local, remote = open_index(repo / "dist"), EngineReader(eng).current()
        for q in ("水泵机械密封多久检查", "pump mechanical seal inspection hours",
                  "滴灌管多久冲洗一次", "how often to flush the drip lines",
                  "拖拉机变速箱换油"):
            a, b = (search(x, q, k=5, where=where) for x in (local, remote))
            assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results], q
            assert b.no_answer == a.no_answer, q
            assert all(r.citation.doc != "knowledge/密封.md" for r in b.results), q
        local.close()
    finally:
        eng.close()


# two publishes at once ---------------------------------------------------------------------

def _marked(eng, name: str, serial: int) -> None:
    """Collection `name` and its ``__meta``, as a publish leaves release `serial` complete."""
    for n in (name, name + META_SUFFIX):
        if not eng.client.has_collection(n):
            eng.client.create_collection(n, dimension=4)
    eng.client.alter_collection_properties(name, {
        P_MANIFEST: f"{serial:064x}", P_SERIAL: str(serial), P_TAG: f"kb-r{serial}",
        P_COMPLETE: "1", P_PUBLISHED: str(serial), P_TOKENS: TOKENS_VERSION,
        P_DERIVATION: DERIVATION, P_FILTERS: expr.FILTER_RULES})


@pytest.mark.parametrize("complete", [True, False])
def test_a_release_another_prune_drops_while_this_one_lists_them_is_passed_over(
        milvus, complete):  # noqa: F811
    """Two publishes into one database at once (CI runners): one's prune listed the
    collections, the other's dropped one of them before it was described, and the first
    publish, its alias already moved, failed "describing collection … failed: … not
    found"; `kb rollback --engine` likewise. The gone release is passed over."""
    url = milvus.url(f"listrace_{int(complete)}")
    a, b = connect_url(url, create_db=True), connect_url(url)
    try:
        for serial in (1, 2, 3):
            _marked(a, f"kb_c{serial}", serial)
        a.point_alias("kb_c3")
        for act, want in ((lambda: prune(a, 1), ["kb_c2"]),
                          (lambda: rollback(a)["to"], "kb_c2")):
            for serial in (1, 2):
                _marked(a, f"kb_c{serial}", serial)
            if not complete:  # what a publish loading it has made so far
                a.client.drop_collection_properties("kb_c1", [P_COMPLETE])
            a.client = Interposed(a.client, {"describe_collection": _once(
                lambda: b.drop("kb_c1"))})
            try:
                assert act() == want
            finally:
                a.client = a.client.client
            assert not a.client.has_collection("kb_c1")
        assert a.alias_target() == "kb_c2"
    finally:
        a.close()
        b.close()


def test_a_prune_failing_after_the_alias_moved_is_a_warning(signed, milvus, monkeypatch):  # noqa: F811
    """The engine refusing a drop of the prune (busy, a quota, a privilege) failed the
    publish with exit 1 though its release was served: CI saw a failed publish. It is a
    warning on stderr (exit 0, in the JSON too), and the next publish prunes."""
    dev, _ = signed
    url = milvus.url("prunefails")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(_rel(dev, 1)))

    def refuse(*_args, **_kwargs) -> None:
        raise pm.MilvusException(code=8, message="rate limit exceeded[rate=0.1]")

    def connected(*args, **kwargs):
        engine = connect_url(*args, **kwargs)
        engine.client = Interposed(engine.client, {"drop_collection": refuse})
        return engine

    monkeypatch.setattr(publish_cmd, "connect_url", connected)
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(dev, 2)),
                                    "--keep", "1", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["moved"] and out["pruned"] == [] and eng.alias_target() == out["collection"]
    assert out["warnings"] == [
        f"pruning old releases failed: dropping {r1.collection} failed: rate limit "
        f"exceeded[rate=0.1]; see the engine's log; {out['collection']} is served, the next "
        "publish prunes again"]
    assert res.stderr.strip() == f"kb publish: warning: {out['warnings'][0]}"
    assert eng.client.has_collection(r1.collection)
    monkeypatch.undo()
    r3 = publish(eng, check_release(_rel(dev, 3)), keep=1)
    assert r3.pruned == (r1.collection, out["collection"]) and r3.warnings == ()
    eng.close()
