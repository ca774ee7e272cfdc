"""How many results a search asks for does not change which come first, up to the default.

Fusion normalises each candidate list over its depth, and the depth grew with `k`: an agent
asking MCP for 3 results, or `kb query -k 1`, was answered from other first results than the
default search, or told "no answer" where the default answers (the no-answer rule read only
the results asked for)."""

from __future__ import annotations

import pytest

from kbtools.index.reader import open_index
from kbtools.query.quality import load_questions
from kbtools.query.search import DEFAULT_K, search
from tests.kbfixtures import REPO

QUESTIONS = [q["query"] for q in load_questions(REPO / "tests" / "data" / "known_answers.jsonl")]
# questions asked in English over knowledge partly written in Chinese, and out of scope
QUESTIONS += ["corn rust symptoms", "How often should the return filter be replaced?",
              "What PPE do I need when mixing pesticides?", "forklift battery charging"]


@pytest.fixture(scope="module")
def index(example_index):
    return open_index(example_index)


def _shown(response):
    return response.no_answer, [r.chunk_id for r in response.results]


@pytest.mark.parametrize("k", range(1, DEFAULT_K))
def test_fewer_results_are_the_default_searchs_first(index, k):
    differ = []
    for q in QUESTIONS:
        default_no, default_ids = _shown(search(index, q))
        no, ids = _shown(search(index, q, k=k))
        if (no, ids) != (default_no, default_ids[:k] if not default_no else []):
            differ.append((q, no, ids, default_no, default_ids[:k]))
    assert not differ, differ

