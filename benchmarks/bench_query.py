"""Query latency at ~50k chunks (the tidb-docs-cn index made by bench_build.py).

    .venv/bin/python benchmarks/bench_query.py [--index bench-out/tidb/dist] [--n 300]

Warm is a process that has opened the index and warmed it up as `kb serve` does
(`serve.source.warm_up`: models loaded, one question asked, what ranking reads of every chunk
read, the garbage collector settled). Prints warm p50/p95 per query (hybrid, no rerank) and, for comparison in the same run,
BM25-only and vector-only; cold `kb query` process time to first result (median of 5); and
peak RSS of the query process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kbtools.fsutil import read_json_lines  # noqa: E402
from kbtools.index.reader import open_index  # noqa: E402
from kbtools.query.search import search  # noqa: E402
from kbtools.serve.source import warm_up  # noqa: E402

QUESTIONS = ROOT.parent / "shared" / "eval" / "tidb_faq_zh" / "queries.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", default=str(ROOT / "bench-out" / "tidb" / "dist"))
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    qs = [q["query"] for q in read_json_lines(QUESTIONS)]
    qs = (qs * (args.n // len(qs) + 1))[: args.n]
    index = open_index(Path(args.index))
    n_chunks = index.store.count()
    warm_up(index)  # as `kb serve` and `kb mcp` do after opening a release
    for mode in ("hybrid", "bm25", "vector"):
        lat = []
        for q in qs:
            t0 = time.perf_counter()
            search(index, q, k=5, mode=mode)
            lat.append((time.perf_counter() - t0) * 1000)
        print(f"{mode:<7} warm latency at {n_chunks} chunks: p50 {np.percentile(lat, 50):.1f} ms, "
              f"p95 {np.percentile(lat, 95):.1f} ms ({len(lat)} queries)")
    cold = []
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    kb = str(Path(sys.executable).parent / "kb")
    for q in qs[:5]:
        t0 = time.perf_counter()
        subprocess.run([kb, "query", q, "--index", args.index, "--json"], check=True,
                       capture_output=True, env=env)
        cold.append(time.perf_counter() - t0)
    base = []
    for _ in range(5):  # same-run baseline: the interpreter + click start-up alone
        t0 = time.perf_counter()
        subprocess.run([kb, "--version"], check=True, capture_output=True, env=env)
        base.append(time.perf_counter() - t0)
    c, b = statistics.median(cold), statistics.median(base)
    print(f"cold `kb query` process (start → result → exit): median {c:.2f}s; "
          f"`kb --version` in the same run {b:.2f}s (query = {c / b:.1f}× start-up)")
    probe = ("import resource,sys;from pathlib import Path;from kbtools.index.reader import open_index;"
             "from kbtools.query.search import search;i=open_index(Path(sys.argv[1]));search(i,sys.argv[2]);"
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)")
    rss = subprocess.run([sys.executable, "-c", probe, args.index, qs[0]], check=True,
                         capture_output=True, text=True, env=env).stdout.strip()
    print(f"peak RSS of a query process: {float(rss):.0f} MiB")


if __name__ == "__main__":
    main()
