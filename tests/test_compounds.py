"""A compound the knowledge writes joined (oring, checkvalve, tagout) and a question writes
apart, spaced or hyphenated (``o ring``, ``check valve``, ``tag-out``): the joined token is
searched and the parts are no unknown words (kbtools.query.compounds, `expand`). The
hyphenated knowledge (O-ring: oring, o, ring) met every spelling already; the joined one met
only the joined question."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.index.reader import open_index
from kbtools.query.compounds import compounds, splits
from kbtools.query.expansion import compound_weight, expand, joined_words
from kbtools.query.search import search
from tests.kbfixtures import built_pages

SECTIONS = [
    ("Seal kit", "Replace the oring on the shaft whenever the seal weeps."),
    ("Discharge line", "A stuck checkvalve lets the water run back when the pump stops."),
    ("Safety", "Apply your own lock and tagout before opening the casing."),
    ("Bearings", "A worn bearing whines; grease it every three months."),
    ("Motor faults", "E17 means the motor faulted on overcurrent; let it cool."),
    ("Check list", "Check the gauge and the handle each morning."),
    ("Parts", "Order a part for the drive: the shaft key and its sleeve."),
]


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    return built_pages(tmp_path_factory.mktemp("compounds"), SECTIONS)


@pytest.fixture(scope="module")
def index(dist):
    return open_index(dist)


def test_the_words_a_question_may_join():
    assert compounds("replace the O ring") == [("replace", "the"), ("o", "ring")]
    assert compounds("tag-out, then lock out tag out") == [("tag", "out"), ("lock", "out")]
    # a stop word ends a compound, never starts one; a line, a number or a path parts words
    assert compounds("a part no one") == [("part", "no")]
    assert compounds("check\nvalve 3 way /sql-statements/ x") == []
    assert compounds("ｃｈｅｃｋ ｖａｌｖｅ") == [("check", "valve")]


@pytest.mark.parametrize(("question", "heading", "typed", "joined"), [
    ("replace the o ring on the shaft", "Seal kit", "o ring", "oring"),
    ("replace the O ring", "Seal kit", "o ring", "oring"),
    ("stuck check valve", "Discharge line", "check valve", "checkvalve"),
    ("tag out before opening", "Safety", "tag out", "tagout"),
])
def test_a_compound_written_apart_finds_the_joined_spelling(index, question, heading, typed,
                                                            joined):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == heading, [r.title for r in res.results]
    assert res.filters.unknown_terms == ()
    token = index.bm25.tok(joined)
    assert {"term": typed, "expanded": token, "from": "spelling"} in res.filters.expanded


def test_a_part_of_a_compound_the_index_holds_joined_is_no_unknown_word(index):
    """``tag-out`` is tagout and tag: the index holds tagout only, so tag was "Not in the
    knowledge"."""
    res = search(index, "tag-out before opening", k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == "Safety"
    assert res.filters.unknown_terms == () and res.not_in_knowledge == ()
    assert not res.filters.expanded  # tagout is the question's own token


def test_words_whose_join_the_index_lacks_are_searched_as_written(index):
    """``check the valve`` is no compound, ``a part`` is not apart; words the index holds
    apart and not joined are left alone."""
    for question in ("check the gauge valve", "order a part", "shaft key sleeve"):
        exp = expand(index, question, [])
        assert not [s for s in exp.shown if s["from"] == "spelling"], (question, exp.shown)


def test_matched_terms_are_the_words_the_question_typed_then_the_passage_s(index, dist):
    """``why.matched_terms`` listed the stems (bear, whine, fault): the question's words
    now, then the passage's own spellings of them (what a display highlights); a term the
    question does not type (tagout for ``tag out``, E17 for ``e 17``) as the passage writes
    it."""
    res = search(index, "worn bearings whining", k=1, mode="bm25")
    assert res.results[0].why["matched_terms"] == ["worn", "bearings", "bearing", "whining",
                                                   "whines"]
    res = search(index, "tag out before opening", k=1, mode="bm25")
    assert res.results[0].why["matched_terms"] == ["before", "opening", "tagout"]
    out = CliRunner().invoke(main, ["query", "Motor FAULTED e 17", "--index", str(dist),
                                    "--json", "-k", "1"])
    assert out.exit_code == 0, out.output
    top = json.loads(out.output)["results"][0]
    assert top["title"] == "Motor faults"
    assert top["why"]["matched_terms"] == ["Motor", "FAULTED", "faults", "E17"]
    explained = CliRunner().invoke(main, ["query", "worn bearings whining", "--index",
                                          str(dist), "--explain", "-k", "1"])
    assert "terms=['worn', 'bearings', 'bearing', 'whining', 'whines']" in explained.output


# the other direction: the knowledge writes the compound apart, the question joined
APART = [
    ("Discharge line", "A stuck check valve lets the water run back when the pump stops."),
    ("Safety", "Lock out the breaker and tag it before opening the casing."),
    ("Sand filter", "Backwash the sand until the water runs clear."),
    ("Spare box", "Keep the spare seals in the box by the door."),
    ("Bearings", "A worn bearing whines; grease it every three months."),
    ("Drive", "Tension the V-belt until it gives a finger's width."),
]


@pytest.fixture(scope="module")
def apart(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("apart"), APART))


def test_the_ways_a_word_may_be_two():
    assert splits("lockout")[:2] == [("loc", "kout"), ("lock", "out")]
    assert ("in", "let") not in splits("inlet")  # a stop word starts no compound
    assert splits("abc") == [] and splits("check-valve") == [] and splits("e17x") == []


@pytest.mark.parametrize(("question", "heading", "typed", "parts"), [
    ("stuck checkvalve", "Discharge line", "checkvalve", ["check", "valve"]),
    ("stuck Checkvalves", "Discharge line", "Checkvalves", ["check", "valve"]),
    ("lockout before opening", "Safety", "lockout", ["lock"]),
])
def test_a_compound_written_joined_finds_the_words_the_knowledge_writes(apart, question,
                                                                        heading, typed, parts):
    res = search(apart, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == heading, [r.title for r in res.results]
    assert res.filters.unknown_terms == () and res.not_in_knowledge == ()
    searched = [t for p in parts for t in apart.bm25.tok(p)]
    assert {"term": typed, "expanded": searched, "from": "spelling"} in res.filters.expanded


def test_two_known_words_the_knowledge_never_writes_side_by_side_stay_unknown(apart):
    """sand and box are both in the index, never as ``sand box``."""
    assert joined_words(apart, "sandbox") == ()
    res = search(apart, "spare seals sandbox", k=3, mode="bm25")
    assert "sandbox" in res.filters.unknown_terms
    assert not [s for s in res.filters.expanded if s["from"] == "spelling"]
    assert joined_words(apart, "checkvalve") == tuple(apart.bm25.tok("check valve"))


def test_a_joined_compound_weighs_as_the_words_its_holders_lack(index, apart):
    """``check valve``: the check list holds check twice and no valve, the discharge line
    checkvalve once; weighed as one term, checkvalve lost. A compound the knowledge only
    hyphenates (V-belt: vbelt, v, belt) is not searched joined: its holders hold the words,
    which would count twice (a product name typed apart, ``TiDB Lightning``, outranked the
    pages about it by those naming the ``tidb-lightning`` command)."""
    res = search(index, "check valve", k=3, mode="bm25")
    assert res.results[0].title == "Discharge line", [r.title for r in res.results]
    bm25 = index.bm25
    joined = bm25.vocab[bm25.tok("checkvalve")[0]]
    assert compound_weight(index, joined, bm25.tok("check valve")) > 1
    vbelt = apart.bm25.vocab[apart.bm25.tok("vbelt")[0]]
    assert compound_weight(apart, vbelt, apart.bm25.tok("v belt")) == 0.0
    res = search(apart, "v belt tension", k=3, mode="bm25")
    assert res.results[0].title == "Drive"
    assert not [s for s in res.filters.expanded if s["from"] == "spelling"]


def test_a_compound_the_knowledge_also_writes_apart_is_a_spelling_of_the_question_s_words(
        tmp_path):
    """``health care``: where the knowledge writes the words side by side too, its joined
    spelling (healthcare) is searched as another spelling (EXPANSION_WEIGHT), not as the
    question's own words: it outranked passages writing them as the question does on
    scifact; where the knowledge writes it only joined (checkvalve), it weighs as the
    question's words."""
    index = open_index(built_pages(tmp_path, [
        ("Clinic", "Health care workers wash their hands before every visit."),
        ("Budgets", "Healthcare budgets rise every year."),
        ("Pump", "A stuck checkvalve lets the water run back."),
        ("Gauge", "Check the gauge each morning; the valve handle turns left.")]))
    # (check and valve in one chunk, never side by side: checkvalve is the only spelling)
    bm25 = index.bm25
    exp = expand(index, "health care budgets", [])
    healthcare = bm25.vocab[bm25.tok("healthcare")[0]]
    assert healthcare in exp.ids and healthcare not in exp.full_ids
    exp = expand(index, "stuck check valve", [])
    checkvalve = bm25.vocab[bm25.tok("checkvalve")[0]]
    assert checkvalve in exp.full_ids
