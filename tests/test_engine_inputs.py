"""A release served from Milvus reads every decision table's input names as the local index
does (`MilvusStore.decision_inputs`, from the ``extra["decision"]`` its table rows carry), so
a value said of another table's input binds alike with ``--engine``. Real `milvus-lite
server` (`tests.milvus_server`)."""

from __future__ import annotations

import pytest
from hostile import make_repo

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_answers_other_inputs import GREENHOUSE, PUMP, SYNONYMS, VENT, WATER


@pytest.fixture(scope="module")
def pair(tmp_path_factory, milvus):  # noqa: F811
    root = make_repo(tmp_path_factory.mktemp("kb"), docs={
        "knowledge/greenhouse.md": GREENHOUSE, "knowledge/pump.md": PUMP,
        "knowledge/vent.md": VENT, "knowledge/water.md": WATER,
        "knowledge/_synonyms.txt": SYNONYMS})
    build(load_config(root), BuildOptions(progress=False))
    engine = connect_url(milvus.url("inputs"), create_db=True)
    publish(engine, check_release(root / "dist"))
    yield open_index(root / "dist"), EngineReader(engine).current()
    engine.close()


def test_the_engine_reads_the_tables_input_names_as_the_local_store(pair):
    local, remote = pair
    names = local.store.decision_inputs()
    assert {"温度(℃)", "油温(℃)", "灌溉水温度(℃)", "Temperature (°C)"} <= set(names)
    assert remote.store.decision_inputs() == names


@pytest.mark.parametrize("question", [
    # a few words between 油温 and its value: only the knowledge's names tell it is the oil's
    "大棚通风怎么办：油温已经升到80度，湿度90%",
    "大棚通风怎么办：油温80度，湿度90%",
    "大棚通风怎么办：温度25度，湿度90%",
])
def test_a_question_binds_alike_on_the_engine(pair, question):
    local, remote = pair
    a, b = (search(index, question, k=3, keep_results=True) for index in (local, remote))
    assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results]
    ev_a, ev_b = (r.results[0].evaluation for r in (a, b))
    assert ev_a is not None and ev_b == ev_a
    if "油温" in question:
        assert ev_b["missing"] == ["温度(℃)"] and ev_b["inputs"] == {"湿度(%)": "90"}


def test_the_engine_lists_the_table_chunks_in_ranges_within_a_servers_cap(pair, monkeypatch):
    """A query returns at most the server's cap (16,384 rows by default): when more table
    chunks match than `list_rows` (made small here), they are listed over ranges of chunk
    numbers, no query returning more than `list_rows`, and every table is still read; when
    fewer do, one query lists them."""
    local, remote = pair
    store = remote.store
    listed: list[tuple[int, bool]] = []  # (rows, whether over a range of chunk numbers)
    query = store.engine.client.query

    def counting(*args, **kwargs):
        rows = query(*args, **kwargs)
        if kwargs.get("output_fields") == ["num"]:
            listed.append((len(rows), "num >=" in kwargs["filter"]))
        return rows

    monkeypatch.setattr(store.engine.client, "query", counting)
    names = local.store.decision_inputs()
    tables = sum(1 for n in range(local.store.count())
                 if local.store.chunks([n])[n]["kind"] == "table")
    for rows in (2, tables, tables + 1):
        listed.clear()
        monkeypatch.setattr(store, "list_rows", rows, raising=False)
        monkeypatch.setattr(store, "_rows", {})  # read again, not from the rows cached
        assert store.decision_inputs() == names, rows
        assert tables > 2 and max(n for n, _ in listed) <= rows
        ranges = [n for n, ranged in listed if ranged]
        if rows > tables:
            assert listed == [(tables, False)]
        else:
            assert sum(ranges) == tables and len(ranges) == -(-store.count() // rows)
