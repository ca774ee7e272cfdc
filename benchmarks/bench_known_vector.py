"""What a warm search costs besides embedding its question, measured rather than subtracted.

    .venv/bin/python benchmarks/bench_known_vector.py --index DIST [--questions F] [--rounds 6]

Three kinds of search, each a pass over the questions, the passes' order rotated every
round (a search right after another of the same question would find its data in cache):

- **full**: the question embedded by the search, as a user's is;
- **known**: its vector embedded just before and memoised (`pages.question_vector`), so the
  search finds it: everything but the embedding;
- **known, 10 MB read first**: the same, after streaming 10 MB (USE's question path reads
  about that much weight data) through the caches, as an embedding does to what the search
  had cached.

Prints the median and p95 over questions of each one's fastest round, and the ratios. The
gap between *full* and *known* is what the embedding costs inside a search (more than it
costs alone in a loop: its weights come from L3 or memory each time); the gap between the
two *known* variants is what its reads cost the stages after it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.fsutil import read_json_lines  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query import pages, search  # noqa: E402
from kbtools.query.question import question_text  # noqa: E402
from kbtools.serve.source import warm_up  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"
VARIANTS = ("full", "known", "known, 10 MB read first")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=6)
    args = ap.parse_args()
    questions = [q["query"] for q in read_json_lines(args.questions)]
    index = open_index(args.index)
    warm_up(index)  # as `kb serve` does
    junk = np.ones(10 << 20, dtype=np.uint8).view(np.uint64)
    took = np.zeros((len(VARIANTS), args.rounds, len(questions)))
    for r in range(args.rounds):
        for v in np.roll(np.arange(len(VARIANTS)), -r):
            for i, q in enumerate(questions):
                text = question_text(q, search.term_weights(index))
                pages._question_vector.cache_clear()
                if v:  # embedded now, memoised for the search
                    for model in search.query_models(index, text):
                        pages.question_vector(model, text)
                if v == 2:
                    np.bitwise_or.reduce(junk)
                t0 = time.perf_counter()
                search.search(index, q)
                took[v, r, i] = (time.perf_counter() - t0) * 1000
    best = took.min(axis=1)  # each question's fastest round
    full50, full95 = np.percentile(best[0], 50), np.percentile(best[0], 95)
    print(f"{len(questions)} questions × {args.rounds} rounds at {index.store.count()} chunks "
          "(median and p95 of each question's fastest round)")
    for name, row in zip(VARIANTS, best, strict=True):
        p50, p95 = np.percentile(row, 50), np.percentile(row, 95)
        print(f"{name:<26} p50 {p50:5.2f} ms ({p50 / full50:.2f}×)  "
              f"p95 {p95:5.2f} ms ({p95 / full95:.2f}×)")
    print(f"the embedding inside a search: p50 {full50 - np.percentile(best[1], 50):.2f} ms")


if __name__ == "__main__":
    main()
