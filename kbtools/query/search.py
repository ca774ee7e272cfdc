"""The query pipeline, shared by `kb query`, `kb eval` and the MCP server.

search(index, query, …) → `SearchResponse` (kbtools.query.results), whose ``to_dict()`` is the
JSON contract of `kb query --json`; the index comes from `kbtools.index.reader.open_index`.
Stages: clean the question → filters (explicit --where, verified-only) and routing boosts
(kbtools.query.routing: front-matter vocabulary in the question) → BM25 and vector candidates →
fusion (kbtools.query.fusion) → page evidence (kbtools.query.pages, hybrid) → opt-in, hybrid:
pseudo-relevance feedback (kbtools.query.feedback: a second BM25 list, fused again) → hybrid,
for a question whose words no best candidate holds: hubs, anchor text (kbtools.query.anchors)
and linked pages (kbtools.query.neighbours) → list
items/code collapsed to their section → decision table evaluated when the question gives
its inputs (kbtools.query.answers) → one result per section and document diversity
(kbtools.query.distinct) → exact identifiers first (kbtools.query.identifiers) →
nested-duplicate suppression → relevance threshold → citations.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import date
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from kbtools.embed.base import on_one_blas_thread
from kbtools.embed.sentence_models import get_cross_encoder
from kbtools.index.reader import KbIndex, settle
from kbtools.query import (
    anchors,
    calibration,
    distinct,
    feedback,
    freshness,
    fusion,
    neighbours,
    pages,
    sections,
)
from kbtools.query.candidates import CandidateRequest, source_of
from kbtools.query.cited_parts import (
    CitedPart,
    Decided,
    cited_part,
    citing_judged,
    shown_words,
    without_parts,
)
from kbtools.query.coverage import Coverage
from kbtools.query.crosslingual import (
    crossed,
    crossed_lists,
    crossed_params,
    foreign_words,
    list_models,
    query_models,
)
from kbtools.query.expansion import EXPANSION_WEIGHT, expand, unknown_codes
from kbtools.query.filter_fields import degrees_as_celsius
from kbtools.query.filters import (
    Condition,
    checked_conditions,
    emptying_filters,
    filter_mask,
    fractions_left_out,
    meant_values,
    parse_where,
    resolve_docs,
    shown_verdict,
    split_unheld,
    where_text,
)
from kbtools.query.framing import unframed
from kbtools.query.identifiers import identifiers, is_about, listed_codes, only_identifiers, promote
from kbtools.query.inherit import inherit, widen_mask
from kbtools.query.keys import key_definitions, named_keys
from kbtools.query.local_candidates import LOCAL_CANDIDATES
from kbtools.query.question import (
    has_words,
    question_text,
    refuse_blank,
    searched_question,
    valued_text,
)
from kbtools.query.results import (
    FILTERED_AWAY,
    FILTERED_OUT,
    SearchFilters,
    SearchResponse,
    SearchResult,
    shown_title,
)
from kbtools.query.routing import ALIASES, boost_vector, route, routed_words
from kbtools.query.specific import (
    about_each,
    hit_texts,
    identifier_holders,
    identifier_level,
    identifier_levels,
    specific_identifiers,
    unlisted_holders,
    unranked,
)
from kbtools.query.unknown import as_written, question_forms, shown_unknown
from kbtools.query.wording import short_form_value

if TYPE_CHECKING:  # imported by a question one of whose best tables is a decision table
    from kbtools.query import answers

_UNVERIFIED: weakref.WeakKeyDictionary[KbIndex, np.ndarray | None] = weakref.WeakKeyDictionary()


def _unverified_vector(index: KbIndex) -> np.ndarray | None:
    """Per chunk: not verified (per chunk, so text changed after its review is weighted down
    like any unreviewed text). Made once per index: it is a pass over every chunk."""
    if index not in _UNVERIFIED:
        flags: np.ndarray = ~index.chunk_table().verified
        _UNVERIFIED[index] = flags if flags.any() else None
    return _UNVERIFIED[index]


def term_weights(index: KbIndex) -> Callable[[str], dict[str, float]]:
    """A piece of a long question -> the idf of each term of it the index knows (what
    `question_text` condenses a pasted log by)."""
    def weigh(piece: str) -> dict[str, float]:
        terms, ids, _ = index.bm25.query_terms(piece)
        return dict(zip(terms, index.bm25.idf(ids).tolist(), strict=True)) if ids else {}
    return weigh


# the pipeline --------------------------------------------------------------------------
DEFAULT_K = 5  # results of a search that names no k in its call or its index's kb.toml
# Candidates per retriever for each result asked for (at least [query] candidates): one result
# per section and document diversity need a deeper list to fill k with distinct answers.
CANDIDATES_PER_RESULT = 20
# A search for fewer results than the default ranks as the default does (its candidate depth,
# the verdict judged on its first `fusion.JUDGED` results), so its results are the default's
# first: fusion normalises each list over its depth, and an agent asking for 3 was answered from
# other first results (tidb_faq_zh: 86 of 248 questions' first three, 6 first results)
# or told "no answer" where the default answers (scifact: 3 of 300 asked for one).
NO_ANSWER_REASON = "no passage is relevant enough (below the relevance threshold)"
NO_WORDS_REASON = "the question has no word to search"  # a letter or marks alone


# A question's products (its page similarities, a filtered vector search) are small: on one
# BLAS thread they take ~0.1 ms; waking a second one cost 2-3 ms of CPU and 10+ ms of waiting
# for a core on a busy machine, after each question's embedding had run on one.
@on_one_blas_thread
def search(index: KbIndex, query: str, *, k: int | None = None, where: list[str] | None = None,
           conditions: Sequence[Condition] = (), verified_only: bool | None = None,
           mode: str = "hybrid",
           params: fusion.FusionParams | None = None,
           keep_results: bool = False, reranker: str | None = None,
           today: date | None = None) -> SearchResponse:
    """Run one question. ``keep_results`` returns the ranking even when the relevance
    threshold says "no answer" (evaluation scores ranking and threshold separately).
    ``today`` decides which documents are past their ``valid_until`` (default: the local
    date; `kbtools.query.freshness`). ``k`` defaults to the index's kb.toml ``[query] k``
    (5 unless set), as ``verified_only`` to its ``[query] verified_only``. ``where`` are
    filters as text (``KEY=VALUE``: `parse_where`), ``conditions`` filters already apart as
    (key, op, value), each value taken as it is (`checked_conditions`); both apply. A blank
    question (`question.is_blank`: nothing left once cleaned) is a `UsageError`, not an
    answer: nothing was asked."""
    t0 = time.perf_counter()
    qcfg = index.manifest["config"]["values"]["query"]
    if k is None:
        k = int(qcfg.get("k", DEFAULT_K))
    if verified_only is None:
        verified_only = bool(qcfg.get("verified_only", False))
    params = params or calibration.configured_params(index)
    parsed = parse_where(where) + checked_conditions(conditions)
    asked = searched_question(query, term_weights(index))
    text, condensed = asked.text, asked.report()
    filters = SearchFilters(where=tuple(where_text(*c) for c in parsed),
                            verified_only=verified_only)
    if not text:  # nothing asked: an error, as every surface says it naming its argument
        refuse_blank(query, "the question")
    parsed = resolve_docs(index, parsed)  # doc=crops/x.md, as `read` takes it
    mask = filter_mask(index, parsed, verified_only)
    if parsed:  # crop=玉木 of crop=小麦,玉木; crop!=玉米 where no document has 玉米: a note
        unheld, quiet = split_unheld(index, parsed)
        filters = replace(filters, unheld=tuple((f, tuple(m)) for f, m in unheld),
                          excludes_nothing=tuple(quiet),
                          fractions_left_out=tuple(fractions_left_out(index, parsed)),
                          degrees_as_celsius=tuple(degrees_as_celsius(index, parsed)))
    if not has_words(text):  # E, x, ？！。: nothing to search (filters checked first)
        return SearchResponse(text, index.release, filters, reason=NO_WORDS_REASON,
                              condensed=condensed)
    routed = route(index, text)
    filters = replace(filters, routed=tuple(dict(r, effect="boost") for r in routed))
    n = index.store.count()
    if n == 0:
        return SearchResponse(text, index.release, filters, reason="the index is empty",
                              condensed=condensed)
    if mask is not None and not mask.any():  # named, as every surface says it
        emptied, together = emptying_filters(index, parsed, verified_only)
        return SearchResponse(text, index.release, filters, reason=FILTERED_OUT,
                              condensed=condensed, together=together,
                              emptied_by=tuple(where_text(*c) for c in emptied),
                              meant=() if together else tuple(dict.fromkeys(
                                  m for c in emptied for m in meant_values(index, c))))

    terms, ids, unknown = index.bm25.query_terms(unframed(text))  # (how many, tell me)
    exp = expand(index, text, [r["value"] for r in routed if r["field"] == ALIASES],
                 terms + unknown)  # the question tokenized once
    valued = routed_words(index, routed, unknown)  # a front-matter value's words are known,
    unknown = [t for t in unknown if t not in exp.covers and t not in valued]  # a synonym's
    if exp:
        filters = replace(filters, expanded=exp.shown)
    depth = max(params.candidates, CANDIDATES_PER_RESULT * max(k, DEFAULT_K))
    # chunks sharing a section's vector are scored through it (kbtools.query.inherit)
    request = CandidateRequest(text, mode, tuple(parsed), verified_only,
                               widen_mask(index, mask), tuple(ids) + exp.full_ids, depth,
                               exp.weighed_ids(), EXPANSION_WEIGHT, tuple(exp.weights.items()))
    lists = inherit(index, source_of(index, LOCAL_CANDIDATES).ranked_lists(index, request), mask)
    across = crossed(index, text, lists)
    if across:  # read across languages (kbtools.query.crosslingual); by_synonyms: every word
        # the index lacks is the knowledge's own synonym's or alias's (wheat scab)
        by_synonyms = not unknown and any(s["from"] in ("synonyms", "aliases") for s in exp.shown)
        lists, params = crossed_lists(index, text, lists), crossed_params(params, lists,
                                                                          named=by_synonyms)
    today = freshness.today_or(today)
    boost = boost_vector(index, routed)
    fused = _fused(index, lists, params, boost, today, text, mode)
    if feedback_lists := feedback.with_feedback(index, fused, lists, request, params, ids,
                                                source_of(index, LOCAL_CANDIDATES)):
        lists = feedback_lists
        fused = _fused(index, lists, params, boost, today, text, mode)
    wanted = specific_identifiers(index, text)
    held = (identifier_holders(index, wanted, mask, list_models(lists) or query_models(index, text))
            | key_definitions(index, wanted, mask) if mode != "vector" else set())
    head = max(k * 8, 50)  # ranked on; further down, only the holders of identifiers
    covered = Coverage(index, terms, ids, unknown, exp, valued, text)  # once per chunk and search
    ranked = _reweighed(index, fused, lists, text, mode, params, mask,
                        ids + list(exp.full_ids), head, held, covered.of)
    if not ranked:
        return SearchResponse(text, index.release, filters, reason="nothing matched",
                              condensed=condensed)
    ranked += unlisted_holders(held, fused, ranked)
    table = sections.of(index)  # what ranking needs of a chunk (kbtools.query.sections)
    table.searched()
    ranked = ranked[:head] + [h for h in ranked[head:] if h.num in held]
    table.ensure(h.num for h in ranked)
    hits = _collapse_to_sections(table, [h for h in ranked if table.known[h.num]], mask)
    rows: Rows = {}  # the rows read: those a stage needs, then the results shown
    model = reranker or qcfg.get("reranker")
    if model:
        _read_rows(index, rows, [h.num for h in hits[:RERANK_DEPTH]])
        hits = rerank(model, text, hits, rows)
        filters = replace(filters, reranked_by=model)
        params = replace(params, doc_decay=1.0)  # the reranker's order stands
    evaluation = _evaluate(index, valued_text(query, asked), table.tables_of(hits))
    texts = hit_texts(index, hits, rows) if wanted else None  # once for both below
    levels = identifier_levels(wanted, texts, unranked(hits)) if texts is not None else {}
    if wanted and only_identifiers(text, identifiers(text)):  # ENC-5M: a holder answers it,
        levels = {num: 2 * level + 1 if level else 0  # after those about it (the E17 row)
                  for num, level in levels.items()}
    hits, more = _distinct(levels, hits, table, rows, params, evaluation, index,
                           about_each(wanted, texts))
    decided: Decided = {}  # a chunk kept for its (un)verified section: what its result cites
    if (want := shown_verdict(parsed, verified_only)) is not None:
        hits, decided = citing_judged(index, text, hits, covered.matched, rows, want)
    hits = table.give_way(hits, _yields(index, rows, covered))  # a row matched by its heading
    judged = table.suppress_nested(hits, max(k, fusion.JUDGED))  # the verdict reads these,
    picked, best = judged[:k], judged[:fusion.JUDGED]  # k of them are shown
    exact = bool(wanted) and any(is_about(levels[h.num] if h.num in levels else
                                          identifier_level(wanted, rows[h.num])) for h in best)
    if exact and unknown:  # a dotted key named by a best hit's heading path is no unknown
        named = named_keys(index, unknown, wanted, best, rows,
                           texts.texts if texts is not None else None)
        unknown = [t for t in unknown if t not in named]
    codes = [c for c in unknown_codes(index, text)  # E 99, as E99: a code the knowledge
             if not short_form_value("".join(c))]  # never mentions (RH 85 is a humidity)
    subjects = [t for t in unknown if t not in covered.values]  # 八十度 is a value, no subject
    verdict = evaluation is not None or fusion.answerable(
        best, covered.of(best), calibrated(index, params), has_terms=bool(ids or unknown or exp or valued),
        unknown_terms=[t for t in unknown if t not in listed_codes(unknown, wanted)] if exact
        else unknown, unknown_codes=[f"{p} {n}" for p, n in codes], exact=exact,  # E12 和 E15
        unknown_share=calibration.unknown_share(index, ids + list(exp.ids), subjects),
        paste=asked.paste, name_share=calibration.name_share(index, ids + list(exp.ids), subjects)
        if asked.paste else 1.0, line_share=covered.line_share(asked.lines, best),
        crossed=across or bool(subjects) and foreign_words(  # 玉米 rust 症状: read across
            text, subjects, as_written(index.bm25.tok, text, subjects)))
    if verdict or keep_results:  # the rows shown, whole (one query; `more` is shown too)
        shown = [h.num for h in picked] + [n for h in picked for n in more.get(h.num, ())]
        rows.update(index.store.chunks([n for n in dict.fromkeys(shown) if n not in rows]))
        index.store.complete(rows[h.num] for h in picked)
    forms = question_forms(index.bm25.tok.run_tokens, text, list(dict.fromkeys(
        t for h in picked if h.num not in decided for t in covered.matched(h.num)))) \
        if verdict or keep_results else {}
    results = tuple(_cite(index, forms, rows[h.num], h, rank, covered.matched(h.num),
                          more.get(h.num, ()), rows,
                          evaluation if h.why.get("evaluated") else None, today,
                          decided.get(h.num))
                    for rank, h in enumerate(picked, 1)) if verdict or keep_results else ()
    reason = None if verdict else NO_ANSWER_REASON
    if not verdict and mask is not None and not search(
            index, query, k=k, mode=mode, params=params, verified_only=False,
            reranker=reranker, today=today).no_answer:
        reason = FILTERED_AWAY  # the filters, not the knowledge, left it unanswered
    written, names = shown_unknown(index.bm25.tok, text, unknown, codes,  # as the user wrote
                                   covered.values)
    return SearchResponse(text, index.release, replace(filters, unknown_terms=written),
                          no_answer=not verdict, results=results,
                          reason=reason,
                          took_ms=round((time.perf_counter() - t0) * 1000, 2),
                          condensed=condensed, not_in_knowledge=names)


def _evaluate(index: KbIndex, question: str,
              tables: list[tuple[str, int, int]]) -> answers.Evaluation | None:
    """`answers.evaluate_question` of the decision tables among `tables`; None, importing no
    table code (`kbtools.query.answers`, `kbtools.decision`: ~0.1 s of a cold `kb query`),
    when none is one (`sections.decision_record`: the table's record as the build shipped it)."""
    if not (decided := [t for t in tables if sections.decision_record(index, *t[:2])]):
        return None
    from kbtools.query import answers

    return answers.evaluate_question(index, question, decided, answers.input_synonyms(index))


def keep_warm(index: KbIndex) -> None:
    """What a long-lived process (`kb serve`, `kb mcp`) does once a release has answered its
    first question: the section table read whole (else the second search would read it),
    the names of every decision table's inputs (`answers.input_vocabulary`), the vector
    graphs kept resident on huge pages where that helps (`KbIndex.keep_resident`),
    and what is loaded kept out of the garbage collector's full passes (`settle`)."""
    from kbtools.query import answers  # the table code, as every such process may need it

    sections.of(index).read_whole()
    answers.input_vocabulary(index, answers.input_synonyms(index))  # what a table's inputs are not
    index.keep_resident()
    settle()


def _fused(index: KbIndex, lists: dict[str, fusion.Ranked], params: fusion.FusionParams,
           boost: np.ndarray | None, today: date, text: str, mode: str) -> fusion.Fused:
    """The candidate lists fused, weighed for freshness and page evidence (as arrays: `Hit`s
    are made of the candidates ranked on only)."""
    fused = fusion.fuse_arrays(lists, params, boost=boost, unverified=_unverified_vector(index))
    fused = freshness.reweigh(index, fused, today)
    return _page_evidence(index, fused, lists, text, mode, params.page_weight)


# the best candidates whose words decide whether links and anchor text count for a question
GATE_HITS = 5


def _reweighed(index: KbIndex, fused: fusion.Fused, lists: dict[str, fusion.Ranked],
               text: str, mode: str, params: fusion.FusionParams, mask: np.ndarray | None,
               ids: list[int], head: int, held: set[int],
               coverage: Callable[[list[fusion.Hit]], np.ndarray]) -> list[fusion.Hit]:
    """The fused candidates ranked on (the first `head`, and the `held` ones further down),
    best first. Hybrid search on an index whose pages link to each other, for a question
    whose words none of the best GATE_HITS candidates holds (`fusion.words_found`, from
    each one's `coverage` of the question's idf weight): every candidate is weighed by the
    link structure first — pages many pages link to (hubs) rise (kbtools.query.neighbours),
    pages whose anchor text (the words of the links to them) matches the question rise or
    join (kbtools.query.anchors), then pages linked from the best pages, by the question's
    page similarity (kbtools.query.neighbours), within the filters' `mask`. Scores the
    caps of the last two stop at one value are ordered by the scores without the caps."""
    model = _first_vector_model(lists)
    hybrid = mode == "hybrid"
    hubs = hybrid and params.hub_weight > 0
    anchored = hybrid and "bm25" in lists and params.anchor_weight > 0
    linked = hybrid and model is not None and params.link_weight > 0
    if not (hubs or anchored or linked) or not neighbours.has_links(index):
        return fused.hits(head, held)
    ranked = fused.hits(head, held)  # ordered and made once: the gate reads its first
    gate = ranked[:GATE_HITS] if head >= GATE_HITS else fused.hits(GATE_HITS)
    if fusion.words_found(coverage(gate), params):
        return ranked
    if hubs:
        fused = neighbours.with_hubs(index, fused, params.hub_weight)
    hits = fused.hits()
    uncapped: dict[int, float] = {}  # capped scores are ordered by their evidence
    if anchored:
        hits = anchors.reweigh(index, hits, ids, params.anchor_weight, mask, uncapped)
    if linked and model is not None:
        similarity = pages.page_bonus(index, model, pages.question_vector(model, text), 1.0)
        hits = neighbours.reweigh(index, hits, similarity, params.link_weight, mask, uncapped)
    return hits


def _first_vector_model(lists: dict[str, fusion.Ranked]) -> str | None:
    """The model of the first vector candidate list (None: no vector list)."""
    return next((name.split(":", 1)[1] for name in lists if name.startswith("vector:")), None)


def _page_evidence(index: KbIndex, fused: fusion.Fused, lists: dict[str, fusion.Ranked],
                   text: str, mode: str, weight: float) -> fusion.Fused:
    """Hybrid search: each hit's document's page vector counts too (kbtools.query.pages),
    from the release's files or, for an engine's index, from what it published."""
    model = _first_vector_model(lists)
    if mode != "hybrid" or model is None or "bm25" not in lists:
        return fused
    return pages.reweigh(index, fused, model, text, weight)


def _distinct(levels: dict[int, int], hits: list[fusion.Hit], table: sections.SectionTable,
              rows: Rows, params: fusion.FusionParams,
              evaluation: answers.Evaluation | None, index: KbIndex,
              each: dict[int, str]) -> tuple[list[fusion.Hit], dict[int, list[int]]]:
    """The evaluated answer first (its row put in `rows`), then one hit per section (and
    identifier of the question it is about, `each`: the E12 row and the E17 row),
    documents diversified, chunks about the question's specific identifiers (``levels``:
    each hit's `identifier_level`) ahead of the rest. Returns the hits and each one's ``more``."""
    about = {num: level for num, level in levels.items() if is_about(level)}
    hits = promote(hits, lambda h: about.get(h.num, 0))  # the E17 row stands for its table
    section = table.sections_of(hits)
    hits, more = distinct.one_per_section(hits, lambda n: (section[n], each.get(n)))
    nums = [h.num for h in hits]  # each hit's document, gathered at once
    doc = dict(zip(nums, index.chunk_table().doc[nums].tolist(), strict=True))
    hits = promote(distinct.diversify(hits, doc.__getitem__, params.doc_decay),
                   lambda h: about.get(h.num, 0))
    row = evaluation.chunk(index) if evaluation is not None else None
    if evaluation is None or row is None:
        return hits, more
    rows[row["num"]] = row
    table.ensure([row["num"]])
    key = int(table.section[row["num"]])
    before = next((h for h in hits if h.num == row["num"]), None)
    top = max((h.score for h in hits), default=1.0)
    answer = fusion.Hit(row["num"], top, {**(before.why if before else fusion.unranked_why()),
                                          "evaluated": True,
                                          "cells": [c["reason"] for c in evaluation.cells]})
    rest = [h for h in hits if section[h.num] != key]
    more[row["num"]] = [h.num for h in hits if h.num != row["num"] and section[h.num] == key]
    return [answer, *rest], more


def calibrated(index: KbIndex, params: fusion.FusionParams) -> fusion.FusionParams:
    """The no-answer parameters of this index: its own unknown-share limit when the release
    carries a calibration (`kbtools.query.calibration`), else the configured one."""
    cal = calibration.load(index)
    return _with_unknown_share(params, cal.max_unknown_share) if cal else params


@lru_cache(maxsize=64)
def _with_unknown_share(params: fusion.FusionParams, limit: float) -> fusion.FusionParams:
    """`params` with ``max_unknown_share`` `limit` (made once per pair: `dataclasses.replace`
    of the 25 fields cost every search a few microseconds)."""
    return replace(params, max_unknown_share=limit)


RERANK_DEPTH = 20
Rows = dict[int, dict[str, Any]]  # chunk number → chunk row of the store


def rerank(model: str, query: str, hits: list[fusion.Hit], rows: Rows) -> list[fusion.Hit]:
    """Re-order the top hits by a sentence-transformers CrossEncoder (configured by name or
    local path; loaded offline only). Hits below the rerank depth keep their order."""
    head, tail = hits[:RERANK_DEPTH], hits[RERANK_DEPTH:]
    if not head:
        return hits
    scores = get_cross_encoder(model).score(query, [rows[h.num]["embed_text"] for h in head])
    order = sorted(range(len(head)), key=lambda i: (-scores[i], i))
    return [fusion.Hit(head[i].num, head[i].score, {**head[i].why,
                                                     "rerank_score": round(float(scores[i]), 6)})
            for i in order] + tail


def matched_terms(index: KbIndex, query: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    """The terms of `query` the chunks `rows` (store records) hold, each once, as a result
    citing one of them lists them (``why["matched_terms"]``: the question cleaned, its
    synonym expansion, the chunk's own spellings), without searching: what a page showing
    cited lines highlights of the question that led there."""
    text = question_text(query, term_weights(index))
    if not text:
        return []
    terms, ids, unknown = index.bm25.query_terms(unframed(text))
    routed = route(index, text)
    covered = Coverage(index, terms, ids, unknown,
                       expand(index, text, [r["value"] for r in routed if r["field"] == ALIASES]))
    asked = question_forms(index.bm25.tok.run_tokens, text, list(dict.fromkeys(
        t for row in rows for t in covered.matched(row["num"]))))
    out: dict[str, None] = {}
    for row in rows:
        meta = (index.store.doc(row["doc"]) or {"metadata": {}})["metadata"]
        out.update(dict.fromkeys(shown_words(index, asked, meta, row,
                                             covered.matched(row["num"]))))
    return list(out)


def _read_rows(index: KbIndex, rows: Rows, nums: list[int]) -> None:
    """Add the ranking rows of chunks `nums` not in `rows` yet (one query)."""
    missing = [n for n in dict.fromkeys(nums) if n not in rows]
    if missing:
        rows.update(index.store.ranking_rows(missing))


def _yields(index: KbIndex, rows: Rows, covered: Coverage) -> Callable[[int, int], bool]:
    """`Coverage.yields_to` of two chunks by number, their ranking rows read as asked (into
    `rows`, once each)."""
    def yields(fine: int, enclosing: int) -> bool:
        if not covered.matched(fine):  # (no row read for a chunk holding no term)
            return False
        _read_rows(index, rows, [fine, enclosing])
        return covered.yields_to(fine, rows[fine]["embed_text"],
                                 enclosing, rows[enclosing]["embed_text"])
    return yields


def _collapse_to_sections(table: sections.SectionTable, hits: list[fusion.Hit],
                          mask: np.ndarray | None = None) -> list[fusion.Hit]:
    """Replace list-item/code/image hits by their parent section (kept at the hit's rank)
    when the section passes the filters (`mask`) too."""
    return table.collapse(hits, mask)


def _cite(index: KbIndex, asked: Mapping[str, str | None], row: dict[str, Any],
          hit: fusion.Hit, rank: int,
          matched: list[str], more: Sequence[int] = (), rows: Rows | None = None,
          evaluation: answers.Evaluation | None = None,
          today: date | None = None,
          decided: tuple[list[str], CitedPart] | None = None) -> SearchResult:
    """The result of `hit` (chunk `row`), `matched`: the question's terms it holds;
    `decided`: those terms as written and the part it cites, when a filter for verified
    (or unverified) text kept it for that part (`cited_parts.citing_judged`)."""
    doc = index.store.doc(row["doc"]) or {"metadata": {}}
    outdated, superseded_by = freshness.flags(index, row["doc"], freshness.today_or(today))
    meta = doc["metadata"]
    if decided is not None:
        matched, part = decided
    else:
        matched = shown_words(index, asked, meta, row, matched)
        part = cited_part(row, matched)  # the section(s) of a small page the words fall in
    return SearchResult(
        rank=rank,
        score=round(float(hit.score), 6),
        chunk_id=row["id"],
        citation=part.citation,
        title=shown_title(meta, row["doc"]),
        kind=row["kind"],
        text=part.text,
        verified=part.facts["verified"],
        source=meta.get("source"),
        metadata=meta,
        links=row["links"],
        extra=sections.result_extra(index, row["doc"], row["kind"], without_parts(row["extra"])),
        last_commit=part.facts["last_commit"],
        last_author=part.facts["last_author"],
        last_changed=part.facts["last_changed"],
        why={**hit.why, "matched_terms": matched, **part.why},
        verification=part.facts["verification"],
        evaluation=evaluation.to_dict() if evaluation is not None else None,
        more=tuple({"chunk_id": r["id"], "kind": r["kind"], "heading_path": r["heading_path"],
                    "line_start": r["line_start"], "line_end": r["line_end"]}
                   for r in (rows[n] for n in more if rows and n in rows)),
        outdated=outdated,
        superseded_by=superseded_by,
    )
