"""Warm query CPU of two code trees in one process, alternating per question.

    .venv/bin/python benchmarks/bench_ab_inprocess.py --before /path/to/old-checkout \
        [--after .] --index bench-out/tidb/dist [--questions F] [--rounds 2] [--json]

`bench_ab.py` runs each tree in its own worker process; on a shared machine whose load
changes from second to second (other builds, test runs), two processes see different
caches and cores, and its ratio of thread CPU moved by ±5% between runs of the same two
trees (session 32, load 7–11 on 2 cores). Here both trees live in one process: each tree's
``kbtools`` package is copied under ``--work`` as ``kbtools_before`` / ``kbtools_after``
(its imports of itself renamed; nothing else of the trees is read), each opens the index
and warms up as `kb serve` does (`serve.source.warm_up`), and every question is searched
by both, one right after the other, the order flipped from question to question. Prints
per side the thread-CPU p50/p95/mean of a search and the ratios, with the median of the
per-question ratios (the same question, the same moment). Wall time is not reported: in
one thread it is the CPU time plus waiting for a core, which both sides share. Which
package is loaded first still weighs: a tree against itself measured 0.96× (session 32,
loaded machine), so run it both ways round and read the two together.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"
# a reference to the package in its own code: `from kbtools.x`, `import kbtools.x`,
# `from kbtools import x` (resource lookups by the name "kbtools" are left alone: they read
# the installed package's data, the same bytes)
SELF = re.compile(r"\bkbtools\b(?=\.[A-Za-z_]| import)")


def copy_package(tree: Path, name: str, work: Path) -> None:
    """`tree`'s kbtools package copied to ``work/name`` with its imports of itself renamed."""
    dest = work / name
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(tree / "kbtools", dest, ignore=shutil.ignore_patterns("__pycache__"))
    for path in dest.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        path.write_text(SELF.sub(name, text), encoding="utf-8")


def side(name: str, index_dir: Path) -> tuple[Any, Any]:
    """(the opened index, the search function) of package `name`, warmed up."""
    index = importlib.import_module(f"{name}.index.reader").open_index(index_dir)
    try:
        importlib.import_module(f"{name}.serve.source").warm_up(index)
    except (ImportError, AttributeError):  # a tree from before warm_up
        pass
    return index, importlib.import_module(f"{name}.query.search").search


# each tree's package, imported under its own name (`copy_package`)
NAMES = {"before": "kbtools_before", "after": "kbtools_after"}


def tree_arguments(rounds: int, work: str) -> argparse.ArgumentParser:
    """The options of a benchmark of two trees in one process (this one's and
    `bench_filters`'), with its default rounds and its folder under bench-out/."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, type=Path, help="checkout of the old code")
    ap.add_argument("--after", default=ROOT, type=Path, help="checkout of the new code")
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=rounds)
    ap.add_argument("--work", default=ROOT / "bench-out" / work, type=Path)
    ap.add_argument("--json", action="store_true")
    return ap


def loaded_trees(args: argparse.Namespace) -> dict[str, tuple[Any, Any]]:
    """Both trees' packages copied under `--work`, importable, each with its index open and
    warm (`side`), by label."""
    args.work.mkdir(parents=True, exist_ok=True)
    for label, name in NAMES.items():
        copy_package(getattr(args, label).resolve(), name, args.work)
    sys.path.insert(0, str(args.work))
    return {label: side(name, args.index.resolve()) for label, name in NAMES.items()}


def main() -> None:
    args = tree_arguments(rounds=2, work="ab-inprocess").parse_args()
    sides = loaded_trees(args)
    questions = [json.loads(line)["query"] for line in
                 args.questions.read_text(encoding="utf-8").split("\n") if line.strip()]
    for index, search in sides.values():  # every question once: warm, as bench_ab's rounds
        for q in questions:
            search(index, q)
    cpu: dict[str, list[float]] = {label: [] for label in sides}
    order = list(sides)
    for r in range(args.rounds):
        for i, q in enumerate(questions):
            for label in order if (i + r) % 2 == 0 else order[::-1]:
                index, search = sides[label]
                c0 = time.thread_time()
                search(index, q)
                cpu[label].append((time.thread_time() - c0) * 1000)
    before, after = np.array(cpu["before"]), np.array(cpu["after"])
    report: dict[str, Any] = {
        label: {"cpu_p50_ms": round(float(np.percentile(a, 50)), 3),
                "cpu_p95_ms": round(float(np.percentile(a, 95)), 3),
                "cpu_mean_ms": round(float(a.mean()), 3), "searches": len(a)}
        for label, a in (("before", before), ("after", after))}
    report["ratio"] = {key: round(report["after"][key] / report["before"][key], 3)
                       for key in ("cpu_p50_ms", "cpu_p95_ms", "cpu_mean_ms")}
    report["ratio"]["median_per_question"] = round(float(np.median(after / before)), 3)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.index}: {len(questions)} questions × {args.rounds} rounds, both trees in "
          "one process, alternating per question")
    for label in ("before", "after"):
        r = report[label]
        print(f"  {label:6} thread CPU p50 {r['cpu_p50_ms']:.3f} ms  p95 {r['cpu_p95_ms']:.3f} ms"
              f"  mean {r['cpu_mean_ms']:.3f} ms")
    q = report["ratio"]
    print(f"  after/before: p50 {q['cpu_p50_ms']:.3f}x  p95 {q['cpu_p95_ms']:.3f}x  mean "
          f"{q['cpu_mean_ms']:.3f}x  median per question {q['median_per_question']:.3f}x")


if __name__ == "__main__":
    main()
