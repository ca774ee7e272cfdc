"""English questions on a small English knowledge base (issue 17). Their framing (how many,
how long, tell me, I need to know, any idea, hi) is neither an unknown word nor a BM25 term
of the question, while the same words naming a thing (a long shaft, the last stage, show
mode) still count (`kbtools.query.framing`); a unit named in words (litres) is searched as
the one-letter symbol the knowledge writes after a number (4.5 L:
`kbtools.query.english.ONE_LETTER_UNITS`)."""

from __future__ import annotations

import pytest

from kbtools.index.reader import open_index
from kbtools.query.calibration import question_share
from kbtools.query.english import written_after_number
from kbtools.query.framing import unframed
from kbtools.query.search import search
from tests.kbfixtures import built_pages

PASSAGES = [
    ("Oil change", "Change the oil every 2,000 operating hours or every 12 months. Use ISO VG 46 "
                   "compressor oil. Capacity: 4.5 L."),
    ("Relief valve", "The relief valve must open at 11 bar. Replace a valve that hisses below "
                     "8 bar."),
    ("Long shaft", "Grease the long shaft bearing of the compressor every week."),
    ("Last stage", "The last stage of the compressor runs hottest: check its cooler daily."),
    ("Show mode", "Show mode cycles the panel screens of the compressor; hold the menu key to "
                  "leave it."),
    ("Idea board", "Post an improvement on the idea board beside the compressor room."),
]
FRAMING = {"how", "many", "much", "long", "often", "last", "take", "need", "needs", "know",
           "tell", "show", "explain", "hi", "hello", "idea", "me", "i", "any", "help", "type"}


def _words(text: str) -> list[str]:
    return [w.strip("?,.!").lower() for w in text.split() if w.strip("?,.!")]


@pytest.mark.parametrize(("question", "left"), [
    ("how many litres of oil does it take", "how litres of oil does it"),
    ("How long does the oil last?", "How does the oil ?"),
    ("how much oil does the compressor need", "how oil does the compressor"),
    ("how often should I change the oil", "how should I change the oil"),
    ("any idea about the oil grade?", "about the oil grade?"),
    ("I need to know the oil grade", "the oil grade"),
    ("we'd like to know the oil grade", "the oil grade"),
    ("do you know the oil grade", "the oil grade"),
    ("hi, tell me the oil capacity", ", the oil capacity"),
    ("Hello there, could you show me the oil change", ", could you the oil change"),
    ("explain the relief valve", "the relief valve"),
    ("can you explain how the relief valve works", "can you how the relief valve works"),
    ("can you help me with the relief valve", "can you with the relief valve"),
    ("what type of oil should I use", "what of oil should I use"),
    ("Which kinds of oil fit?", "Which of oil fit?"),
])
def test_framing_words_are_blanked(question, left):
    out = unframed(question)
    assert len(out) == len(question)  # the other words keep their places
    assert " ".join(out.split()) == left


@pytest.mark.parametrize("question", [
    "what is the long shaft torque", "replace the last stage cooler", "leave show mode",
    "EXPLAIN ANALYZE output", "Hi limit alarm", "how many teeth does the long gear have",
    "the oil needs to last 12 months", "how the shaft takes the load", "post on the idea board",
    "tips of the nozzle", "how is the show mode left", "replace the type B fuse",
    "open the help menu", "what is the oil type",
])
def test_content_words_are_kept(question):
    """The same words naming a thing, or outside a frame, stay the question's words."""
    kept = _words(unframed(question))
    for word in ("long", "last", "show", "explain", "hi", "take", "takes", "needs", "idea",
                 "tips", "type", "help"):
        assert kept.count(word) == _words(question).count(word), (question, word)


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("framing"), PASSAGES, stem="ac"))


@pytest.mark.parametrize("question", [
    "how long does the oil last", "how much oil does the compressor need",
    "how often should I change the oil", "I need to know the oil grade",
    "any idea about the oil grade?", "hi, what oil should I use", "tell me the oil capacity",
    "show me the oil change", "what type of oil should I use", "help me with the oil change",
])
def test_framed_questions_are_answered_from_what_they_ask(index, question):
    res = search(index, question, k=3).to_dict()
    assert res["no_answer"] is False, res["reason"]
    assert res["results"][0]["title"] == "Oil change"
    assert not FRAMING & {w.lower() for w in res["filters"]["unknown_terms"]}
    matched = {t.lower() for r in res["results"] for t in r["why"]["matched_terms"]}
    assert not FRAMING & matched  # no BM25 term either: the long shaft is not "how long"


@pytest.mark.parametrize(("question", "title", "word"), [
    ("how do I grease the long shaft", "Long shaft", "long"),
    ("how hot does the last stage get", "Last stage", "last"),
    ("how do I leave show mode", "Show mode", "show"),
    ("where is the idea board", "Idea board", "idea"),
])
def test_the_same_words_naming_a_thing_still_count(index, question, title, word):
    res = search(index, question, k=3).to_dict()
    assert res["results"][0]["title"] == title
    assert word in [t.lower() for t in res["results"][0]["why"]["matched_terms"]]


@pytest.mark.parametrize("question", ["how many litres of oil does it take",
                                      "oil capacity in liters?", "How many Litres of oil"])
def test_a_unit_named_in_words_finds_its_symbol_after_a_number(index, question):
    res = search(index, question, k=3).to_dict()
    assert res["no_answer"] is False and res["results"][0]["title"] == "Oil change"
    assert res["filters"]["unknown_terms"] == []
    assert {"l"} <= {t.lower() for t in res["results"][0]["why"]["matched_terms"]}


def test_a_unit_whose_symbol_follows_no_number_stays_unknown(index):
    """No passage writes g (grams) or m (metres) after a number: still words it lacks."""
    for question, word in (("how many grams of oil", "grams"), ("relief valve metres", "metres")):
        assert word in search(index, question, k=3).to_dict()["filters"]["unknown_terms"]


@pytest.mark.parametrize(("texts", "symbol", "held"), [
    (["Capacity: 4.5 L."], "l", True), (["a 500g pack"], "g", True),
    (["flow 30 L/min"], "l", True), (["3\u00a0m of hose"], "m", True),
    (["an M8 bolt", "3 mm", "the L key", "4.5 Lb"], "l", False), (["3 mm", "M3"], "m", False),
])
def test_written_after_number(texts, symbol, held):
    assert written_after_number(texts, symbol) is held


def test_calibration_weighs_a_pseudo_query_as_a_search_reads_it(index):
    """The no-answer calibration's frames (``what do I need to know about {}?``) count their
    framing words for nothing, as a search does: the limit it sets sits above the shares
    of real questions, not of words no search weighs."""
    for frame in ("what do I need to know about the {}?", "how often should I replace the {}?"):
        assert question_share(index.bm25, frame.format("relief valve")) == \
            question_share(index.bm25, "relief valve")
