"""A filtered vector search over the release's own graphs (`kbtools.query.local_candidates`)
returns what the unfiltered search returns with the disallowed chunks dropped, whatever share
of the chunks the filter allows, and a broad filter costs no vector reads (real build of the
example knowledge, real models, real usearch graphs small enough to be searched exactly)."""

from __future__ import annotations

import numpy as np
import pytest

from kbtools.index import vectors
from kbtools.index.reader import open_index
from kbtools.query import local_candidates
from kbtools.query.candidates import CandidateRequest
from kbtools.query.crosslingual import query_models
from kbtools.query.fusion import Ranked
from kbtools.query.local_candidates import LOCAL_CANDIDATES, holders

QUESTIONS = ["小麦赤霉病怎么防治", "what pressure should the pump run at"]
SHARES = [0.95, 0.5, 0.3, 0.1, 0.02]
COUNT = 5


def _lists(index, text: str, mask: np.ndarray | None, count: int) -> dict[str, Ranked]:
    req = CandidateRequest(text=text, mode="vector", where=(), verified_only=False, mask=mask,
                           term_ids=(), count=count)
    return LOCAL_CANDIDATES.ranked_lists(index, req)


def _masks(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(45)
    return [rng.random(n) < share for share in SHARES]


@pytest.fixture(scope="module")
def index(example_index):
    return open_index(example_index)


@pytest.mark.parametrize("exact_limit", [local_candidates.EXACT_FILTERED, 0])
def test_filtered_equals_unfiltered_with_the_others_dropped(index, monkeypatch, exact_limit):
    # EXACT_FILTERED 0: the graph serves even a narrow filter (as beyond 20,000 allowed chunks
    # of a large release); it must ask for more hits until enough allowed ones remain
    monkeypatch.setattr(local_candidates, "EXACT_FILTERED", exact_limit)
    n = len(index.chunk_table().doc)
    for text in QUESTIONS:
        whole = _lists(index, text, None, n)
        for mask in _masks(n):
            got = _lists(index, text, mask, COUNT)
            assert set(got) == set(whole)
            for name, ranked in got.items():
                model = name.split(":", 1)[1]
                keep = (mask & holders(index, model))[whole[name].keys]
                want = whole[name].keys[keep][:COUNT]
                assert len(want) == min(COUNT, int((mask & holders(index, model)).sum()))
                assert ranked.keys.tolist() == want.tolist(), (text, name, mask.mean())
                assert np.allclose(ranked.scores, whole[name].scores[keep][:COUNT], atol=1e-3)


def test_a_broad_filter_reads_only_the_vectors_of_the_chunks_it_returns(index, monkeypatch):
    """The graph finds a broad filter's best chunks; only those are read (to score them as
    the exact ranking does), not every allowed chunk's vector."""
    n = len(index.chunk_table().doc)
    broad = _masks(n)[1]  # half the chunks
    read: list[int] = []
    for model in query_models(index, QUESTIONS[0]):
        graph = index.vectors(model)
        assert int((broad & holders(index, model)).sum()) > 4 * COUNT
        monkeypatch.setattr(graph, "get", lambda keys, get=graph.get: (
            read.append(len(keys)), get(keys))[1])
    assert _lists(index, QUESTIONS[0], broad, COUNT)
    assert read and max(read) <= COUNT


def test_holders_are_the_chunks_with_their_own_vectors(index):
    models = index.chunk_table().models
    for model in index.manifest["models"]:
        assert holders(index, model).tolist() == [model in m.split(",") for m in models]
        assert int(holders(index, model).sum()) == len(index.vectors(model))


@pytest.mark.parametrize("fits", [True, False])
def test_an_exact_ranking_asked_again_reads_no_vectors(example_index, monkeypatch, fits):
    """A process ranking a filtered subset exactly a second time keeps the model's vectors
    normalised (when they fit in memory): from the third ranking on no vector is read from
    the graph, and every ranking is the first one's, to the last digit."""
    monkeypatch.setattr(vectors, "memory_fits", lambda total: fits)
    index = open_index(example_index)  # its own: no ranking asked of it yet
    n = len(index.chunk_table().doc)
    narrow = _masks(n)[3]  # a tenth of the chunks: ranked exactly
    read: list[int] = []
    for model in index.manifest["models"]:
        graph = index.vectors(model)
        monkeypatch.setattr(graph, "get", lambda keys, get=graph.get: (
            read.append(len(keys)), get(keys))[1])
    rounds = []
    for _ in range(3):
        read.clear()
        rounds.append((_lists(index, QUESTIONS[0], narrow, COUNT), list(read)))
    assert rounds[0][1], "the first ranking reads the allowed chunks' vectors"
    assert bool(rounds[2][1]) is not fits
    first = rounds[0][0]
    for got, _ in rounds[1:]:
        assert set(got) == set(first)
        for name, ranked in got.items():
            assert ranked.keys.tolist() == first[name].keys.tolist()
            assert ranked.scores.tobytes() == first[name].scores.tobytes()
