"""A compound typed apart, weighed against a Milvus release as against the local files
(`kbtools.query.expansion.compound_weight`): the same weight, from one sparse search of the
compound's holders and their terms alone, not a search and whole rows per part (real
milvus-lite server, real build and publish)."""

from __future__ import annotations

import pytest

from kbtools.engine.milvus import Engine, connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.index.reader import open_index
from kbtools.query.expansion import compound_weight
from kbtools.query.search import search
from tests.kbfixtures import built_pages
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_compounds import SECTIONS

# a compound whose holders lack one part (checkvalve: check, valve), one the knowledge also
# writes apart (lockout / lock out), one with a word the index never saw
EXTRA = [("Valves", "The check valve and the checkvalve seat are two parts; check both."),
         ("Lockout", "Lock out the breaker: the lockout tag goes on the handle.")]
WEIGHED = [("checkvalve", "check valve"), ("lockout", "lock out"), ("tagout", "tag out"),
           ("checkvalve", "check zzyzxvalve")]


@pytest.fixture(scope="module")
def sides(tmp_path_factory, milvus):  # noqa: F811
    dist = built_pages(tmp_path_factory.mktemp("compounds"), SECTIONS + EXTRA)
    engine = connect_url(milvus.url("compounds"), create_db=True)
    publish(engine, check_release(dist))
    yield open_index(dist), EngineReader(engine).current()
    engine.close()


def test_a_compound_weighs_the_same_in_milvus(sides):
    local, remote = sides
    for joined, apart in WEIGHED:
        jid = local.bm25.vocab[local.bm25.tok(joined)[0]]
        assert remote.bm25.vocab[local.bm25.tok(joined)[0]] == jid
        parts = local.bm25.tok(apart)
        assert compound_weight(remote, jid, parts) == compound_weight(local, jid, parts)
        ids = [i for p in parts if (i := local.bm25.vocab.get(p)) is not None]
        held = round(float(local.bm25.share([jid])[0]) * local.bm25.num_docs)
        assert held and remote.bm25.co_held(jid, ids, held) == local.bm25.co_held(jid, ids, held)
    for question in ("stuck check valve", "lock out the breaker"):
        a, b = (search(s, question, k=3, mode="bm25", keep_results=True) for s in sides)
        assert [r.chunk_id for r in a.results] == [r.chunk_id for r in b.results]


def test_a_compound_is_weighed_from_one_search_of_its_holders_terms(sides, monkeypatch):
    _, remote = sides
    bm25 = remote.bm25
    jid = bm25.vocab[bm25.tok("checkvalve")[0]]
    calls: list[tuple[str, dict]] = []
    passed = Engine.call

    def spy(self, doing, method, *args, **kwargs):
        calls.append((method, kwargs))
        return passed(self, doing, method, *args, **kwargs)

    monkeypatch.setattr(Engine, "call", spy)
    remote.store.terms.clear()
    weight = compound_weight(remote, jid, bm25.tok("check valve seat"))
    assert weight > 0
    searches = [kw for m, kw in calls if m == "search"]
    assert len(searches) == 1 and list(searches[0]["data"][0]) == [jid]
    reads = [kw for m, kw in calls if m == "query"]
    assert reads and all(kw["output_fields"] == ["num", "sparse"] for kw in reads)
