"""A search of a release asked for by tag or commit while an engine is read (`kb query
--engine … --release TAG`, MCP `search` and ``/api/search`` with ``release``/``commit``):
searched in that release's collection when the engine holds it (kept by ``keep``), else
one line naming the releases published there (`kbtools.engine.published`)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_read, tool_search
from kbtools.cli import main
from kbtools.engine.cache import cache_dir
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError, KbError
from kbtools.index.manifest import load_manifest
from kbtools.index.reader import open_index
from kbtools.serve.app import create_app, open_source
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_bases import plant  # noqa: F401 - fixture
from tests.test_engine_failures import _engine, _rel, signed  # noqa: F401 - fixture

QUESTION = "flush the drip irrigation lines"


def _published(milvus, db: str, dev, serials=(1, 2), **how) -> str:  # noqa: F811
    """Releases `serials` of device `dev` published, in order, into database `db` (`how`:
    `publish`'s options); its URL."""
    eng = _engine(milvus, db)
    try:
        for n in serials:
            publish(eng, check_release(_rel(dev, n)), **how)
    finally:
        eng.close()
    return milvus.url(db)


@pytest.fixture(scope="module")
def url(signed, milvus):  # noqa: F811
    """kb-r1, kb-r2, kb-r3 published (kb-r3 served), keep 5."""
    return _published(milvus, "asked", signed[0], (1, 2, 3))


def _query(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["query", "--json", "--no-log", QUESTION, *args])
    return res.exit_code, res.output


def _cited(output: str) -> tuple[str, list[str]]:
    body = json.loads(output)
    return body["release"]["tag"], [r["doc"] for r in body["results"]]


def _commit(dev, n: int) -> str:
    return str(load_manifest(_rel(dev, n))["source"]["commit"])


def test_kb_query_engine_release_searches_that_published_release(signed, url):  # noqa: F811
    """`kb query --engine … --release kb-r1` was refused ("--release names local files,
    which --engine does not use"): a result cited from kb-r1 could not be searched again in
    the release it came from. Now it searches kb-r1's collection, with the answers of the
    release's own files; by commit as well."""
    dev, _ = signed
    code, out = _query("--engine", url, "--release", "kb-r1")
    assert code == 0, out
    code_local, out_local = _query("--index", str(_rel(dev, 1)))
    assert code_local == 0, out_local
    assert _cited(out) == _cited(out_local) == ("kb-r1", _cited(out_local)[1])
    served = _cited(_query("--engine", url)[1])
    assert served[0] == "kb-r3" and served[1] != _cited(out)[1]  # kb-r3 has note2, note3
    code, out = _query("--engine", url, "--commit", _commit(dev, 2)[:9])
    assert code == 0, out
    assert _cited(out)[0] == "kb-r2"


def test_a_release_the_engine_does_not_hold_is_one_line_naming_those_it_does(url):
    code, out = _query("--engine", url, "--release", "kb-r9")
    assert code == 1
    line = out.strip().splitlines()
    assert len(line) == 1, out
    assert "release kb-r9 is not published in milvus://" in line[0]
    assert "kb-r3, kb-r2, kb-r1" in line[0] and "search without" in line[0]


def test_mcp_and_the_api_search_a_published_release_asked_for(signed, url):  # noqa: F811
    """MCP `search` and ``/api/search`` with ``release`` read an engine's releases too: they
    said "release kb-r1 is not the release read here … no earlier release is kept"."""
    dev, _ = signed
    want = _cited(_query("--index", str(_rel(dev, 1)))[1])
    ctx = Context(opener=EngineReader(connect_url(url)).current)
    got = tool_search(ctx, QUESTION, release="kb-r1")
    assert (got["release"]["tag"], [r["doc"] for r in got["results"]]) == want
    with pytest.raises(KbError, match="release kb-r7 is not published"):
        tool_search(ctx, QUESTION, release="kb-r7")
    cited = got["results"][0]
    read = tool_read(ctx, cited["doc"], heading_path=cited["heading_path"], release="kb-r1")
    assert read["release"]["tag"] == "kb-r1" and read["markdown"]
    with TestClient(create_app(None, source=open_source(None, url)),
                    base_url="http://127.0.0.1") as client:
        res = client.get("/api/search", params={"q": QUESTION, "commit": _commit(dev, 1)})
        assert res.status_code == 200, res.text
        assert _cited(res.text) == want
        res = client.get("/api/search", params={"q": QUESTION, "release": "kb-r8"})
        assert res.status_code == 404 and "kb-r3, kb-r2, kb-r1" in res.text


def test_a_release_pruned_by_keep_is_named_gone(signed, milvus):  # noqa: F811
    dev, _ = signed
    _published(milvus, "asked_keep", dev, keep=1)
    code, out = _query("--engine", milvus.url("asked_keep"), "--release", "kb-r1")
    assert code == 1
    assert "release kb-r1 is not published" in out
    assert "published there, newest first: kb-r2;" in out and "keep" in out


def test_a_tag_is_searched_in_the_knowledge_base_the_alias_serves(signed, plant, url):  # noqa: F811
    """Two knowledge bases in one database are both tagged kb-r1, kb-r2, …: the release
    asked for is the one of the knowledge base the alias read serves, never the other's."""
    eng = connect_url(url)
    try:
        for n in (1, 2):
            publish(eng, check_release(_rel(plant, n)), alias="plant")
    finally:
        eng.close()
    code, out = _query("--engine", url, "--alias", "plant", "--release", "kb-r1")
    assert code == 0, out
    assert json.loads(out)["release"]["source_commit"] == _commit(plant, 1)
    code, out = _query("--engine", url, "--release", "kb-r1")
    assert json.loads(out)["release"]["source_commit"] == _commit(signed[0], 1)
    code, out = _query("--engine", url, "--alias", "plant", "--release", "kb-r3")
    assert code == 1 and "(published there, newest first: kb-r2, kb-r1;" in out, out


def test_the_engines_store_lists_headings_and_documents_as_the_local_one(signed, url):  # noqa: F811
    """A page for a removed document (`kb serve --engine`) answered 500: the engine's store
    had no `doc_names`; nor `heading_paths`, which names where a gone document's cited
    section is now (`agents.moved`). Both as the local store of the same release gives
    them, the heading paths read over ranges of chunk numbers."""
    dev, _ = signed
    index = EngineReader(connect_url(url)).current()
    local = open_index(_rel(dev, 3))
    try:
        index.store.list_rows = 3  # several ranges even in a small release
        assert sorted(index.store.heading_paths()) == sorted(local.store.heading_paths())
        assert index.store.doc_names() == local.store.doc_names()
    finally:
        local.close()


class _MetaReads:
    """The pymilvus client of an engine, counting the queries of ``__meta`` collections
    (what opening a release reads: its vocabulary, documents, per-chunk arrays)."""

    def __init__(self, client):
        self._client, self.reads = client, 0

    def __getattr__(self, name):
        attr = getattr(self._client, name)
        if name != "query":
            return attr

        def query(collection, *args, **kwargs):
            self.reads += collection.endswith("__meta")
            return attr(collection, *args, **kwargs)
        return query


def test_an_earlier_release_is_opened_once_per_publication(signed, milvus):  # noqa: F811
    """Each search of an earlier release (`kb serve --engine`/`kb mcp --engine` asked for
    ``release``) read its whole ``__meta`` again — vocabulary, documents, per-chunk arrays —
    and built its index anew. Now the served release keeps it open: the second search reads
    no ``__meta``; a release dropped since is named gone, and one published again into its
    collection is opened anew, with its answers."""
    dev, _ = signed
    _published(milvus, "asked_kept", dev)
    want = _cited(_query("--index", str(_rel(dev, 1)))[1])
    reader = EngineReader(connect_url(milvus.url("asked_kept")))
    counted = reader.engine.client = _MetaReads(reader.engine.client)
    ctx = Context(opener=reader.current)
    got = tool_search(ctx, QUESTION, release="kb-r1")
    assert (got["release"]["tag"], [r["doc"] for r in got["results"]]) == want
    first = counted.reads
    assert first > 0
    for _ in range(3):
        got = tool_search(ctx, QUESTION, release="kb-r1")
        assert (got["release"]["tag"], [r["doc"] for r in got["results"]]) == want
    assert counted.reads == first  # kept open: no __meta read again
    r1 = next(r for r in reader.engine.releases() if r["tag"] == "kb-r1")["collection"]
    reader.engine.call("dropping", "drop_collection", r1 + "__meta")
    with pytest.raises(KbError, match="release kb-r1 is not published"):
        tool_search(ctx, QUESTION, release="kb-r1")
    eng = _engine(milvus, "asked_kept")
    try:
        assert not publish(eng, check_release(_rel(dev, 1))).moved  # older: loaded again
    finally:
        eng.close()
    before = counted.reads
    got = tool_search(ctx, QUESTION, release="kb-r1")
    assert (got["release"]["tag"], [r["doc"] for r in got["results"]]) == want
    assert counted.reads > before  # its new publication opened anew
    assert tool_search(ctx, QUESTION)["release"]["tag"] == "kb-r2"


def test_the_copy_of_a_release_pruned_from_the_engine_is_removed(signed, milvus):  # noqa: F811
    """A reader following the alias (`kb serve --engine`, `kb mcp --engine`) copies each
    release's files under KB_HOME/engine/…/<collection>/; the copies of releases that `keep`
    pruned from the engine stayed there for good, one more each publish. Opening the release
    the alias moved to removes the copies of collections the engine no longer holds."""
    dev, _ = signed
    eng = _engine(milvus, "asked_copies")
    reader = EngineReader(connect_url(milvus.url("asked_copies")), files=True)
    try:
        first = publish(eng, check_release(_rel(dev, 1)))
        assert reader.current().collection == first.collection
        copy = cache_dir(eng, first.collection)
        assert (copy / "manifest.json").is_file()
        second = publish(eng, check_release(_rel(dev, 2)), keep=1)
        assert second.pruned == (first.collection,)
        assert reader.current().collection == second.collection
        assert not copy.exists()
        assert (cache_dir(eng, second.collection) / "manifest.json").is_file()
        assert tool_search(Context(opener=reader.current), QUESTION)["release"]["tag"] == "kb-r2"
    finally:
        eng.close()


def test_a_release_is_asked_for_by_the_collection_the_gone_line_names(signed, url):  # noqa: F811
    """The line for a release not published names the others by tag, a local build (no
    tag) by its collection (`kb_build_…`), as `kb rollback --engine` takes them; asked for
    by that name, the search said it was not published. A collection names its release."""
    dev, _ = signed
    eng = connect_url(url)
    try:
        r1 = next(r for r in eng.releases() if r["tag"] == "kb-r1")["collection"]
    finally:
        eng.close()
    code, out = _query("--engine", url, "--release", r1)
    assert code == 0, out
    assert _cited(out) == _cited(_query("--index", str(_rel(dev, 1)))[1])


def test_kb_query_engine_reads_the_record_once_per_publication(signed, milvus):  # noqa: F811
    """`kb query --engine` is one process per question, and each run read the served
    release's whole ``__meta`` record (vocabulary, documents, per-chunk arrays, its Markdown
    sources) from the engine again. A run now keeps the record beside the release's local
    copy, for that publication: the next run reads the collection's properties, not the
    record; a record kept damaged is read again; a release published again into its
    collection, and the release a rollback moved the alias to, are read anew, with their
    own answers."""
    dev, _ = signed
    url = _published(milvus, "asked_runs", dev)
    local = {n: _cited(_query("--index", str(_rel(dev, n)))[1]) for n in (1, 2)}

    def run() -> tuple[tuple[str, list[str]], int]:
        """One run's answer (as `kb query --engine` opens it) and its ``__meta`` reads."""
        reader = EngineReader(connect_url(url))
        counted = reader.engine.client = _MetaReads(reader.engine.client)
        try:
            got = tool_search(Context(opener=reader.current), QUESTION)
        finally:
            reader.engine.close()
        return (got["release"]["tag"], [r["doc"] for r in got["results"]]), counted.reads

    first, reads = run()
    assert first == local[2] and reads > 0
    for _ in range(2):
        assert run() == (local[2], 0)  # the record kept: no __meta read
    code, out = _query("--engine", url)
    assert code == 0 and _cited(out) == local[2], out
    eng = connect_url(url)
    try:
        served = eng.alias_target()
        assert served is not None
        kept = cache_dir(eng, served) / ".parts.json"
        kept.write_bytes(kept.read_bytes()[:1000])  # cut short (a full disk, a kill)
        got, reads = run()
        assert got == local[2] and reads > 0
        assert run() == (local[2], 0)  # kept whole again
        assert rollback(eng, "kb-r1")["to"] != served
        got, reads = run()
        assert got == local[1] and reads > 0  # the release the alias moved to
        assert run() == (local[1], 0)
        eng.call("dropping", "drop_collection", served + "__meta")
        assert publish(eng, check_release(_rel(dev, 2))).changed  # published again
        assert eng.alias_target() == served  # into its collection, its copy kept
        got, reads = run()
        assert got == local[2] and reads > 0  # its new publication read anew
        assert run() == (local[2], 0)
        eng.call("dropping", "drop_collection", served + "__meta")  # by hand, served
        with pytest.raises(EngineError, match=f"{served}.* gone from the engine"):
            run()  # incomplete, as without the record kept
    finally:
        eng.close()


def test_kb_query_engine_release_reads_what_tells_releases_once_per_publication(
        signed, milvus):  # noqa: F811
    """`kb query --engine … --commit C` (and `--release TAG` where the engine holds the tag
    twice) read the manifest of every release it might name from the engine on every run,
    to find the commit each was built from: a run is one process, and what a server keeps
    per publication (`Seen`) went with it. A run now keeps it beside the release's local
    copy, for that publication: the next run reads no ``__meta``; a release published
    again into its collection is read anew, with its own commit."""
    dev, _ = signed
    url = _published(milvus, "asked_commits", dev, (1, 2, 3))
    local = {n: _cited(_query("--index", str(_rel(dev, n)))[1]) for n in (1, 2)}

    def run(**asked: str) -> tuple[tuple[str, list[str]], int]:
        """One run's answer (as `kb query --engine` opens it) and its ``__meta`` reads."""
        reader = EngineReader(connect_url(url))
        counted = reader.engine.client = _MetaReads(reader.engine.client)
        try:
            got = tool_search(Context(opener=reader.current), QUESTION, **asked)
        finally:
            reader.engine.close()
        return (got["release"]["tag"], [r["doc"] for r in got["results"]]), counted.reads

    by_commit = {"commit": _commit(dev, 1)[:10]}
    got, reads = run(**by_commit)
    assert got == local[1] and reads > 0
    assert run(**by_commit) == (local[1], 0)  # what tells the releases apart kept
    got, reads = run(commit=_commit(dev, 2)[:10])
    assert got == local[2] and reads > 0  # kb-r2's own record, opened the first time
    assert run(commit=_commit(dev, 2)[:10]) == (local[2], 0)
    assert run(release="kb-r1", **by_commit) == (local[1], 0)
    eng = connect_url(url)
    try:
        r1 = next(r for r in eng.releases() if r["tag"] == "kb-r1")["collection"]
        seen = cache_dir(eng, r1) / ".seen.json"
        record = json.loads(seen.read_bytes())
        record["parts"]["manifest"] = record["parts"]["manifest"].replace(
            _commit(dev, 1), _commit(dev, 2))  # another commit: not the manifest published
        seen.write_text(json.dumps(record), encoding="utf-8")
        got, reads = run(**by_commit)
        assert got == local[1] and reads > 0  # read again from the engine
        assert run(**by_commit) == (local[1], 0)
        eng.call("dropping", "drop_collection", r1 + "__meta")
        assert publish(eng, check_release(_rel(dev, 1))).changed  # published again
    finally:
        eng.close()
    got, reads = run(**by_commit)
    assert got == local[1] and reads > 0  # its new publication read anew
    assert run(**by_commit) == (local[1], 0)
