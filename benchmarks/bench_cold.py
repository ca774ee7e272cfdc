"""Cold `kb query` (a fresh process: start → result → exit) and its peak RSS, English and
Chinese, for this tree and a baseline tree in the same run.

    .venv/bin/python benchmarks/bench_cold.py --before /path/to/main-worktree \\
        [--index dist] [--before-index DIR] [--n 7]

`--before-index` gives the baseline its own index when the two trees read different
release formats (e.g. a baseline from before format 2). Each run is a new interpreter with PYTHONPATH set to the tree under test (same venv, same
index, same questions), alternating the two trees so machine noise hits both alike. Peak RSS
is the child's own `ru_maxrss` (os.wait4). Each tree gets its own KB_HOME, warmed by one
query first (model caches written), as on a device that has answered before.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUESTIONS = {
    "en": ["How do I reset the E17 fault code?", "What is the torque for the pump bolts?",
           "Why use SQLite on devices?", "How often should the return filter be replaced?"],
    "zh": ["E17 报警后怎么复位？", "小麦赤霉病怎么防治？", "回油滤芯多久更换一次？",
           "喷雾机如何校准？"],
}


def run_once(tree: Path, index: str, question: str, home: Path) -> tuple[float, float]:
    """Seconds and peak MiB of one cold `kb query --json`."""
    env = dict(os.environ, PYTHONPATH=str(tree), KB_HOME=str(home), HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "query", question, "--index",
                             index, "--json"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, cwd=tree)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{tree}: kb query failed: {proc.stderr.read().decode()[-500:]}"
                         if proc.stderr else f"{tree}: kb query failed")
    return elapsed, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="baseline tree (e.g. a worktree of main)")
    ap.add_argument("--index", default=str(ROOT / "dist"))
    ap.add_argument("--before-index", help="the baseline's own index (default: --index)")
    ap.add_argument("--n", type=int, default=7, help="runs per tree and language")
    args = ap.parse_args()
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    indexes = {"before": args.before_index or args.index, "after": args.index}
    with tempfile.TemporaryDirectory() as tmp:
        homes = {name: Path(tmp) / name for name in trees}
        for name, tree in trees.items():
            homes[name].mkdir()
            for lang in QUESTIONS:  # warm the per-user model caches once
                run_once(tree, indexes[name], QUESTIONS[lang][0], homes[name])
        for lang, qs in QUESTIONS.items():
            times: dict[str, list[float]] = {n: [] for n in trees}
            peaks: dict[str, list[float]] = {n: [] for n in trees}
            for i in range(args.n):
                for name, tree in trees.items():
                    t, rss = run_once(tree, indexes[name], qs[i % len(qs)], homes[name])
                    times[name].append(t)
                    peaks[name].append(rss)
            b, a = statistics.median(times["before"]), statistics.median(times["after"])
            rb, ra = max(peaks["before"]), max(peaks["after"])
            pb, pa = (_p95(times[n]) for n in ("before", "after"))
            print(f"cold kb query ({lang}): median {a:.2f}s vs before {b:.2f}s "
                  f"(after/before {a / b:.2f}), p95 {pa:.2f}s vs {pb:.2f}s; peak RSS "
                  f"{ra:.0f} MiB vs {rb:.0f} MiB ({args.n} runs each, alternating)")


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


if __name__ == "__main__":
    main()
