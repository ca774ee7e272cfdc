"""What the question's embedding costs the rest of a warm search, beyond its own time.

    PYTHONPATH=TREE .venv/bin/python benchmarks/bench_embed_traffic.py \
        --index bench-out/tidb/dist [--questions F] [--rounds 4]

A warm search embeds its question (USE: ~7 MB of weights read for one row) and then runs
some twenty stages over arrays, SQLite pages and Python objects that the weights have
pushed out of the caches. Here every question is searched twice per round, in one of two
ways, the order alternating by round: *computed* (the embedding runs once a search, as
in any search — the vector step and the page step share it; its own thread CPU is timed
and taken out) and *given* (the question's vector, computed
before, handed to the search: no weights read). The difference between the two is what the
embedding's memory traffic costs the other stages. Thread CPU per search, ms; the index
is warmed up as `kb serve` does.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query import pages, search  # noqa: E402
from kbtools.serve.source import warm_up  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--index", type=Path, required=True)
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--rounds", type=int, default=4)
    args = ap.parse_args()
    index = open_index(args.index)
    warm_up(index)
    questions = [json.loads(line)["query"] for line in args.questions.open(encoding="utf-8")]
    for q in questions:  # every stage's per-index state made
        search.search(index, q)
    compute = pages._question_vector.__wrapped__  # the vector, not remembered
    vectors: dict[tuple[Any, ...], np.ndarray] = {}
    embedding = [0]

    this_round: set[tuple[Any, ...]] = set()  # a search asks twice (candidates, pages)

    def computed(model: str, embedder: int, text: str) -> np.ndarray:
        if (model, embedder, text) in this_round:
            return vectors[(model, embedder, text)]
        this_round.add((model, embedder, text))
        c0 = time.thread_time_ns()
        v: np.ndarray = compute(model, embedder, text)
        embedding[0] += time.thread_time_ns() - c0
        vectors[(model, embedder, text)] = v
        return v

    def given(model: str, embedder: int, text: str) -> np.ndarray:
        return vectors[(model, embedder, text)]

    remembered = pages._question_vector
    times: dict[str, list[float]] = {"computed": [], "given": []}
    try:
        for r in range(args.rounds):
            for way in ("computed", "given") if r % 2 == 0 else ("given", "computed"):
                if way == "given" and not vectors:
                    continue  # (the first round computes them first)
                pages._question_vector = computed if way == "computed" else given  # type: ignore[assignment]
                this_round.clear()
                for q in questions:
                    e0 = embedding[0]
                    c0 = time.thread_time_ns()
                    search.search(index, q)
                    spent = time.thread_time_ns() - c0 - (embedding[0] - e0)
                    times[way].append(spent / 1e6)
    finally:
        pages._question_vector = remembered  # type: ignore[assignment]
    print("thread CPU of a search without the embedding's own, ms")
    for way, values in times.items():
        xs = np.array(values)
        print(f"  {way:9s} p50 {np.percentile(xs, 50):.3f}  p95 {np.percentile(xs, 95):.3f}  "
              f"mean {xs.mean():.3f}  ({len(xs)} searches)")
    c, g = (np.array(times[w]) for w in ("computed", "given"))
    print(f"  computed / given: p50 {np.percentile(c, 50) / np.percentile(g, 50):.3f}x, "
          f"p95 {np.percentile(c, 95) / np.percentile(g, 95):.3f}x, "
          f"mean {c.mean() / g.mean():.3f}x")
    print(f"the embedding's own: mean {embedding[0] / 1e6 / len(c):.3f} ms")


if __name__ == "__main__":
    main()
