"""Warm query latency of two code trees on one index, interleaved in one run.

    .venv/bin/python benchmarks/bench_ab.py --before /path/to/old-checkout --after . \
        --index bench-out/tidb/dist [--before-index OLD-FORMAT-DIST] [--questions ../shared/eval/tidb_faq_zh/queries.jsonl] \
        [--rounds 6] [--json]

Each tree gets a worker process (its own PYTHONPATH) that opens the index and warms up (as
`kb serve` does, `serve.source.warm_up`, in trees that have it; then 20 questions); the
driver then alternates rounds between them (ABAB…, then BABA…), so both see the same machine
load. The worker started first runs 3-8% slower than the one started second (measured with
the same tree on both sides, 2026-12-02: "after" 0.92-0.99× when started second, 1.03-1.09×
when started first), so the rounds are split in two halves, each with its own pair of
workers started in the other order, and pooled. A checkout of an older commit serves as
"before": `git worktree add /tmp/before REV`.
Prints p50/p95 per side and the after/before ratios, of wall time and of the search thread's
CPU time (on a loaded machine wall time is mostly waiting for a core; CPU time is what the
code costs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"

WORKER = r"""
import json, sys, time
from pathlib import Path
from kbtools.index.reader import open_index
from kbtools.query.search import search
index = open_index(Path(sys.argv[1]))
try:  # warmed up as `kb serve` warms a release, in trees that have it
    from kbtools.serve.source import warm_up
except ImportError:
    warm_up = None
if warm_up is not None:
    warm_up(index)
questions = [json.loads(line)["query"] for line in
             Path(sys.argv[2]).read_text(encoding="utf-8").split("\n") if line.strip()]
for q in questions[:20]:
    search(index, q)
print("ready", flush=True)
for _ in sys.stdin:
    took = []
    for q in questions:
        t0, c0 = time.perf_counter(), time.thread_time()
        search(index, q)
        took.append([(time.perf_counter() - t0) * 1000, (time.thread_time() - c0) * 1000])
    print(json.dumps(took), flush=True)
"""


def interleaved(workers: dict[str, subprocess.Popen[str]],
                rounds: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall and thread-CPU ms per side of every timing the `workers` report, `rounds` times
    (a worker answers "go" with a JSON list of [wall, cpu] pairs), sides alternating: in
    order, then reversed, …; then the workers are closed and waited for."""
    sides = list(workers)
    wall: dict[str, list[float]] = {side: [] for side in sides}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    for r in range(rounds):
        for side in sides if r % 2 == 0 else sides[::-1]:
            proc = workers[side]
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write("go\n")
            proc.stdin.flush()
            for w, c in json.loads(proc.stdout.readline()):
                wall[side].append(w)
                cpu[side].append(c)
    for proc in workers.values():
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait()
    return wall, cpu


def start_workers(args: argparse.Namespace, first: str) -> dict[str, subprocess.Popen[str]]:
    """A warmed-up worker per side, the `first` side's started first; keyed before, after."""
    workers: dict[str, subprocess.Popen[str]] = {}
    for side in (first, "after" if first == "before" else "before"):
        env = dict(os.environ, PYTHONPATH=str(getattr(args, side).resolve()), HF_HUB_OFFLINE="1")
        # cwd = the tree: `python -c` puts the working directory first on sys.path, ahead of
        # PYTHONPATH, so run from elsewhere both workers would import the same kbtools
        index = args.before_index if side == "before" and args.before_index else args.index
        proc = subprocess.Popen([sys.executable, "-c", WORKER, str(index.resolve()),
                                 str(args.questions.resolve())], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=env,
                                cwd=getattr(args, side).resolve())
        assert proc.stdout is not None and proc.stdin is not None
        if proc.stdout.readline().strip() != "ready":
            sys.exit(f"bench_ab: the {side} worker failed to open {index}")
        workers[side] = proc
    return {side: workers[side] for side in ("before", "after")}


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, type=Path, help="checkout of the old code")
    ap.add_argument("--after", default=ROOT, type=Path, help="checkout of the new code")
    ap.add_argument("--index", required=True, type=Path)
    ap.add_argument("--before-index", type=Path,
                    help="the same content built by the old code, when the release format "
                         "changed between the two (default: --index)")
    ap.add_argument("--questions", default=QUESTIONS, type=Path)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    took: dict[str, list[float]] = {"before": [], "after": []}
    cpu: dict[str, list[float]] = {"before": [], "after": []}
    # the after/before p50 ratio of each half: how much the start order weighs
    halves: dict[str, float | None] = {"before first": None, "after first": None}
    for first, rounds in (("before", (args.rounds + 1) // 2), ("after", args.rounds // 2)):
        if rounds:
            wall_half, cpu_half = interleaved(start_workers(args, first), rounds)
            for side in took:
                took[side] += wall_half[side]
                cpu[side] += cpu_half[side]
            halves[f"{first} first"] = round(quantile(wall_half["after"], 0.5)
                                             / quantile(wall_half["before"], 0.5), 2)
    report = {side: {"p50_ms": round(quantile(v, 0.5), 2), "p95_ms": round(quantile(v, 0.95), 2),
                     "cpu_p50_ms": round(quantile(cpu[side], 0.5), 2),
                     "cpu_p95_ms": round(quantile(cpu[side], 0.95), 2),
                     "queries": len(v)} for side, v in took.items()}
    report["ratio"] = {k: round(report["after"][k] / report["before"][k], 2)
                       for k in ("p50_ms", "p95_ms", "cpu_p50_ms", "cpu_p95_ms")}
    report["p50_ratio_by_start_order"] = halves
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.index}: {report['before']['queries']} warm queries per side, "
          f"interleaved over {args.rounds} rounds (half of them with each side's worker "
          "started first)")
    for side in ("before", "after"):
        r = report[side]
        print(f"  {side:6} p50 {r['p50_ms']:.2f} ms  p95 {r['p95_ms']:.2f} ms   (thread CPU: "
              f"p50 {r['cpu_p50_ms']:.2f} ms  p95 {r['cpu_p95_ms']:.2f} ms)")
    ratio = report["ratio"]
    print(f"  after/before: p50 {ratio['p50_ms']:.2f}x  p95 {ratio['p95_ms']:.2f}x   (CPU: p50 "
          f"{ratio['cpu_p50_ms']:.2f}x  p95 {ratio['cpu_p95_ms']:.2f}x)")
    print("  p50 ratio of each half: " + ", ".join(
        f"{ratio_half:.2f}x with {first.split()[0]}'s worker started first"
        for first, ratio_half in halves.items() if ratio_half is not None))


if __name__ == "__main__":
    main()
