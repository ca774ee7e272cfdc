"""Where a warm hybrid query spends its time, per stage, with perf counters (no profiler).

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_query_stages.py \
        --index /work/bench/tidb54k-v3/dist [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] \
        [--rounds 3] [--fresh] [--json]

Wraps the pipeline's stage functions with timers (a wrapper costs about a microsecond, so
unlike cProfile the Python-level stages are not inflated), runs every question once to warm
up (with ``--fresh``: warms up as `kb serve` does instead, so that the questions of the
first pass are new to the process, as a user's are), then `--rounds` passes, and prints per
stage the mean wall milliseconds per question and the mean thread CPU milliseconds (CPU time is what the stage costs; on a loaded machine wall
time adds waiting for a core). Stages nest (``distinct`` includes the ``identifier levels``
in a tree without that stage), so they do not sum to the total. The end-to-end p50/p95 of
the same passes close the table, with and without the time spent embedding the question
(what "warm" costs when the question's vector is already known, e.g. from an engine that
embeds it elsewhere). Then the tail: per stage, the mean thread CPU of the slowest 5% of the
searches against the middle half's (which stages make p95, not p50), with the slowest
questions' token counts; and the garbage collector: collections per generation during the
passes and their time, and what one full collection costs in this warm process before and
after `gc.freeze` (what `kb serve` and `kb mcp` do once a release is loaded:
`kbtools.index.reader.settle`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if not os.environ.get("PYTHONPATH"):  # the tree measured: PYTHONPATH's, else this one
    sys.path.insert(0, str(ROOT))

from kbtools.embed import bert, use  # noqa: E402
from kbtools.index import bm25, reader, store, vectors  # noqa: E402
from kbtools.query import answers, freshness, fusion, pages, search  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"

# (owner, attribute, stage); the owner is a module or a class. Module functions are wrapped
# where search.py looks them up (its own globals, or the module it calls through).
STAGES: list[tuple[Any, str, str]] = [
    (search, "clean_query", "clean"),
    (search, "filter_mask", "filters"),
    (search, "route", "route"),
    (bm25.Bm25, "query_terms", "tokenize"),
    (search, "expand", "synonym expansion"),
    (bm25.Bm25, "scores", "bm25 scores"),
    (fusion, "top", "bm25 top"),  # the best of the BM25 scores (search.py: fusion.top)
    (use.UseEmbedder, "embed_batch", "embed question (use)"),
    (use.UseEmbedder, "embed_question", "embed question (use)"),
    (bert.BertEmbedder, "embed_batch", "embed question (minilm)"),
    (bert.BertEmbedder, "embed_question", "embed question (minilm)"),
    (vectors, "search", "HNSW"),
    (fusion, "fuse", "fusion"),
    (fusion, "fuse_arrays", "fusion"),
    (freshness, "reweigh", "freshness"),
    (pages, "reweigh", "page evidence"),
    (fusion.Fused if hasattr(fusion, "Fused") else fusion, "hits", "hits of the ranked on"),
    (store.Store, "chunks", "store rows (whole)"),
    (store.Store, "chunks_by_id", "store parents (whole)"),
    (store.Store, "ranking_rows", "store rows (ranking)"),
    (store.Store, "ranking_rows_by_id", "store parents (ranking)"),
    (search, "_collapse_to_sections", "collapse"),
    # (a tree without kbtools.query.sections leaves these out: hasattr(None, …) is False)
    (getattr(getattr(search, "sections", None), "SectionTable", None), "ensure",
     "section table (candidates)"),
    (getattr(getattr(search, "sections", None), "SectionTable", None), "_read_whole",
     "section table (whole)"),
    (search, "_read_rows", "store rows (ranking stages)"),
    (search, "input_synonyms", "input synonyms"),
    (answers, "evaluate_question", "decision tables"),
    (search, "_level", "identifier levels"),  # trees before `_levels`
    (search, "_levels", "identifier levels"),  # trees before kbtools.query.specific
    (search, "identifier_level", "identifier levels"),
    (search, "identifier_levels", "identifier levels"),
    (search, "about_each", "identifier levels (each alone)"),  # a question naming 2-4
    (store.Store, "identifier_texts", "store texts (identifier levels)"),
    (search, "_distinct", "distinct"),
    (search, "_boost_vector", "routing boosts"),  # trees before kbtools.query.routing
    (search, "boost_vector", "routing boosts"),
    (search, "_unverified_vector", "unverified weights"),
    (search, "specific_identifiers", "identifiers"),
    (search, "_suppress_nested", "nested"),
    (search, "_coverages", "coverage"),
    (search.Coverage if hasattr(search, "Coverage") else search, "of", "coverage"),
    (fusion, "answerable", "no-answer rule"),
    (search, "_cite", "citations"),
    (search, "other_spellings", "citations: other spellings"),
    (freshness, "flags", "citations: freshness flags"),
    (bm25.Bm25, "matched", "matched terms"),
]


class Timer:
    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.depth: dict[str, int] = {}

    def wrap(self, stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            if self.depth.get(stage):  # recursive or nested call of the same stage
                return fn(*args, **kwargs)
            self.depth[stage] = 1
            w0, c0 = time.perf_counter(), time.thread_time()
            try:
                return fn(*args, **kwargs)
            finally:
                self.wall[stage] = self.wall.get(stage, 0.0) + time.perf_counter() - w0
                self.cpu[stage] = self.cpu.get(stage, 0.0) + time.thread_time() - c0
                self.depth[stage] = 0
        return timed


class GcTimes:
    """Collections per generation and the seconds they took (a `gc.callbacks` entry)."""

    def __init__(self) -> None:
        self.count = [0, 0, 0]
        self.seconds = [0.0, 0.0, 0.0]
        self._start = 0.0

    def callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
            return
        self.count[info["generation"]] += 1
        self.seconds[info["generation"]] += time.perf_counter() - self._start


def tail_stages(cpu: list[float], per_question: list[dict[str, float]],
                shown: int = 12) -> dict[str, tuple[float, float]]:
    """Per stage, mean thread CPU ms of the slowest 5% of the searches and of the middle
    half (by the search's CPU), the `shown` stages with the largest difference."""
    order = np.argsort(cpu)
    n = len(order)
    slow, middle = order[n - max(1, n // 20):], order[n // 4: 3 * n // 4]
    stages = {st for d in per_question for st in d}

    def mean(rows: np.ndarray, st: str) -> float:
        return 1000 * float(np.mean([per_question[i].get(st, 0.0) for i in rows]))

    pairs = {st: (round(mean(slow, st), 3), round(mean(middle, st), 3)) for st in stages}
    return dict(sorted(pairs.items(), key=lambda kv: kv[1][1] - kv[1][0])[:shown])


def full_collection_ms() -> dict[str, float]:
    """One full collection of this warm process, then the same after `gc.freeze` (undone)."""
    gc.collect()
    t0 = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - t0
    gc.freeze()
    t0 = time.perf_counter()
    gc.collect()
    frozen = time.perf_counter() - t0
    gc.unfreeze()
    return {"full_ms": round(full * 1000, 2), "frozen_full_ms": round(frozen * 1000, 3)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--fresh", action="store_true",
                    help="warm up as kb serve does (serve.source.warm_up), not with every "
                         "question: the first round's questions are new to the process")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    index = reader.open_index(args.index)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()]
    if args.fresh:  # warmed as `kb serve` warms a release: every question is a new one
        from kbtools.serve.source import warm_up
        warm_up(index)
    else:
        for q in questions:
            search.search(index, q)
    timer = Timer()
    for owner, attr, stage in STAGES:
        if hasattr(owner, attr):  # a stage an older tree lacks is left out
            setattr(owner, attr, timer.wrap(stage, getattr(owner, attr)))
    took, cpu, rest, rest_cpu = [], [], [], []
    per_question: list[dict[str, float]] = []  # stage → thread CPU seconds, per search
    asked: list[str] = []
    collections = GcTimes()
    gc.callbacks.append(collections.callback)
    # each stage once (two functions time the same stage: counted twice, the embedding was
    # subtracted twice from the figures without it)
    embed_stages = list(dict.fromkeys(stage for _, _, stage in STAGES
                                      if stage.startswith("embed question")))
    for _ in range(args.rounds):
        for q in questions:
            before = [(timer.wall.get(st, 0.0), timer.cpu.get(st, 0.0)) for st in embed_stages]
            cpu_before = dict(timer.cpu)
            w0, c0 = time.perf_counter(), time.thread_time()
            search.search(index, q)
            took.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            embed = [(timer.wall.get(st, 0.0) - w, timer.cpu.get(st, 0.0) - c)
                     for st, (w, c) in zip(embed_stages, before, strict=True)]
            rest.append(took[-1] - 1000 * sum(w for w, _ in embed))
            rest_cpu.append(cpu[-1] - 1000 * sum(c for _, c in embed))
            per_question.append({st: v - cpu_before.get(st, 0.0) for st, v in timer.cpu.items()})
            asked.append(q)
    gc.callbacks.remove(collections.callback)
    n = len(took)
    rows = {stage: {"wall_ms": round(timer.wall[stage] * 1000 / n, 3),
                    "cpu_ms": round(timer.cpu[stage] * 1000 / n, 3)}
            for _, _, stage in STAGES if stage in timer.wall}
    total = {"p50_ms": round(float(np.percentile(took, 50)), 2),
             "p95_ms": round(float(np.percentile(took, 95)), 2),
             "mean_ms": round(float(np.mean(took)), 2),
             "cpu_mean_ms": round(float(np.mean(cpu)), 2), "questions": n,
             "chunks": index.store.count(),
             # the same searches less the time spent embedding the question
             "without_embedding_p50_ms": round(float(np.percentile(rest, 50)), 2),
             "without_embedding_p95_ms": round(float(np.percentile(rest, 95)), 2),
             "without_embedding_cpu_p95_ms": round(float(np.percentile(rest_cpu, 95)), 2),
             "cpu_p50_ms": round(float(np.percentile(cpu, 50)), 2),
             "cpu_p95_ms": round(float(np.percentile(cpu, 95)), 2)}
    tail = tail_stages(cpu, per_question)
    terms = {q: len(index.bm25.query_terms(q)[0]) for q in set(asked)}
    slow_tokens = sorted(terms[asked[i]] for i in np.argsort(cpu)[-max(1, n // 20):])
    median_terms = float(np.median([terms[q] for q in asked]))
    gc_figures = {"collections": collections.count, "ms": [round(t * 1000, 2)
                                                           for t in collections.seconds],
                  "tracked_objects": len(gc.get_objects()), **full_collection_ms()}
    if args.json:
        print(json.dumps({"stages": rows, "total": total, "tail": tail, "gc": gc_figures,
                          "slowest_bm25_terms": slow_tokens}, ensure_ascii=False))
        return
    print(f"{'stage':<26}{'wall ms':>9}{'cpu ms':>9}   (mean per question)")
    for stage, r in rows.items():
        print(f"{stage:<26}{r['wall_ms']:>9.3f}{r['cpu_ms']:>9.3f}")
    print(f"total: p50 {total['p50_ms']} ms, p95 {total['p95_ms']} ms, mean {total['mean_ms']} ms "
          f"(CPU p50 {total['cpu_p50_ms']} ms, p95 {total['cpu_p95_ms']} ms), {n} questions at "
          f"{total['chunks']} chunks")
    print(f"without the question's embedding: p50 {total['without_embedding_p50_ms']} ms, "
          f"p95 {total['without_embedding_p95_ms']} ms (CPU p95 "
          f"{total['without_embedding_cpu_p95_ms']} ms)")
    print(f"\n{'stage (thread CPU ms)':<26}{'slowest 5%':>11}{'middle half':>12}")
    for stage, (slow, middle) in tail.items():
        print(f"{stage:<26}{slow:>11.3f}{middle:>12.3f}")
    print(f"BM25 terms of the slowest 5%: {slow_tokens} (median of all: {median_terms:g})")
    print(f"garbage collector during the passes: {gc_figures['collections']} collections of "
          f"generations 0/1/2, {gc_figures['ms']} ms; {gc_figures['tracked_objects']} tracked "
          f"objects; one full collection {gc_figures['full_ms']} ms, after gc.freeze "
          f"{gc_figures['frozen_full_ms']} ms")


if __name__ == "__main__":
    main()
