"""Publishing a release older than the served one (a real `milvus-lite server`): it never
takes the alias, but an older release the engine no longer holds (pruned by `keep`, or
held only as published by a kb of other rules) is loaded so that `kb rollback` can serve
it. Before, such a publish was refused ("use kb rollback") while the rollback said the
release was not published, or told to publish it again: no way back to it."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kbtools.cli import main
from kbtools.engine.milvus import P_FILTERS, connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.query.search import search
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_failures import QUESTION, _rel, signed  # noqa: F401 - fixture
from tests.test_engine_races import Interposed, _once


def _kb(*args: str):
    return CliRunner().invoke(main, list(args))


def test_a_pruned_older_release_is_loaded_for_a_rollback(signed, milvus):  # noqa: F811
    dev, _ = signed
    url = milvus.url("older")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(_rel(dev, 1)), keep=2)
    publish(eng, check_release(_rel(dev, 2)), keep=2)
    r3 = publish(eng, check_release(_rel(dev, 3)), keep=2)
    assert r3.pruned == (r1.collection,)  # kb-r1 is gone from the engine

    res = _kb("rollback", "--engine", url, "kb-r1")
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert ("release 'kb-r1' is not published (published: kb-r2, kb-r3); publish it first "
            "(`kb publish --engine … --index RELEASE`: an older one is loaded without moving "
            "the alias), then roll back") in res.output

    res = _kb("publish", "--engine", url, "--index", str(_rel(dev, 1)), "--keep", "2")
    assert res.exit_code == 0, res.output
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("loaded kb-r1 as "), res.output
    assert (f"it is older than the served release, so alias kb_current still points at "
            f"{r3.collection}: `kb rollback --engine {url} kb-r1` serves it") in res.stdout
    assert eng.alias_target() == r3.collection  # the served release stays served
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r3"
    assert {r["tag"] for r in eng.releases() if r["complete"]} == {"kb-r1", "kb-r2", "kb-r3"}

    res = _kb("rollback", "--engine", url, "kb-r1", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["tag"] == "kb-r1"
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r1"

    # an older release the engine holds ready is still refused, nothing written
    before = sorted(eng.client.list_collections())
    assert _kb("rollback", "--engine", url, "kb-r3").exit_code == 0
    res = _kb("publish", "--engine", url, "--index", str(_rel(dev, 2)), "--json")
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert ("release kb-r2 (serial 2) is not newer than the published kb-r3 (serial 3); use "
            "`kb rollback --engine … kb-r2` to serve it") in res.output
    assert sorted(eng.client.list_collections()) == before
    eng.close()


def test_a_rollback_target_of_other_rules_can_be_published_again_and_served(
        signed, milvus):  # noqa: F811
    """`kb rollback` refuses a release published by a kb of other rules and says to
    publish it again with this kb, then roll back: that publish was refused as older than
    the served release. Now it loads the release anew, and the rollback serves it."""
    dev, _ = signed
    url = milvus.url("olderrules")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    eng.client.drop_collection_properties(r1.collection, [P_FILTERS])  # an older kbtools's
    res = _kb("rollback", "--engine", url)
    assert res.exit_code == 1 and "publish that release again with this kb" in res.output

    again = publish(eng, check_release(_rel(dev, 1)))
    assert again.changed and not again.moved and again.collection != r1.collection
    assert eng.alias_target() == r2.collection
    res = _kb("rollback", "--engine", url, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["to"] == again.collection
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r1"
    eng.close()


def test_a_newer_release_published_while_an_older_loads_keeps_the_alias(signed, milvus):  # noqa: F811
    """Two publishers raced: kb-r2 was loading (minutes for a large release) when another
    published kb-r3; kb-r2's publish then moved the alias back from kb-r3 to itself, and
    every reader got the older release. It reads the alias again before moving it: kb-r2
    is loaded for a rollback to serve and the alias stays at kb-r3."""
    dev, _ = signed
    url = milvus.url("racingolder")
    eng, other = connect_url(url, create_db=True), connect_url(url)
    publish(eng, check_release(_rel(dev, 1)))
    took: list[str] = []
    eng.client = Interposed(eng.client, {"load_collection": _once(lambda: took.append(
        publish(other, check_release(_rel(dev, 3))).collection))})
    r2 = publish(eng, check_release(_rel(dev, 2)))
    assert took and not r2.moved and r2.previous == took[0]
    assert other.alias_target() == took[0]
    assert EngineReader(other).current().release.tag == "kb-r3"
    res = _kb("rollback", "--engine", url, "kb-r2")  # loaded: a rollback serves it
    assert res.exit_code == 0 and other.alias_target() == r2.collection, res.output
    eng.close()
    other.close()
