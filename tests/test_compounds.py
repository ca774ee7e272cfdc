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


def test_a_prefix_or_a_function_word_written_apart_starts_no_compound(tmp_path):
    """``re main`` is no remain, ``every day`` no everyday, ``him self`` no himself: a bound
    prefix or a function word before a word makes another word of it, not a kind of it (a
    check valve is a valve, remain no main); the question's words are searched as typed.
    Two words that are words (``back ground``) still meet the knowledge's background."""
    index = open_index(built_pages(tmp_path, [
        ("Drain", "Water may remain in the pipe after the pump stops; drain it."),
        ("Levels", "Log the tank level everyday and undo any wrong entry."),
        ("Sync", "The background job syncs the station every hour."),
        ("Pipes", "The main line and the day tank share one pipe.")]))
    assert compounds("re main line") == [("main", "line")]
    assert compounds("every day, un do it him self") == []
    for question in ("re main pipe", "every day tank level", "un do entry"):
        exp = expand(index, question, [])
        assert not [s for s in exp.shown if s["from"] == "spelling"], (question, exp.shown)
    res = search(index, "re main line pipe", k=2, mode="bm25")
    assert res.results[0].title == "Pipes", [r.title for r in res.results]
    exp = expand(index, "back ground job", [])
    assert {"term": "back ground", "expanded": index.bm25.tok("background"),
            "from": "spelling"} in exp.shown


def test_a_word_the_knowledge_writes_as_three_is_searched_as_them(tmp_path):
    """``airflowmeter`` where the knowledge writes ``air flow meter``: no two of its
    pieces are written side by side as one of them (airflow meter, air flowmeter), so it
    was an unknown word that found nothing."""
    index = open_index(built_pages(tmp_path, [
        ("Intake", "Read the air flow meters at the intake before each run."),
        ("Filter", "Clean the air filter when the flow drops."),
        ("Box", "The meter box is by the door.")]))
    tok = index.bm25.tok
    assert joined_words(index, "airflowmeter") == tuple(tok("air flow meter"))
    assert joined_words(index, "flowairmeter") == ()  # never written so
    res = search(index, "airflowmeter at the intake", k=3, mode="bm25")
    assert res.results[0].title == "Intake" and res.filters.unknown_terms == ()
    assert {"term": "airflowmeter", "expanded": list(tok("air flow meter")),
            "from": "spelling"} in res.filters.expanded


def test_the_words_of_a_joined_question_word_weigh_as_one_term(tmp_path):
    """``checkvalve chatter``: check and valve each counted as a question word, so a page
    checking valves (both words, no check valve and no chatter) outranked the page about
    chatter; the question typed one word for them, and they weigh as one together."""
    index = open_index(built_pages(tmp_path, [
        ("Discharge line", "A stuck check valve lets the water run back when the pump stops."),
        ("Gauges", "Check the valve handle, then check the valve gauge and check the valve "
                   "seal."),
        ("Chatter", "Chatter at the outlet means a worn seat; replace the seat."),
        ("Bearings", "A worn bearing whines; grease it every three months.")]))
    bm25 = index.bm25
    exp = expand(index, "checkvalve chatter", [])
    parts = [bm25.vocab[t] for t in bm25.tok("check valve")]
    assert set(parts) <= set(exp.full_ids) and [exp.weights[i] for i in parts] == [0.5, 0.5]
    res = search(index, "checkvalve chatter", k=3, mode="bm25")
    assert res.results[0].title == "Chatter", [r.title for r in res.results]
    assert expand(index, "lockout chatter", []).weights == {}  # (no words written so)


def test_three_words_in_one_chunk_but_not_side_by_side_are_no_other_spelling(tmp_path):
    """``air flow meter``: a chunk naming air, flow and a meter apart does not write the
    compound, so airflowmeter is the knowledge's only spelling and weighs as the question's
    words (it was searched at half weight as soon as one chunk held all three)."""
    index = open_index(built_pages(tmp_path, [
        ("Meter", "Calibrate the airflowmeter before each run."),
        ("Filter", "Clean the air filter when the flow drops; read the meter after.")]))
    joined = index.bm25.vocab[index.bm25.tok("airflowmeter")[0]]
    exp = expand(index, "air flow meter", [])
    assert joined in exp.full_ids
