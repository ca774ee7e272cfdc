"""A question word the index holds only with or without a hyphen (RS485 / RS-485, F03 / F-03,
deadheading / dead-heading, tag-out / tagout) is searched in the index's spelling
(kbtools.query.expansion.spellings): it found nothing and made the question unanswered, or
let a passage about another thing answer it."""

from __future__ import annotations

import pytest

from kbtools.index.reader import open_index
from kbtools.query.expansion import spellings
from kbtools.query.search import search
from tests.kbfixtures import built_pages

SECTIONS = [
    ("Fault F-03", "F-03 means the seal leak sensor tripped: replace the mechanical seal."),
    ("Controller link", "A loose RS-485 cable stops the controller link; reseat the connector."),
    ("Closed discharge valve", "Dead-heading the pump against a closed valve boils the liquid "
                               "in the casing and destroys the seal within minutes."),
    ("Safety", "Apply your own lock and tagout before opening the casing."),
    ("Hydraulic power", "Hydraulic power grows with flow and head; the head is in feet."),
    ("Bearings", "A worn bearing whines; grease it every three months."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("spellings"), SECTIONS))


def test_spellings_insert_or_drop_a_hyphen():
    assert "rs-485" in spellings("rs485") and "f-03" in spellings("f03")
    assert "dead-head" in spellings("deadhead")
    assert "tagout" in spellings("tag-out") and "rs-485" in spellings("rs_485")
    assert spellings("泵") == [] and spellings("ab") == []


@pytest.mark.parametrize(("question", "heading", "word", "variant"), [
    ("RS485 cable loose", "Controller link", "rs485", "rs-485"),
    ("what does fault F03 mean", "Fault F-03", "f03", "f-03"),
])
def test_a_word_spelled_without_the_index_hyphen_finds_its_passage(index, question, heading,
                                                                    word, variant):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == heading, [r.title for r in res.results]
    assert word not in res.filters.unknown_terms
    assert {"term": word, "expanded": [variant], "from": "spelling"} in res.filters.expanded


@pytest.mark.parametrize(("question", "heading", "word"), [
    ("what happens if I deadhead the pump", "Closed discharge valve", "deadhead"),
    ("tag-out before opening", "Safety", "tagout"),
])
def test_a_compound_of_words_meets_its_hyphenated_spelling_in_its_tokens(index, question,
                                                                         heading, word):
    """A compound of letters (dead-heading, tag-out) is also its joined word in the tokens
    (kbtools.index.tokenize), so no spelling expansion is needed to find it."""
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == heading, [r.title for r in res.results]
    assert word not in res.filters.unknown_terms


def test_a_word_the_index_has_is_not_respelled(index):
    res = search(index, "RS-485 cable", k=1, mode="bm25")
    assert not any(e["from"] == "spelling" for e in res.filters.expanded or ())
    assert "E99" in search(index, "reset fault E99", k=3).filters.unknown_terms
