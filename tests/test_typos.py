"""A question word with one slip of the keyboard (``microenviroment``, ``florescent``,
``methyltrasnferase``) is searched as the word the knowledge writes one edit away, and is no
unknown word: as typed it matched nothing and weighed as the rarest word towards "no
answer" (kbtools.query.typos, `expand`)."""

from __future__ import annotations

import pytest

from kbtools.index.reader import open_index
from kbtools.query.search import search
from kbtools.query.typos import MAX_LETTERS, MIN_LETTERS, corrected, one_edit
from tests.kbfixtures import built_pages

SECTIONS = [
    ("Tumour stroma", "The tumour microenvironment shapes how drugs reach the cells."),
    ("Drug transport", "Rigid molecules diffuse through the tissue faster than others."),
    ("Reporter lines", "Transgenic mice carry a fluorescent reporter under the Sox2 promoter."),
    ("Breeding", "Transgenic mice are bred in the facility."),
    ("Receptor structure", "The ectodomain binds the ligand."),
    ("Ligands", "The ligand binds the receptor inside the cell membrane."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("typos"), SECTIONS))


def test_the_words_one_edit_away():
    near = one_edit("floresc")
    assert {"fluoresc", "flresc", "folresc", "floresk"} <= near  # added, left out, swapped, changed
    assert "floresc" not in near and "fluorescc" not in near


def test_the_word_held_by_the_most_chunks_is_taken():
    """tanslocat is one edit from translocat and from tanslocate: the term more chunks
    hold is taken."""
    vocab = {"translocat": 0, "tanslocate": 1, "tra": 2}
    held = {0: 50.0, 1: 5.0, 2: 90.0}
    assert corrected("tanslocat", vocab, lambda ids: [held[i] for i in ids]) == "translocat"
    assert corrected("tanslocatez", vocab, lambda ids: [held[i] for i in ids]) == "tanslocate"
    # short tokens, codes and names with digits or separators, nothing one edit away: never
    for token in ("trax", "hx-260a", "e17abcde", "max_retries", "elasticsearch"):
        assert corrected(token, vocab, lambda ids: [1.0] * len(ids)) is None, token
    assert len("trax") < MIN_LETTERS


def test_a_very_long_run_of_letters_is_no_slip_and_costs_nothing_to_rule_out():
    """A question holding a 2,000-letter token (a pasted hash, a base64 blob, a log line
    without spaces) built its ~100,000 one-edit strings of 2,000 characters: a second and
    200 MB per token, up to four tokens a question, on every search. It is ruled out by its
    length; a word up to MAX_LETTERS long is still corrected."""
    import tracemalloc

    long_word = "abcdefghij" * 200
    vocab = {long_word[:-1]: 0, "pneumonoultramicroscopicsilicovolcanoconiosis": 1}
    tracemalloc.start()
    try:
        assert corrected(long_word, vocab, lambda ids: [1.0] * len(ids)) is None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
    assert corrected("pneumonoultramicroscopicsilicovolcanoconioss", vocab,
                     lambda ids: [1.0] * len(ids)) == \
        "pneumonoultramicroscopicsilicovolcanoconiosis"
    assert len(long_word) > MAX_LETTERS >= 45


@pytest.mark.parametrize(("question", "title", "typed"), [
    ("does the tumor microenviroment limit drug reach", "Tumour stroma", "microenviroment"),
    ("florescent transgenic mice", "Reporter lines", "florescent"),
])
def test_a_mistyped_word_finds_the_passage_writing_it(index, question, title, typed):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer, res.reason
    assert res.results[0].title == title, [r.title for r in res.results]
    assert typed not in res.filters.unknown_terms
    assert any(s["from"] == "spelling" for s in res.filters.expanded)


def test_a_mistyped_compound_is_read_by_its_joined_token(index):
    """``echo-domain`` is the tokens echodomain, echo and domain: echodomain is one edit
    from the knowledge's ectodomain."""
    res = search(index, "does the echo-domain bind the ligand", k=3, mode="bm25")
    assert res.results[0].title == "Receptor structure", [r.title for r in res.results]
    assert {"term": "echodomain", "expanded": ["ectodomain"], "from": "spelling"} in \
        res.filters.expanded


def test_a_word_two_edits_away_stays_unknown(index):
    """``microenvirnoment`` is two slips from the knowledge's word: no guess is made."""
    res = search(index, "tumor microenvirnomant and drugs", k=3, mode="bm25")
    assert "microenvirnomant" in res.filters.unknown_terms
    # (tumor is searched as the knowledge's tumour: another spelling, no slip)
    assert [s["term"] for s in res.filters.expanded if s["from"] == "spelling"] == ["tumor"]
