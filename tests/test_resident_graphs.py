"""Vector graphs kept in anonymous memory on huge pages (`vectors.load_resident`,
`KbIndex.keep_resident`) answer exactly as the graphs mapped from their files."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from kbtools.index import vectors
from kbtools.index.reader import open_index
from kbtools.query.search import search

PARAMS = {"metric": "cos", "dtype": "f16", "connectivity": 16, "expansion_add": 128,
          "expansion_search": 64}


@pytest.fixture(scope="module")
def graph(tmp_path_factory):
    """A graph big enough to be searched through its links (more than EXACT_MAX vectors)."""
    rng = np.random.default_rng(7)
    n = vectors.EXACT_MAX + 1500
    matrix = rng.standard_normal((n, 48)).astype(np.float32)
    path = tmp_path_factory.mktemp("graph") / "g.usearch"
    vectors.build(path, np.arange(n, dtype=np.uint64), matrix, PARAMS)
    return path, rng.standard_normal((60, 48)).astype(np.float32)


def test_resident_graph_answers_as_the_mapped_one(graph):
    path, questions = graph
    mapped = vectors.load(path, 64)
    resident = vectors.load_resident(path, 64)
    assert len(resident) == len(mapped) > vectors.EXACT_MAX
    assert resident.expansion_search == 64
    for q in questions:
        keys, sims = vectors.search(mapped, q, 20)
        got_keys, got_sims = vectors.search(resident, q, 20)
        assert got_keys.tolist() == keys.tolist()
        assert np.array_equal(got_sims, sims)
    some = np.array([3, 4000, 5000], dtype=np.uint64)
    assert np.array_equal(resident.get(some), mapped.get(some))


def test_resident_graph_outlives_every_other_reference(graph):
    path, questions = graph
    expected = vectors.search(vectors.load(path, 64), questions[0], 10)[0].tolist()
    resident = vectors.load_resident(path, 64)
    gc.collect()  # the buffer it views is held by the index object itself
    assert vectors.search(resident, questions[0], 10)[0].tolist() == expected


def test_a_truncated_graph_file_is_refused(tmp_path):
    bad = tmp_path / "bad.usearch"
    bad.write_bytes(b"\0" * 64)
    for load in (vectors.load, vectors.load_resident):  # refused alike
        with pytest.raises((ValueError, RuntimeError)):
            load(bad, 64)


@pytest.mark.parametrize("setting, available_kb, size, fits", [
    ("always [madvise] never", 8_000_000, 100 << 20, True),
    ("[always] madvise never", 8_000_000, 100 << 20, True),
    ("always madvise [never]", 8_000_000, 100 << 20, False),  # no huge pages: no gain
    ("always [madvise] never", 400_000, 100 << 20, False),  # > 1/8 of the memory available
])
def test_graphs_are_kept_resident_only_where_it_helps(tmp_path, monkeypatch, setting,
                                                      available_kb, size, fits):
    (tmp_path / "thp").write_text(setting + "\n")
    (tmp_path / "meminfo").write_text(f"MemTotal: 16000000 kB\nMemFree: 1 kB\n"
                                      f"MemAvailable:   {available_kb} kB\n")
    monkeypatch.setattr(vectors, "THP_SETTING", tmp_path / "thp")
    monkeypatch.setattr(vectors, "MEMINFO", tmp_path / "meminfo")
    assert vectors.resident_fits(size) is fits


def test_no_transparent_huge_pages_file_means_mapped(tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "THP_SETTING", tmp_path / "missing")
    assert vectors.resident_fits(1) is False


QUESTIONS = ["pump seal replacement interval", "小麦赤霉病用什么药防治", "E17 报警怎么处理",
             "how do I calibrate the sprayer nozzle"]


def _answer(index, question):
    """The response of a search without its timing."""
    got = search(index, question, keep_results=True).to_dict()
    got.pop("took_ms", None)
    assert got["results"]
    return got


def test_an_index_kept_resident_gives_the_same_responses(example_index, monkeypatch):
    monkeypatch.setattr(vectors, "resident_fits", lambda size: True)
    mapped, resident = open_index(example_index), open_index(example_index)
    try:
        assert resident.keep_resident()
        for model in resident.manifest["models"]:
            assert hasattr(resident.vectors(model), "_kb_buffer")
            assert not hasattr(mapped.vectors(model), "_kb_buffer")
        for q in QUESTIONS:
            assert _answer(resident, q) == _answer(mapped, q)
    finally:
        mapped.close()
        resident.close()


def test_an_index_is_left_mapped_where_residence_does_not_help(example_index, monkeypatch):
    monkeypatch.setattr(vectors, "resident_fits", lambda size: False)
    index = open_index(example_index)
    try:
        assert not index.keep_resident()
        assert all(not hasattr(index.vectors(m), "_kb_buffer") for m in index.manifest["models"])
    finally:
        index.close()


def test_kb_serve_and_kb_mcp_keep_a_release_resident(example_index, monkeypatch):
    """`kb serve`'s warm-up and `kb mcp`'s first search both keep the graphs resident
    (`query.search.keep_warm`), where residence helps."""
    from kbtools.agents.mcp_server import Context, tool_search
    from kbtools.serve.source import warm_up

    monkeypatch.setattr(vectors, "resident_fits", lambda size: True)
    index = open_index(example_index)
    try:
        warm_up(index)
        assert all(hasattr(index.vectors(m), "_kb_buffer") for m in index.manifest["models"])
        ctx = Context(index=example_index, query_log=False)
        tool_search(ctx, QUESTIONS[1], 3)
        served = ctx.idx()
        assert all(hasattr(served.vectors(m), "_kb_buffer") for m in served.manifest["models"])
    finally:
        index.close()
        gc.unfreeze()  # (both freeze what is loaded; the other tests collect)
