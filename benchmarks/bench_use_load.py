"""Loading the USE model in a fresh process (from its KB_HOME model cache) and embedding one
question, for this tree and a baseline tree alternating in one run: the part of a cold
`kb query` that `kbtools.embed.use_cache` is about, without the rest of the query's noise.

    .venv/bin/python benchmarks/bench_use_load.py --before /path/to/main-worktree [--n 20]

Each tree gets its own KB_HOME, warmed by one load first (its cache written). Prints the
median and p95 seconds of the load and of the question, and the peak RSS of the process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import time
from kbtools.embed import use
emb = use.UseEmbedder()
fingerprint = emb.fingerprint()
t0 = time.perf_counter()
emb.backend()
t1 = time.perf_counter()
emb.embed_question("How do I reset the E17 fault code?")
print(t1 - t0, time.perf_counter() - t1)
"""


def run_once(tree: Path, home: Path) -> tuple[float, float, float]:
    """Load seconds, question seconds and peak MiB of one fresh process."""
    env = dict(os.environ, PYTHONPATH=str(tree), KB_HOME=str(home), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=subprocess.PIPE,
                            cwd=tree)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    if status != 0:
        raise SystemExit(f"{tree}: the child failed")
    load, question = (float(x) for x in out.split())
    return load, question, usage.ru_maxrss / 1024


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True, help="baseline tree (e.g. a worktree of main)")
    ap.add_argument("--n", type=int, default=20, help="runs per tree")
    args = ap.parse_args()
    trees = {"before": Path(args.before).resolve(), "after": ROOT}
    with tempfile.TemporaryDirectory() as tmp:
        homes = {name: Path(tmp) / name for name in trees}
        for name, tree in trees.items():
            run_once(tree, homes[name])  # the model cache written
        got: dict[str, list[tuple[float, float, float]]] = {n: [] for n in trees}
        for _ in range(args.n):
            for name, tree in trees.items():
                got[name].append(run_once(tree, homes[name]))
    for i, what in enumerate(("load", "question")):
        b, a = ([r[i] for r in got[n]] for n in ("before", "after"))
        print(f"USE {what}: median {statistics.median(a):.3f}s vs before "
              f"{statistics.median(b):.3f}s (after/before "
              f"{statistics.median(a) / statistics.median(b):.2f}), p95 {_p95(a):.3f}s vs "
              f"{_p95(b):.3f}s")
    print(f"peak RSS {max(r[2] for r in got['after']):.0f} MiB vs "
          f"{max(r[2] for r in got['before']):.0f} MiB ({args.n} runs each, alternating)")


if __name__ == "__main__":
    main()
