"""Where a warm hybrid query spends its time, per stage, with perf counters (no profiler).

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_query_stages.py \
        --index /work/bench/tidb54k-v3/dist [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] \
        [--rounds 3] [--json]

Wraps the pipeline's stage functions with timers (a wrapper costs about a microsecond, so
unlike cProfile the Python-level stages are not inflated), runs every question once to warm
up, then `--rounds` passes, and prints per stage the mean wall milliseconds per question and
the mean thread CPU milliseconds (CPU time is what the stage costs; on a loaded machine wall
time adds waiting for a core). Stages nest (``distinct`` includes the ``identifier levels``
in a tree without that stage), so they do not sum to the total. The end-to-end p50/p95 of
the same passes close the table, with and without the time spent embedding the question
(what "warm" costs when the question's vector is already known, e.g. from an engine that
embeds it elsewhere).
"""

from __future__ import annotations

import argparse
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
    (search, "input_synonyms", "input synonyms"),
    (answers, "evaluate_question", "decision tables"),
    (search, "_level", "identifier levels"),
    (search, "_distinct", "distinct"),
    (search, "_boost_vector", "routing boosts"),
    (search, "_unverified_vector", "unverified weights"),
    (search, "specific_identifiers", "identifiers"),
    (search, "_suppress_nested", "nested"),
    (search, "_coverages", "coverage"),
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    index = reader.open_index(args.index)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()]
    for q in questions:
        search.search(index, q)
    timer = Timer()
    for owner, attr, stage in STAGES:
        if hasattr(owner, attr):  # a stage an older tree lacks is left out
            setattr(owner, attr, timer.wrap(stage, getattr(owner, attr)))
    took, cpu, rest, rest_cpu = [], [], [], []
    # each stage once (two functions time the same stage: counted twice, the embedding was
    # subtracted twice from the figures without it)
    embed_stages = list(dict.fromkeys(stage for _, _, stage in STAGES
                                      if stage.startswith("embed question")))
    for _ in range(args.rounds):
        for q in questions:
            before = [(timer.wall.get(st, 0.0), timer.cpu.get(st, 0.0)) for st in embed_stages]
            w0, c0 = time.perf_counter(), time.thread_time()
            search.search(index, q)
            took.append((time.perf_counter() - w0) * 1000)
            cpu.append((time.thread_time() - c0) * 1000)
            embed = [(timer.wall.get(st, 0.0) - w, timer.cpu.get(st, 0.0) - c)
                     for st, (w, c) in zip(embed_stages, before, strict=True)]
            rest.append(took[-1] - 1000 * sum(w for w, _ in embed))
            rest_cpu.append(cpu[-1] - 1000 * sum(c for _, c in embed))
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
    if args.json:
        print(json.dumps({"stages": rows, "total": total}, ensure_ascii=False))
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


if __name__ == "__main__":
    main()
