"""Milvus parity on a mixed corpus: mostly Chinese documents and a few English ones, so the
English model (``minilm``) has vectors for a minority of the chunks. Real models, a real
`milvus-lite server` (`tests.milvus_server`)."""

from __future__ import annotations

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.kbfixtures import REPO, copy_example
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_parity import lacking_a_vector, vector_lists

ENGLISH = ["knowledge/engineering/api-authentication.md",
           "knowledge/engineering/runbook-ingest-5xx.md"]
CHINESE = sorted(str(p.relative_to(REPO)) for folder in ("crops", "equipment")
                 for p in (REPO / "knowledge" / folder).glob("*.md"))
ABOUT_ENGLISH = ["How do I rotate a client secret?", "What should I check when ingest returns 502?",
                 "token expiry for devices"]
# the Chinese pages' subjects asked in English are read by the multilingual model
# (kbtools.query.crosslingual), in Milvus as locally
QUESTIONS = [*ABOUT_ENGLISH, "How do I bake sourdough bread?", "corn rust symptoms",
             "How often should the return filter be replaced?"]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory, milvus):  # noqa: F811
    repo = copy_example(tmp_path_factory.mktemp("mixed"), docs=CHINESE + ENGLISH)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))  # links
    # to the English documents left out
    engine = connect_url(milvus.url("mixed"), create_db=True)
    publish(engine, check_release(repo / "dist"))
    yield open_index(repo / "dist"), EngineReader(engine).current()
    engine.close()


def test_a_minority_model_finds_its_chunks_in_milvus(mixed):
    """Chunks without a model's vector (the Chinese ones, for the English model) were all
    stored with one and the same placeholder vector: hundreds of identical nodes in the HNSW
    graph, whose links led only to each other, and the search filtered to the model's chunks
    came back empty — English questions lost their vector candidates."""
    local, remote = mixed
    share = remote.candidate_source.partial["minilm"]
    assert share < 0.3  # the English model has vectors for a minority of the chunks
    for q in QUESTIONS:
        a_lists = vector_lists(local, q, [], None, local=True)
        b_lists = vector_lists(remote, q, [], None, local=False)
        assert a_lists.keys() == b_lists.keys(), q
        if q in ABOUT_ENGLISH:  # read by the English model; the others across languages
            assert list(a_lists) == ["vector:minilm"], q
        for name, a_list in a_lists.items():
            b_list = b_lists[name]
            assert len(a_list.keys) and set(b_list.keys.tolist()) == set(a_list.keys.tolist())
            # unfiltered HNSW: f16 vectors in usearch, f32 in Milvus (docs/scale.md): the
            # same candidates, in the same order but for near ties far down (the whole
            # USE list of "sourdough bread" swaps two at 0.0515)
            score_of = dict(zip(a_list.keys.tolist(), a_list.scores.tolist(), strict=True))
            assert all(abs(score_of[y] - score_of[x]) < 1e-3 for x, y in zip(
                a_list.keys.tolist(), b_list.keys.tolist(), strict=True)), (q, name)
        a, b = (search(index, q, k=5, keep_results=True) for index in (local, remote))
        assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results], q
        assert (b.no_answer, b.reason) == (a.no_answer, a.reason), q


def test_a_minority_models_missing_vectors_say_no_filter(mixed, monkeypatch):
    """The English model's vectors are fetched whole and ranked exactly with no filter
    given; a row missing among them was reported as one of the chunks "a filter allows"."""
    _, remote = mixed
    lacking_a_vector(monkeypatch, remote)
    with pytest.raises(EngineError, match=r"lacks the vectors of 1 of the \d+ chunks that "
                                          r"have their own \w+ vector; publish") as got:
        vector_lists(remote, ABOUT_ENGLISH[0], [], None, local=False)
    assert "filter" not in got.value.message
