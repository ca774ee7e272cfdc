"""``--where`` CPU of two code trees in one process, alternating, as `bench_ab_inprocess.py`.

    .venv/bin/python benchmarks/bench_filters.py --before /path/to/old-checkout \
        [--after .] --index bench-out/tidb/dist [--values 20000] [--rounds 5] [--json]

Three figures per side, thread CPU (p50 over rounds), with the ratio after/before:

* ``mask``: a filter's mask made anew (`filters._condition_mask`: every document's value
  compared with the filter's value; a search caches it per index and filter, so this is
  what the first search with a filter pays) for each filter of `FILTERS` on the index;
* ``values``: the comparison alone over `--values` synthetic front-matter values of every
  kind (numbers, versions, dates, months, text, lists), for each filter of `WANTS`, as a
  mask makes it (the filter's value read once where the tree does so: `filter_kinds.wanted`);
* ``search``: a warm hybrid search with a filter (its mask cached, as every search after
  the first), the questions of ``--questions``;
* ``--where``: per filter of `WHERE_SEARCHES` (the first unfiltered), each question's warm
  search, thread CPU p50 / p95 over questions and rounds per side, and each filter's p50 as
  a multiple of the unfiltered p50 of the same side (a filter should not cost a question
  many times an unfiltered one); `--where-only`: these alone.

Search without a filter: `bench_ab_inprocess.py`.
"""

from __future__ import annotations

import importlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ab_inprocess import NAMES, loaded_trees, tree_arguments  # noqa: E402

# filters on the keys a foreign corpus's index holds (title, summary, aliases), text and kinds
FILTERS = [("title", ">=", "TiDB"), ("title", "<", "M"), ("summary", "!=", "x"),
           ("title", ">", "1.9"), ("summary", ">=", "2024-03-01"), ("aliases", "=", "/docs/x"),
           ("title", "=", "2"), ("doc", ">=", "m")]
WANTS = [("=", "2.1"), ("!=", "v2.0.0"), (">=", "1.9"), ("<", "2024-03"), (">", "2024年3月1日"),
         ("<=", "100"), (">=", "小麦"), ("=", "２．１")]
SEARCH_WHERE = ["title>=M"]
# broad (most chunks), a third, narrow, a folder, a document, a text field; two big folders
# (5–25% of the chunks: ranked exactly, `kbtools.query.local_candidates.EXACT_FILTERED`)
WHERE_SEARCHES = ["", "kind!=table", "kind=section", "kind=table", "doc>=docs/br/ doc<docs/br0",
                  "doc=docs/faq/sql-faq.md", "title>=TiDB",
                  "doc>=docs/releases/ doc<docs/releases0",
                  "doc>=docs/sql-statements/ doc<docs/sql-statements0"]


def values(n: int, seed: int = 7) -> list[Any]:
    """`n` front-matter values of every kind the filters read."""
    rng = random.Random(seed)
    makers = [lambda: str(rng.randint(0, 5000)), lambda: rng.random() * 100,
              lambda: f"{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}",
              lambda: f"v{rng.randint(0, 3)}.{rng.randint(0, 20)}",
              lambda: f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
              lambda: f"2024/{rng.randint(1, 12)}/{rng.randint(1, 28)}",
              lambda: f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T08:00:00+08:00",
              lambda: rng.choice(["小麦", "玉米", "wheat", "beta", "HX-260", "赤霉病"]),
              lambda: [rng.choice(["小麦", "玉米"]), f"1.{rng.randint(0, 20)}"]]
    return [rng.choice(makers)() for _ in range(n)]


def main() -> None:
    ap = tree_arguments(rounds=5, work="filters-ab")
    ap.add_argument("--values", type=int, default=20000)
    ap.add_argument("--where-only", action="store_true",
                    help="the per-filter searches alone (no masks, values, --where title>=M)")
    args = ap.parse_args()
    sides = loaded_trees(args)
    names = NAMES
    filters = {label: importlib.import_module(f"{name}.query.filters")
               for label, name in names.items()}
    kinds = {label: importlib.import_module(f"{name}.query.filter_kinds")
             for label, name in names.items()}
    data = values(args.values)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()][:100]

    def mask(label: str) -> None:
        for condition in FILTERS:
            filters[label]._condition_mask(sides[label][0], condition)

    def compare(label: str) -> None:
        reads_once = getattr(kinds[label], "wanted", None)
        for op, want in WANTS:
            arg = reads_once(want) if reads_once else want
            for v in data:
                filters[label].value_matches("k", v, op, arg)

    def searches(label: str) -> None:
        index, search = sides[label]
        for q in questions:
            search(index, q, where=SEARCH_WHERE)

    report: dict[str, Any] = {}
    stages = (("mask", mask), ("values", compare), ("search", searches))
    for what, run in () if args.where_only else stages:
        for label in sides:  # warm: caches, imports
            run(label)
        cpu: dict[str, list[float]] = {label: [] for label in sides}
        order = list(sides)
        for r in range(args.rounds):
            for label in order if r % 2 == 0 else order[::-1]:
                c0 = time.thread_time()
                run(label)
                cpu[label].append((time.thread_time() - c0) * 1000)
        p50 = {label: float(np.percentile(cpu[label], 50)) for label in sides}
        report[what] = {"before_ms": round(p50["before"], 2), "after_ms": round(p50["after"], 2),
                        "ratio": round(p50["after"] / p50["before"], 3)}
    report["where"] = per_filter(sides, questions[:30], args.rounds)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.index}: both trees in one process, thread CPU p50 of {args.rounds} rounds")
    shown = {"mask": f"{len(FILTERS)} masks made anew", "values":
             f"{len(WANTS)} filters × {len(data):,} values", "search":
             f"{len(questions)} searches with --where {SEARCH_WHERE[0]}"}
    for what, r in report.items():
        if what == "where":
            continue
        print(f"  {shown[what]:42} before {r['before_ms']:9.2f} ms  after "
              f"{r['after_ms']:9.2f} ms  after/before {r['ratio']:.3f}x")

    print(f"  per search, {len(questions[:30])} questions × {args.rounds} rounds, thread CPU ms "
          "p50 / p95 (p50 × the side's unfiltered p50)")
    for where, r in report["where"].items():
        shown_where = where or "(unfiltered)"
        print(f"  {shown_where:30} before {r['before'][0]:7.2f} / {r['before'][1]:7.2f} "
              f"({r['before'][2]:5.2f}×)  after {r['after'][0]:7.2f} / {r['after'][1]:7.2f} "
              f"({r['after'][2]:5.2f}×)")


def per_filter(sides: dict[str, Any], questions: list[str],
               rounds: int) -> dict[str, dict[str, list[float]]]:
    """Per filter of `WHERE_SEARCHES` and side: [p50, p95, p50 / unfiltered p50] of one warm
    search's thread CPU, ms (the sides alternating, each question warmed first)."""
    out: dict[str, dict[str, list[float]]] = {}
    base: dict[str, float] = {}
    for where in WHERE_SEARCHES:
        filters = where.split() or None
        cpu: dict[str, list[float]] = {label: [] for label in sides}
        for index, search in sides.values():  # warm: masks, pages
            for q in questions:
                search(index, q, where=filters)
        order = list(sides)
        for r in range(rounds):
            for q in questions:
                for label in order if r % 2 == 0 else order[::-1]:
                    index, search = sides[label]
                    c0 = time.thread_time()
                    search(index, q, where=filters)
                    cpu[label].append((time.thread_time() - c0) * 1000)
        row = {}
        for label in sides:
            p50 = float(np.percentile(cpu[label], 50))
            base.setdefault(label, p50)
            row[label] = [round(p50, 2), round(float(np.percentile(cpu[label], 95)), 2),
                          round(p50 / base[label], 2)]
        out[where] = row
    return out


if __name__ == "__main__":
    main()
