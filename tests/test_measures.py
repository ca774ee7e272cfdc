"""Bounds and amounts (kbtools.query.expansion.MEASURES): a question asks for "the maximum
upload size", the documentation states "the 25 MB upload limit". They share only "upload",
and without the built-in vocabulary BM25 ranks a page that names the product above the
answer; with it the answer's words are found (and the question's "maximum" is not unknown).
A knowledge repository's own synonym group for one of these words takes precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query.expansion import MEASURES
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import GOOD_FM

DOC = GOOD_FM.replace("Generated", "{title}") + "\n# {title}\n\n{body}\n"
RUNBOOK = ("The ingest API accepts uploads from devices. When the ingest API returns errors, "
           "devices queue their uploads and retry each upload later.")
LOG = "\n\n".join(f"## {h}\n\n{b}" for h, b in [
    ("Photo uploads retried forever", "Photos above the 25 MB upload limit were rejected "
                                      "with HTTP 413 and retried without end."),
    ("Clock drift", "Tablets switched off for weeks booted with a wrong clock."),
    ("Slow report query", "A report query held a database connection for thirty seconds."),
])
QUESTION = "What is the maximum upload size?"


def _build(root: Path, synonyms: str | None = None, runbook_extra: str = "") -> Path:
    docs = {"knowledge/runbook.md": DOC.format(title="Ingest API runbook",
                                               body=RUNBOOK + runbook_extra),
            "knowledge/log.md": DOC.format(title="Pitfalls", body=LOG)}
    if synonyms is not None:
        docs["knowledge/_synonyms.txt"] = synonyms
    repo = make_repo(root, docs=docs)
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    return repo / "dist"


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(_build(tmp_path_factory.mktemp("measures")))


def test_the_vocabulary_is_chinese_and_english():
    assert set(MEASURES.others("maximum")) >= {"limit", "max"}
    assert "MB" in MEASURES.others("size") and "上限" in MEASURES.others("最大")
    assert MEASURES.others("upload") == []


def test_a_bound_asked_for_finds_the_bound_stated(index):
    res = search(index, QUESTION, k=3, mode="bm25")
    assert res.results[0].doc == "knowledge/log.md", [r.doc for r in res.results]
    assert {"limit", "MB"} <= set(res.results[0].why["matched_terms"])  # as the page writes it
    assert res.filters.unknown_terms == ()  # "maximum" is understood through "limit"
    shown = {e["term"]: e for e in res.filters.expanded}
    assert shown["maximum"]["from"] == shown["size"]["from"] == "measures"
    # hybrid search with a real model: the signature questions of tests/test_search.py


def test_an_unknown_bound_word_weighs_as_the_question_own(index):
    """No chunk says "maximum", so its expansion to "limit" carries the word's full weight."""
    own = search(index, "upload limit", k=1, mode="bm25").results[0]
    expanded = search(index, "upload maximum", k=1, mode="bm25").results[0]
    assert own.doc == expanded.doc == "knowledge/log.md"
    assert expanded.why["bm25_score"] == pytest.approx(own.why["bm25_score"])


def test_a_known_bound_word_lets_its_own_passage_win_a_tie(tmp_path):
    """Where the knowledge says "maximum" too, "limit" found through it counts half."""
    index = open_index(_build(tmp_path, runbook_extra=" A device retries the maximum number "
                                                        "of times."))
    own = search(index, "upload limit", k=1, mode="bm25").results[0]
    same = [r for r in search(index, "upload maximum", k=5, mode="bm25").results
            if r.chunk_id == own.chunk_id]
    assert own.doc == "knowledge/log.md" and same
    assert same[0].why["bm25_score"] < own.why["bm25_score"]


def test_the_knowledge_own_group_takes_precedence(tmp_path):
    """A repository that says "maximum = ceiling" means its own word: "maximum" is not
    expanded to "limit" (its size still is to MB)."""
    own = open_index(_build(tmp_path, "maximum = ceiling\n"))
    res = search(own, QUESTION, k=3, mode="bm25", keep_results=True)
    assert all(e["from"] == "synonyms" for e in res.filters.expanded if e["term"] == "maximum")
    assert any(e["term"] == "size" for e in res.filters.expanded)
    matched = {t for r in res.results for t in r.why["matched_terms"]}
    assert "MB" in matched and "limit" not in matched
