"""Typed search results: `to_dict()` is the JSON contract, key for key and in order, and a
`Citation` makes the citation text for people and for agents."""

from __future__ import annotations

from dataclasses import replace

from kbtools.index.reader import ReleaseInfo
from kbtools.query.results import Citation, SearchFilters, SearchResponse, SearchResult

RESULT_KEYS = ["rank", "score", "chunk_id", "doc", "title", "heading_path", "line_start",
               "line_end", "kind", "text", "verified", "verification", "source", "metadata", "links", "extra",
               "last_commit", "last_author", "last_changed", "why", "evaluated", "more",
               "outdated", "superseded_by", "citation"]


def _result(heading_path: tuple[str, ...] = ("Ch 5", "5.2 Reset")) -> SearchResult:
    return SearchResult(
        rank=1, score=0.5, chunk_id="abc", citation=Citation("knowledge/x.md", heading_path, 3, 9),
        title="X", kind="section", text="E17 reset", verified=True, source=None,
        metadata={"title": "X"}, links=[], extra={}, last_commit=None, last_author=None,
        last_changed=None, why={"bm25_rank": 1, "matched_terms": ["e17"]})


def test_citation_text_for_agents_and_people():
    c = Citation("knowledge/x.md", ("Ch 5", "5.2 Reset"), 3, 9)
    assert c.text() == "knowledge/x.md:3-9 § Ch 5 > 5.2 Reset"
    assert c.display() == "knowledge/x.md › Ch 5 › 5.2 Reset (lines 3–9)"
    top = Citation("knowledge/x.md", (), 1, 2)
    assert top.text() == "knowledge/x.md:1-2"
    assert top.display() == "knowledge/x.md (lines 1–2)"
    one = Citation("knowledge/x.md", ("Ch 5",), 70, 70)
    assert one.display() == "knowledge/x.md › Ch 5 (line 70)"


def test_result_dict_keys_in_contract_order():
    r = _result()
    d = r.to_dict()
    assert list(d) == RESULT_KEYS
    assert d["heading_path"] == ["Ch 5", "5.2 Reset"] and d["doc"] == r.doc == "knowledge/x.md"
    assert d["citation"] == r.citation.text() == "knowledge/x.md:3-9 § Ch 5 > 5.2 Reset"
    assert d["evaluated"] is False and d["more"] == [] and "evaluation" not in d
    assert d["outdated"] is False and d["superseded_by"] == []
    flagged = replace(r, outdated=True, superseded_by=("knowledge/new.md",)).to_dict()
    assert flagged["outdated"] is True and flagged["superseded_by"] == ["knowledge/new.md"]


def test_evaluated_result_carries_its_evaluation_after_the_contract_keys():
    ev = {"status": "match", "outputs": [{"风险等级": "极高"}], "cells": []}
    d = replace(_result(), evaluation=ev).to_dict()
    assert list(d) == [*RESULT_KEYS[:-1], "evaluation", "citation"]
    assert d["evaluated"] is True and d["evaluation"] == ev


def test_response_dict_keys_appear_only_when_set():
    release = ReleaseInfo(tag=None, source_commit="c" * 40)
    empty = SearchResponse("", release, SearchFilters(), reason="empty question")
    assert empty.to_dict() == {
        "format": 1, "query": "", "release": {"tag": None, "source_commit": "c" * 40},
        "no_answer": True,
        "filters": {"where": [], "verified_only": False, "routed": []}, "results": [],
        "reason": "empty question"}
    filters = SearchFilters(where=("crop=wheat",), verified_only=True,
                            routed=({"field": "crop", "value": "wheat", "effect": "boost"},),
                            reranked_by="model", unknown_terms=(),
                            expanded=({"term": "烂麦头", "expanded": ["赤霉病"],
                                       "from": "synonyms"},))
    full = SearchResponse("q", ReleaseInfo("v1", "c" * 40, serial=3, released=True), filters,
                          no_answer=False, results=(_result(),), took_ms=1.5)
    d = full.to_dict()
    assert list(d) == ["format", "query", "release", "no_answer", "filters", "results",
                       "took_ms"]
    assert d["release"] == {"tag": "v1", "source_commit": "c" * 40, "serial": 3}
    assert list(d["filters"]) == ["where", "verified_only", "routed", "reranked_by",
                                  "unknown_terms", "expanded"]
    assert d["results"][0]["citation"] == "knowledge/x.md:3-9 § Ch 5 > 5.2 Reset"
