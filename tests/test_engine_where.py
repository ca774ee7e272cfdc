"""``--where`` on a release in Milvus: the filters reach the engine as the local mask's chunk
numbers (or not at all, a broad filter's others dropped here), never as their expression,
which a Milvus Lite server evaluates on every row of the collection (13–23 s a search on
the 54,626-chunk tidb-docs-cn, past the 15 s read bound: every ``--where`` failed there).
Real models, a real `milvus-lite server` (`tests.milvus_server`)."""

from __future__ import annotations

import numpy as np
import pytest

from kbtools.engine import candidates as engine_candidates
from kbtools.engine.candidates import numbers_expression
from kbtools.query.filters import filter_mask, parse_where
from kbtools.query.search import search
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_parity import example  # noqa: F401 - fixture

QUESTIONS = ["小麦赤霉病施药步骤是什么", "How do I rotate a client secret?", "液压油多久更换一次",
             "What should I check when ingest returns 502?"]
# broad (most chunks), narrow (one category), a document, a folder (a path range), dates,
# verified only: each as the local index answers it
WHERES = [(["kind!=table"], None), (["lang=zh"], None), (["category=crop-protection"], None),
          (["doc=knowledge/crops/wheat-scab.md"], None),
          (["doc>=knowledge/equipment/", "doc<knowledge/equipment0"], None),
          (["timestamp>=2026-03-01", "timestamp<2026-04-01"], None), (["kind=section"], True)]


@pytest.fixture
def searches(example, monkeypatch) -> list[dict]:  # noqa: F811
    """The keyword arguments of every search the example's engine is sent meanwhile."""
    engine = example[1].candidate_source.engine
    sent: list[dict] = []
    real = engine.call

    def recording(doing, method, *args, **kwargs):
        if method == "search":
            sent.append(kwargs)
        return real(doing, method, *args, **kwargs)

    monkeypatch.setattr(engine, "call", recording)
    return sent


@pytest.mark.parametrize(("where", "verified_only"), WHERES)
@pytest.mark.parametrize("exact", [True, False])
def test_filters_reach_the_engine_as_chunk_numbers(example, searches, monkeypatch,  # noqa: F811
                                                    where, verified_only, exact):
    """The same answers as the local index, every vector path taken (`exact`: allowed
    chunks ranked from their fetched vectors; else the HNSW graph searched), and no search
    sent with a filter but one on the primary key ``num``."""
    local, remote = example
    if not exact:
        monkeypatch.setattr(engine_candidates, "EXACT_FILTERED", 0)
        monkeypatch.setattr(engine_candidates, "FEW_VECTORS", 0)
    allowed = filter_mask(remote, parse_where(where), bool(verified_only))
    assert allowed.any() and not allowed.all(), where
    for q in QUESTIONS:
        a, b = (search(index, q, k=5, where=where, verified_only=verified_only,
                       keep_results=True) for index in (local, remote))
        if exact:  # the graph's approximate lists may differ far down, not the filters
            assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results], (q, where)
        assert (b.no_answer, b.reason) == (a.no_answer, a.reason), (q, where)
        rows = remote.store.chunks_by_id([r.chunk_id for r in b.results])
        assert all(allowed[rows[r.chunk_id]["num"]] for r in b.results), (q, where)
    assert searches
    for kw in searches:
        assert not kw["filter"] or kw["filter"].startswith(("num ", "(num ")), kw["filter"]


@pytest.mark.parametrize("nums", [[], [0], [0, 1], [0, 1, 2], [3, 5, 6, 7, 8, 11, 12],
                                  list(range(0, 40, 2)) + list(range(41, 60)), "random"])
def test_a_numbers_filter_selects_exactly_those_chunks(example, nums):  # noqa: F811
    """`numbers_expression` (runs as ranges, the rest listed) asked of the real server
    returns the chunks it names and no other."""
    _, remote = example
    count = remote.store.count()
    if nums == "random":
        nums = sorted(np.random.default_rng(7).choice(count, count // 3, replace=False).tolist())
    got = remote.engine.client.query(remote.collection, output_fields=["num"],
                                     filter=numbers_expression(np.array(nums, dtype=np.int64)),
                                     limit=count + 1)
    assert sorted(int(r["num"]) for r in got) == [n for n in nums if n < count]


@pytest.mark.parametrize(("where", "verified_only"), WHERES)
def test_a_filter_on_chunk_numbers_is_bounded(example, searches, monkeypatch,  # noqa: F811
                                               where, verified_only):
    """A filter sent on chunk numbers holds at most `FILTER_RUNS` runs of them (Milvus's
    cost grows with its length; here widened without limit), matching every allowed
    chunk; what comes back is the allowed chunks alone, as many as the local index finds."""
    local, remote = example
    monkeypatch.setattr(engine_candidates, "EXACT_FILTERED", 0)
    monkeypatch.setattr(engine_candidates, "FEW_VECTORS", 0)
    monkeypatch.setattr(engine_candidates, "FILTER_RUNS", 2)
    monkeypatch.setattr(engine_candidates, "WIDEN_SHARE", float(remote.store.count()))
    allowed = filter_mask(remote, parse_where(where), bool(verified_only))
    count = remote.store.count()
    for q in QUESTIONS[:2]:
        a, b = (search(index, q, k=5, where=where, verified_only=verified_only,
                       keep_results=True) for index in (local, remote))
        assert len(b.results) == len(a.results), (q, where)
        rows = remote.store.chunks_by_id([r.chunk_id for r in b.results])
        assert all(allowed[rows[r.chunk_id]["num"]] for r in b.results), (q, where)
    sent = {kw["filter"] for kw in searches if kw["filter"]}
    assert sent or allowed.mean() >= engine_candidates.BROAD_SHARE, where  # else unfiltered
    for filt in sent:
        nums = np.array(sorted(int(r["num"]) for r in remote.engine.client.query(
            remote.collection, output_fields=["num"], filter=filt, limit=count + 1)))
        assert len(nums) and len(np.flatnonzero(np.diff(nums) != 1)) + 1 <= 2, (where, filt)


def test_a_numbers_filter_joins_chunks_never_a_hit_first():
    """Gaps of chunks never a hit (`free`) join the runs around them before any gap of
    other chunks does, those only while they add few (`WIDEN_SHARE`); within the bound,
    or where joining says no less, the filter matches exactly the allowed chunks."""
    keep = np.zeros(3000, dtype=bool)
    free = np.zeros(3000, dtype=bool)
    keep[200:400] = keep[1000:1100] = keep[1200:1300] = True
    keep[205:400:10] = False  # chunks without the model's own vector inside a folder
    free[205:400:10] = free[400:1000] = True
    matched, filt = engine_candidates.numbers_filter(keep, None, 100)  # 22 runs: kept
    assert matched.tolist() == keep.tolist()
    assert filt == engine_candidates.numbers_expression(np.flatnonzero(keep))
    matched, filt = engine_candidates.numbers_filter(keep, free, 2)
    assert np.flatnonzero(matched).tolist() == [*range(200, 1100), *range(1200, 1300)]
    assert filt == "(num >= 200 and num <= 1099) or (num >= 1200 and num <= 1299)"
    matched, _ = engine_candidates.numbers_filter(keep, free, 1)  # 100 others > 380 / 4
    assert np.flatnonzero(matched).tolist() == [*range(200, 1100), *range(1200, 1300)]
    keep[1300:1400] = True  # 480 allowed: 100 others are fewer than a quarter of them
    matched, filt = engine_candidates.numbers_filter(keep, free, 1)
    assert filt == "(num >= 200 and num <= 1399)" and matched.sum() == 1200
    scattered, between = np.zeros(3000, dtype=bool), np.zeros(3000, dtype=bool)
    scattered[::10] = scattered[2::10] = between[1::10] = True  # 0, 2: a range of 0–2 is longer
    matched, filt = engine_candidates.numbers_filter(scattered, between, 1000)
    assert matched.tolist() == scattered.tolist() and filt.startswith("num in [0, 2, 10, 12, ")
