"""`kb publish --engine` relies on a release's ``__meta`` record (its manifest, release.json,
vector fields and chunk count: what every reader loads). A record that was present but
damaged, or another release's, counted as published: "already published and served;
nothing to do", and readers served it, or failed with a traceback. Such a record is now a
release not published: it is loaded again (beside the served collection, which is then
dropped), and a reader of a damaged one says so in one line."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from kbtools.cli import main
from kbtools.engine.milvus import META_SUFFIX
from kbtools.engine.parts import read_parts
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.engine.rows import blob_rows
from kbtools.query.search import search
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_failures import QUESTION, _engine, _rel, signed  # noqa: F401 - fixture


def _replace_part(eng, collection: str, part: str, rows: list[dict]) -> None:
    meta = collection + META_SUFFIX
    eng.client.delete(meta, filter=f'part == "{part}"')
    eng.client.insert(meta, rows)
    eng.client.flush(meta)


def _published_again(eng, url: str, dev: Path, old: str) -> None:
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(dev, 1))])
    assert res.exit_code == 0, res.output
    served = eng.alias_target()
    assert served is not None and served != old
    assert res.stdout.startswith(f"published kb-r1 as {served} ")
    assert not eng.client.has_collection(old)  # the damaged one, no longer served
    assert search(EngineReader(eng).current(), QUESTION).results
    again = publish(eng, check_release(_rel(dev, 1)))
    assert not again.changed and again.collection == served


def test_a_served_release_holding_another_releases_record_is_published_again(
        signed, milvus):  # noqa: F811
    """Its manifest hash intact (readers check that), its release.json and chunk count
    another release's: publishing it again is not "nothing to do"."""
    dev, _ = signed
    eng = _engine(milvus, "metaother")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = check_release(_rel(dev, 2))
    _replace_part(eng, r1.collection, "release", blob_rows({"release": r2.release_text}))
    _replace_part(eng, r1.collection, "count", blob_rows({"count": r1.chunks + 1}))
    assert read_parts(eng, r1.collection)["release"] == r2.release_text
    _published_again(eng, milvus.url("metaother"), dev, r1.collection)


def test_a_served_release_whose_record_cannot_be_read_is_published_again(
        signed, milvus):  # noqa: F811
    dev, _ = signed
    url = milvus.url("metacorrupt")
    eng = _engine(milvus, "metacorrupt")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    _replace_part(eng, r1.collection, "docs", [{"key": "docs/000000", "part": "docs", "seq": 0,
                                                "data": "bm90IHpsaWI=", "pad": [1.0, 0.0]}])
    res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert f"release {r1.collection} is damaged in the engine" in res.output
    assert "publish it again" in res.output
    _published_again(eng, url, dev, r1.collection)
