"""Same answers from Milvus as from the local files: the known-answer questions on the
example knowledge (real model) and the first 100 questions of each dev set on a corpus of
their gold documents (test-hash embedder, so the build stays fast)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.engine import candidates as engine_candidates
from kbtools.engine.expr import where_expression
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index.reader import KbIndex, open_index
from kbtools.query import anchors, neighbours
from kbtools.query.candidates import CandidateRequest
from kbtools.query.filters import filter_mask, parse_where
from kbtools.query.fusion import FusionParams, Ranked
from kbtools.query.inherit import inherit, widen_mask
from kbtools.query.quality import load_questions
from kbtools.query.search import LOCAL_CANDIDATES, search
from tests.hostile import git, make_repo
from tests.kbfixtures import REPO, TITLED, copy_example
from tests.milvus_server import milvus  # noqa: F401 - fixture

DEV_SETS = ["tidb_faq_zh", "aliyun_ecs_zh", "cmrc2018", "scifact"]
FIRST = 100
SHARED = REPO.parent / "shared"


def params_of(index: KbIndex) -> FusionParams:
    """The ranking parameters the index's build configured (both sides search with them)."""
    return FusionParams.from_config(index.manifest["config"]["values"]["query"])


def page_weight(index: KbIndex) -> float:
    """The page-vector weight both sides search with (kbtools.query.pages): parity is only
    worth checking with page evidence on."""
    return params_of(index).page_weight


def parity(local: KbIndex, remote: KbIndex, questions: list[dict], *, k: int = 10,
           where: list[str] | None = None, verified_only: bool | None = None) -> dict:
    """Top-k overlap, identical top-1 and no-answer verdicts of two indexes, with the
    questions that differ."""
    assert page_weight(local) > 0
    overlaps, same_top, same_verdict, diffs = [], 0, 0, []
    for q in questions:
        a = search(local, q["query"], k=k, where=where, verified_only=verified_only,
                   keep_results=True)
        b = search(remote, q["query"], k=k, where=where, verified_only=verified_only,
                   keep_results=True)
        ka = [r.chunk_id for r in a.results]
        kb = [r.chunk_id for r in b.results]
        overlaps.append(len(set(ka) & set(kb)) / len(ka) if ka else float(not kb))
        same_top += ka[:1] == kb[:1]
        same_verdict += a.no_answer == b.no_answer
        if ka != kb or a.no_answer != b.no_answer:
            diffs.append({"query": q["query"], "local": ka[:3], "milvus": kb[:3],
                          "scores": ([r.score for r in a.results[:3]],
                                     [r.score for r in b.results[:3]])})
    n = len(questions)
    return {"n": n, "overlap": sum(overlaps) / n, "top1": same_top / n,
            "verdicts": same_verdict / n, "diffs": diffs}


def assert_parity(stats: dict) -> None:
    shown = json.dumps(stats["diffs"][:5], ensure_ascii=False)
    assert stats["overlap"] >= 0.9, shown
    assert stats["top1"] >= 0.95, shown
    assert stats["verdicts"] == 1.0, shown


@pytest.fixture(scope="module")
def example(tmp_path_factory, milvus):  # noqa: F811
    repo = copy_example(tmp_path_factory.mktemp("example"))
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    engine = connect_url(milvus.url("parity"), create_db=True)
    publish(engine, check_release(repo / "dist"))
    yield open_index(repo / "dist"), EngineReader(engine).current()
    engine.close()


def test_known_answers_same_in_milvus(example):
    local, remote = example
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")
    assert any(q.get("group") == "no_answer" for q in questions)
    stats = parity(local, remote, questions)
    assert_parity(stats)


@pytest.mark.parametrize(("where", "verified_only"), [
    (["category=crop-protection"], None), (["kind=table_row"], None),
    (["category!=Crop-Protection", "lang=zh"], None), ([], True),
    (["timestamp>=2026-03-01"], None), (["timestamp<=2026-02-20", "lang=en"], True),
])
def test_filtered_searches_same_in_milvus(example, where, verified_only):
    local, remote = example
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")[::3]
    assert_parity(parity(local, remote, questions, where=where, verified_only=verified_only))


# kind, verified either way, facets (one alone, two together), verified_only alone and with
# a filter: the tester's set, where Milvus's filtered HNSW search left out eligible chunks
EXACT_FILTERS = [
    (["kind=section"], None), (["verified=true"], None), (["verified=false"], None),
    (["urgency=critical"], None), (["category=crop-protection", "lang=zh"], None),
    ([], True), (["kind=table_row"], True),
]


def vector_lists(index: KbIndex, question: str, where: list[str],
                 verified_only: bool | None, *, local: bool) -> dict[str, Ranked]:
    """The vector candidate lists one search asks its candidate source for (the mask widened
    to the sections whose vectors allowed chunks share, as `search` does)."""
    parsed = parse_where(where)
    mask = widen_mask(index, filter_mask(index, parsed, bool(verified_only)))
    req = CandidateRequest(question, "vector", tuple(parsed), bool(verified_only), mask, (),
                           200)  # the depth of a -k 10 search
    source = LOCAL_CANDIDATES if local else index.candidate_source  # type: ignore[attr-defined]
    return source.ranked_lists(index, req)


def assert_same_lists(a: dict[str, Ranked], b: dict[str, Ranked], what: object) -> None:
    assert a.keys() == b.keys() and a, what
    for name in a:
        assert b[name].keys.tolist() == a[name].keys.tolist(), (what, name)
        assert b[name].scores.tolist() == pytest.approx(a[name].scores.tolist(), abs=1e-6), \
            (what, name)


@pytest.mark.parametrize(("where", "verified_only"), EXACT_FILTERS)
def test_filtered_candidates_and_answers_are_the_local_ones(example, where, verified_only):
    """Under filters the engine ranks the allowed chunks exactly, as the local index does
    (`MilvusCandidates._exact`): the same vector candidates, in the same order, with the same
    scores, so the answers and their scores are the local ones (only BM25's float32 sums may
    differ, in the sixth decimal)."""
    local, remote = example
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")[::6]
    for q in questions:
        assert_same_lists(vector_lists(local, q["query"], where, verified_only, local=True),
                          vector_lists(remote, q["query"], where, verified_only, local=False),
                          q["query"])
        (a, sa, ra), (b, sb, rb) = (_without_scores(search(
            index, q["query"], k=10, where=where, verified_only=verified_only,
            keep_results=True).to_dict()) for index in (local, remote))
        assert a == b and ra == rb, q["query"]  # exact under filters: the same ranks
        assert sb == pytest.approx(sa, abs=1e-4), q["query"]


def bm25_list(index: KbIndex, question: str, where: list[str], count: int, *,
              local: bool) -> list[int]:
    """The BM25 candidates of one search as fusion gets them: searched under the request's
    mask (widened as `search` widens it), then only the allowed chunks kept (`inherit`)."""
    parsed = parse_where(where)
    mask = filter_mask(index, parsed, False)
    ids = tuple(index.bm25.query_terms(question)[1])
    req = CandidateRequest(question, "bm25", tuple(parsed), False, widen_mask(index, mask),
                           ids, count)
    source = LOCAL_CANDIDATES if local else index.candidate_source  # type: ignore[attr-defined]
    ranked = inherit(index, source.ranked_lists(index, req), mask)["bm25"]
    return [int(n) for n in ranked.keys]


@pytest.mark.parametrize("where", [["kind=table"], ["kind=formula"], ["kind=code"],
                                   ["kind!=section"]])
def test_bm25_candidates_under_kind_filters_are_the_local_ones(example, where):
    """A table, formula or code chunk shares its section's vector, so the local search
    ranks BM25 among the allowed chunks and those sections, then keeps the allowed ones;
    the engine searched the allowed chunks alone and returned more of them (``液压油 更换``
    under ``kind=table``, 5 deep: 5 tables in Milvus, 3 locally), so fusion ranked them
    otherwise."""
    local, remote = example
    for question in ["液压油 更换", "施药 稀释 倍数", "小麦 赤霉病 防治", "token expiry",
                     "How do I rotate a client secret?"]:
        for count in (3, 5, 10, 50):
            want = bm25_list(local, question, where, count, local=True)
            assert bm25_list(remote, question, where, count, local=False) == want, \
                (question, count)


@pytest.fixture
def engine_calls(example, monkeypatch) -> list[str]:
    """What the example's engine is asked to do meanwhile (each call's `doing`)."""
    engine = example[1].candidate_source.engine
    calls: list[str] = []
    real = engine.call

    def counting(doing, method, *args, **kwargs):
        calls.append(doing)
        return real(doing, method, *args, **kwargs)

    monkeypatch.setattr(engine, "call", counting)
    return calls


def test_exact_candidates_fetched_in_batches(example, engine_calls, monkeypatch):
    """Vectors are fetched a bounded number per query; several batches rank alike."""
    local, remote = example
    dim = min(int(m["dim"]) for m in remote.manifest["models"].values())
    monkeypatch.setattr(engine_candidates, "FETCH_BYTES", 4 * dim * 7)  # ≤ 7 rows per query
    monkeypatch.setattr(remote.candidate_source, "_few", {})  # none fetched yet
    q = "小麦赤霉病施药步骤是什么"
    where = ["urgency=critical"]
    assert_same_lists(vector_lists(local, q, where, None, local=True),
                      vector_lists(remote, q, where, None, local=False), q)
    assert sum(c.startswith("reading vectors") for c in engine_calls) > 2


def test_large_filtered_subsets_keep_the_hnsw_search(example, engine_calls, monkeypatch):
    """Beyond `EXACT_FILTERED` allowed chunks the engine searches its HNSW graph, filtered
    by the allowed chunk numbers or unfiltered and the others dropped (as the local index
    searches its graph beyond its limit): allowed chunks only, best first, no vectors
    fetched."""
    _, remote = example
    monkeypatch.setattr(engine_candidates, "EXACT_FILTERED", 0)
    monkeypatch.setattr(engine_candidates, "FEW_VECTORS", 0)
    where = ["category=crop-protection"]
    mask = filter_mask(remote, parse_where(where), False)
    lists = vector_lists(remote, "小麦赤霉病施药步骤是什么", where, None, local=False)
    wide = widen_mask(remote, mask)
    assert lists and all(len(r.keys) for r in lists.values())
    for r in lists.values():
        assert wide[r.keys].all() and list(r.scores) == sorted(r.scores, reverse=True)
    assert not any(c.startswith("reading vectors") for c in engine_calls)


def test_a_partial_model_is_searched_without_a_filter_expression(example):
    """A model whose vectors only some chunks have (the English model of a mostly Chinese
    release; chunks sharing their section's vector) was searched with the expression
    ``array_contains(models, …)``, which a Milvus Lite server evaluates on every row it
    matches: 15–19 s a question on the 54,626-chunk tidb-docs-cn. A question without
    filters now sends no expression: a model few chunks have is ranked exactly from its
    vectors, fetched once per release; one most chunks have is searched unfiltered and the
    chunks without their own vector dropped here. The answers stay the local ones."""
    local, served = example
    remote = EngineReader(connect_url(str(served.candidate_source.engine.url))).current()
    source = remote.candidate_source  # type: ignore[attr-defined]
    assert source.partial, "the example has no model only some chunks have"
    calls: list[tuple[str, str, dict]] = []
    real = source.engine.call

    def recording(doing, method, *args, **kwargs):
        calls.append((doing, method, kwargs))
        return real(doing, method, *args, **kwargs)

    source.engine.call = recording
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")[::2]
    try:
        stats = parity(local, remote, questions)
    finally:
        source.engine.close()
    assert_parity(stats)
    searches = [kw for _, method, kw in calls if method == "search"]
    assert searches and not [kw for kw in searches if kw.get("filter")], searches[:3]
    fetched = [kw for doing, _, kw in calls if doing.startswith("reading vectors")]
    assert len(fetched) == len({str(kw.get("output_fields")) for kw in fetched}), \
        "a few chunks' vectors are fetched once per release, not once per question"


def test_rows_named_by_id_are_fetched_by_chunk_number(example):
    """The section a row or an item collapses to is named by its id (``extra["parent"]``):
    it was fetched by an ``id in [...]`` filter, which the engine evaluates on every row
    (0.2–0.9 s a question on the 54,626-chunk tidb-docs-cn in milvus-lite), on every
    question. The release lists its chunks' ids: they are fetched by chunk number, the
    primary key, once; the same rows, and the same answers."""
    local, served = example
    remote = EngineReader(connect_url(str(served.candidate_source.engine.url))).current()
    engine = remote.candidate_source.engine  # type: ignore[attr-defined]
    filters: list[str] = []
    real = engine.call

    def recording(doing, method, *args, **kwargs):
        filters.append(str(kwargs.get("filter", "")))
        return real(doing, method, *args, **kwargs)

    engine.call = recording
    try:
        rows = local.store.chunks(list(range(local.store.count()))).values()
        ids = sorted({r["extra"]["parent"] for r in rows if r["extra"].get("parent")})
        assert len(ids) > 3, "the example has no rows naming their section"
        got = remote.store.chunks_by_id([*ids, "no-such-chunk"])
        want = local.store.chunks_by_id(ids)
        assert {i: (r["num"], r["text"]) for i, r in got.items()} == \
            {i: (r["num"], r["text"]) for i, r in want.items()}
        for q in ("小麦赤霉病用什么药防治", "pump seal replacement interval", "叶斑病的症状"):
            a, b = (search(index, q, k=10) for index in (local, remote))
            assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results], q
    finally:
        engine.close()
    assert not [f for f in filters if f.startswith("id in")], filters


@pytest.mark.parametrize("where", [[], ["lang=zh"], ["category=crop-protection"]])
def test_same_chunks_in_the_same_order_at_every_depth(example, where):
    """Twelve Chinese and twelve English known-answer questions, 1, 5 and 50 deep, with and
    without filters: the engine answers the local chunks in the local order, and the same
    no-answer verdicts (session 44: 216 of 216)."""
    local, remote = example
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")
    zh = [q["query"] for q in questions if any("\u4e00" <= c <= "\u9fff" for c in q["query"])]
    en = [q["query"] for q in questions if q["query"].isascii()]
    for q in zh[:12] + en[:12]:
        for k in (1, 5, 50):
            a, b = (search(index, q, k=k, where=where) for index in (local, remote))
            assert_same_ranking(a.results, b.results, (q, k))
            assert b.no_answer == a.no_answer, (q, k)


# how far two engines' scores of one chunk may differ: the local graph's cosines are of its
# float16 vectors, Milvus's of float32 ones summed in another order, which moves a fused
# score by up to a few 1e-5 on this 2-core AMD EPYC (2.1e-5 of 0.73 seen; on other CPUs
# less): chunks tied within it may swap places between the engines (`assert_same_ranking`)
SCORE_NOISE = 1e-4


def assert_same_ranking(local: list, remote: list, what: object) -> None:
    """The same chunks with the same scores place by place, but for chunks whose scores lie
    within `SCORE_NOISE` of each other, which float noise may swap — and with them which of
    two chunks of one section is taken first and which is weighed down as its section's
    second (the same two scores, the chunks' places exchanged). A chunk only one side
    has must score within `SCORE_NOISE` of the last place (a tie at the cut)."""
    a = [(r.chunk_id, r.score) for r in local]
    b = [(r.chunk_id, r.score) for r in remote]
    assert len(a) == len(b), what
    for (ia, sa), (ib, sb) in zip(a, b, strict=True):
        assert abs(sa - sb) <= SCORE_NOISE, (what, ia, sa, ib, sb)
    last = min((s for _, s in a + b), default=0.0)
    for side, other in ((a, b), (b, a)):
        theirs = {i for i, _ in other}
        for i, s in side:
            assert i in theirs or abs(s - last) <= SCORE_NOISE, (what, i, s, a, b)


def lacking_a_vector(monkeypatch, remote: KbIndex) -> None:
    """`remote`'s engine answers every read of vectors without its first row, as a
    collection missing rows its release lists would (none fetched before)."""
    source = remote.candidate_source  # type: ignore[attr-defined]
    real = source.engine.call

    def dropping(doing, method, *args, **kwargs):
        got = real(doing, method, *args, **kwargs)
        return got[1:] if doing.startswith("reading vectors") else got

    monkeypatch.setattr(source.engine, "call", dropping)
    monkeypatch.setattr(source, "_few", {})


def test_missing_vectors_in_the_engine_are_one_error(example, monkeypatch):
    """A collection that lacks rows the release's chunk table lists is damaged: one line
    saying so, not a silently shorter list."""
    _, remote = example
    lacking_a_vector(monkeypatch, remote)
    monkeypatch.setattr(engine_candidates, "FEW_VECTORS", 0)  # the filter's chunks fetched
    with pytest.raises(EngineError,
                       match=r"lacks the vectors of 1 of the \d+ chunks a filter allows"):
        vector_lists(remote, "小麦赤霉病施药步骤是什么", ["urgency=critical"], None,
                     local=False)


def _without_scores(res: dict) -> tuple[dict, list[float], list[int | None]]:
    """The response minus what may differ in the last digits: cosine (f16 in usearch, f32
    in Milvus) and BM25 sums (float32, added in another order), and the bonuses of linked
    pages and anchor text, which are differences of such scores (None: no bonus, or a hit
    without that evidence); and the hit's ranks in each candidate list, which two
    candidates whose cosines differ in those digits swap (rank 16 and 17 of a
    `vector_rank` flipped on a CPU whose half-precision products round otherwise)."""
    res = json.loads(json.dumps(res))
    res.pop("took_ms", None)
    scores = [v for r in res["results"] for v in (
        r.pop("score"), r["why"].pop("vector_score", None),
        r["why"].pop("bm25_score", None), r["why"].pop("linked", None),
        r["why"].pop("anchor", None))]
    ranks = [r["why"].pop(k, None) for r in res["results"] for k in ("vector_rank", "bm25_rank")]
    return res, scores, ranks


def _ranks_agree(a: list[int | None], b: list[int | None]) -> bool:
    """Candidate ranks equal but for neighbours swapped (one place), both present or not."""
    return all((x is None) == (y is None) and (x is None or y is None or abs(x - y) <= 1)
               for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("q", ["小麦赤霉病用什么药防治", "pump seal replacement interval",
                               "E17 报警怎么处理", "how do I calibrate the sprayer nozzle"])
def test_whole_responses_are_the_same(example, q):
    """Citations, texts, metadata, verification, matched terms, release: all equal."""
    local, remote = example
    (a, sa, ra), (b, sb, rb) = (_without_scores(r.to_dict()) for r in (
        search(local, q, k=5), search(remote, q, k=5)))
    assert a == b and all("page" in r["why"] for r in a["results"]), q  # page step ran
    assert _ranks_agree(ra, rb), (q, ra, rb)
    assert sa == pytest.approx(sb, abs=2e-3)


@pytest.mark.parametrize(("q", "where", "verified_only"), [
    ("E017", [], None), ("ERR17 复位", ["fault_codes=e17"], None),  # identifiers as typed
    ("wheat scab risk with 4 rainy days at 22 degrees", [], None),  # a table, in English
    ("赤霉病 扬花期 连续雨日 4 天 温度 22 度 风险", ["tags=SOP"], True),
    ("how do I reset alarm E17", ["section<=5", "lang=zh"], None),  # the other language
    ("液压油多久换", ["crop!=小麦", "urgency=high"], True),
    ("量子计算机的发展前景", [], None), ("E17 报警后怎么复位？", ["tags=不存在"], None),  # none
])
def test_whole_responses_of_held_out_kinds_are_the_same(example, q, where, verified_only):
    """Kinds of questions the known answers hold few of, with filters on tags, numbers
    and verification: the engine's whole response (evaluated table rows, no-answer
    verdict, an empty result) is the local one's."""
    local, remote = example
    (a, sa, ra), (b, sb, rb) = (_without_scores(search(
        index, q, k=5, where=where, verified_only=verified_only).to_dict())
        for index in (local, remote))
    assert a == b, q
    assert _ranks_agree(ra, rb), (q, ra, rb)
    assert sa == pytest.approx(sb, abs=2e-3)


def gold_pages_release(name: str, questions: list[dict], tmp_path: Path) -> Path:
    """A release built of the dev set's documents that `questions` cite as gold."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for doc in sorted({g["doc"] for q in questions for g in q["gold"]}):
        shutil.copy(SHARED / "eval" / name / "corpus" / doc, corpus / doc)
    repo = make_repo(tmp_path / "repo")
    build(load_config(repo), BuildOptions(out=repo / "dist", corpus=corpus, progress=False,
                                          provenance=False, lenient=True))
    return repo / "dist"


@pytest.mark.parametrize("name", DEV_SETS)
def test_dev_set_first_100_same_in_milvus(name, tmp_path, milvus):  # noqa: F811
    questions = load_questions(SHARED / "eval" / name / "queries.jsonl")[:FIRST]
    dist = gold_pages_release(name, questions, tmp_path)
    engine = connect_url(milvus.url(f"dev_{name}"), create_db=True)
    try:
        publish(engine, check_release(dist))
        stats = parity(open_index(dist), EngineReader(engine).current(), questions)
    finally:
        engine.close()
    assert_parity(stats)


def test_feedback_same_in_milvus(example):
    """Pseudo-relevance feedback (kbtools.query.feedback) asks the candidate source for its
    second list, so Milvus ranks with it as the local files do."""
    local, remote = example
    questions = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")
    on = replace(params_of(local), feedback_weight=0.3, feedback_support=1)
    same_top = overlap = changed = 0
    for q in questions:
        a = search(local, q["query"], k=10, keep_results=True, params=on)
        b = search(remote, q["query"], k=10, keep_results=True, params=on)
        base = search(local, q["query"], k=10, keep_results=True, params=params_of(local))
        ka, kb = [r.chunk_id for r in a.results], [r.chunk_id for r in b.results]
        same_top += ka[:1] == kb[:1]
        overlap += len(set(ka) & set(kb)) / len(ka) if ka else float(not kb)
        changed += ka != [r.chunk_id for r in base.results]
        assert a.no_answer == b.no_answer, q["query"]
    assert changed  # the feedback changed some rankings …
    assert same_top / len(questions) >= 0.95 and overlap / len(questions) >= 0.9  # … alike


def test_links_and_anchors_same_in_milvus(tmp_path, milvus):  # noqa: F811
    """The link graph and the anchor texts are published with the release, so linked pages
    (kbtools.query.neighbours) and anchor text (kbtools.query.anchors) rank alike in Milvus;
    on a corpus of linked documentation pages (the gold pages of aliyun_ecs_zh's linked
    questions), with the default settings."""
    name = "aliyun_ecs_zh"
    # the questions whose gold is the documentation pages their FAQ answers link to: asked
    # in words those pages do not all hold, so the two steps count (`fusion.words_found`)
    questions = load_questions(SHARED / "eval" / name / "queries_linked.jsonl")[:FIRST]
    dist = gold_pages_release(name, questions, tmp_path)
    engine = connect_url(milvus.url("links"), create_db=True)
    try:
        publish(engine, check_release(dist))
        local, remote = open_index(dist), EngineReader(engine).current()
        assert neighbours.link_graph(remote) == neighbours.link_graph(local)
        assert any(neighbours.link_graph(local))
        assert anchors.anchor_texts(remote) == anchors.anchor_texts(local)
        assert params_of(local).link_weight > 0 and params_of(local).anchor_weight > 0
        stats = parity(local, remote, questions)
        used = {key for q in questions for r in search(
            remote, q["query"], k=10, keep_results=True).results for key in r.why}
    finally:
        engine.close()
    assert_parity(stats)
    assert {"linked", "anchor"} <= used  # both steps ran in Milvus


# numbers in front matter written in several ways: YAML ints and floats, quoted text, lists
NUMERIC = {"alpha": 'size: 1.0\ntorque: 25\ncode: "007"\nbatch: "9007199254740993"\n'
                    'rates: [1.5, x]\nlevel: .inf\n',
           "beta": 'size: "1"\ntorque: "25.0"\ncode: 7\nbatch: 9007199254740992\n'
                   'rates: ["1.50"]\nlevel: [-.inf, 3]\n',
           "gamma": 'size: 2\ntorque: twenty-five\ncode: 07a\nrates: [2.5, "1E1"]\n'
                    'level: 1.7976931348623157e+308\n'}
NUMERIC_KEYS = ("size", "torque", "code", "batch", "rates", "level")
NUMERIC_Q = "pump pressure test seal"


@pytest.fixture(scope="module")
def numeric(tmp_path_factory, milvus):  # noqa: F811
    docs = {f"knowledge/{name}.md": TITLED.format(
        title=f"Pump {name}", body=f"The {name} pump holds its seal in the pressure test."
    ).replace("verified: false\n", "verified: false\n" + extra) for name, extra in NUMERIC.items()}
    repo = make_repo(tmp_path_factory.mktemp("numeric"), commit=False, docs=docs)
    shutil.copytree(REPO / "kbtools" / "data" / "schemas", repo / "schemas")
    schema_file = repo / "schemas" / "frontmatter.schema.json"
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    schema["properties"].update({key: {} for key in NUMERIC_KEYS})
    schema_file.write_text(json.dumps(schema), encoding="utf-8")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "knowledge")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    engine = connect_url(milvus.url("numeric"), create_db=True)
    publish(engine, check_release(repo / "dist"))
    yield open_index(repo / "dist"), EngineReader(engine).current()
    engine.close()


@pytest.mark.parametrize(("where", "docs"), [
    (["size=1"], {"alpha", "beta"}), (["size=1.00"], {"alpha", "beta"}),
    (["size!=1.0"], {"gamma", "good"}), (["size=2.0", "torque!=25"], {"gamma"}),
    (["torque=25.0"], {"alpha", "beta"}), (["torque=2.5e1"], {"alpha", "beta"}),
    (["torque=TWENTY-FIVE"], {"gamma"}), (["code=7"], {"alpha", "beta"}),
    (["code=007"], {"alpha", "beta"}), (["code!=7.0"], {"gamma", "good"}),
    (["code=07A"], {"gamma"}), (["batch=9007199254740993"], {"alpha"}),
    (["batch!=9007199254740992"], {"alpha", "gamma", "good"}),
    (["rates=1.5"], {"alpha", "beta"}), (["rates=10"], {"gamma"}),
    (["rates!=2.50"], {"alpha", "beta", "good"}), (["size>=1", "size<=1"], {"alpha", "beta"}),
    # orders exact (no float makes 9007199254740993 9007199254740992), infinities kept
    (["batch>=9007199254740993"], {"alpha"}), (["batch<=9007199254740992"], {"beta"}),
    (["batch>=9007199254740992.5"], {"alpha"}), (["level>=inf"], {"alpha"}),
    (["level<=-inf"], {"beta"}), (["level>=1.7976931348623157e308"], {"alpha", "gamma"}),
    (["level<=1e400"], {"beta", "gamma"}), (["level>=-1e400", "level<=3"], {"beta"}),
])
def test_numbers_filter_alike_locally_and_in_milvus(numeric, where, docs):
    """``=`` / ``!=`` compare as numbers when both sides read as numbers (1 = 1.0, 25 =
    25.0, 007 = 7, exactly: no float makes 9007199254740993 9007199254740992), else as
    case-folded text: the local mask and Milvus's expression allow the same chunks, and a
    search answers alike (its BM25 candidates come filtered from Milvus)."""
    local, remote = numeric
    mask = filter_mask(local, parse_where(where), False)
    assert mask is not None
    allowed = {int(n) for n in np.flatnonzero(mask)}
    names = [d["doc"] for d in local.docs()]
    assert {Path(names[local.chunk_table().doc[n]]).stem for n in allowed} == docs
    source = remote.candidate_source  # type: ignore[attr-defined]
    got = source.engine.client.query(source.collection, filter=where_expression(
        parse_where(where), False), output_fields=["num"], consistency_level="Strong")
    assert {int(r["num"]) for r in got} == allowed
    for mode in ("bm25", "hybrid"):
        a, b = (search(index, NUMERIC_Q, k=10, where=where, mode=mode, keep_results=True)
                for index in (local, remote))
        assert [r.chunk_id for r in b.results] == [r.chunk_id for r in a.results], mode
        assert {Path(r.doc).stem for r in a.results} <= docs and a.results, mode
