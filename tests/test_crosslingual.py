"""English questions over knowledge written in Chinese (kbtools.query.crosslingual): read by
the multilingual model when the answer is written in the other language, answered or
refused by the cross-language threshold; English questions about English pages, and an
English corpus, read as before. Real models and real indexes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query.crosslingual import worded
from kbtools.query.search import search
from tests.kbfixtures import REPO, copy_example

# English questions whose answers the example writes in Chinese only, and the page holding it
ACROSS = [("corn rust symptoms", "corn-southern-rust.md"),
          ("How often should the return filter be replaced?", "hx260-ch06-maintenance.md"),
          ("How do I calculate pesticide dilution?", "pesticide-dilution-and-phi.md"),
          ("What protective clothing should I wear when spraying?", "pesticide-operator-safety.md"),
          ("how to spot fall armyworm larvae", "fall-armyworm.md")]
OUT_OF_SCOPE = ["best pizza recipe", "How to replace a car tire",
                "The boiler feed pump is cavitating, what should I check?",
                "What is the capital of France?"]


def _vector_models(res) -> set[str]:
    return {r.why["vector_model"] for r in res.results if r.why.get("vector_model")}


def test_an_english_question_finds_the_chinese_page_answering_it(example_index):
    """"corn rust symptoms" was "no answer in the knowledge" though 玉米南方锈病 has a page
    on it: the English model, which reads English questions, has no vectors of Chinese
    chunks, so only a synonym an author wrote could reach them. Now the multilingual model
    reads the question when the best chunk it finds is written in another language."""
    idx = open_index(example_index)
    for q, doc in ACROSS:
        res = search(idx, q, k=3)
        assert not res.no_answer, q
        docs = [r.doc for r in res.results]
        assert any(d.endswith(doc) for d in docs[:2]), (q, docs)
        assert _vector_models(res) == {"use"}, q


# English names from the example's knowledge/_synonyms.txt of what its pages write in Chinese
# only, the page about it, and a page about something else that must not come first
SYNONYM_ACROSS = [("fusarium head blight", "wheat-scab.md"),
                  ("fall armyworm", "fall-armyworm.md"),
                  ("southern rust", "corn-southern-rust.md"),
                  ("pre-harvest interval", "pesticide-dilution-and-phi.md"),
                  ("spray drone", "drone-calibration-rice.md")]


def test_an_english_synonym_of_a_chinese_term_ranks_its_page_first(example_index):
    """An author's synonym group (赤霉病 = … = fusarium head blight) is the only evidence
    for an English name of a Chinese-only term: the multilingual model's best similarity
    for "fusarium head blight" is 0.17, far under the cross-language threshold, yet that
    noise, rescaled to the most weight, ranked a fall-armyworm passage first and left the
    page on 赤霉病 out of the first five (and ten results were "no answer"). Vectors that find nothing now weigh as any
    question's do, and the synonym's page comes first."""
    idx = open_index(example_index)
    for q, doc in SYNONYM_ACROSS:
        for k in (5, 10):  # at k=10, "fusarium head blight" was "no answer"
            res = search(idx, q, k=k)
            assert not res.no_answer, (q, k)
            assert res.results[0].doc.endswith(doc), (q, k, [r.doc for r in res.results])
        assert res.filters.expanded and res.filters.expanded[0]["from"] == "synonyms", q


def test_a_synonym_named_question_is_not_outweighed_by_a_similarity_just_over_the_threshold(
        example_index):
    """"wheat scab" (赤霉病 = … = wheat scab) reached 0.3316 with the multilingual model, on
    the page on 小麦蚜虫 (wheat aphids): just over the cross-language threshold (0.33), so its
    vectors took the most weight and ranked the aphids page first, the 赤霉病 page BM25 ranked
    first third. A question whose every word the index lacks is an author's synonym is
    weighed as any question is; the threshold is not moved for it."""
    idx = open_index(example_index)
    res = search(idx, "wheat scab", k=5)
    assert max(r.why["vector_score"] or 0.0 for r in res.results) >= 0.33  # (the premise)
    assert res.results[0].doc.endswith("wheat-scab.md"), [r.doc for r in res.results]
    # a question with a word no synonym names is still read across languages
    res = search(idx, "corn rust symptoms", k=5)
    assert res.results[0].doc.endswith("corn-southern-rust.md")


def test_out_of_scope_english_questions_stay_unanswered(example_index):
    """Crossing languages lowers the similarity an answer reaches; an unrelated question's
    best Chinese chunk still stays under the cross-language threshold."""
    idx = open_index(example_index)
    for q in OUT_OF_SCOPE:
        assert search(idx, q).no_answer, q


def test_english_questions_about_english_pages_keep_the_english_model(example_index):
    idx = open_index(example_index)
    for q, doc in [("Why use SQLite on devices?", "adr-0001-sqlite-on-devices.md"),
                   ("How do I rotate a client secret?", "api-authentication.md")]:
        res = search(idx, q, k=3)
        assert not res.no_answer and res.results[0].doc.endswith(doc), q
        assert _vector_models(res) <= {"minilm"} and _vector_models(res), q


def test_a_question_of_numbers_units_and_codes_belongs_to_no_language(example_index):
    """"17.5MPa" has no Chinese character, but it is no English question either: it is read
    by the multilingual model over every chunk, its value found where the specs write it."""
    assert not worded("17.5MPa") and not worded("E17") and not worded("HX-260 E17")
    assert not worded("30 rpm 17.5 MPa") and worded("corn rust") and worded("E17 reset")
    res = search(open_index(example_index), "17.5MPa", k=3)
    assert not res.no_answer and res.results[0].doc.endswith("hx260-ch02-specs.md")
    assert "17.5" in res.results[0].text


PROBE = """
import json, sys
from pathlib import Path
from kbtools.embed.registry import model_loads
from kbtools.index.reader import open_index
from kbtools.query.search import search
res = search(open_index(Path(sys.argv[1])), sys.argv[2])
print(json.dumps({"loads": model_loads(), "no_answer": res.no_answer,
                  "docs": [r.doc for r in res.results]}))
"""


def _probe(index, question: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    out = subprocess.run([sys.executable, "-c", PROBE, str(index), question], env=env,
                         capture_output=True, text=True, check=True, cwd=REPO)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def english_index(tmp_path_factory):
    repo = copy_example(tmp_path_factory.mktemp("english"),
                        docs=["knowledge/engineering/api-authentication.md",
                              "knowledge/engineering/adr-0001-sqlite-on-devices.md"])
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    return repo / "dist"


def test_an_english_corpus_reads_english_questions_with_the_english_model_alone(
        english_index, example_index):
    """Where the English model has vectors of every chunk, an English question costs no
    second model: a fresh process loads MiniLM only; over the mixed example it loads USE too."""
    alone = _probe(english_index, "How do I rotate a client secret?")
    assert alone["loads"].get("minilm") and not alone["loads"].get("use"), alone
    assert alone["docs"] and alone["docs"][0].endswith("api-authentication.md")
    mixed = _probe(example_index, "corn rust symptoms")
    assert mixed["loads"].get("use") and not mixed["no_answer"], mixed
