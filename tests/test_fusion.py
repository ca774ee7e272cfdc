"""Fusion weights earned per question (kbtools.query.fusion.weights / standout) and what they
do to a ranking: a vector list that cannot tell its candidates apart does not overturn a
confident BM25 ranking, a confident vector list does reorder a flat BM25 one."""

from __future__ import annotations

import numpy as np
import pytest

from kbtools.config import load_config
from kbtools.errors import ConfigError
from kbtools.query.fusion import FusionParams, Ranked, fuse, standout, weights


def ranked(keys: list[int], scores: list[float]) -> Ranked:
    return Ranked(np.array(keys, dtype=np.int64), np.array(scores, dtype=np.float32))


# BM25 is sure of chunk 1 (its score far above the rest); the cosine list is nearly flat
CONFIDENT_BM25 = ranked([1, 2, 3, 4, 5, 6], [12.0, 3.1, 3.0, 2.9, 2.8, 2.7])
FLAT_VECTORS = ranked([2, 3, 1, 4, 5, 6], [0.412, 0.411, 0.410, 0.409, 0.408, 0.300])
# BM25 only matched common words (a flat list); the vectors single out chunk 6
FLAT_BM25 = ranked([1, 2, 3, 4, 5, 6], [2.05, 2.04, 2.03, 2.02, 2.01, 2.0])
PEAKED_VECTORS = ranked([6, 3, 1, 4, 5, 2], [0.81, 0.42, 0.41, 0.40, 0.39, 0.38])


def test_standout_is_scale_free_and_zero_when_undecided():
    a = ranked([1, 2, 3, 4], [10.0, 4.0, 3.0, 2.0])
    b = ranked([1, 2, 3, 4], [1.0, 0.4, 0.3, 0.2])
    assert standout(a) == pytest.approx(standout(b)) and standout(a) > 1
    assert standout(ranked([1], [5.0])) == 0.0
    assert standout(ranked([1, 2, 3], [0.5, 0.5, 0.5])) == 0.0


def test_weights_are_earned_by_each_lists_standout():
    p = FusionParams()
    _, w_flat = weights({"bm25": CONFIDENT_BM25, "vector:use": FLAT_VECTORS}, p)
    _, w_peaked = weights({"bm25": FLAT_BM25, "vector:use": PEAKED_VECTORS}, p)
    assert 0 < w_flat < p.vector_weight < w_peaked <= p.shape_scale
    b, v = weights({"bm25": FLAT_BM25, "vector:use": PEAKED_VECTORS}, p)
    assert b + v == pytest.approx(1.0)


def test_one_sided_questions_and_fixed_weights():
    p = FusionParams()
    assert weights({"bm25": CONFIDENT_BM25}, p) == (1.0, 0.0)
    assert weights({"vector:use": FLAT_VECTORS}, p) == (0.0, 1.0)
    assert weights({"bm25": ranked([], []), "vector:use": FLAT_VECTORS}, p) == (0.0, 1.0)
    fixed = FusionParams(weighting="fixed")
    assert weights({"bm25": FLAT_BM25, "vector:use": PEAKED_VECTORS}, fixed) == (0.7, 0.3)


def test_flat_vectors_do_not_overturn_a_confident_lexical_ranking():
    hits = fuse({"bm25": CONFIDENT_BM25, "vector:use": FLAT_VECTORS}, FusionParams())
    assert hits[0].num == 1
    assert hits[0].why["bm25_rank"] == 1 and hits[0].why["vector_rank"] == 3


def test_confident_vectors_reorder_a_flat_lexical_ranking():
    lists = {"bm25": FLAT_BM25, "vector:use": PEAKED_VECTORS}
    hits = fuse(lists, FusionParams())
    assert hits[0].num == 6 and hits[0].why["bm25_rank"] == 6


def test_a_term_that_picks_out_one_chunk_is_the_most_confident_list():
    """BM25 keeps positive scores only: a rare term held by one chunk of thousands gives a
    one-entry list. Read against the vector lists' pool (the other candidates scored 0), it
    stands out as far as any list can, so it is not outvoted by vectors that match nothing."""
    only = ranked([7], [3.25])
    vectors = ranked(list(range(100, 150)), list(np.linspace(0.34, 0.30, 50)))
    assert standout(only) == 0.0  # alone, a single score has no spread
    assert standout(only, pool=50) == pytest.approx(7.0, abs=1e-6)  # sqrt(pool − 1): the most
    b, v = weights({"bm25": only, "vector:use": vectors}, FusionParams())
    assert b > 0.8 and v < 0.2
    hits = fuse({"bm25": only, "vector:use": vectors}, FusionParams())
    assert hits[0].num == 7
    # a full list is read as before
    full = ranked(list(range(50)), list(np.linspace(9.0, 1.0, 50)))
    assert standout(full, pool=50) == standout(full)


def test_kb_toml_chooses_the_documented_weighting(tmp_path):
    """docs/retrieval.md: `[query] weighting = "fixed"` restores the 0.7 / 0.3 mix and
    `shape_scale` sets the per-question one; kb.toml's schema refused both keys."""
    (tmp_path / "kb.toml").write_text('[query]\nweighting = "fixed"\nshape_scale = 0.5\n',
                                      encoding="utf-8")
    params = FusionParams.from_config(load_config(tmp_path).section("query"))
    assert (params.weighting, params.shape_scale) == ("fixed", 0.5)
    (tmp_path / "kb.toml").write_text('[query]\nweighting = "even"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"weighting.*'even' is not one of"):
        load_config(tmp_path)


def best_ranks_by_definition(lists: dict[str, Ranked]) -> dict[int, dict[str, object]]:
    """Per candidate, its best rank per side with that entry's score and model, taking the
    entries in list order and keeping a strictly better rank (an equal one keeps the
    first: an earlier list, or an earlier entry of a list whose chunks share a rank)."""
    why: dict[int, dict[str, object]] = {}
    for name, r in lists.items():
        side = "bm25" if name == "bm25" else "vector"
        for key, rank, raw in zip(r.keys.tolist(), r.rank_of_each().tolist(),
                                  r.scores.tolist(), strict=True):
            w = why.setdefault(key, {})
            if f"{side}_rank" not in w or rank < w[f"{side}_rank"]:  # type: ignore[operator]
                w[f"{side}_rank"], w[f"{side}_score"] = rank, round(raw, 6)
                if side == "vector":
                    w["vector_model"] = name.split(":", 1)[1]
    return why


@pytest.mark.parametrize("seed", range(40))
def test_fused_why_keeps_each_sides_first_best_rank_with_shared_ranks(seed):
    # chunks scored through one shared vector share its rank (kbtools.query.inherit), a
    # chunk may sit in several lists at equal ranks: the first entry of the best rank wins
    rng = np.random.default_rng(seed)
    lists: dict[str, Ranked] = {}
    for name in ["bm25", "vector:use", "vector:minilm"][: int(rng.integers(1, 4))]:
        n = int(rng.integers(1, 30))
        keys = rng.choice(40, size=n, replace=False).astype(np.int64)
        ranks = np.sort(rng.integers(1, n + 1, size=n)).astype(np.int64)
        scores = np.sort(rng.uniform(0.1, 0.9, size=n).astype(np.float32))[::-1]
        lists[name] = Ranked(keys, scores, ranks if rng.random() < 0.7 else None)
    want = best_ranks_by_definition(lists)
    hits = fuse(lists, FusionParams())
    assert sorted(h.num for h in hits) == sorted(want)
    for h in hits:
        got = {k: v for k, v in h.why.items() if v is not None}
        assert got == want[h.num]
